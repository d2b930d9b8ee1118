//! How a message body is delimited.

/// How a message body is delimited on the wire (RFC 9112 §6): the one type
/// for it across the crates. A parsed request head says it
/// (h1-parse's `RequestHead::framing`), a response head says it once the
/// request it answers is known (`ResponseHead::framing`); an encoder is told
/// it for the message it writes (h1-encode), and a connection reads and
/// writes bodies by it (h1-conn).
///
/// ```
/// use h1_headers::Framing;
/// let f = Framing::Length(13);
/// assert!(f.has_body());
/// assert!(!Framing::Length(0).has_body());
/// assert!(!Framing::Empty.has_body());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Framing {
    /// No body: the message ends with its head.
    Empty,
    /// Exactly this many bytes (`Content-Length`).
    Length(u64),
    /// The chunked transfer coding: a body of any length, its end marked.
    /// An encoder writing to an HTTP/1.0 peer, which cannot read chunked,
    /// delimits it by closing the connection instead.
    Chunked,
    /// Every byte until the connection closes: a response without
    /// `Content-Length` or chunked coding (RFC 9112 §6.3 items 4 and 8).
    /// Never a request body.
    UntilClose,
}

impl Framing {
    /// Whether body bytes can follow the head: false for [`Framing::Empty`]
    /// and `Length(0)`.
    #[inline]
    pub const fn has_body(self) -> bool {
        !matches!(self, Framing::Empty | Framing::Length(0))
    }
}
