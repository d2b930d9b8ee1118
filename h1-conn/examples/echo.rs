//! An echo server over [`h1_conn::ServerConn`]: the reference server the
//! integration tests (`tests/interop.rs`) run real clients against.
//!
//! ```text
//! cargo run --release -p h1-conn --example echo -- --addr 127.0.0.1:8080
//! curl -sS -i --data-binary 'hello' http://127.0.0.1:8080/any/target?x=1
//! ```
//!
//! It prints `listening on ADDR` (the address it bound: `--addr
//! 127.0.0.1:0` picks a free port) once it accepts connections. Every
//! request is answered `200` with the request body, de-chunked, as the
//! response body (with `Content-Length`), and the fields `x-echo-method`,
//! `x-echo-target` (the request-target as received), `x-echo-version`
//! (`HTTP/1.1` or `HTTP/1.0`) and `Server: h1-echo`. Exceptions:
//!
//! - A websocket upgrade (`Connection: upgrade` and `Upgrade: websocket` in
//!   an HTTP/1.1 request) gets `101 Switching Protocols`, once the request
//!   is read; then the connection closes, since echo speaks no websocket.
//!   Other upgrades are declined: the request is answered as any other and
//!   the connection stays HTTP/1.1.
//! - A request for an `https` resource (an absolute-form target of that
//!   scheme) gets `421 Misdirected Request`: this connection is not secured
//!   for it (RFC 9110 §7.4).
//! - `CONNECT` gets `501` (with the same fields and an empty body): a 2xx
//!   to CONNECT would turn the connection into a tunnel (RFC 9110 §9.3.6),
//!   which this server does not provide.
//! - Requests the codec refuses (malformed, over a limit) get the status the
//!   connection queues itself, with `Connection: close`. Among them an
//!   `Expect` other than `100-continue`: `417` at once, without the body
//!   being read ([`Config::refuse_unknown_expect`]).
//!
//! The connection does the rest of what the protocol asks by itself:
//! `Expect: 100-continue` gets `100 Continue` when the body is read
//! ([`Config::auto_continue`]), and every response a `Date`
//! ([`Config::send_date`]).
//!
//! Bodies are limited to 1 MiB ([`Config::max_body_len`], then `413`),
//! since each connection holds its request body whole. One thread per
//! connection, at most [`MAX_CONNECTIONS`]: beyond that a new connection is
//! closed at once. An idle connection ends after [`IDLE_TIMEOUT`].

#[path = "common/listen.rs"]
mod listen;

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use h1_conn::headers::list_contains;
use h1_conn::{
    Closing, Config, Framing, Method, Pause, SendError, ServerConn, ServerEvent, Version,
};

/// The `Server` field of echo's answers: it tells the conformance runner
/// that declared h1 deviations apply.
const SERVER: &[u8] = b"h1-echo";

/// Most connections served at once (one thread each).
pub(crate) const MAX_CONNECTIONS: usize = 256;
/// A connection that sends nothing for this long is closed, so a silent
/// client cannot hold a thread forever.
pub(crate) const IDLE_TIMEOUT: Duration = Duration::from_secs(30);
/// A client that stops reading cannot block a write longer than this.
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);

/// The connection settings echo uses.
pub(crate) fn config() -> Config {
    let mut config = Config::default();
    // The whole body is kept until the response: bound what a connection
    // can make the server hold (256 connections × 1 MiB).
    config.max_body_len = 1 << 20;
    config
}

fn main() {
    let listener = listen::listen("echo");
    if let Err(e) = serve(listener) {
        eprintln!("echo: {e}");
        std::process::exit(1);
    }
}

/// Accepts connections until the listener fails; one thread each.
pub(crate) fn serve(listener: TcpListener) -> io::Result<()> {
    let active = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        let stream = match stream {
            Ok(s) => s,
            Err(e) => {
                // Out of descriptors, or the peer gave up before accept:
                // back off instead of spinning, then keep serving.
                eprintln!("echo: accept: {e}");
                thread::sleep(Duration::from_millis(10));
                continue;
            }
        };
        if active.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
            active.fetch_sub(1, Ordering::SeqCst);
            // Full: closing at once is the cheapest refusal.
            drop(stream);
            continue;
        }
        let slot = Slot(Arc::clone(&active));
        // When the spawn fails the closure, and the slot with it, is
        // dropped: the count stays right.
        let spawned = thread::Builder::new()
            .name("echo-conn".into())
            .spawn(move || {
                let _slot = slot;
                // I/O errors (resets, timeouts) are the peer's business; a
                // refused response or a stuck connection is a bug in this
                // server or the crate.
                match serve_conn(stream) {
                    Err(ConnError::Send(e)) => eprintln!("echo: response refused: {e:?}"),
                    Err(ConnError::Stuck(why)) => {
                        eprintln!("echo: paused ({why:?}) with no response to finish");
                    }
                    Ok(()) | Err(ConnError::Io) => {}
                }
            });
        if let Err(e) = spawned {
            eprintln!("echo: cannot start a thread: {e}");
        }
    }
    Ok(())
}

/// One place in the connection count, given back when the thread ends.
struct Slot(Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Why a connection ended early: the peer (reset, timeout: nothing to
/// report), or a response the crate refused or a pause with no response
/// to finish (a bug somewhere).
enum ConnError {
    Io,
    Send(SendError),
    Stuck(Pause),
}

impl From<io::Error> for ConnError {
    fn from(_: io::Error) -> ConnError {
        ConnError::Io
    }
}

impl From<SendError> for ConnError {
    fn from(e: SendError) -> ConnError {
        ConnError::Send(e)
    }
}

/// The request being received. Its spans die with the next read, so what
/// the response needs is copied out at its head, into buffers the
/// connection reuses.
#[derive(Default)]
struct Current {
    method: Vec<u8>,
    target: Vec<u8>,
    body: Vec<u8>,
    http10: bool,
    connect: bool,
    /// A websocket upgrade: answered 101.
    websocket: bool,
}

/// What the driver does after the events that can be handled now.
enum Step {
    /// Write `out()`, then read.
    Read,
    /// Write `out()`, then ask for events again (the connection paused for
    /// the output to be written).
    Again,
    /// Write `out()`, then close as `closing()` says.
    Done,
    /// Paused for a response to be finished, but echo answers every request
    /// at its end: none is left to finish.
    Stuck(Pause),
}

fn serve_conn(mut stream: TcpStream) -> Result<(), ConnError> {
    stream.set_nodelay(true)?;
    stream.set_read_timeout(Some(IDLE_TIMEOUT))?;
    stream.set_write_timeout(Some(WRITE_TIMEOUT))?;
    let mut conn = ServerConn::new(config());
    let mut current = Current::default();
    loop {
        let step = handle_events(&mut conn, &mut current)?;
        // Every response of the batch in one write.
        let out = conn.out();
        let wrote = out.len();
        stream.write_all(out)?;
        conn.written(wrote);
        match step {
            Step::Read => {
                let n = loop {
                    match stream.read(conn.read_buf()) {
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        // A timeout (idle client) ends the connection too.
                        other => break other?,
                    }
                };
                if n == 0 {
                    conn.eof();
                } else {
                    conn.filled(n);
                }
            }
            // Writing is what a pause waits for; when there was nothing to
            // write, asking again would spin.
            Step::Again if wrote > 0 => {}
            Step::Again => {
                let e = io::Error::other("paused with nothing to write");
                return Err(e.into());
            }
            Step::Done => return close(stream, conn.closing()).map_err(Into::into),
            Step::Stuck(why) => return Err(ConnError::Stuck(why)),
        }
    }
}

fn handle_events(conn: &mut ServerConn, cur: &mut Current) -> Result<Step, SendError> {
    loop {
        match conn.next_event() {
            ServerEvent::Request(req) => {
                let got = conn.received();
                cur.method.clear();
                cur.method.extend_from_slice(req.head.method.slice(got));
                cur.target.clear();
                cur.target.extend_from_slice(req.head.target.slice(got));
                cur.body.clear();
                cur.http10 = req.version() == Version::Http10;
                cur.connect = req.method() == Method::Connect;
                cur.websocket = req.upgrade
                    && conn
                        .fields()
                        .and_then(|f| f.get(b"upgrade"))
                        .is_some_and(|v| list_contains(v, b"websocket"));
            }
            ServerEvent::Data(span) => cur.body.extend_from_slice(span.slice(conn.received())),
            ServerEvent::Trailers(_) => {}
            ServerEvent::End => answer(conn, cur)?,
            ServerEvent::NeedMore => return Ok(Step::Read),
            ServerEvent::Paused(Pause::OutputFull) => return Ok(Step::Again),
            // The other pauses wait for a response to be finished; echo
            // finishes each one at its request's end.
            ServerEvent::Paused(why) => return Ok(Step::Stuck(why)),
            // The connection has queued its answer (status, close).
            ServerEvent::Error(_) => {}
            // After a 101 the socket leaves HTTP/1.1; echo has nothing to
            // say in websocket, so it closes.
            ServerEvent::Switch(_) | ServerEvent::Closed => return Ok(Step::Done),
            // Any event added later: nothing echo knows.
            _ => return Ok(Step::Done),
        }
    }
}

fn echo_fields(cur: &Current) -> [(&[u8], &[u8]); 4] {
    let version: &[u8] = if cur.http10 { b"HTTP/1.0" } else { b"HTTP/1.1" };
    [
        (b"x-echo-method", &cur.method),
        (b"x-echo-target", &cur.target),
        (b"x-echo-version", version),
        (b"server", SERVER),
    ]
}

fn answer(conn: &mut ServerConn, cur: &Current) -> Result<(), SendError> {
    if cur.websocket {
        let mut r = conn.respond(101, Framing::Empty)?;
        r.field(b"Upgrade", b"websocket")?;
        r.field(b"Connection", b"upgrade")?;
        return r.finish().map(|_| ());
    }
    let (status, body): (u16, &[u8]) = if cur.connect {
        (501, b"")
    } else if https_target(&cur.target) {
        // RFC 9110 §7.4: a request for an "https" resource received over a
        // connection that is not secured for it MUST be rejected.
        (421, b"")
    } else {
        (200, &cur.body)
    };
    match conn.respond_with(status, echo_fields(cur), body) {
        // A target the parser accepts but a field value may not hold:
        // answer without echoing it rather than drop the connection.
        Err(SendError::Encode(_)) => conn.respond_with(500, [("x-echo-error", "target")], b""),
        other => other,
    }
}

/// An absolute-form target of the `https` scheme (case-insensitive, RFC
/// 3986 §3.1).
fn https_target(target: &[u8]) -> bool {
    target
        .get(..8)
        .is_some_and(|s| s.eq_ignore_ascii_case(b"https://"))
}

/// Closes as RFC 9112 §9.6 asks: when the peer may still be sending, shut
/// down writing and drain (bounded) so that its unread bytes do not make
/// its stack reset the connection before it reads the last response.
fn close(mut stream: TcpStream, closing: Closing) -> io::Result<()> {
    let Closing::Linger { bytes, time } = closing else {
        return Ok(());
    };
    stream.shutdown(Shutdown::Write)?;
    let deadline = Instant::now() + time;
    let mut left = bytes;
    let mut sink = [0u8; 4096];
    while left > 0 {
        let now = Instant::now();
        if now >= deadline {
            break;
        }
        stream.set_read_timeout(Some(deadline - now))?;
        match stream.read(&mut sink) {
            Ok(0) => break,
            Ok(n) => left = left.saturating_sub(n as u64),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    Ok(())
}
