//! [`ResponseWriter`] and [`RequestWriter`]: one head each, framing decided
//! up front, fields appended, framing fields written by [`finish`].
//!
//! [`finish`]: ResponseWriter::finish

use h1_headers::chars::{is_field_value, is_token};
use h1_headers::HeaderBlob;

use crate::body::BodyWriter;
use crate::date::DateLine;
use crate::fields::{self, put_field, put_fields, PreEncoded, Role, Seen};
use h1_headers::{Framing, Version};

use crate::framing::{self, Exchange, LengthField, Plan};
use crate::num;
use crate::sink::Sink;
use crate::status;
use crate::Error;

/// A finished head: where it is in the buffer, how its body is framed, and
/// whether the connection closes after the message.
#[derive(Debug, PartialEq, Eq)]
#[must_use = "the head decides how the body is framed and whether the connection closes"]
#[non_exhaustive]
pub struct Head {
    /// Where the head starts in the output buffer.
    pub start: usize,
    /// The head's length in bytes, final CRLF included.
    pub len: usize,
    /// How the body that follows the head is delimited: [`Framing::Empty`]
    /// when the head says no body follows (a response to HEAD, 1xx, 204,
    /// 304, a 2xx to CONNECT, a request without content), else `Length`
    /// (a response without content says `Content-Length: 0`: `Length(0)`),
    /// `Chunked` or `UntilClose`.
    pub framing: Framing,
    /// Writes (and counts) the body.
    pub body: BodyWriter,
    /// The connection closes after this message (`Connection: close` was
    /// written, or the body is delimited by closing).
    pub close: bool,
}

impl Head {
    /// The head's bytes in `buf` (the buffer it was written to).
    pub fn bytes<'a>(&self, buf: &'a [u8]) -> &'a [u8] {
        buf.get(self.start..self.start.saturating_add(self.len))
            .unwrap_or(&[])
    }

    /// The head and a whole `Content-Length` body as two slices, for a
    /// vectored write that does not copy the body. The body must be
    /// exactly the declared length (empty for bodiless messages); it is
    /// accounted for and finished (see [`BodyWriter::whole`]).
    pub fn with_body<'a>(&mut self, buf: &'a [u8], body: &'a [u8]) -> Result<[&'a [u8]; 2], Error> {
        self.body.whole(body)?;
        Ok([self.bytes(buf), body])
    }

    /// [`with_body`](Self::with_body) as `IoSlice`s for `write_vectored`.
    #[cfg(feature = "std")]
    #[cfg_attr(docsrs, doc(cfg(feature = "std")))]
    pub fn io_slices<'a>(
        &mut self,
        buf: &'a [u8],
        body: &'a [u8],
    ) -> Result<[std::io::IoSlice<'a>; 2], Error> {
        let [h, b] = self.with_body(buf, body)?;
        Ok([std::io::IoSlice::new(h), std::io::IoSlice::new(b)])
    }
}

/// What both writers share.
struct Core<'o, S: Sink + ?Sized> {
    out: &'o mut S,
    start: usize,
    plan: Plan,
    seen: Seen,
    /// A second `Date` came through `date` or `pre_encoded`, which cannot
    /// fail; `finish` refuses the head.
    duplicate_date: bool,
    /// The response is a 101 (needs `Upgrade`).
    switching: bool,
    /// The request has content (`Expect: 100-continue` needs it).
    content: bool,
    role: Role,
    finished: bool,
}

impl<'o, S: Sink + ?Sized> Core<'o, S> {
    #[inline]
    fn new(out: &'o mut S, plan: Plan, role: Role) -> Self {
        let start = out.len();
        Core {
            out,
            start,
            plan,
            seen: Seen::default(),
            duplicate_date: false,
            switching: false,
            content: false,
            role,
            finished: false,
        }
    }

    #[inline]
    fn field(&mut self, name: &[u8], value: &[u8]) -> Result<(), Error> {
        let kind = fields::check(name, value, self.role)?;
        self.seen.add(kind)?;
        put_field(self.out, name, value);
        Ok(())
    }

    fn fields<I, N, V>(&mut self, iter: I) -> Result<(), Error>
    where
        I: IntoIterator<Item = (N, V)>,
        N: AsRef<[u8]>,
        V: AsRef<[u8]>,
    {
        put_fields(self.out, iter, self.role, &mut self.seen)
    }

    #[cfg(feature = "http")]
    fn http_fields<'a, I>(&mut self, iter: I) -> Result<(), Error>
    where
        I: IntoIterator<Item = (&'a http::HeaderName, &'a http::HeaderValue)>,
    {
        fields::put_http_fields(self.out, iter, self.role, &mut self.seen)
    }

    fn blob(&mut self, blob: &HeaderBlob) -> Result<(), Error> {
        // The blob validated every name and value when it stored them;
        // only the framing check is left.
        let mut seen = self.seen;
        for (name, value) in blob {
            seen.add(fields::special(name, value, self.role)?)?;
        }
        self.out.reserve(blob.byte_len() + 4 * blob.len());
        for (name, value) in blob {
            put_field(self.out, name, value);
        }
        self.seen = seen;
        Ok(())
    }

    #[inline]
    fn pre_encoded(&mut self, lines: &PreEncoded) {
        if self.seen.merge(lines.seen()).is_err() {
            self.duplicate_date = true;
        }
        self.out.put(lines.as_bytes());
    }

    #[inline]
    fn date(&mut self, line: &DateLine) {
        self.duplicate_date |= self.seen.date;
        self.seen.date = true;
        self.out.put(line.as_bytes());
    }

    #[inline(always)]
    fn finish(&mut self) -> Result<Head, Error> {
        if self.duplicate_date {
            return Err(Error::DuplicateDate);
        }
        if self.plan.date_required && !self.seen.date {
            return Err(Error::MissingDate);
        }
        if self.switching && !self.seen.upgrade {
            return Err(Error::MissingUpgrade);
        }
        if self.role == Role::Request && self.seen.expect_continue && !self.content {
            return Err(Error::ExpectWithoutContent);
        }
        let end: &'static [u8] = match self.plan.connection {
            Some(true) => b"Connection: close\r\n\r\n",
            Some(false) => b"Connection: keep-alive\r\n\r\n",
            None => b"\r\n",
        };
        match self.plan.length {
            LengthField::Nothing => self.out.put(end),
            LengthField::ContentLength(len) => {
                // `Content-Length: <digits>\r\n\r\n` assembled with
                // fixed-size copies around the right-aligned digits, so the
                // usual end of a head (no `Connection`) is one append.
                const NAME: &[u8; 16] = b"Content-Length: ";
                let mut digits = [0u8; num::MAX_DEC];
                let at = num::dec(len, &mut digits);
                let mut line = [0u8; NAME.len() + num::MAX_DEC + 4];
                line[NAME.len()..NAME.len() + num::MAX_DEC].copy_from_slice(&digits);
                line[NAME.len() + num::MAX_DEC..].copy_from_slice(b"\r\n\r\n");
                line[at..at + NAME.len()].copy_from_slice(NAME);
                if self.plan.connection.is_none() {
                    self.out.put(&line[at..]);
                } else {
                    self.out.put(&line[at..line.len() - 2]);
                    self.out.put(end);
                }
            }
            LengthField::Chunked => {
                self.out.put(b"Transfer-Encoding: chunked\r\n");
                self.out.put(end);
            }
        }
        Ok(self.done())
    }

    #[inline]
    fn done(&mut self) -> Head {
        self.finished = true;
        Head {
            start: self.start,
            len: self.out.len() - self.start,
            framing: self.plan.body.framing(),
            body: self.plan.body.handed_out(),
            close: self.plan.close,
        }
    }
}

impl<S: Sink + ?Sized> Drop for Core<'_, S> {
    fn drop(&mut self) {
        if !self.finished {
            self.out.truncate(self.start);
        }
    }
}

/// Writes one response head into the caller's buffer.
///
/// The calling protocol:
///
/// 1. [`start`](Self::start) (or [`start_with_reason`](Self::start_with_reason))
///    with the status, the [`Exchange`] (facts of the request) and the
///    [`Framing`] of the body you will send. The framing is decided here, once; a body
///    the status or the request forbids is refused now. The status line is
///    written.
/// 2. Any number of [`date`](Self::date), [`pre_encoded`](Self::pre_encoded),
///    [`field`](Self::field), [`fields`](Self::fields), [`blob`](Self::blob)
///    calls, in the order the fields should appear. A refused field writes
///    nothing; the writer stays usable.
/// 3. [`finish`](Self::finish) writes `Content-Length` or
///    `Transfer-Encoding: chunked`, `Connection` when needed, and the empty
///    line, and returns the [`Head`] with the [`BodyWriter`] for the body.
///
/// Dropping the writer without finishing (or a failed `finish`) removes
/// everything it wrote, so the buffer never holds half a head.
///
/// The rules it enforces, each with a test in `tests/musts.rs`:
///
/// - no content, and no `Content-Length` or `Transfer-Encoding`, in 1xx
///   and 204 responses (RFC 9110 §6.4.1, §8.6, §15.3.5; RFC 9112 §6.1);
/// - no content in 304 (§15.4.5), whose `Content-Length` may only state a
///   200's length; none in a 205 (§15.3.6);
/// - a response to HEAD has no body but the framing fields a GET would have
///   (§9.3.2);
/// - a 2xx to CONNECT has neither `Content-Length` nor `Transfer-Encoding`
///   (§9.3.6, §8.6);
/// - chunked only to HTTP/1.1 clients (RFC 9112 §6.1); a streamed body to
///   HTTP/1.0 is delimited by closing, with `Connection: close`
///   (RFC 9112 §6.3, §9.6);
/// - no 1xx to an HTTP/1.0 client (RFC 9110 §15.2);
/// - `Date` in every 2xx, 3xx and 4xx from a server with a clock (§6.6.1),
///   and never twice (§5.3; [`Error::DuplicateDate`]);
/// - `Upgrade` in every 101 (§15.2.2; [`Error::MissingUpgrade`]);
/// - one framing: caller fields that would contradict it
///   (`Content-Length`, `Transfer-Encoding`, `Connection: close` /
///   `keep-alive`) are refused ([`Error::FramingField`]);
/// - `Connection: close` when the connection ends (RFC 9112 §9.6),
///   `Connection: keep-alive` to a persistent HTTP/1.0 client (§C.2.2);
/// - field names are tokens, values without CR, LF, NUL or other controls
///   (RFC 9110 §5.1, §5.5), reason phrases HTAB/SP/VCHAR/obs-text (RFC 9112 §4).
///
/// ```
/// use h1_encode::{DateLine, Exchange, Framing, PreEncoded, ResponseWriter, Version};
///
/// let server = PreEncoded::new([("Server", "h1")])?; // once, at start-up
/// let date = DateLine::new(b"Sun, 06 Nov 1994 08:49:37 GMT")?; // once a second
///
/// let mut buf = Vec::with_capacity(4096); // per connection, reused
/// let ex = Exchange::new(Version::Http11); // from the parsed request
/// let mut w = ResponseWriter::start(&mut buf, 200, &ex, Framing::Length(13))?;
/// w.date(&date).pre_encoded(&server);
/// w.field(b"Content-Type", b"text/plain")?;
/// let mut head = w.finish()?;
/// head.body.write(&mut buf, b"Hello, World!")?;
/// head.body.finish(&mut buf)?;
/// assert_eq!(
///     buf,
///     b"HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nServer: h1\r\n\
///       Content-Type: text/plain\r\nContent-Length: 13\r\n\r\nHello, World!"
/// );
/// assert!(!head.close);
/// # Ok::<(), h1_encode::Error>(())
/// ```
#[must_use = "a writer dropped without `finish` removes the head it wrote"]
pub struct ResponseWriter<'o, S: Sink + ?Sized> {
    core: Core<'o, S>,
}

impl<'o, S: Sink + ?Sized> ResponseWriter<'o, S> {
    /// Decides the framing and writes the status line, with the registered
    /// reason phrase (an empty one for unregistered codes).
    #[inline]
    pub fn start(out: &'o mut S, status: u16, ex: &Exchange, body: Framing) -> Result<Self, Error> {
        let plan = framing::response(status, ex, body)?;
        let mut core = Core::new(out, plan, Role::Response);
        core.switching = status == 101;
        match status::line(status) {
            Some(line) => core.out.put(line),
            None => put_status_line(core.out, status, b""),
        }
        Ok(ResponseWriter { core })
    }

    /// Like [`start`](Self::start) with the reason phrase `reason`
    /// (HTAB, SP, VCHAR and obs-text only; empty is allowed).
    pub fn start_with_reason(
        out: &'o mut S,
        status: u16,
        reason: &[u8],
        ex: &Exchange,
        body: Framing,
    ) -> Result<Self, Error> {
        if !status::valid_reason(reason) {
            return Err(Error::InvalidReason);
        }
        let plan = framing::response(status, ex, body)?;
        let mut core = Core::new(out, plan, Role::Response);
        core.switching = status == 101;
        put_status_line(core.out, status, reason);
        Ok(ResponseWriter { core })
    }

    /// Appends the field `name: value` after checking it.
    #[inline]
    pub fn field(&mut self, name: &[u8], value: &[u8]) -> Result<&mut Self, Error> {
        self.core.field(name, value)?;
        Ok(self)
    }

    /// Appends every `(name, value)` pair (a `HeadersView`'s iterator, an
    /// array of string pairs, ...) after checking it; when one is refused,
    /// the fields this call wrote are removed.
    pub fn fields<I, N, V>(&mut self, fields: I) -> Result<&mut Self, Error>
    where
        I: IntoIterator<Item = (N, V)>,
        N: AsRef<[u8]>,
        V: AsRef<[u8]>,
    {
        self.core.fields(fields)?;
        Ok(self)
    }

    /// Appends the fields of an `http::HeaderMap` (`map.iter()`, perhaps
    /// filtered), whose bytes the `http` types have checked: only what
    /// they do not rule out is checked here (whitespace at either end of a
    /// value, and the fields the encoder writes itself, which are refused
    /// as [`fields`](Self::fields) refuses them). Names are written as
    /// `http` holds them, lowercase.
    ///
    /// ```
    /// use h1_encode::{Exchange, Framing, ResponseWriter, Version};
    /// let mut map = http::HeaderMap::new();
    /// map.insert("content-type", "text/plain".parse().unwrap());
    /// let mut out = Vec::new();
    /// let ex = Exchange::new(Version::Http11).clock(false);
    /// let mut w = ResponseWriter::start(&mut out, 200, &ex, Framing::Length(0))?;
    /// w.http_fields(&map)?;
    /// w.finish()?;
    /// assert_eq!(out, b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\nContent-Length: 0\r\n\r\n");
    /// # Ok::<(), h1_encode::Error>(())
    /// ```
    #[cfg(feature = "http")]
    #[cfg_attr(docsrs, doc(cfg(feature = "http")))]
    pub fn http_fields<'a, I>(&mut self, fields: I) -> Result<&mut Self, Error>
    where
        I: IntoIterator<Item = (&'a http::HeaderName, &'a http::HeaderValue)>,
    {
        self.core.http_fields(fields)?;
        Ok(self)
    }

    /// Appends every field of `blob` (whose bytes were checked when it
    /// stored them; only the framing check is made here). Names are written
    /// as the blob holds them, lowercase.
    pub fn blob(&mut self, blob: &HeaderBlob) -> Result<&mut Self, Error> {
        self.core.blob(blob)?;
        Ok(self)
    }

    /// Copies pre-encoded lines, without another check. If they hold a
    /// `Date` and one was already written, [`finish`](Self::finish) fails
    /// with [`Error::DuplicateDate`].
    #[inline]
    pub fn pre_encoded(&mut self, lines: &PreEncoded) -> &mut Self {
        self.core.pre_encoded(lines);
        self
    }

    /// Copies the `Date` line. A second `Date` (from any source) makes
    /// [`finish`](Self::finish) fail with [`Error::DuplicateDate`]
    /// (RFC 9110 §5.3).
    #[inline]
    pub fn date(&mut self, line: &DateLine) -> &mut Self {
        self.core.date(line);
        self
    }

    /// Whether a `Date` line was written (by [`date`](Self::date), a
    /// field or [`pre_encoded`](Self::pre_encoded) lines).
    pub fn has_date(&self) -> bool {
        self.core.seen.date
    }

    /// Writes the framing fields and the empty line. Fails with
    /// [`Error::MissingDate`] when the [`Exchange`] has a clock, the status
    /// is 2xx–4xx and no `Date` was written, with
    /// [`Error::DuplicateDate`] after a second `Date`, and with
    /// [`Error::MissingUpgrade`] for a 101 without `Upgrade`; the head is
    /// then removed.
    #[inline(always)]
    pub fn finish(mut self) -> Result<Head, Error> {
        self.core.finish()
    }

    /// [`finish`](Self::finish), then `body` as the whole body, framed:
    /// exactly the declared `Content-Length`, one chunk and the last chunk
    /// when chunked, as is when the close delimits it. A message without a
    /// body (a response to HEAD, 1xx, 204, 304) is its head alone: `body`
    /// is not written. The returned head's body writer is finished. On an
    /// error nothing is written (a body longer or shorter than the declared
    /// length is [`Error::BodyTooLong`] / [`Error::BodyTooShort`]).
    ///
    /// ```
    /// use h1_encode::{Exchange, Framing, ResponseWriter, Version};
    /// let mut buf = Vec::new();
    /// let ex = Exchange::new(Version::Http11).clock(false);
    /// let head = ResponseWriter::start(&mut buf, 200, &ex, Framing::Length(2))?
    ///     .finish_with_body(b"hi")?;
    /// assert!(head.body.is_finished());
    /// assert_eq!(buf, b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi");
    /// # Ok::<(), h1_encode::Error>(())
    /// ```
    #[inline]
    pub fn finish_with_body(mut self, body: &[u8]) -> Result<Head, Error> {
        let mut head = self.core.finish()?;
        let out = &mut *self.core.out;
        let written = if !head.body.wants_data() {
            head.body.whole(&[])
        } else if head.body.remaining().is_some() {
            // `Content-Length`: exactly the declared bytes, as they are.
            head.body.whole(body).map(|()| out.put(body))
        } else {
            head.body
                .write(out, body)
                .and_then(|()| head.body.finish(out))
        };
        if let Err(e) = written {
            out.truncate(head.start);
            return Err(e);
        }
        Ok(head)
    }
}

fn put_status_line<S: Sink + ?Sized>(out: &mut S, status: u16, reason: &[u8]) {
    // `status` is in 100..=599 (checked by the framing decision).
    let digits = [
        b'0' + (status / 100 % 10) as u8,
        b'0' + (status / 10 % 10) as u8,
        b'0' + (status % 10) as u8,
    ];
    out.reserve(reason.len() + 15);
    out.put(b"HTTP/1.1 ");
    out.put(&digits);
    out.put(b" ");
    out.put(reason);
    out.put(b"\r\n");
}

/// Writes one request head (client role) into the caller's buffer.
///
/// The same protocol as [`ResponseWriter`]: [`start`](Self::start) decides
/// the framing and writes the request line and `Host`; fields follow;
/// [`finish`](Self::finish) writes `Content-Length` /
/// `Transfer-Encoding: chunked` and `Connection` as needed. The caller's
/// fields may not contain `Host`, `Content-Length`, `Transfer-Encoding` or
/// a `Connection` with `close`/`keep-alive`.
///
/// ```
/// use h1_encode::{Exchange, Framing, RequestWriter, Version};
/// let mut buf = Vec::new();
/// let ex = Exchange::new(Version::Http11);
/// let mut w = RequestWriter::start(&mut buf, b"POST", b"/upload", Some(b"example.com"), &ex, Framing::Chunked)?;
/// w.field(b"Content-Type", b"application/octet-stream")?;
/// let mut head = w.finish()?;
/// head.body.write(&mut buf, b"data")?;
/// head.body.finish(&mut buf)?;
/// assert_eq!(
///     buf,
///     b"POST /upload HTTP/1.1\r\nHost: example.com\r\nContent-Type: application/octet-stream\r\n\
///       Transfer-Encoding: chunked\r\n\r\n4\r\ndata\r\n0\r\n\r\n"
/// );
/// # Ok::<(), h1_encode::Error>(())
/// ```
#[must_use = "a writer dropped without `finish` removes the head it wrote"]
pub struct RequestWriter<'o, S: Sink + ?Sized> {
    core: Core<'o, S>,
}

impl<'o, S: Sink + ?Sized> RequestWriter<'o, S> {
    /// Decides the framing and writes the request line and `Host`.
    ///
    /// `method` must be a token; `target` non-empty, bytes `0x21..=0x7E`
    /// without `#` (the origin, absolute, authority or asterisk form; the
    /// encoder does not check which). `host` is required for HTTP/1.1
    /// (RFC 9112 §3.2; it may be empty when the target has no authority)
    /// and optional for HTTP/1.0. A `TRACE` request with any body other
    /// than [`Framing::Empty`] is refused ([`Error::TraceWithContent`],
    /// RFC 9110 §9.3.8). Only [`Exchange::version`] and
    /// [`Exchange::close`] matter here.
    pub fn start(
        out: &'o mut S,
        method: &[u8],
        target: &[u8],
        host: Option<&[u8]>,
        ex: &Exchange,
        body: Framing,
    ) -> Result<Self, Error> {
        if !is_token(method) {
            return Err(Error::InvalidMethod);
        }
        if target.is_empty()
            || !target
                .iter()
                .all(|&b| (0x21..=0x7e).contains(&b) && b != b'#')
        {
            return Err(Error::InvalidTarget);
        }
        if let Some(host) = host {
            if !is_field_value(host) {
                return Err(Error::InvalidFieldValue);
            }
        } else if ex.version == Version::Http11 {
            return Err(Error::MissingHost);
        }
        // RFC 9110 §9.3.8: a client MUST NOT send content in a TRACE
        // request.
        if method == b"TRACE" && !matches!(body, Framing::Empty) {
            return Err(Error::TraceWithContent);
        }
        let plan = framing::request(ex, body)?;
        let mut core = Core::new(out, plan, Role::Request);
        core.content =
            matches!(body, Framing::Chunked) || matches!(body, Framing::Length(n) if n > 0);
        let version: &[u8] = match ex.version {
            Version::Http10 => b" HTTP/1.0\r\n",
            Version::Http11 => b" HTTP/1.1\r\n",
        };
        core.out
            .reserve(method.len() + target.len() + 20 + host.map_or(0, <[u8]>::len));
        core.out.put(method);
        core.out.put(b" ");
        core.out.put(target);
        core.out.put(version);
        if let Some(host) = host {
            put_field(core.out, b"Host", host);
        }
        Ok(RequestWriter { core })
    }

    /// Appends the field `name: value` after checking it.
    #[inline]
    pub fn field(&mut self, name: &[u8], value: &[u8]) -> Result<&mut Self, Error> {
        self.core.field(name, value)?;
        Ok(self)
    }

    /// Appends every `(name, value)` pair after checking it; when one is
    /// refused, the fields this call wrote are removed.
    pub fn fields<I, N, V>(&mut self, fields: I) -> Result<&mut Self, Error>
    where
        I: IntoIterator<Item = (N, V)>,
        N: AsRef<[u8]>,
        V: AsRef<[u8]>,
    {
        self.core.fields(fields)?;
        Ok(self)
    }

    /// Appends the fields of an `http::HeaderMap` (see
    /// [`ResponseWriter::http_fields`]).
    #[cfg(feature = "http")]
    #[cfg_attr(docsrs, doc(cfg(feature = "http")))]
    pub fn http_fields<'a, I>(&mut self, fields: I) -> Result<&mut Self, Error>
    where
        I: IntoIterator<Item = (&'a http::HeaderName, &'a http::HeaderValue)>,
    {
        self.core.http_fields(fields)?;
        Ok(self)
    }

    /// Appends every field of `blob` (only the framing check is made).
    pub fn blob(&mut self, blob: &HeaderBlob) -> Result<&mut Self, Error> {
        self.core.blob(blob)?;
        Ok(self)
    }

    /// Copies pre-encoded lines, without another check. If they hold a
    /// `Date` and one was already written, [`finish`](Self::finish) fails
    /// with [`Error::DuplicateDate`].
    #[inline]
    pub fn pre_encoded(&mut self, lines: &PreEncoded) -> &mut Self {
        self.core.pre_encoded(lines);
        self
    }

    /// Writes the framing fields and the empty line. Fails with
    /// [`Error::ExpectWithoutContent`] when an `Expect: 100-continue` was
    /// written on a request without content (RFC 9110 §10.1.1), or with
    /// [`Error::DuplicateDate`]; the head is then removed.
    pub fn finish(mut self) -> Result<Head, Error> {
        self.core.finish()
    }
}
