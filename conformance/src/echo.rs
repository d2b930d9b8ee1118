//! The echo contract (`cases/README.md`) served in process by h1-conn's
//! server role: the server the in-process runner judges. It answers as
//! h1's `echo` example does over a socket (`h1-conn/examples/echo.rs`), so
//! a live run against that example must reach the same verdicts; the
//! conformance tests check that it does.

use h1_conn::{Config, SendError, ServerConn, ServerEvent};
use h1_encode::{DateLine, Framing};
use h1_headers::{list_contains, list_elements};
use h1_parse::{Method, Version};

use crate::heads::Sent;
use crate::observe::Seen;

/// The `Server` field of the echo server's answers, as h1's `echo` example
/// sends it: the mark by which a live run knows the target is h1 (so that
/// h1's declared deviations apply).
pub const SERVER: &[u8] = b"h1-echo";

/// The connection settings of the echo contract: h1's defaults, with
/// bodies limited to 1 MiB (the echo server holds a body whole). The
/// defaults do the rest of the contract's `Expect` handling: `100 Continue`
/// when the body is awaited, and 417 then close for an unknown expectation.
pub fn config() -> Config {
    let mut config = Config::default();
    config.max_body_len = 1 << 20;
    config
}

/// An echo server over one in-memory connection.
pub struct EchoServer {
    conn: ServerConn,
    /// The request being received.
    current: Option<Current>,
    seen: Vec<Seen>,
    /// The heads read of messages not refused on the head alone (see
    /// [`heads_read`]).
    sent: Vec<Sent>,
    /// The step of the case being given (see [`EchoServer::set_step`]).
    step: usize,
    done: bool,
}

struct Current {
    seen: Seen,
    connect: bool,
    /// A websocket upgrade: answered 101.
    websocket: bool,
}

impl EchoServer {
    /// A server with these settings (see [`config`]).
    pub fn new(config: Config) -> EchoServer {
        let mut conn = ServerConn::new(config);
        // A fixed date: runs are compared byte for byte.
        conn.set_date(DateLine::new(b"Sun, 06 Nov 1994 08:49:37 GMT").expect("a valid date"));
        EchoServer {
            conn,
            current: None,
            seen: Vec::new(),
            sent: Vec::new(),
            step: 0,
            done: false,
        }
    }

    /// The bytes given from now on are the case's step `step`.
    pub fn set_step(&mut self, step: usize) {
        self.step = step;
    }

    /// Gives the server `data` from the client; returns what it wrote.
    pub fn input(&mut self, mut data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        while !self.done {
            let read = self.events(&mut out);
            if read {
                if data.is_empty() {
                    break;
                }
                let n = self.conn.feed(data);
                data = &data[n..];
            }
        }
        out
    }

    /// The client closed its sending side; returns what the server wrote.
    pub fn eof(&mut self) -> Vec<u8> {
        let mut out = Vec::new();
        if !self.done {
            self.conn.eof();
            while !self.done && !self.events(&mut out) {}
            // Waiting for bytes after EOF: the connection is over.
            self.done = true;
        }
        out
    }

    /// The server closed (or would close) the connection.
    pub fn closed(&self) -> bool {
        self.done
    }

    /// The requests whose heads the server read, in order.
    pub fn seen(&self) -> &[Seen] {
        &self.seen
    }

    /// Handles events until the connection needs bytes (true) or paused
    /// for its output to be written (false); `done` when it closes.
    fn events(&mut self, out: &mut Vec<u8>) -> bool {
        loop {
            let ev = self.conn.next_event();
            let step = self.handle(ev);
            let written = self.conn.out().len();
            out.extend_from_slice(self.conn.out());
            self.conn.written(written);
            match step {
                Ok(Step::Continue) => {}
                Ok(Step::Read) => return true,
                // A pause waits for output to be written; with nothing to
                // write the server would spin (echo.rs gives up the
                // connection the same way).
                Ok(Step::Again) if written > 0 => return false,
                Ok(Step::Again) | Ok(Step::Done) | Err(_) => {
                    self.done = true;
                    return false;
                }
            }
        }
    }

    fn handle(&mut self, ev: ServerEvent) -> Result<Step, SendError> {
        match ev {
            ServerEvent::Request(req) => {
                let got = self.conn.received();
                let method = req.head.method.slice(got).to_vec();
                let fields = self
                    .conn
                    .fields()
                    .map(|f| f.iter().map(|(n, v)| (n.to_vec(), v.to_vec())).collect())
                    .unwrap_or_default();
                let http10 = req.version() == Version::Http10;
                let target = req.head.target.slice(got).to_vec();
                // What Upgrade offers, when Connection lists `upgrade`: any
                // protocol at all (an empty field asks for nothing, RFC 9110
                // §7.8), and websocket, the one this server switches to.
                let (protocols, websocket) =
                    match self.conn.fields().and_then(|f| f.get(b"upgrade")) {
                        Some(v) if req.upgrade => (
                            list_elements(v).next().is_some(),
                            list_contains(v, b"websocket"),
                        ),
                        _ => (false, false),
                    };
                // Declared heads are those of messages not refused on their
                // head alone: this server refuses an https target (421)
                // from the head, and the connection an unknown expectation
                // (417, then close: such a request is never delivered).
                if !https_target(&target) {
                    self.sent.push(Sent {
                        method: method.clone(),
                        target: target.clone(),
                        http10,
                        upgrade: protocols,
                        close: !req.persistent,
                        step: self.step,
                    });
                }
                let cur = Current {
                    seen: Seen {
                        target,
                        method,
                        version: if http10 { "HTTP/1.0" } else { "HTTP/1.1" },
                        fields,
                        body: Vec::new(),
                    },
                    connect: req.method() == Method::Connect,
                    websocket,
                };
                // `Expect: 100-continue`: the connection writes the 100
                // by itself when it waits for the body (Config::auto_continue).
                self.current = Some(cur);
            }
            ServerEvent::Data(span) => {
                let data = span.slice(self.conn.received());
                if let Some(cur) = self.current.as_mut() {
                    cur.seen.body.extend_from_slice(data);
                }
            }
            ServerEvent::End => {
                let cur = self.current.take().expect("End follows a head");
                if cur.websocket {
                    let mut r = self.conn.respond(101, Framing::Empty)?;
                    r.field(b"Upgrade", b"websocket")?;
                    r.field(b"Connection", b"upgrade")?;
                    r.finish()?;
                } else {
                    let (status, body): (u16, &[u8]) = if cur.connect {
                        (501, b"")
                    } else if https_target(&cur.seen.target) {
                        // RFC 9110 §7.4: not secured for an "https" resource.
                        (421, b"")
                    } else {
                        (200, &cur.seen.body)
                    };
                    match self.conn.respond_with(status, echo_fields(&cur.seen), body) {
                        Err(SendError::Encode(_)) => {
                            self.conn
                                .respond_with(500, [("x-echo-error", "target")], b"")?
                        }
                        other => other?,
                    }
                }
                self.seen.push(cur.seen);
            }
            // An error is answered by the connection itself.
            ServerEvent::Trailers(_) | ServerEvent::Error(_) => {}
            ServerEvent::NeedMore => return Ok(Step::Read),
            ServerEvent::Paused(_) => return Ok(Step::Again),
            _ => return Ok(Step::Done),
        }
        Ok(Step::Continue)
    }
}

enum Step {
    Continue,
    Read,
    Again,
    Done,
}

/// An absolute-form target of the `https` scheme (case-insensitive).
fn https_target(target: &[u8]) -> bool {
    target
        .get(..8)
        .is_some_and(|s| s.eq_ignore_ascii_case(b"https://"))
}

fn echo_fields(seen: &Seen) -> [(&[u8], &[u8]); 4] {
    [
        (b"x-echo-method", &seen.method),
        (b"x-echo-target", &seen.target),
        (b"x-echo-version", seen.version.as_bytes()),
        (b"server", SERVER),
    ]
}

/// The requests whose heads h1 reads from the case's bytes (the echo
/// server's view, whatever it answers): what `--write-heads` declares in
/// `cases/heads.jsonl`, and what a test checks h1 still reads. The judge
/// and the reader use the declared heads, not this.
pub fn heads_read(case: &crate::case::Case) -> Vec<Sent> {
    let mut server = EchoServer::new(config());
    for (i, step) in case.steps.iter().enumerate() {
        server.set_step(i);
        server.input(step);
    }
    server.sent
}
