//! h1's user agent: a small HTTP/1.1 client on h1-conn's client role
//! ([`ClientConn`]), over any transport ([`Dial`]). The in-process runner
//! drives it over the test server in memory; h1's client example
//! (`examples/client.rs`) drives it over TCP and prints its records as the
//! client report contract says. What it does beyond the state machine is
//! what any user agent on `ClientConn` has to do:
//!
//! - it turns on the one leniency RFC 9112 asks of a user agent: obs-fold
//!   in a response is accepted and replaced with SP before a value is used
//!   (§5.2: "A user agent that receives an obs-fold in a response message
//!   ... MUST replace each received obs-fold with one or more SP octets");
//!   the strict default, which refuses it, is a proxy's choice (a 502);
//! - it reuses a connection only while the last response said it persists,
//!   and before reusing it looks for bytes the server sent since: data on
//!   a connection with no request outstanding is no response (§9.2), and
//!   a connection the server closed is not reused (§9.5);
//! - after an error it drops the connection (§6.3: a user agent "MUST
//!   close the connection to the server and discard the received
//!   response");
//! - a request with an idempotent method that went on a reused connection
//!   which the server closed before any part of a response arrived is
//!   repeated once, on a new connection (RFC 9110 §9.2.2: the server may
//!   have closed the idle connection as the request went out, §9.5);
//!   nothing else is retried.

use std::io;

use h1_conn::{ClientConn, ClientEvent, Config, Framing};

use crate::client::observe::Record;

/// A request the agent is asked to make.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// Its method.
    pub method: Vec<u8>,
    /// Its request-target (origin-form).
    pub target: Vec<u8>,
    /// Its content, sent with `Content-Length`.
    pub body: Option<Vec<u8>>,
}

/// Opens connections to the server.
pub trait Dial {
    /// A connection.
    type Conn: Transport;
    /// Opens one.
    fn dial(&mut self) -> io::Result<Self::Conn>;
}

/// One connection's bytes, both ways.
pub trait Transport {
    /// Sends all of `bytes`.
    fn send(&mut self, bytes: &[u8]) -> io::Result<()>;
    /// Receives some bytes, waiting for them up to the transport's
    /// timeout (`TimedOut` or `WouldBlock` then); 0 when the server closed.
    fn recv(&mut self, buf: &mut [u8]) -> io::Result<usize>;
    /// Receives bytes already there, without waiting: `None` when there
    /// are none (yet); `Some(0)` when the server closed.
    fn poll(&mut self, buf: &mut [u8]) -> io::Result<Option<usize>>;
}

/// The agent's connection settings: h1's defaults, with obs-fold accepted
/// (and replaced before use, as RFC 9112 §5.2 requires of a user agent).
pub fn config() -> Config {
    let mut config = Config::default();
    config.parse.allow_obs_fold = true;
    config
}

/// A user agent with at most one open connection.
pub struct Agent<D: Dial> {
    dial: D,
    config: Config,
    host: Vec<u8>,
    open: Option<Open<D::Conn>>,
}

struct Open<C> {
    io: C,
    conn: ClientConn,
}

impl<D: Dial> Agent<D> {
    /// An agent that connects with `dial`, sends `host` as `Host` and
    /// reads with `config` (see [`config`]).
    pub fn new(dial: D, host: &[u8], config: Config) -> Agent<D> {
        Agent {
            dial,
            config,
            host: host.to_vec(),
            open: None,
        }
    }

    /// Makes `req` and reads its response: what it concluded.
    pub fn fetch(&mut self, req: &Request) -> Record {
        self.check_reusable();
        let reused = self.open.is_some();
        let (record, silent) = self.attempt(req);
        if reused && silent && idempotent(&req.method) {
            return self.attempt(req).0;
        }
        record
    }

    /// One attempt at `req`: what the agent concluded, and whether the
    /// connection ended without a byte of a response.
    fn attempt(&mut self, req: &Request) -> (Record, bool) {
        let mut open = match self.open.take() {
            Some(o) => o,
            None => match self.dial.dial() {
                Ok(io) => Open {
                    io,
                    conn: ClientConn::new(self.config.clone()),
                },
                Err(e) => return (Record::error(format!("cannot connect: {e}")), false),
            },
        };
        if let Err(why) = send(&mut open, req, &self.host) {
            return (Record::error(why), true);
        }
        let mut got = 0;
        let (record, persistent) = receive(&mut open, &mut got);
        if persistent {
            // Bytes after the response, with no request outstanding, are
            // no response (RFC 9112 §9.2): the connection is not reused.
            if drain(&mut open.conn) {
                self.open = Some(open);
            }
        }
        let silent = got == 0 && record.error.is_some();
        (record, silent)
    }

    /// Keeps the open connection only if it can carry another request:
    /// the server sent nothing since the last response and did not close.
    fn check_reusable(&mut self) {
        let Some(open) = self.open.as_mut() else {
            return;
        };
        let mut buf = [0u8; 4096];
        let reusable = loop {
            match open.io.poll(&mut buf) {
                Ok(None) => break true,
                Ok(Some(0)) | Err(_) => break false,
                Ok(Some(n)) => {
                    let _ = open.conn.feed(&buf[..n]);
                    if !drain(&mut open.conn) {
                        break false;
                    }
                }
            }
        };
        if !reusable {
            self.open = None;
        }
    }
}

/// Sends `req` on `open`.
fn send<C: Transport>(open: &mut Open<C>, req: &Request, host: &[u8]) -> Result<(), String> {
    let conn = &mut open.conn;
    let body = match &req.body {
        Some(b) => Framing::Length(b.len() as u64),
        None => Framing::Empty,
    };
    conn.request(&req.method, &req.target, Some(host), body)
        .and_then(|r| r.finish())
        .map_err(|e| format!("cannot send the request: {e}"))?;
    if let Some(b) = &req.body {
        if !b.is_empty() {
            conn.send_data(b)
                .and_then(|()| conn.send_end())
                .map_err(|e| format!("cannot send the request: {e}"))?;
        }
    }
    open.io
        .send(conn.out())
        .map_err(|e| format!("cannot send the request: {e}"))?;
    let n = conn.out().len();
    conn.written(n);
    Ok(())
}

/// Reads the response to the request just sent: the record, and whether
/// the connection persists; `got` counts the bytes read.
fn receive<C: Transport>(open: &mut Open<C>, got: &mut usize) -> (Record, bool) {
    let mut rec = Record::default();
    let Open { io, conn } = open;
    loop {
        match conn.next_event() {
            ClientEvent::Interim(r) => rec.interim.push(r.status()),
            ClientEvent::Response(r) => {
                rec.status = Some(r.status());
                rec.body = Some(Vec::new());
                rec.fields = conn
                    .fields()
                    .map(|f| {
                        f.iter()
                            .map(|(n, v)| (n.to_vec(), unfolded(v, r.head.obs_fold)))
                            .collect()
                    })
                    .unwrap_or_default();
                // Read to its end; the connection persists only when the
                // response says so (RFC 9112 §9.3, §9.6).
                let (rec, complete) = finish(rec, io, conn, got);
                return (rec, complete && r.persistent);
            }
            ClientEvent::NeedMore => {
                if let Err(why) = read(io, conn, got) {
                    rec.error = Some(why);
                    return (rec, false);
                }
            }
            ClientEvent::Error(e) => {
                rec.error = Some(e.to_string());
                return (rec, false);
            }
            ClientEvent::Closed => {
                rec.error = Some("the connection closed before a response".into());
                return (rec, false);
            }
            other => {
                rec.error = Some(format!("unexpected before a response: {other:?}"));
                return (rec, false);
            }
        }
    }
}

/// Reads the body of the response whose head is in `rec`, to its end.
fn finish<C: Transport>(
    mut rec: Record,
    io: &mut C,
    conn: &mut ClientConn,
    got: &mut usize,
) -> (Record, bool) {
    loop {
        match conn.next_event() {
            ClientEvent::Data(span) => rec
                .body
                .get_or_insert_with(Vec::new)
                .extend_from_slice(span.slice(conn.received())),
            ClientEvent::Trailers(_) => {
                rec.trailers = conn
                    .trailers()
                    .map(|t| t.iter().map(|(n, v)| (n.to_vec(), v.to_vec())).collect())
                    .unwrap_or_default();
            }
            ClientEvent::End => return (rec, true),
            ClientEvent::NeedMore => {
                if let Err(why) = read(io, conn, got) {
                    rec.error = Some(why);
                    return (rec, false);
                }
            }
            ClientEvent::Error(e) => {
                rec.error = Some(e.to_string());
                return (rec, false);
            }
            // The response switched protocols: nothing more is HTTP/1.1.
            ClientEvent::Switch(_) => return (rec, false),
            other => {
                rec.error = Some(format!("unexpected in a response: {other:?}"));
                return (rec, false);
            }
        }
    }
}

/// Reads once from `io` into `conn`, adding to `got` what it read.
fn read<C: Transport>(io: &mut C, conn: &mut ClientConn, got: &mut usize) -> Result<(), String> {
    let buf = conn.read_buf();
    if buf.is_empty() {
        return Err("the receive buffer is full".into());
    }
    match io.recv(buf) {
        Ok(0) => {
            conn.eof();
            Ok(())
        }
        Ok(n) => {
            conn.filled(n);
            *got += n;
            Ok(())
        }
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
            ) =>
        {
            Err("timed out waiting for the server".into())
        }
        Err(e) => Err(format!("cannot read: {e}")),
    }
}

/// RFC 9110 §9.2.2: PUT, DELETE and the safe methods.
fn idempotent(method: &[u8]) -> bool {
    [
        &b"GET"[..],
        b"HEAD",
        b"OPTIONS",
        b"TRACE",
        b"PUT",
        b"DELETE",
    ]
    .contains(&method)
}

/// After a response, with no request outstanding: whether the connection
/// is still clean (no bytes but what it can wait for).
fn drain(conn: &mut ClientConn) -> bool {
    matches!(conn.next_event(), ClientEvent::NeedMore)
}

/// A field value as a user agent uses it: with obs-fold, every CR and LF
/// of the folds becomes SP (RFC 9112 §5.2).
fn unfolded(value: &[u8], folded: bool) -> Vec<u8> {
    if !folded {
        return value.to_vec();
    }
    value
        .iter()
        .map(|&b| if b == b'\r' || b == b'\n' { b' ' } else { b })
        .collect()
}
