//! How a message is framed: decided once, from the status, the [`Framing`]
//! the caller states for its body and the facts of the request being
//! answered.

use h1_headers::{Framing, Version};

use crate::body::BodyWriter;
use crate::Error;

/// The facts about one exchange that decide the framing of a message.
///
/// In the server role these describe the request being answered; in the
/// client role only [`version`](Self::version) and [`close`](Self::close)
/// matter. Build one with [`Exchange::new`] and the `const` setters:
///
/// ```
/// use h1_encode::{Exchange, Version};
/// let ex = Exchange::new(Version::Http11).head(true);
/// assert!(ex.head && !ex.close);
/// // HTTP/1.0 connections close unless the request asked for keep-alive.
/// assert!(Exchange::new(Version::Http10).close);
/// assert!(!Exchange::new(Version::Http10).close(false).close);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Exchange {
    /// The request's version (server role) or the version to send (client).
    pub version: Version,
    /// The request's method is HEAD: the response carries the framing
    /// fields a GET would have, but no body.
    pub head: bool,
    /// The request's method is CONNECT: a 2xx response starts a tunnel and
    /// carries no `Content-Length` or `Transfer-Encoding` (RFC 9110 §9.3.6).
    pub connect: bool,
    /// The connection closes after this message: `Connection: close` is
    /// written. When false and the peer is HTTP/1.0, `Connection:
    /// keep-alive` is written instead.
    pub close: bool,
    /// The server has a clock (RFC 9110 §6.6.1): every 2xx, 3xx and 4xx
    /// response must then carry `Date`, and the encoder refuses one without
    /// ([`Error::MissingDate`]). True by default.
    pub clock: bool,
}

impl Exchange {
    /// A GET-like exchange at `version`, with a clock; it closes after
    /// this message for HTTP/1.0 (the default there) and stays open for
    /// HTTP/1.1.
    pub const fn new(version: Version) -> Exchange {
        Exchange {
            version,
            head: false,
            connect: false,
            close: matches!(version, Version::Http10),
            clock: true,
        }
    }

    /// Sets [`head`](Self::head).
    #[must_use]
    pub const fn head(mut self, head: bool) -> Exchange {
        self.head = head;
        self
    }

    /// Sets [`connect`](Self::connect).
    #[must_use]
    pub const fn connect(mut self, connect: bool) -> Exchange {
        self.connect = connect;
        self
    }

    /// Sets [`close`](Self::close).
    #[must_use]
    pub const fn close(mut self, close: bool) -> Exchange {
        self.close = close;
        self
    }

    /// Sets [`clock`](Self::clock).
    #[must_use]
    pub const fn clock(mut self, clock: bool) -> Exchange {
        self.clock = clock;
        self
    }
}

/// The length field the encoder writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LengthField {
    Nothing,
    ContentLength(u64),
    Chunked,
}

/// The framing of one message, decided before any field is written.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    pub(crate) length: LengthField,
    /// `Connection: close` (Some(true)), `Connection: keep-alive`
    /// (Some(false)), or nothing.
    pub(crate) connection: Option<bool>,
    /// The connection ends after this message.
    pub(crate) close: bool,
    pub(crate) body: BodyWriter,
    /// The response must carry `Date`.
    pub(crate) date_required: bool,
}

/// The framing of a response: the one place that applies RFC 9110 §6.4.1,
/// §8.6, §9.3.2, §15 and RFC 9112 §6 to what the caller stated.
#[inline]
pub(crate) fn response(status: u16, ex: &Exchange, body: Framing) -> Result<Plan, Error> {
    if !(100..=599).contains(&status) {
        return Err(Error::InvalidStatus);
    }
    if status < 200 {
        // RFC 9110 §15.2: no 1xx to HTTP/1.0; 1xx never has content, and
        // (RFC 9110 §8.6, RFC 9112 §6.1) no Content-Length or
        // Transfer-Encoding. The connection's fate is told by the final
        // response.
        if ex.version == Version::Http10 {
            return Err(Error::InformationalToHttp10);
        }
        if body != Framing::Empty {
            return Err(Error::BodyNotAllowed);
        }
        return Ok(Plan {
            length: LengthField::Nothing,
            connection: None,
            close: false,
            body: BodyWriter::empty(),
            date_required: false,
        });
    }
    let (length, writer) = if ex.connect && status < 300 {
        // RFC 9110 §9.3.6 / §8.6: a 2xx to CONNECT starts a tunnel and has
        // neither Content-Length nor Transfer-Encoding.
        if body != Framing::Empty {
            return Err(Error::BodyNotAllowed);
        }
        (LengthField::Nothing, BodyWriter::empty())
    } else {
        match (status, body) {
            // RFC 9110 §15.3.5, §8.6: 204 has no content and no Content-Length.
            (204, Framing::Empty) => (LengthField::Nothing, BodyWriter::empty()),
            (204, _) => return Err(Error::BodyNotAllowed),
            // RFC 9110 §15.4.5: no content; Content-Length only as the length
            // a 200 would have had.
            (304, Framing::Empty) => (LengthField::Nothing, BodyWriter::empty()),
            (304, Framing::Length(n)) => (LengthField::ContentLength(n), BodyWriter::empty()),
            (304, _) => return Err(Error::BodyNotAllowed),
            // RFC 9110 §15.3.6: a 205 MUST NOT have content.
            (205, Framing::Empty | Framing::Length(0)) => {
                (LengthField::ContentLength(0), BodyWriter::length(0))
            }
            (205, _) => return Err(Error::BodyNotAllowed),
            (_, Framing::Empty) if ex.head => (LengthField::ContentLength(0), BodyWriter::empty()),
            (_, Framing::Empty) => (LengthField::ContentLength(0), BodyWriter::length(0)),
            (_, Framing::Length(n)) if ex.head => {
                (LengthField::ContentLength(n), BodyWriter::empty())
            }
            (_, Framing::Length(n)) => (LengthField::ContentLength(n), BodyWriter::length(n)),
            // RFC 9112 §6.1: chunked only to HTTP/1.1; to HTTP/1.0 the body
            // runs until the connection closes (RFC 9112 §6.3 item 8).
            (_, Framing::Chunked) => match (ex.version, ex.head) {
                (Version::Http11, false) => (LengthField::Chunked, BodyWriter::chunked()),
                (Version::Http11, true) => (LengthField::Chunked, BodyWriter::empty()),
                (Version::Http10, false) => (LengthField::Nothing, BodyWriter::until_close()),
                (Version::Http10, true) => (LengthField::Nothing, BodyWriter::empty()),
            },
            // Delimited by closing, as asked, to either version. A response
            // to HEAD has no body to delimit (RFC 9112 §6.3 item 1): no
            // length field, and no close for it (what a server that learns
            // a length only while making the content may send, RFC 9110
            // §9.3.2).
            (_, Framing::UntilClose) if ex.head => (LengthField::Nothing, BodyWriter::empty()),
            (_, Framing::UntilClose) => (LengthField::Nothing, BodyWriter::until_close()),
        }
    };
    let close = ex.close || writer.is_until_close();
    Ok(Plan {
        length,
        connection: connection_field(ex.version, close),
        close,
        body: writer,
        date_required: ex.clock && status < 500,
    })
}

/// The framing of a request (RFC 9112 §6.1, §6.3, §9.3).
pub(crate) fn request(ex: &Exchange, body: Framing) -> Result<Plan, Error> {
    let (length, writer) = match body {
        Framing::Empty => (LengthField::Nothing, BodyWriter::empty()),
        Framing::Length(n) => (LengthField::ContentLength(n), BodyWriter::length(n)),
        Framing::Chunked if ex.version == Version::Http11 => {
            (LengthField::Chunked, BodyWriter::chunked())
        }
        Framing::Chunked => return Err(Error::StreamedBodyToHttp10),
        // RFC 9112 §6.3 item 6: a request without Content-Length or chunked
        // coding has no body; closing cannot delimit one.
        Framing::UntilClose => return Err(Error::UntilCloseRequest),
    };
    Ok(Plan {
        length,
        connection: connection_field(ex.version, ex.close),
        close: ex.close,
        body: writer,
        date_required: false,
    })
}

/// `Connection: close` when closing; `Connection: keep-alive` for a
/// persistent HTTP/1.0 connection (RFC 9112 §9.3, §C.2.2); nothing for a
/// persistent HTTP/1.1 one.
fn connection_field(version: Version, close: bool) -> Option<bool> {
    match (close, version) {
        (true, _) => Some(true),
        (false, Version::Http10) => Some(false),
        (false, Version::Http11) => None,
    }
}
