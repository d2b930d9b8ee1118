//! What came back, as the judge sees it: the answers, how the connection
//! ended, and what the server saw when the runner can know. The server's
//! bytes are read into an [`Observation`] by [`crate::reader`], the same
//! way for the in-process and the live runner, so both are judged alike.
//! Nothing here parses HTTP: the judge depends on no part of h1.

/// The `x-echo-*` fields of a response from a server that speaks the echo
/// contract.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Echo {
    /// `x-echo-method`.
    pub method: Vec<u8>,
    /// `x-echo-target`.
    pub target: Vec<u8>,
    /// `x-echo-version`.
    pub version: Vec<u8>,
}

/// One response: its interim responses, then the final one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// Interim (1xx) statuses before the final one.
    pub interim: Vec<u16>,
    /// The final status.
    pub status: u16,
    /// The echo fields, when present.
    pub echo: Option<Echo>,
    /// The body, decoded (at most [`MAX_BODY`] bytes kept).
    pub body: Vec<u8>,
    /// The connection closes after it: the response or its request said
    /// so (`Connection: close`, or HTTP/1.0 without keep-alive; RFC 9112
    /// §9.3).
    pub closes: bool,
    /// Its `Upgrade` field, if any.
    pub upgrade: Option<Vec<u8>>,
    /// Its `Server` field, if any.
    pub server: Option<Vec<u8>>,
    /// The step after which its first byte (interim or final) arrived.
    pub step: usize,
}

/// How the connection was when the runner stopped reading.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The server closed it (or reset it).
    Closed,
    /// Still open.
    Open,
    /// The server switched protocols (101, or a 2xx to CONNECT) with the
    /// last answer: what follows is not HTTP/1.1.
    Switched,
    /// The server's bytes are not valid responses (or answer requests
    /// never sent).
    Broken(String),
}

/// A request as the server saw it (the in-process runner only: a live
/// server shows only what it echoes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seen {
    /// Method.
    pub method: Vec<u8>,
    /// Request-target.
    pub target: Vec<u8>,
    /// `HTTP/1.1` or `HTTP/1.0`.
    pub version: &'static str,
    /// Every field line, in order.
    pub fields: Vec<(Vec<u8>, Vec<u8>)>,
    /// The decoded body.
    pub body: Vec<u8>,
}

/// Everything a runner saw for one case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Observation {
    /// Final responses in order, each with its interim ones.
    pub answers: Vec<Answer>,
    /// The connection at the end.
    pub ending: Ending,
    /// The answer taken for the keep-alive probe's (the first after the
    /// answers to the case's requests, which were all in before the probe
    /// was sent), when one was sent; `None` inside means it was sent and
    /// not answered. Answers after it stay in `answers`, as extra ones.
    pub probe: Option<Option<Answer>>,
    /// The requests the server saw, when the runner can know.
    pub seen: Option<Vec<Seen>>,
}

/// Response bodies are kept up to this size (a server that streams
/// forever cannot exhaust the runner's memory).
pub const MAX_BODY: usize = 2 << 20;

/// Interim responses kept before one final response: more is a server
/// that never answers.
pub const MAX_INTERIM: usize = 16;

/// The request the runner sends to see that a connection is still usable.
pub const PROBE: &[u8] = b"GET /keep-alive-probe HTTP/1.1\r\nHost: probe\r\n\r\n";
