//! What the receiving side reports.

use h1_headers::Span;

use crate::error::Error;

/// One step of the receiving side: what the next bytes were, or why there is
/// nothing to report. `H` is [`Request`](crate::Request) for the server role
/// and [`Response`](crate::Response) for the client role.
///
/// Spans point into the connection's
/// [`received`](crate::ServerConn::received) bytes and stay valid until the
/// next call that gives the connection more bytes
/// ([`read_buf`](crate::ServerConn::read_buf) or
/// [`feed`](crate::ServerConn::feed)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
#[must_use = "events say what to do next"]
pub enum Event<H> {
    /// A complete head: a request (server) or a final response (client).
    /// Its body, if any, follows as [`Event::Data`]; [`Event::End`] ends
    /// the message (also a message without a body).
    Head(H),
    /// Client role: an interim (1xx) response; the final one follows.
    Informational(H),
    /// Body bytes, decoded (chunk framing removed).
    Data(Span),
    /// The trailer section of a chunked body held this many fields (see
    /// `trailers()`); [`Event::End`] follows.
    Trailers(usize),
    /// The message is complete.
    End,
    /// Nothing more can be reported until more bytes arrive: read into
    /// `read_buf()` (after writing `out()`).
    NeedMore,
    /// Nothing is parsed until the caller finishes a response (server: the
    /// pipelining depth is reached, the output buffer is full, the request
    /// asked to switch protocols, or the connection is closing and a
    /// response is owed).
    Paused,
    /// The protocol switched (101, or a 2xx to CONNECT): the bytes of this
    /// span, received after the message, belong to the new protocol, as do
    /// all that follow. The connection is done with HTTP/1.1; write `out()`
    /// (the 101 or 2xx head) and hand the socket over.
    Switch(Span),
    /// The peer sent something that cannot be processed. The server role
    /// answers it itself (the error's status, `Connection: close`) once the
    /// responses owed before it are done; then the connection closes. When
    /// the failed request's own response is already under way, it cannot
    /// be answered twice: finish that response; the connection closes
    /// after it.
    Error(Error),
    /// No further message will come and nothing is owed: write `out()`,
    /// then close as `closing()` says.
    Closed,
}
