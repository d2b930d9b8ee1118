//! A test driver for the server role: feeds input in given pieces, answers
//! every request with a fixed policy, and records the events in an owned
//! form so runs over different splits can be compared.
#![allow(dead_code)]

use h1_conn::{Closing, Config, Error, Expect, Framing, ServerConn, ServerEvent};
use h1_encode::DateLine;
use h1_parse::{Method, Version};

/// An event, owned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Ev {
    Request {
        method: Vec<u8>,
        target: Vec<u8>,
        version: Version,
        fields: Vec<(Vec<u8>, Vec<u8>)>,
        framing: Framing,
        expect: Expect,
        upgrade: bool,
        persistent: bool,
    },
    /// Consecutive `Data` events, joined.
    Data(Vec<u8>),
    Trailers(Vec<(Vec<u8>, Vec<u8>)>),
    End,
    Error(Error),
    Switch(Vec<u8>),
    Closed,
}

/// The interim response a client that expects `100-continue` gets.
const CONTINUE: &[u8] = b"HTTP/1.1 100 Continue\r\n\r\n";

/// What a run saw.
#[derive(Clone, Debug)]
pub(crate) struct Run {
    pub(crate) events: Vec<Ev>,
    /// Every byte the connection wrote, but the `100 Continue` heads.
    pub(crate) out: Vec<u8>,
    /// The `100 Continue` heads taken out of `out`.
    pub(crate) continues: usize,
    pub(crate) closing: Closing,
    /// Statuses the policy answered (not the connection's own error answers).
    pub(crate) answered: Vec<u16>,
}

/// Runs are the same when all but their `100 Continue` heads are: whether
/// one is written depends on the reads (none once body bytes came with the
/// head: RFC 9110 §10.1.1 lets the server omit it then), so that is the
/// one difference a split may make. `run` checks that each one answers a
/// request that expected it, once.
impl PartialEq for Run {
    fn eq(&self, other: &Run) -> bool {
        self.events == other.events
            && self.out == other.out
            && self.closing == other.closing
            && self.answered == other.answered
    }
}

impl Eq for Run {}

impl Run {
    /// Requests whose `End` was seen.
    pub(crate) fn complete(&self) -> usize {
        self.events.iter().filter(|e| **e == Ev::End).count()
    }

    /// The body of the first request.
    pub(crate) fn first_body(&self) -> Vec<u8> {
        let mut body = Vec::new();
        for e in &self.events {
            match e {
                Ev::Data(d) => body.extend_from_slice(d),
                Ev::End => break,
                _ => {}
            }
        }
        body
    }

    pub(crate) fn error(&self) -> Option<Error> {
        self.events.iter().find_map(|e| match e {
            Ev::Error(e) => Some(*e),
            _ => None,
        })
    }
}

/// How the driver answers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Policy {
    /// Answer 417 to an unknown expectation (one the connection delivers:
    /// `Config::refuse_unknown_expect` off; on, the connection answers it),
    /// 501 to a method the server does not implement, and decline upgrades
    /// to anything but websocket (the server policy the shared vectors
    /// assume).
    pub(crate) server_rules: bool,
    /// Ask for `100 Continue` at the head of a request that expects it
    /// (`send_continue`), before the connection would write it by itself
    /// when the body is asked for (`Config::auto_continue`).
    pub(crate) continue_100: bool,
}

impl Default for Policy {
    fn default() -> Policy {
        Policy {
            server_rules: true,
            continue_100: true,
        }
    }
}

pub(crate) fn date() -> DateLine {
    DateLine::new(b"Sun, 06 Nov 1994 08:49:37 GMT").unwrap()
}

/// Drives a server over `pieces` (each given to `feed` after the previous
/// ones were processed to `NeedMore`), then EOF.
pub(crate) fn run(config: &Config, pieces: &[&[u8]], policy: Policy) -> Run {
    let mut conn = ServerConn::new(config.clone());
    conn.set_date(date());
    let mut run = Run {
        events: Vec::new(),
        out: Vec::new(),
        continues: 0,
        closing: Closing::Open,
        answered: Vec::new(),
    };
    let mut pending: Option<Pending> = None;
    let mut next = 0;
    let mut rest: &[u8] = &[];
    // Every step either consumes input or reports; the bound only stops a
    // machine that loops.
    let budget = 64 + 8 * pieces.iter().map(|p| p.len() + 1).sum::<usize>();
    let mut steps = 0;
    loop {
        steps += 1;
        assert!(
            steps < budget,
            "no progress after {steps} steps: {:?}",
            run.events
        );
        let ev = conn.next_event();
        match ev {
            ServerEvent::Request(req) => {
                let recv = conn.received();
                let fields = conn
                    .fields()
                    .expect("fields valid right after the head")
                    .iter()
                    .map(|(n, v)| (n.to_vec(), v.to_vec()))
                    .collect();
                let method = req.head.method.slice(recv).to_vec();
                run.events.push(Ev::Request {
                    method: method.clone(),
                    target: req.head.target.slice(recv).to_vec(),
                    version: req.head.version,
                    fields,
                    framing: req.framing,
                    expect: req.expect(),
                    upgrade: req.upgrade,
                    persistent: req.persistent,
                });
                let websocket = conn
                    .fields()
                    .and_then(|f| f.get(b"upgrade"))
                    .is_some_and(|v| v.eq_ignore_ascii_case(b"websocket"));
                pending = Some(Pending {
                    method: req.method(),
                    expect: req.expect(),
                    upgrade: req.upgrade && (websocket || !policy.server_rules),
                });
                if req.expect() == Expect::Continue
                    && policy.continue_100
                    && !matches!(req.framing, Framing::Empty | Framing::Length(0))
                {
                    // Written unless body bytes came with the head.
                    conn.send_continue()
                        .unwrap_or_else(|e| panic!("100 Continue: {e:?} after {:?}", run.events));
                }
            }
            ServerEvent::Data(span) => {
                let d = span.slice(conn.received()).to_vec();
                match run.events.last_mut() {
                    Some(Ev::Data(prev)) => prev.extend_from_slice(&d),
                    _ => run.events.push(Ev::Data(d)),
                }
            }
            ServerEvent::Trailers(n) => {
                let t: Vec<_> = conn
                    .trailers()
                    .expect("trailers valid")
                    .iter()
                    .map(|(n, v)| (n.to_vec(), v.to_vec()))
                    .collect();
                assert_eq!(t.len(), n);
                run.events.push(Ev::Trailers(t));
            }
            ServerEvent::End => {
                run.events.push(Ev::End);
                let p = pending.take().expect("End after a request");
                answer(&mut conn, p, policy, &mut run.answered);
            }
            ServerEvent::Error(e) => run.events.push(Ev::Error(e)),
            ServerEvent::Switch(span) => {
                // The new protocol's stream: what was received after the
                // message, then everything not fed yet.
                let mut rest_of_stream = span.slice(conn.received()).to_vec();
                rest_of_stream.extend_from_slice(rest);
                for p in &pieces[next..] {
                    rest_of_stream.extend_from_slice(p);
                }
                run.events.push(Ev::Switch(rest_of_stream));
                break;
            }
            ServerEvent::Closed => {
                run.events.push(Ev::Closed);
                break;
            }
            ServerEvent::NeedMore | ServerEvent::Paused(_) => {
                run.out.extend_from_slice(conn.out());
                let n = conn.out().len();
                conn.written(n);
                if rest.is_empty() {
                    if next < pieces.len() {
                        rest = pieces[next];
                        next += 1;
                    } else if conn.is_eof() {
                        // Nothing more will come and the machine waits:
                        // only a paused machine may end here.
                        break;
                    } else {
                        conn.eof();
                        continue;
                    }
                }
                let n = conn.feed(rest);
                rest = &rest[n..];
            }
            other => panic!("unexpected event {other:?}"),
        }
    }
    run.out.extend_from_slice(conn.out());
    run.closing = conn.closing();
    take_continues(&mut run);
    run
}

/// Takes the `100 Continue` heads out of `run.out`, checking that each one
/// answers a request that expected it, at most once each.
fn take_continues(run: &mut Run) {
    let mut rest = Vec::with_capacity(run.out.len());
    let mut i = 0;
    while i < run.out.len() {
        if run.out[i..].starts_with(CONTINUE) {
            run.continues += 1;
            i += CONTINUE.len();
        } else {
            rest.push(run.out[i]);
            i += 1;
        }
    }
    run.out = rest;
    let expecting = run
        .events
        .iter()
        .filter(|e| {
            matches!(
                e,
                Ev::Request {
                    expect: Expect::Continue,
                    ..
                }
            )
        })
        .count();
    // Also for a request without a body: a 101 to it is preceded by the
    // 100 (RFC 9110 §7.8).
    assert!(
        run.continues <= expecting,
        "{} `100 Continue` for {expecting} requests that expect one: {:?}",
        run.continues,
        run.events
    );
}

#[derive(Clone, Copy, Debug)]
struct Pending {
    method: Method,
    expect: Expect,
    upgrade: bool,
}

fn answer(conn: &mut ServerConn, p: Pending, policy: Policy, answered: &mut Vec<u16>) {
    let status = if policy.server_rules && p.expect == Expect::Other {
        417
    } else if policy.server_rules && p.method == Method::Other {
        501
    } else if p.upgrade {
        101
    } else {
        200
    };
    answered.push(status);
    if status >= 400 {
        conn.close();
    }
    match status {
        101 => {
            let mut r = conn.respond(101, Framing::Empty).expect("101");
            r.field(b"Upgrade", b"websocket").unwrap();
            r.field(b"Connection", b"upgrade").unwrap();
            r.finish().expect("101 head");
        }
        200 if p.method == Method::Connect => {
            conn.respond(200, Framing::Empty)
                .expect("2xx to CONNECT")
                .finish()
                .expect("tunnel head");
        }
        _ => conn
            .respond_with(status, [("content-type", "text/plain")], b"ok")
            .expect("answer"),
    }
}

/// A small deterministic generator (xorshift64*), so failures reproduce.
#[derive(Clone, Debug)]
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in `0..n` (n > 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub(crate) fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// `bytes` cut at the given sorted positions.
pub(crate) fn split_at<'a>(bytes: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    let mut from = 0;
    for &c in cuts {
        let c = c.min(bytes.len());
        if c > from {
            out.push(&bytes[from..c]);
            from = c;
        }
    }
    out.push(&bytes[from..]);
    out
}

/// The next event, which must be a request.
pub(crate) fn head(conn: &mut ServerConn) -> h1_conn::Request {
    match conn.next_event() {
        ServerEvent::Request(r) => r,
        other => panic!("want a request, got {other:?}"),
    }
}

/// Everything the connection has to write, as text, marked written.
pub(crate) fn take_out(conn: &mut ServerConn) -> String {
    let out = String::from_utf8_lossy(conn.out()).into_owned();
    let n = conn.out().len();
    conn.written(n);
    out
}

/// Drains events until one that is not Data/Trailers/End.
pub(crate) fn drain(conn: &mut ServerConn) -> ServerEvent {
    loop {
        match conn.next_event() {
            ServerEvent::Data(_) | ServerEvent::Trailers(_) | ServerEvent::End => {}
            e => return e,
        }
    }
}

/// Up to `n` events, stopping at the first that needs the driver (not
/// Data/Trailers/End), as debug strings.
pub(crate) fn until_driver(conn: &mut ServerConn, n: usize) -> Vec<String> {
    let mut seen = Vec::new();
    for _ in 0..n {
        let e = conn.next_event();
        seen.push(format!("{e:?}"));
        if !matches!(
            e,
            ServerEvent::Data(_) | ServerEvent::Trailers(_) | ServerEvent::End
        ) {
            break;
        }
    }
    seen
}
