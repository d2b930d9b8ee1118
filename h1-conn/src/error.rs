//! Errors: what the peer sent wrong ([`Error`]), and what the caller asked
//! that the connection cannot do ([`SendError`]).

use core::fmt;

/// Why the received bytes cannot be processed further. A server connection
/// writes the answer itself (see [`Error::status`]) and then closes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Error {
    /// The head, a chunk-size line, the end of a chunk or the trailer section
    /// is malformed or over a limit; the parser's error says which and where
    /// (its offset counts from the start of the element that failed).
    Parse(h1_parse::Error),
    /// The body is longer than [`Config::max_body_len`](crate::Config::max_body_len) (413).
    BodyTooLarge,
    /// The chunk extensions of one body passed
    /// [`Config::max_chunk_ext_len`](crate::Config::max_chunk_ext_len) bytes (400).
    ChunkExtensionsTooLong,
    /// A CONNECT request with content (`Transfer-Encoding`, or a non-zero
    /// `Content-Length`): RFC 9110 §9.3.6 gives CONNECT no content, so the
    /// bytes after the head would be tunnel data to one reader and a body
    /// to another (400).
    ContentInConnect,
    /// An `Expect` field with an expectation other than `100-continue`, and
    /// [`Config::refuse_unknown_expect`](crate::Config::refuse_unknown_expect)
    /// on (417, RFC 9110 §10.1.1).
    ExpectationFailed,
    /// The peer took longer to send a head or a body than the caller
    /// allows ([`ServerConn::time_out`](crate::ServerConn::time_out), 408,
    /// RFC 9110 §15.5.9).
    TimedOut,
    /// The peer closed its side in the middle of a message (RFC 9112 §8:
    /// an incomplete message is not processed as a whole one). Nothing is
    /// answered: the peer has stopped sending, and a request it never
    /// finished has no answer.
    UnexpectedEof,
    /// Client role: response bytes arrived while no request was waiting
    /// for one.
    UnsolicitedResponse,
    /// Client role: a response that cannot answer the request: a 101 to a
    /// request that did not ask to upgrade, or a 1xx to an HTTP/1.0
    /// request.
    UnexpectedStatus,
}

impl Error {
    /// The status a server answers: the parser's (400, 414, 431, 501, 505),
    /// 413 for a body too large, 417 for an unknown expectation, 408 for a
    /// peer too slow, 400 otherwise; `None` when nothing is answered (the peer closed in the
    /// middle of a message and stopped sending, and the client-only
    /// errors).
    pub const fn status(&self) -> Option<u16> {
        Some(match self {
            Error::Parse(e) => e.status(),
            Error::BodyTooLarge => 413,
            Error::ExpectationFailed => 417,
            Error::TimedOut => 408,
            Error::ChunkExtensionsTooLong | Error::ContentInConnect => 400,
            Error::UnexpectedEof | Error::UnsolicitedResponse | Error::UnexpectedStatus => {
                return None
            }
        })
    }
}

impl From<h1_parse::Error> for Error {
    fn from(e: h1_parse::Error) -> Error {
        Error::Parse(e)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Parse(e) => fmt::Display::fmt(e, f),
            Error::BodyTooLarge => f.write_str("body larger than the configured limit"),
            Error::ChunkExtensionsTooLong => {
                f.write_str("chunk extensions longer than the configured limit")
            }
            Error::ContentInConnect => f.write_str("CONNECT request with content"),
            Error::ExpectationFailed => f.write_str("expectation other than 100-continue"),
            Error::TimedOut => f.write_str("the peer took too long to send"),
            Error::UnexpectedEof => f.write_str("connection closed in the middle of a message"),
            Error::UnsolicitedResponse => f.write_str("response without a request"),
            Error::UnexpectedStatus => f.write_str("status that cannot answer the request"),
        }
    }
}

#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
impl std::error::Error for Error {}

/// Why the connection refused what the caller asked to send. Nothing was
/// written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SendError {
    /// The encoder refused the head, a field or body bytes.
    Encode(h1_encode::Error),
    /// Server role: no request is waiting for a response (or the one
    /// waiting failed, and the connection answers it itself).
    NoRequest,
    /// A message is still being sent: finish its body first.
    InProgress,
    /// No message is being sent, so there is no body to write.
    NoMessage,
    /// A `100` response for a request that did not ask for it, or after it
    /// was already sent, or once the body has arrived (use
    /// [`send_continue`](crate::ServerConn::send_continue), which does
    /// nothing then).
    NotExpected,
    /// A 101 to a request that did not ask to upgrade (RFC 9110 §15.2.2).
    NotUpgradable,
    /// A switch (101, or a 2xx to CONNECT) before the request's body has
    /// been received whole: the new protocol starts after the request
    /// (RFC 9110 §7.8). Read to its `End` first.
    BodyPending,
    /// The connection is closing or closed (or has switched protocols):
    /// nothing more can be sent.
    Closed,
    /// Client role: a request that may switch protocols (CONNECT, or one
    /// marked as asking to upgrade) waits for its answer; bytes sent behind
    /// it would belong to the new protocol.
    SwitchPending,
    /// Client role: more requests outstanding than
    /// [`Config::max_unanswered`](crate::Config::max_unanswered).
    TooManyOutstanding,
}

impl From<h1_encode::Error> for SendError {
    fn from(e: h1_encode::Error) -> SendError {
        SendError::Encode(e)
    }
}

impl fmt::Display for SendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SendError::Encode(e) => fmt::Display::fmt(e, f),
            SendError::NoRequest => f.write_str("no request waits for a response"),
            SendError::InProgress => f.write_str("a message is still being sent"),
            SendError::NoMessage => f.write_str("no message is being sent"),
            SendError::NotExpected => f.write_str("100 Continue not expected"),
            SendError::NotUpgradable => f.write_str("101 to a request that did not ask to upgrade"),
            SendError::BodyPending => {
                f.write_str("a switch before the request's body was received")
            }
            SendError::Closed => f.write_str("the connection is closing"),
            SendError::SwitchPending => f.write_str("a request that may switch protocols waits"),
            SendError::TooManyOutstanding => f.write_str("too many requests outstanding"),
        }
    }
}

#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
impl std::error::Error for SendError {}
