//! What the receiving side reports, per role.
//!
//! Spans in events point into the connection's
//! [`received`](crate::Conn::received) bytes and stay valid until the next
//! call that gives the connection more bytes
//! ([`read_buf`](crate::Conn::read_buf) or [`feed`](crate::Conn::feed)).

use h1_headers::Span;

use crate::client::Response;
use crate::error::Error;
use crate::server::Request;

/// One step of a server connection: what the next bytes were, or why there
/// is nothing to report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
#[must_use = "events say what to do next"]
pub enum ServerEvent {
    /// A complete request head. Its body, if any, follows as
    /// [`Data`](Self::Data); [`End`](Self::End) ends the request (also one
    /// without a body). Answer it now or later, in order
    /// ([`respond`](crate::ServerConn::respond)).
    Request(Request),
    /// Body bytes, decoded (chunk framing removed).
    Data(Span),
    /// The trailer section of a chunked body held this many fields (see
    /// [`trailers`](crate::Conn::trailers)); [`End`](Self::End) follows.
    Trailers(usize),
    /// The request is complete.
    End,
    /// Nothing more can be reported until more bytes arrive: write
    /// [`out`](crate::Conn::out), then read into
    /// [`read_buf`](crate::Conn::read_buf) and call
    /// [`filled`](crate::Conn::filled) (or [`eof`](crate::Conn::eof)).
    NeedMore,
    /// Nothing is read until the caller acts, as the [`Pause`] says.
    Paused(Pause),
    /// The protocol switched (101, or a 2xx to CONNECT): the bytes of this
    /// span, received after the request, belong to the new protocol, as do
    /// all that follow. Write [`out`](crate::Conn::out) (the 101 or 2xx
    /// head) and hand the socket over.
    Switch(Span),
    /// The client sent something that cannot be processed. Nothing to do:
    /// the connection answers it itself (the error's
    /// [`status`](Error::status), `Connection: close`) once the responses
    /// owed before it are done, then closes. When the failed request's own
    /// response is already under way it cannot be answered twice: finish
    /// that response; the connection closes after it.
    Error(Error),
    /// No further request will come and nothing is owed: write
    /// [`out`](crate::Conn::out), then close as
    /// [`closing`](crate::ServerConn::closing) says.
    Closed,
}

/// Why a server connection reads nothing more for now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Pause {
    /// [`Config::max_unanswered`](crate::Config::max_unanswered) requests
    /// wait for their responses: finish the oldest.
    Unanswered,
    /// [`Config::max_buffered_output`](crate::Config::max_buffered_output)
    /// bytes wait in [`out`](crate::Conn::out): write them.
    OutputFull,
    /// The last request asked to switch protocols (Upgrade, CONNECT):
    /// answer it; what follows it is either the next request or the new
    /// protocol.
    SwitchPending,
    /// No further request will be read (the connection is closing or the
    /// client failed), and responses are still owed: finish them.
    ResponsesOwed,
}

/// One step of a client connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
#[must_use = "events say what to do next"]
pub enum ClientEvent {
    /// A final response head, matched with the request it answers. Its
    /// body, if any, follows as [`Data`](Self::Data); [`End`](Self::End)
    /// ends it.
    Response(Response),
    /// An interim (1xx) response; the final one follows.
    Interim(Response),
    /// Body bytes, decoded (chunk framing removed).
    Data(Span),
    /// The trailer section of a chunked body held this many fields;
    /// [`End`](Self::End) follows.
    Trailers(usize),
    /// The response is complete.
    End,
    /// Nothing more can be reported until more bytes arrive.
    NeedMore,
    /// The protocol switched (101 to a request that asked, 2xx to
    /// CONNECT): the bytes of this span belong to the new protocol, as do
    /// all that follow.
    Switch(Span),
    /// The server sent something that cannot be processed; nothing more is
    /// read.
    Error(Error),
    /// No further response will come: close the connection.
    Closed,
}
