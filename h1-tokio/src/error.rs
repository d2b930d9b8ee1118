//! Why a connection ended early.

use std::fmt;
use std::io;

use crate::BoxError;

/// Why [`serve_connection`](crate::serve_connection) ended other than by
/// the connection closing in order.
///
/// A client that breaks the protocol is not an error here: the connection
/// answers it (400, 413, ...) and closes, and `serve_connection` returns
/// `Ok`.
#[derive(Debug)]
pub struct Error {
    kind: Kind,
}

#[derive(Debug)]
enum Kind {
    /// Reading or writing the socket failed.
    Io(io::Error),
    /// The service's readiness failed: no request can be handed to it.
    Service(BoxError),
    /// A response body failed while it was being sent: the message is cut
    /// short, so the connection ends.
    ResponseBody(BoxError),
}

impl Error {
    pub(crate) fn service(e: impl Into<BoxError>) -> Error {
        Error {
            kind: Kind::Service(e.into()),
        }
    }

    pub(crate) fn response_body(e: impl Into<BoxError>) -> Error {
        Error {
            kind: Kind::ResponseBody(e.into()),
        }
    }

    /// Whether the socket failed (the peer reset the connection, say), or
    /// timed out.
    pub fn is_io(&self) -> bool {
        matches!(self.kind, Kind::Io(_))
    }

    /// Whether the client left the response unread for
    /// [`Config::write_timeout`](crate::Config::write_timeout).
    pub fn is_timeout(&self) -> bool {
        matches!(&self.kind, Kind::Io(e) if e.kind() == io::ErrorKind::TimedOut)
    }
}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Error {
        Error { kind: Kind::Io(e) }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            Kind::Io(e) => write!(f, "connection I/O failed: {e}"),
            Kind::Service(e) => write!(f, "the service is not ready: {e}"),
            Kind::ResponseBody(e) => write!(f, "a response body failed while sent: {e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            Kind::Io(e) => Some(e),
            Kind::Service(e) | Kind::ResponseBody(e) => Some(&**e),
        }
    }
}
