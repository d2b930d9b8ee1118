//! [`Error`]: why the encoder refused.

use core::fmt;

/// Why the encoder refused a head, a field or body bytes.
///
/// A refused head or field leaves the output buffer as it was before the
/// call that failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Error {
    /// The status code is not in `100..=599` (RFC 9110 §15).
    InvalidStatus,
    /// The reason phrase has a byte other than HTAB, SP, VCHAR or obs-text
    /// (RFC 9112 §4).
    InvalidReason,
    /// The method is not a token (RFC 9110 §9.1).
    InvalidMethod,
    /// The request target is empty or has a byte outside `0x21..=0x7E`, or
    /// a `#` (RFC 9112 §3.2).
    InvalidTarget,
    /// An HTTP/1.1 request needs a `Host` (RFC 9112 §3.2).
    MissingHost,
    /// A field name is empty or not a token (RFC 9110 §5.1).
    InvalidFieldName,
    /// A field value has a control byte (CR, LF, NUL, ...) or starts or ends
    /// with whitespace (RFC 9110 §5.5).
    InvalidFieldValue,
    /// A caller-supplied field that the encoder writes itself from the
    /// framing it decided: `Content-Length`, `Transfer-Encoding`, `Host`
    /// (requests), or a `Connection` that lists `close` or `keep-alive`.
    /// State the body and the connection's fate instead.
    FramingField,
    /// A field that must not appear in a trailer section (RFC 9110 §6.5.1:
    /// framing, routing and `Trailer` itself).
    ForbiddenTrailer,
    /// The message may not have content: a 1xx, 204 or 304 response
    /// (RFC 9110 §6.4.1), a 205 with content (§15.3.6), or body bytes in
    /// the response to a HEAD request (§9.3.2).
    BodyNotAllowed,
    /// A 1xx response to an HTTP/1.0 request (RFC 9110 §15.2: a server
    /// MUST NOT send one).
    InformationalToHttp10,
    /// A streamed (chunked) request body to an HTTP/1.0 server: chunked
    /// coding needs HTTP/1.1 (RFC 9112 §6.1) and a request body cannot be
    /// delimited by closing the connection (RFC 9112 §6.3).
    StreamedBodyToHttp10,
    /// A request body said to run until the connection closes: a request
    /// without `Content-Length` or chunked coding has no body (RFC 9112
    /// §6.3), so closing cannot delimit one.
    UntilCloseRequest,
    /// A 2xx, 3xx or 4xx response from a server with a clock lacks `Date`
    /// (RFC 9110 §6.6.1).
    MissingDate,
    /// The date bytes are not an IMF-fixdate (RFC 9110 §5.6.7).
    InvalidDate,
    /// More body bytes than the `Content-Length` declared.
    BodyTooLong,
    /// The body ended before the declared `Content-Length` was reached.
    BodyTooShort,
    /// Trailers after a body that is not chunked.
    TrailersNotAllowed,
    /// Body bytes after the body was finished.
    BodyFinished,
    /// A version this encoder does not write (only HTTP/1.0 and HTTP/1.1).
    UnsupportedVersion,
    /// A second `Date` field, from any source (`date`, `field`, `fields`,
    /// `blob`, `pre_encoded`): `Date` is not a list, so a sender MUST NOT
    /// generate it twice (RFC 9110 §5.3).
    DuplicateDate,
    /// Content in a `TRACE` request (RFC 9110 §9.3.8: a client MUST NOT
    /// send content in a TRACE request).
    TraceWithContent,
    /// `Expect: 100-continue` on a request without content
    /// (RFC 9110 §10.1.1).
    ExpectWithoutContent,
    /// A 101 (Switching Protocols) response without `Upgrade`
    /// (RFC 9110 §15.2.2: the server MUST generate one).
    MissingUpgrade,
    /// A request URI with userinfo (`user:pass@`), which a sender MUST NOT
    /// generate (RFC 9110 §4.2.4).
    UserinfoInUri,
    /// A CONNECT request whose target is not `host:port` with an explicit
    /// port (RFC 9112 §3.2.3).
    InvalidConnectTarget,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Error::InvalidStatus => "status code outside 100..=599",
            Error::InvalidReason => "invalid byte in reason phrase",
            Error::InvalidMethod => "method is not a token",
            Error::InvalidTarget => "invalid request target",
            Error::MissingHost => "HTTP/1.1 request without Host",
            Error::InvalidFieldName => "invalid header field name",
            Error::InvalidFieldValue => "invalid header field value",
            Error::FramingField => {
                "field conflicts with the framing the encoder writes (Content-Length, Transfer-Encoding, Host, Connection: close/keep-alive)"
            }
            Error::ForbiddenTrailer => "field not allowed in trailers",
            Error::BodyNotAllowed => "this message cannot have content",
            Error::InformationalToHttp10 => "1xx response to an HTTP/1.0 request",
            Error::StreamedBodyToHttp10 => "streamed request body to an HTTP/1.0 server",
            Error::UntilCloseRequest => "request body delimited by closing the connection",
            Error::MissingDate => "response without Date from a server with a clock",
            Error::InvalidDate => "date is not an IMF-fixdate",
            Error::BodyTooLong => "body longer than its Content-Length",
            Error::BodyTooShort => "body shorter than its Content-Length",
            Error::TrailersNotAllowed => "trailers need a chunked body",
            Error::BodyFinished => "body already finished",
            Error::UnsupportedVersion => "only HTTP/1.0 and HTTP/1.1 can be encoded",
            Error::DuplicateDate => "a second Date field",
            Error::TraceWithContent => "TRACE request with content",
            Error::ExpectWithoutContent => "Expect: 100-continue on a request without content",
            Error::MissingUpgrade => "101 response without Upgrade",
            Error::UserinfoInUri => "userinfo in a request URI",
            Error::InvalidConnectTarget => "CONNECT target is not host:port",
        })
    }
}

#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn errors_display() {
        for (e, s) in [
            (Error::InvalidStatus, "status code outside 100..=599"),
            (Error::InvalidReason, "invalid byte in reason phrase"),
            (Error::MissingHost, "HTTP/1.1 request without Host"),
            (Error::InvalidFieldValue, "invalid header field value"),
            (Error::ForbiddenTrailer, "field not allowed in trailers"),
            (Error::BodyTooLong, "body longer than its Content-Length"),
            (Error::DuplicateDate, "a second Date field"),
            (
                Error::InvalidConnectTarget,
                "CONNECT target is not host:port",
            ),
        ] {
            assert_eq!(e.to_string(), s);
        }
        assert!(Error::FramingField
            .to_string()
            .starts_with("field conflicts with the framing"));
    }
}
