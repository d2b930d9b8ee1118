//! The fastest shape of a server over [`h1_conn::ServerConn`]: one thread,
//! non-blocking sockets on epoll (through `mio`), answering TechEmpower's
//! plaintext test.
//!
//! ```text
//! cargo run --release -p h1-conn --example hello -- --addr 127.0.0.1:8080
//! h2load --h1 -m 16 -n 100000 -c 8 http://127.0.0.1:8080/plaintext
//! ```
//!
//! It prints `listening on ADDR` once bound (`--addr 127.0.0.1:0` picks a
//! free port). `GET /plaintext` (and `HEAD`) gets `Hello, World!` with
//! `Content-Type: text/plain`, `Content-Length`, `Date` and `Server`;
//! other methods on it get `405`, other targets `404`.
//!
//! Every request parsed from one read is answered before the next read, and
//! the answers go out in one write: a pipelined batch costs one `read` and
//! one `write`. When a write would block, the rest waits for the socket to
//! become writable and reading stops until it is all written, so a client
//! that pipelines without reading cannot make the server buffer without
//! bound. Idle connections end after [`IDLE_TIMEOUT`]; at most
//! [`MAX_CONNECTIONS`] are served at once.

#[path = "common/listen.rs"]
mod listen;

use std::io::{self, Read, Write};
use std::net::Shutdown;
use std::time::{Duration, Instant};

use h1_conn::{
    Closing, Config, DateCache, DateLine, Framing, Method, Pause, PreEncoded, SendError, SendState,
    ServerConn, ServerEvent,
};
use mio::net::{TcpListener, TcpStream};
use mio::{Events, Interest, Poll, Token};

/// Most connections served at once; beyond, new ones are closed at once.
pub(crate) const MAX_CONNECTIONS: usize = 16_384;
/// A connection that sends nothing for this long is closed.
pub(crate) const IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// How often idle and lingering connections are looked for.
const TICK: Duration = Duration::from_secs(1);
/// Reads one connection may do per turn, so that one busy client cannot
/// starve the others; it is taken up again on the next turn.
const READS_PER_TURN: usize = 16;
const LISTENER: Token = Token(usize::MAX);
/// The connections' settings: the defaults, but the `Date` line comes from
/// the event loop (see [`serve`]), so a connection keeps no clock of its
/// own.
const CONFIG: Config = {
    let mut config = Config::DEFAULT;
    config.send_date = false;
    config
};
const BODY: &[u8] = b"Hello, World!";

fn main() {
    let listener = listen::listen("hello");
    if let Err(e) = serve(listener) {
        eprintln!("hello: {e}");
        std::process::exit(1);
    }
}

/// The field lines every response carries, encoded and checked once.
struct Fixed {
    plaintext: PreEncoded,
    not_found: PreEncoded,
    not_allowed: PreEncoded,
}

impl Fixed {
    fn new() -> Fixed {
        let make = |fields: &[(&str, &str)]| {
            PreEncoded::new(fields.iter().copied()).expect("valid constant fields")
        };
        Fixed {
            plaintext: make(&[("Server", "h1"), ("Content-Type", "text/plain")]),
            not_found: make(&[("Server", "h1")]),
            not_allowed: make(&[("Server", "h1"), ("Allow", "GET, HEAD")]),
        }
    }
}

/// What the request being received gets, decided at its head (its spans
/// are gone by the time its body has been read).
#[derive(Clone, Copy)]
enum Answer {
    Plaintext,
    NotFound,
    NotAllowed,
}

enum Phase {
    Open,
    /// Writing is shut down; draining until `until` or `left` bytes.
    Linger {
        until: Instant,
        left: u64,
    },
}

struct Client {
    stream: TcpStream,
    conn: ServerConn,
    phase: Phase,
    answer: Answer,
    last_active: Instant,
}

/// What a turn of a connection ended with.
enum Turn {
    /// Waiting for the socket (readable, or writable for the rest of the
    /// output): epoll will say.
    Wait,
    /// Stopped with work left (the per-turn read budget): run it again on
    /// the next turn, since edge-triggered epoll will not report it again.
    Again,
    Close,
}

/// What the driver does after the events that can be handled now.
enum Step {
    Read,
    /// Paused for the output to be written: write it, then ask again.
    Again,
    Done,
    /// Paused for a response to be finished, but every request is answered
    /// at its end: none is left to finish.
    Stuck(Pause),
}

/// Serves on `listener` until polling fails.
pub(crate) fn serve(listener: std::net::TcpListener) -> io::Result<()> {
    listener.set_nonblocking(true)?;
    let mut listener = TcpListener::from_std(listener);
    let mut poll = Poll::new()?;
    poll.registry()
        .register(&mut listener, LISTENER, Interest::READABLE)?;
    let mut events = Events::with_capacity(1024);
    let mut clients: Vec<Option<Client>> = Vec::new();
    let mut free: Vec<usize> = Vec::new();
    let mut count = 0usize;
    let mut ready: Vec<usize> = Vec::new();
    let mut again: Vec<usize> = Vec::new();
    // One clock for all connections, read once per wakeup and handed to
    // each connection it serves (`set_date`): cheaper per request than each
    // connection reading the clock on every read (`Config::send_date`).
    let mut dates = DateCache::new();
    let fixed = Fixed::new();
    let mut next_tick = Instant::now() + TICK;
    loop {
        let timeout = if again.is_empty() {
            next_tick.saturating_duration_since(Instant::now())
        } else {
            Duration::ZERO
        };
        match poll.poll(&mut events, Some(timeout)) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
        let now = Instant::now();
        let date = *dates.line();
        ready.clear();
        ready.append(&mut again);
        for event in events.iter() {
            match event.token() {
                LISTENER => accept(&listener, &poll, &mut clients, &mut free, &mut count),
                Token(i) => ready.push(i),
            }
        }
        for &i in &ready {
            let Some(Some(client)) = clients.get_mut(i) else {
                continue;
            };
            client.last_active = now;
            match turn(client, &date, &fixed) {
                Turn::Wait => {}
                Turn::Again => again.push(i),
                Turn::Close => close(&poll, &mut clients, &mut free, &mut count, i),
            }
        }
        if now >= next_tick {
            next_tick = now + TICK;
            for i in 0..clients.len() {
                let expired = match &clients[i] {
                    Some(c) => match c.phase {
                        Phase::Open => now.duration_since(c.last_active) >= IDLE_TIMEOUT,
                        Phase::Linger { until, .. } => now >= until,
                    },
                    None => false,
                };
                if expired {
                    close(&poll, &mut clients, &mut free, &mut count, i);
                }
            }
            // Connections left in the backlog after an accept error
            // (descriptors ran out) get no new edge: try again.
            accept(&listener, &poll, &mut clients, &mut free, &mut count);
        }
    }
}

fn accept(
    listener: &TcpListener,
    poll: &Poll,
    clients: &mut Vec<Option<Client>>,
    free: &mut Vec<usize>,
    count: &mut usize,
) {
    loop {
        let mut stream = match listener.accept() {
            Ok((s, _)) => s,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                eprintln!("hello: accept: {e}");
                return;
            }
        };
        if *count >= MAX_CONNECTIONS {
            continue;
        }
        let i = free.pop().unwrap_or_else(|| {
            clients.push(None);
            clients.len() - 1
        });
        // Both interests at once and for good: edge-triggered, a writable
        // edge comes only after a write found the socket full, so this
        // costs no wakeups, and no re-registration is ever needed.
        let registered = stream.set_nodelay(true).and_then(|()| {
            poll.registry().register(
                &mut stream,
                Token(i),
                Interest::READABLE | Interest::WRITABLE,
            )
        });
        if registered.is_err() {
            free.push(i);
            continue;
        }
        clients[i] = Some(Client {
            stream,
            conn: ServerConn::new(CONFIG),
            phase: Phase::Open,
            answer: Answer::NotFound,
            last_active: Instant::now(),
        });
        *count += 1;
    }
}

fn close(
    poll: &Poll,
    clients: &mut [Option<Client>],
    free: &mut Vec<usize>,
    count: &mut usize,
    i: usize,
) {
    if let Some(mut c) = clients[i].take() {
        let _ = poll.registry().deregister(&mut c.stream);
        free.push(i);
        *count -= 1;
    }
}

/// Runs a connection as far as it can go without blocking.
fn turn(c: &mut Client, date: &DateLine, fixed: &Fixed) -> Turn {
    if let Phase::Linger { .. } = c.phase {
        return drain(c);
    }
    c.conn.set_date(*date);
    let mut reads = 0;
    loop {
        let step = match handle_events(c, fixed) {
            Ok(step) => step,
            Err(e) => {
                eprintln!("hello: response refused: {e:?}");
                return Turn::Close;
            }
        };
        let wrote = match flush(c) {
            Ok(Some(n)) => n,
            // The rest waits for a writable edge; reading waits with it.
            Ok(None) => return Turn::Wait,
            Err(_) => return Turn::Close,
        };
        match step {
            Step::Read => {
                if reads == READS_PER_TURN {
                    return Turn::Again;
                }
                reads += 1;
                match c.stream.read(c.conn.read_buf()) {
                    Ok(0) => c.conn.eof(),
                    Ok(n) => c.conn.filled(n),
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Turn::Wait,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => return Turn::Close,
                }
            }
            // A pause waits for output to be written; with none written,
            // asking again would spin.
            Step::Again if wrote > 0 => {}
            Step::Again => return Turn::Close,
            Step::Done => return start_closing(c),
            Step::Stuck(why) => {
                eprintln!("hello: paused ({why:?}) with no response to finish");
                return Turn::Close;
            }
        }
    }
}

/// Writes `out()`: `Some(bytes written)` once it is all written, `None`
/// when the socket is full.
fn flush(c: &mut Client) -> io::Result<Option<usize>> {
    let mut total = 0;
    loop {
        let out = c.conn.out();
        if out.is_empty() {
            return Ok(Some(total));
        }
        match c.stream.write(out) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => {
                c.conn.written(n);
                total += n;
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(None),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

fn handle_events(c: &mut Client, fixed: &Fixed) -> Result<Step, SendError> {
    loop {
        match c.conn.next_event() {
            ServerEvent::Request(req) => {
                let target = req.head.target.slice(c.conn.received());
                c.answer = match (target, req.method()) {
                    (b"/plaintext", Method::Get | Method::Head) => Answer::Plaintext,
                    (b"/plaintext", _) => Answer::NotAllowed,
                    _ => Answer::NotFound,
                };
            }
            ServerEvent::Data(_) | ServerEvent::Trailers(_) => {}
            ServerEvent::End => respond(&mut c.conn, c.answer, fixed)?,
            ServerEvent::NeedMore => return Ok(Step::Read),
            ServerEvent::Paused(Pause::OutputFull) => return Ok(Step::Again),
            // The other pauses wait for a response to be finished; every
            // one is finished at its request's end.
            ServerEvent::Paused(why) => return Ok(Step::Stuck(why)),
            // The connection has queued its answer (status, close).
            ServerEvent::Error(_) => {}
            // hello never answers 101 or a 2xx to CONNECT: no switch.
            ServerEvent::Switch(_) | ServerEvent::Closed => return Ok(Step::Done),
            _ => return Ok(Step::Done),
        }
    }
}

fn respond(conn: &mut ServerConn, answer: Answer, fixed: &Fixed) -> Result<(), SendError> {
    let (status, lines, body) = match answer {
        Answer::Plaintext => (200, &fixed.plaintext, BODY),
        Answer::NotFound => (404, &fixed.not_found, &b""[..]),
        Answer::NotAllowed => (405, &fixed.not_allowed, &b""[..]),
    };
    let mut r = conn.respond(status, Framing::Length(body.len() as u64))?;
    r.pre_encoded(lines);
    r.finish()?;
    // A response to HEAD ends with its head.
    if conn.send_state() == SendState::Body {
        conn.send_data(body)?;
        conn.send_end()?;
    }
    Ok(())
}

/// Everything is written and the connection is done: close now, or, when
/// the peer may still be sending, shut down writing and drain first (RFC
/// 9112 §9.6) so its unread bytes cannot make its stack reset the
/// connection before it has read the last response.
fn start_closing(c: &mut Client) -> Turn {
    match c.conn.closing() {
        Closing::Linger { bytes, time } => {
            if c.stream.shutdown(Shutdown::Write).is_err() {
                return Turn::Close;
            }
            c.phase = Phase::Linger {
                until: Instant::now() + time,
                left: bytes,
            };
            drain(c)
        }
        _ => Turn::Close,
    }
}

fn drain(c: &mut Client) -> Turn {
    let Phase::Linger { until, left } = &mut c.phase else {
        return Turn::Close;
    };
    if Instant::now() >= *until {
        return Turn::Close;
    }
    let mut sink = [0u8; 4096];
    loop {
        match c.stream.read(&mut sink) {
            Ok(0) => return Turn::Close,
            Ok(n) => {
                *left = left.saturating_sub(n as u64);
                if *left == 0 {
                    return Turn::Close;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Turn::Wait,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return Turn::Close,
        }
    }
}
