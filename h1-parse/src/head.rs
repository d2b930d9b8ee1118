//! What a parsed head looks like.

use h1_headers::{Entry, Framing, HeadersView, Span, Version};

/// The result of a parse that may need more bytes.
#[must_use]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status<T> {
    /// The element is complete; the value says how many bytes it took.
    Complete(T),
    /// The bytes so far are a valid prefix; call again with more.
    Partial,
}

impl<T> Status<T> {
    /// Whether this is [`Status::Complete`].
    #[inline]
    pub fn is_complete(&self) -> bool {
        matches!(self, Status::Complete(_))
    }

    /// The complete value, if any.
    #[inline]
    pub fn complete(self) -> Option<T> {
        match self {
            Status::Complete(t) => Some(t),
            Status::Partial => None,
        }
    }
}

/// The method of a request, recognised for the methods that change framing
/// or that RFC 9110 defines; others are [`Method::Other`] (the bytes are in
/// [`RequestHead::method`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Method {
    /// `GET`
    Get,
    /// `HEAD`: the response has no content.
    Head,
    /// `POST`
    Post,
    /// `PUT`
    Put,
    /// `DELETE`
    Delete,
    /// `CONNECT`: authority-form target; a 2xx answer makes a tunnel.
    Connect,
    /// `OPTIONS`: the only method that may use the asterisk form.
    Options,
    /// `TRACE`
    Trace,
    /// `PATCH`
    Patch,
    /// Any other token.
    Other,
}

impl Method {
    /// Recognises a method token (case-sensitive, RFC 9110 §9.1).
    pub fn from_bytes(m: &[u8]) -> Method {
        match m {
            b"GET" => Method::Get,
            b"HEAD" => Method::Head,
            b"POST" => Method::Post,
            b"PUT" => Method::Put,
            b"DELETE" => Method::Delete,
            b"CONNECT" => Method::Connect,
            b"OPTIONS" => Method::Options,
            b"TRACE" => Method::Trace,
            b"PATCH" => Method::Patch,
            _ => Method::Other,
        }
    }
}

/// Which of the four request-target forms of RFC 9112 §3.2 a target has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TargetForm {
    /// `/path?query`
    Origin,
    /// `http://host/path`
    Absolute,
    /// `host:port`, CONNECT only.
    Authority,
    /// `*`, OPTIONS only.
    Asterisk,
}

/// The `Transfer-Encoding` verdict of a head.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TransferEncoding {
    /// No `Transfer-Encoding` field.
    Absent,
    /// The final coding is `chunked` (and the only one, in a request: other
    /// codings are refused as not implemented).
    Chunked,
    /// Response only: codings whose last is not `chunked`; the body runs until
    /// the connection closes (RFC 9112 §6.3 rule 4).
    NotChunked,
}

/// What `Expect` asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Expect {
    /// No `Expect` field.
    None,
    /// `Expect: 100-continue`: the client may wait for `100 Continue`.
    Continue,
    /// Another expectation; a server answers 417 (RFC 9110 §10.1.1).
    Other,
}

/// The tokens of `Connection` that change what the connection does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ConnectionTokens {
    pub(crate) bits: u8,
}

impl ConnectionTokens {
    pub(crate) const CLOSE: u8 = 1;
    pub(crate) const KEEP_ALIVE: u8 = 2;
    pub(crate) const UPGRADE: u8 = 4;
    pub(crate) const OTHER: u8 = 8;

    /// `close` is listed.
    #[inline]
    pub fn close(self) -> bool {
        self.bits & Self::CLOSE != 0
    }
    /// `keep-alive` is listed.
    #[inline]
    pub fn keep_alive(self) -> bool {
        self.bits & Self::KEEP_ALIVE != 0
    }
    /// `upgrade` is listed.
    #[inline]
    pub fn upgrade(self) -> bool {
        self.bits & Self::UPGRADE != 0
    }
    /// Some other token is listed (a hop-by-hop field name).
    #[inline]
    pub fn other(self) -> bool {
        self.bits & Self::OTHER != 0
    }
}

/// What the fields that the parser interprets say: the framing fields
/// (`Content-Length`, `Transfer-Encoding`), the connection-control fields
/// (`Connection`, `Upgrade`), `Expect` and `Host`, recorded while the head
/// was parsed so no later layer scans the fields again. For requests these
/// are already judged by the strict profile (`Content-Length` with
/// `Transfer-Encoding`, a second `Host`, ... were refused).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FieldFacts {
    /// The agreed value of every `Content-Length` field, if any.
    pub content_length: Option<u64>,
    /// The `Transfer-Encoding` verdict.
    pub transfer_encoding: TransferEncoding,
    /// The `Connection` tokens.
    pub connection: ConnectionTokens,
    /// The span of the (single, validated) `Host` value, requests only.
    ///
    /// For an absolute-form target the authority in the target governs, not
    /// this field (RFC 9112 §3.2.2: an origin server MUST ignore `Host`
    /// then); route on [`RequestHead::target`] in that case, or a front
    /// proxy that does and this server may pick different hosts.
    pub host: Option<Span>,
    /// What `Expect` asked for.
    pub expect: Expect,
    /// Whether an `Upgrade` field is present (it takes effect only when
    /// `Connection` lists `upgrade`, on HTTP/1.1).
    pub upgrade: bool,
}

impl FieldFacts {
    /// The facts of a head without any of these fields.
    pub const NONE: FieldFacts = FieldFacts {
        content_length: None,
        transfer_encoding: TransferEncoding::Absent,
        connection: ConnectionTokens { bits: 0 },
        host: None,
        expect: Expect::None,
        upgrade: false,
    };
}

/// A parsed request head. Spans point into the buffer handed to the parser;
/// the fields are the first [`RequestHead::field_count`] entries of the
/// caller's storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequestHead {
    /// Bytes the head took, from the start of the buffer (skipped empty lines
    /// included) through the empty line. The body or the next request starts
    /// here.
    pub len: usize,
    /// The method token.
    pub method: Span,
    /// The method, recognised.
    pub method_kind: Method,
    /// The request-target, as received.
    pub target: Span,
    /// Its form.
    pub target_form: TargetForm,
    /// The protocol version.
    pub version: Version,
    /// How many entries of the storage hold fields.
    pub field_count: usize,
    /// What the framing, connection-control, `Expect` and `Host` fields say.
    pub facts: FieldFacts,
    /// Whether an obs-fold was accepted (only with
    /// [`Config::allow_obs_fold`](crate::Config::allow_obs_fold)).
    pub obs_fold: bool,
}

impl Default for RequestHead {
    fn default() -> RequestHead {
        RequestHead::EMPTY
    }
}

impl RequestHead {
    /// Storage for a head not parsed yet: `GET` with an empty target and no
    /// fields. The parsers overwrite all of it when a head is complete.
    pub const EMPTY: RequestHead = RequestHead {
        len: 0,
        method: Span::EMPTY,
        method_kind: Method::Get,
        target: Span::EMPTY,
        target_form: TargetForm::Origin,
        version: Version::Http11,
        field_count: 0,
        facts: FieldFacts::NONE,
        obs_fold: false,
    };

    /// The fields as a view over `buf` (the buffer that was parsed) and the
    /// storage that was handed to the parser.
    #[inline]
    pub fn fields<'a>(&self, buf: &'a [u8], storage: &'a [Entry]) -> HeadersView<'a> {
        HeadersView::new(buf, &storage[..self.field_count])
    }

    /// How the request's body is delimited (RFC 9112 §6.3 items 4 to 7):
    /// chunked, `Content-Length`, or no body. The parser has already
    /// refused every other combination (a coding other than chunked, both
    /// fields, disagreeing lengths).
    ///
    /// ```
    /// use h1_parse::{parse_request, Config, Entry, Framing, RequestHead};
    /// let buf = b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello";
    /// let mut head = RequestHead::EMPTY;
    /// let mut fields = [Entry::EMPTY; 4];
    /// parse_request(buf, &mut head, &mut fields, &Config::default())?;
    /// assert_eq!(head.framing(), Framing::Length(5));
    /// # Ok::<(), h1_parse::Error>(())
    /// ```
    #[inline]
    pub const fn framing(&self) -> Framing {
        match (self.facts.transfer_encoding, self.facts.content_length) {
            (TransferEncoding::Chunked, _) => Framing::Chunked,
            (_, Some(n)) => Framing::Length(n),
            _ => Framing::Empty,
        }
    }
}

/// A parsed response head.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResponseHead {
    /// Bytes the head took, through the empty line.
    pub len: usize,
    /// The protocol version.
    pub version: Version,
    /// The status code, 100 to 999.
    pub status: u16,
    /// The reason phrase (possibly empty).
    pub reason: Span,
    /// How many entries of the storage hold fields.
    pub field_count: usize,
    /// What the framing, connection-control and `Expect` fields say
    /// (`host` is always `None`).
    pub facts: FieldFacts,
    /// Whether an obs-fold was accepted.
    pub obs_fold: bool,
}

impl Default for ResponseHead {
    fn default() -> ResponseHead {
        ResponseHead::EMPTY
    }
}

impl ResponseHead {
    /// Storage for a head not parsed yet: `HTTP/1.1 200` with no reason and
    /// no fields. The parsers overwrite all of it when a head is complete.
    pub const EMPTY: ResponseHead = ResponseHead {
        len: 0,
        version: Version::Http11,
        status: 200,
        reason: Span::EMPTY,
        field_count: 0,
        facts: FieldFacts::NONE,
        obs_fold: false,
    };

    /// The fields as a view over `buf` and the storage.
    #[inline]
    pub fn fields<'a>(&self, buf: &'a [u8], storage: &'a [Entry]) -> HeadersView<'a> {
        HeadersView::new(buf, &storage[..self.field_count])
    }

    /// How the response's body is delimited, given the method of the
    /// request it answers (RFC 9112 §6.3, in its order): no body for an
    /// answer to HEAD, for 1xx, 204 and 304, and for a 2xx to CONNECT (a
    /// tunnel starts); then chunked when the last coding is chunked, until
    /// the connection closes for any other coding, the `Content-Length`, or
    /// until the connection closes when neither field is present.
    ///
    /// ```
    /// use h1_parse::{parse_response, Config, Entry, Framing, Method, ResponseHead};
    /// let buf = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n";
    /// let mut head = ResponseHead::EMPTY;
    /// let mut fields = [Entry::EMPTY; 4];
    /// parse_response(buf, &mut head, &mut fields, &Config::default())?;
    /// assert_eq!(head.framing(Method::Get), Framing::Length(5));
    /// assert_eq!(head.framing(Method::Head), Framing::Empty);
    /// # Ok::<(), h1_parse::Error>(())
    /// ```
    #[inline]
    pub const fn framing(&self, request: Method) -> Framing {
        let tunnel = matches!(request, Method::Connect) && self.status >= 200 && self.status < 300;
        if matches!(request, Method::Head)
            || self.status < 200
            || self.status == 204
            || self.status == 304
            || tunnel
        {
            return Framing::Empty;
        }
        match (self.facts.transfer_encoding, self.facts.content_length) {
            (TransferEncoding::Chunked, _) => Framing::Chunked,
            (TransferEncoding::NotChunked, _) => Framing::UntilClose,
            (_, Some(n)) => Framing::Length(n),
            (_, None) => Framing::UntilClose,
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;

    #[test]
    fn status_says_whether_the_element_is_complete() {
        assert!(Status::Complete(3).is_complete());
        assert!(!Status::<u8>::Partial.is_complete());
        assert_eq!(Status::Complete(3).complete(), Some(3));
        assert_eq!(Status::<u8>::Partial.complete(), None);
    }

    #[test]
    fn methods_are_recognised_by_their_exact_token() {
        let known = [
            (&b"GET"[..], Method::Get),
            (b"HEAD", Method::Head),
            (b"POST", Method::Post),
            (b"PUT", Method::Put),
            (b"DELETE", Method::Delete),
            (b"CONNECT", Method::Connect),
            (b"OPTIONS", Method::Options),
            (b"TRACE", Method::Trace),
            (b"PATCH", Method::Patch),
        ];
        for (token, method) in known {
            assert_eq!(
                Method::from_bytes(token),
                method,
                "{}",
                token.escape_ascii()
            );
            // Method names are case-sensitive (RFC 9110 §9.1).
            assert_eq!(
                Method::from_bytes(&token.to_ascii_lowercase()),
                Method::Other
            );
            assert_eq!(Method::from_bytes(&token[1..]), Method::Other);
        }
        assert_eq!(Method::from_bytes(b"PROPFIND"), Method::Other);
        assert_eq!(Method::from_bytes(b""), Method::Other);
    }
}
