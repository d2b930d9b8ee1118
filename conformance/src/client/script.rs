//! The test server of a client case, without I/O: it reads the client's
//! requests (with h1-conn's server role: it reads the requests, not the
//! case) and answers each with the bytes its exchange scripts, found by
//! its request-target ([`ClientCase::target`]). The in-process runner and
//! the live one drive it the same way, so both see the same requests.

use h1_conn::{Config, Expect, ServerConn, ServerEvent};

use crate::client::case::ClientCase;
use crate::client::observe::Received;

/// What the server does next on a connection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Write these bytes (one step: the live server pauses after it, so
    /// the client reads each step on its own).
    Write(Vec<u8>),
    /// Close the connection (after the writes before it).
    Close,
}

/// The answer to a request for a target no exchange names (a stray or
/// mistaken request): 404, then the server closes.
const NOT_FOUND: &[u8] =
    b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";

/// The test server of one case, over any number of connections.
pub struct Script<'c> {
    case: &'c ClientCase,
    conns: Vec<Conn>,
    received: Vec<Received>,
    unreadable: Vec<String>,
}

struct Conn {
    server: ServerConn,
    current: Option<Received>,
    closed: bool,
}

impl<'c> Script<'c> {
    /// The server of `case`.
    pub fn new(case: &'c ClientCase) -> Script<'c> {
        Script {
            case,
            conns: Vec::new(),
            received: Vec::new(),
            unreadable: Vec::new(),
        }
    }

    /// A client connected: the new connection's number, from 0.
    pub fn connect(&mut self) -> usize {
        let mut config = Config::default();
        // The requests are read, never answered through `server`: it must
        // not pause for lack of answers.
        config.max_unanswered = 1024;
        // Nor does it answer anything by itself: the script writes the
        // `100 Continue` (below), and a request with an unknown
        // expectation is read and recorded like any other.
        config.auto_continue = false;
        config.refuse_unknown_expect = false;
        config.max_body_len = 1 << 20;
        self.conns.push(Conn {
            server: ServerConn::new(config),
            current: None,
            closed: false,
        });
        self.conns.len() - 1
    }

    /// Bytes from the client on connection `conn`: what to do.
    pub fn input(&mut self, conn: usize, mut data: &[u8]) -> Vec<Action> {
        let mut actions = Vec::new();
        while !self.conns[conn].closed {
            if !self.events(conn, &mut actions) || data.is_empty() {
                break;
            }
            let n = self.conns[conn].server.feed(data);
            data = &data[n..];
            if n == 0 {
                self.unreadable(conn, "the request does not fit the server's buffer".into());
                actions.push(Action::Close);
            }
        }
        actions
    }

    /// The client closed its side of connection `conn`.
    pub fn eof(&mut self, conn: usize) {
        let c = &mut self.conns[conn];
        if !c.closed && (c.current.is_some() || c.server.buffered() > 0) {
            self.unreadable(conn, "the client closed in the middle of a request".into());
        }
        self.conns[conn].closed = true;
    }

    /// Whether the server has closed (or stopped reading) connection
    /// `conn`.
    pub fn closed(&self, conn: usize) -> bool {
        self.conns[conn].closed
    }

    /// The requests received so far, in order.
    pub fn received(&self) -> &[Received] {
        &self.received
    }

    /// The requests received, and why bytes could not be read as requests.
    pub fn finish(self) -> (Vec<Received>, Vec<String>) {
        (self.received, self.unreadable)
    }

    fn unreadable(&mut self, conn: usize, why: String) {
        self.unreadable
            .push(format!("connection {}: {why}", conn + 1));
        self.conns[conn].closed = true;
    }

    /// Handles events on `conn` until it needs bytes (true) or is done.
    fn events(&mut self, conn: usize, actions: &mut Vec<Action>) -> bool {
        loop {
            let c = &mut self.conns[conn];
            match c.server.next_event() {
                ServerEvent::Request(req) => {
                    let got = c.server.received();
                    let fields = c
                        .server
                        .fields()
                        .map(|f| f.iter().map(|(n, v)| (n.to_vec(), v.to_vec())).collect())
                        .unwrap_or_default();
                    c.current = Some(Received {
                        conn,
                        method: req.head.method.slice(got).to_vec(),
                        target: req.head.target.slice(got).to_vec(),
                        fields,
                        body: Vec::new(),
                    });
                    if req.expect() == Expect::Continue {
                        actions.push(Action::Write(b"HTTP/1.1 100 Continue\r\n\r\n".to_vec()));
                    }
                }
                ServerEvent::Data(span) => {
                    let data = span.slice(c.server.received()).to_vec();
                    if let Some(r) = c.current.as_mut() {
                        r.body.extend_from_slice(&data);
                    }
                }
                ServerEvent::Trailers(_) => {}
                ServerEvent::End => {
                    let Some(r) = c.current.take() else {
                        continue;
                    };
                    let exchange = self.case.exchange_of(&r.target);
                    self.received.push(r);
                    match exchange.map(|i| &self.case.exchanges[i]) {
                        Some(x) => {
                            actions.extend(x.respond.iter().cloned().map(Action::Write));
                            if x.close {
                                actions.push(Action::Close);
                                self.conns[conn].closed = true;
                                return false;
                            }
                        }
                        None => {
                            actions.push(Action::Write(NOT_FOUND.to_vec()));
                            actions.push(Action::Close);
                            self.conns[conn].closed = true;
                            return false;
                        }
                    }
                }
                ServerEvent::NeedMore => return true,
                ServerEvent::Error(e) => {
                    self.unreadable(conn, format!("a request the server cannot read: {e}"));
                    actions.push(Action::Close);
                    return false;
                }
                // Paused (a request that closes the connection was read),
                // a switch, or closed: nothing more is read here.
                _ => {
                    self.conns[conn].closed = true;
                    return false;
                }
            }
        }
    }
}
