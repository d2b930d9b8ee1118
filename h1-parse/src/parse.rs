//! The head parsers: request line, status line, field lines, trailers.
//!
//! One validating pass over the head. Field lines are walked with a 64-byte
//! window of two masks (bytes that end a name, bytes that end a value),
//! classified once per window by the detected [`Path`]; a line usually costs
//! two `trailing_zeros`, a CRLF check and a store.

use h1_headers::chars::is_ows;
use h1_headers::{list_elements, parse_content_length, Entry, Span};

use crate::error::{Error, ErrorKind as K};
use crate::head::{
    ConnectionTokens, Expect, Framing, Method, RequestHead, ResponseHead, Status, TargetForm,
    TransferEncoding, Version,
};
use crate::scan::{block_at, low_bits, Block, Classify, Kernel, Path, Stop};
use crate::Config;

type Result<T> = core::result::Result<T, Error>;

#[inline(always)]
fn err<T>(kind: K, at: usize) -> Result<T> {
    Err(Error::new(kind, at))
}

/// A span for `start..end`. The parser never sees more than [`Span::MAX`]
/// bytes (see [`clamp`]) and always has `start <= end`, so the casts are exact.
#[inline(always)]
fn span(start: usize, end: usize) -> Span {
    debug_assert!(start <= end && end <= Span::MAX);
    Span::from_parts(start as u32, (end - start) as u32)
}

/// The buffer cut so spans fit in 32 bits and the head limit holds.
#[inline(always)]
fn clamp(buf: &[u8], start: usize, max_head: usize) -> (&[u8], bool) {
    let limit = start.saturating_add(max_head).min(Span::MAX);
    if buf.len() > limit {
        (&buf[..limit], true)
    } else {
        (buf, false)
    }
}

/// Parses a request head from the start of `buf`, writing one [`Entry`] per
/// field line into `fields`.
///
/// Returns [`Status::Partial`] while `buf` is a valid prefix of a head, the
/// head once it is complete, or the first error. Empty lines before the
/// request line are skipped (RFC 9112 §2.2) and counted in
/// [`RequestHead::len`]. For heads that arrive in pieces prefer
/// [`HeadParser`](crate::HeadParser), which does not re-parse on every call.
///
/// ```
/// use h1_parse::{parse_request, Config, ErrorKind, Status};
/// use h1_headers::Entry;
///
/// let mut fields = [Entry::EMPTY; 8];
/// let cfg = Config::default();
/// assert_eq!(parse_request(b"GET / HTTP/1.1\r\nHost: a", &mut fields, &cfg), Ok(Status::Partial));
///
/// let smuggle = b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n";
/// let e = parse_request(smuggle, &mut fields, &cfg).unwrap_err();
/// assert_eq!(e.kind(), ErrorKind::ContentLengthWithTransferEncoding);
/// assert_eq!(e.status(), 400);
/// ```
#[inline]
pub fn parse_request(
    buf: &[u8],
    fields: &mut [Entry],
    config: &Config,
) -> Result<Status<RequestHead>> {
    parse_request_with_path(Path::detected(), buf, fields, config)
}

/// [`parse_request`] on a chosen scanner [`Path`], for differential tests and
/// fuzzing: every available path must give the same result.
///
/// # Panics
///
/// When `path` is not available on this CPU ([`Path::is_available`]).
#[inline]
pub fn parse_request_with_path(
    path: Path,
    buf: &[u8],
    fields: &mut [Entry],
    config: &Config,
) -> Result<Status<RequestHead>> {
    path.run(RequestKernel {
        buf,
        fields,
        config,
    })
}

/// Parses a response head from the start of `buf`.
///
/// The framing facts are recorded but not judged against a request: whether
/// the response has a body depends on the request method and the status,
/// which the connection layer knows. `Content-Length` together with
/// `Transfer-Encoding` is refused, as is `Transfer-Encoding` in HTTP/1.0.
///
/// ```
/// use h1_parse::{parse_response, Config, Status};
/// use h1_headers::Entry;
///
/// let buf = b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
/// let mut fields = [Entry::EMPTY; 8];
/// let Status::Complete(head) = parse_response(buf, &mut fields, &Config::default()).unwrap() else {
///     panic!("complete");
/// };
/// assert_eq!(head.status, 404);
/// assert_eq!(head.reason.slice(buf), b"Not Found");
/// assert_eq!(head.framing.content_length, Some(0));
/// ```
#[inline]
pub fn parse_response(
    buf: &[u8],
    fields: &mut [Entry],
    config: &Config,
) -> Result<Status<ResponseHead>> {
    Path::detected().run(ResponseKernel {
        buf,
        fields,
        config,
    })
}

/// Where a trailer section ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trailers {
    /// Bytes the section took, through its empty line.
    pub len: usize,
    /// How many entries of the storage hold trailer fields.
    pub field_count: usize,
}

/// Parses the trailer section that follows the last chunk (RFC 9112 §7.1.2):
/// field lines with the same rules as the head, up to and including the
/// empty line. `buf` starts right after the `0\r\n` line.
///
/// ```
/// use h1_parse::{parse_trailers, Config, Status, Trailers};
/// use h1_headers::Entry;
///
/// let mut fields = [Entry::EMPTY; 4];
/// let t = parse_trailers(b"Digest: x\r\n\r\n", &mut fields, &Config::default()).unwrap();
/// assert_eq!(t, Status::Complete(Trailers { len: 13, field_count: 1 }));
/// ```
#[inline]
pub fn parse_trailers(
    buf: &[u8],
    fields: &mut [Entry],
    config: &Config,
) -> Result<Status<Trailers>> {
    Path::detected().run(TrailerKernel {
        buf,
        fields,
        config,
    })
}

/// Replaces CR and LF inside `value` with SP, as RFC 9112 §5.2 requires of a
/// recipient that accepts obs-fold (see
/// [`Config::allow_obs_fold`](crate::Config::allow_obs_fold)). Spans reaching
/// past `buf` are clipped.
///
/// ```
/// let mut buf = *b"X: a\r\n b";
/// h1_parse::unfold_in_place(&mut buf, h1_headers::Span::new(3, 5).unwrap());
/// assert_eq!(&buf[3..], b"a   b");
/// ```
pub fn unfold_in_place(buf: &mut [u8], value: Span) {
    let end = value.end().min(buf.len());
    let start = value.offset().min(end);
    for b in &mut buf[start..end] {
        if *b == b'\r' || *b == b'\n' {
            *b = b' ';
        }
    }
}

// ---------------------------------------------------------------------------
// The window: masks of the 64 bytes at `base`.

/// Masks of bytes that end a token and a value, for the 64-byte block at
/// `base` (a multiple of 64 from the start of the buffer, so each block is
/// classified at most once per class). Each mask is computed when first
/// needed: names need the token mask, values the value mask. Past the end of
/// the buffer every byte counts as a stop, so a scan ends at `buf.len()` when
/// nothing else stops it.
struct Window<C> {
    c: C,
    base: usize,
    non_token: Option<u64>,
    non_value: Option<u64>,
    /// For buffers shorter than a block: the masks of the whole buffer
    /// (token, value, target), classified once from a padded copy.
    small: Option<[u64; 3]>,
}

impl<C: Classify> Window<C> {
    /// A window for `buf`; nothing is classified yet.
    #[inline(always)]
    fn new(c: C, buf: &[u8]) -> Self {
        Window {
            c,
            base: usize::MAX - 63,
            non_token: None,
            non_value: None,
            small: if buf.len() < 64 {
                Some(small_masks(c, buf))
            } else {
                None
            },
        }
    }

    /// The `stop` mask of the 64 bytes at `at`, classified now. Near the end
    /// of the buffer the last 64 bytes are classified and shifted, so nothing
    /// is copied.
    #[inline(always)]
    fn classify(&self, buf: &[u8], at: usize, stop: Stop) -> u64 {
        if let Some(b) = buf.get(at..at + 64) {
            let b: &Block = b.try_into().unwrap_or(&[0; 64]);
            return stop.mask(self.c, b);
        }
        if at >= buf.len() {
            return u64::MAX;
        }
        let past_end = !low_bits(buf.len() - at);
        if let Some(whole) = self.small {
            return whole[stop as usize] >> at | past_end;
        }
        let from = buf.len() - 64;
        let b: &Block = buf[from..].try_into().unwrap_or(&[0; 64]);
        stop.mask(self.c, b) >> (at - from) | past_end
    }

    /// The token and value masks of the 64 bytes at `at`.
    #[inline(always)]
    fn masks(&self, buf: &[u8], at: usize) -> [u64; 2] {
        if let Some(b) = buf.get(at..at + 64) {
            let b: &Block = b.try_into().unwrap_or(&[0; 64]);
            return [self.c.non_token(b), self.c.non_value(b)];
        }
        [
            self.classify(buf, at, Stop::Token),
            self.classify(buf, at, Stop::Value),
        ]
    }

    /// The first `stop` byte at or after `from` (`buf.len()` or beyond when
    /// there is none in `buf`).
    #[inline(always)]
    fn find(&mut self, buf: &[u8], mut from: usize, stop: Stop) -> usize {
        loop {
            let rel = from.wrapping_sub(self.base);
            if rel >= 64 {
                self.base = from & !63;
                self.non_token = None;
                self.non_value = None;
                continue;
            }
            let cached = match stop {
                Stop::Token => &mut self.non_token,
                _ => &mut self.non_value,
            };
            let mask = match *cached {
                Some(m) => m,
                None => {
                    let m = self.classify_at_base(buf, stop);
                    match stop {
                        Stop::Token => self.non_token = Some(m),
                        _ => self.non_value = Some(m),
                    }
                    m
                }
            };
            let m = mask >> rel;
            if m != 0 {
                return from + m.trailing_zeros() as usize;
            }
            from = self.base + 64;
        }
    }

    #[inline(always)]
    fn classify_at_base(&self, buf: &[u8], stop: Stop) -> u64 {
        self.classify(buf, self.base, stop)
    }

    /// The first byte at or after `from` that is not a tchar.
    #[inline(always)]
    fn token_end(&mut self, buf: &[u8], from: usize) -> usize {
        self.find(buf, from, Stop::Token)
    }

    /// The first byte at or after `from` that may not be in a field value.
    #[inline(always)]
    fn value_end(&mut self, buf: &[u8], from: usize) -> usize {
        self.find(buf, from, Stop::Value)
    }

    /// The first byte at or after `from` that may not be in a request-target
    /// (not cached: the target is scanned once per request).
    #[inline(always)]
    fn target_end(&self, buf: &[u8], mut from: usize) -> usize {
        loop {
            let m = self.classify(buf, from, Stop::Target);
            if m != 0 {
                return (from + m.trailing_zeros() as usize).min(buf.len());
            }
            from += 64;
        }
    }
}

/// The masks of a buffer shorter than 64 bytes, from a zero-padded copy.
#[inline(always)]
fn small_masks<C: Classify>(c: C, buf: &[u8]) -> [u64; 3] {
    let mut tmp = [0u8; 64];
    let b = block_at(buf, 0, &mut tmp);
    [c.non_token(b), c.non_value(b), c.non_target(b)]
}

// ---------------------------------------------------------------------------
// Field lines.

/// A field line, as positions in the buffer.
#[derive(Clone, Copy)]
struct Line {
    name_start: usize,
    name_end: usize,
    value_start: usize,
    value_end: usize,
}

/// What the field walk ended with.
struct FieldsEnd {
    /// Index after the empty line.
    end: usize,
    count: usize,
    obs_fold: bool,
}

/// What the field walk tells about each field line.
trait FieldSink {
    /// One field line, already validated and stored.
    fn field(&mut self, buf: &[u8], line: Line) -> Result<()>;
}

/// Trailer fields carry no framing facts.
struct NoFacts;

impl FieldSink for NoFacts {
    #[inline(always)]
    fn field(&mut self, _: &[u8], _: Line) -> Result<()> {
        Ok(())
    }
}

/// Walks field lines from `pos` up to and including the empty line, storing
/// them into `fields` and telling `sink` of each.
///
/// The loop handles the common shape (`Name: value` with at most one SP
/// around the value, CRLF) inline; everything else goes to cold functions.
#[inline(always)]
fn parse_fields<C: Classify>(
    w: &mut Window<C>,
    buf: &[u8],
    mut pos: usize,
    fields: &mut [Entry],
    config: &Config,
    sink: &mut impl FieldSink,
) -> Result<Status<FieldsEnd>> {
    let max_fields = config.max_fields.min(fields.len());
    let fields = &mut fields[..max_fields];
    let max_line = config.max_field_line_len;
    let mut count = 0;
    let mut obs_fold = false;
    // The fast path's masks: bytes that end a name, bytes that end a value,
    // for the 64 bytes at `base`.
    let mut base = pos;
    let [mut nt, mut nv] = w.masks(buf, pos);
    loop {
        let name_start = pos;
        let name_end;
        let mut value_start;
        let mut value_end;
        let mut next;
        // Fast path: the name lies inside the window (reloaded once at the
        // line start if it does not) and is followed by ':'; the value runs
        // on through as many blocks as it needs and ends in CRLF.
        let fast = 'fast: {
            let mut rel = pos - base;
            let mut name_len = (nt >> rel).trailing_zeros() as usize;
            if rel + name_len >= 64 {
                if rel == 0 {
                    break 'fast None;
                }
                base = pos;
                [nt, nv] = w.masks(buf, pos);
                rel = 0;
                name_len = nt.trailing_zeros() as usize;
                if name_len >= 64 {
                    break 'fast None;
                }
            }
            let c = pos + name_len;
            if name_len == 0 || buf.get(c) != Some(&b':') {
                break 'fast None;
            }
            let mut vrel = rel + name_len + 1;
            loop {
                let m = if vrel < 64 { nv >> vrel } else { 0 };
                if m != 0 {
                    let e = base + vrel + m.trailing_zeros() as usize;
                    if buf.get(e..e + 2) == Some(b"\r\n") {
                        break 'fast Some((c, e));
                    }
                    break 'fast None;
                }
                if base + 64 >= buf.len() || base + 64 - pos > max_line {
                    break 'fast None;
                }
                base += 64;
                [nt, nv] = w.masks(buf, base);
                vrel = 0;
            }
        };
        if let Some((c, e)) = fast {
            name_end = c;
            value_start = c + 1;
            value_end = e;
            next = e + 2;
        } else {
            // The empty line, or the start of a field line.
            let first = match buf.get(pos) {
                Some(&b) => b,
                None => return Ok(Status::Partial),
            };
            if first == b'\r' || first == b'\n' {
                return match empty_line(buf, pos, config)? {
                    Some(end) => Ok(Status::Complete(FieldsEnd {
                        end,
                        count,
                        obs_fold,
                    })),
                    None => Ok(Status::Partial),
                };
            }
            name_end = w.token_end(buf, pos);
            if name_end >= buf.len() {
                return partial_line(buf, name_start, max_line);
            }
            if buf[name_end] != b':' || name_end == name_start {
                return name_error(buf, name_start, name_end);
            }
            value_start = name_end + 1;
            value_end = w.value_end(buf, value_start);
            next = match line_end_slow(buf, value_end, config)? {
                Some(n) => n,
                None => return partial_line(buf, name_start, max_line),
            };
        }
        if value_end - name_start > max_line {
            return err(K::FieldLineTooLong, name_start);
        }
        if value_start < value_end && buf[value_start] == b' ' {
            value_start += 1;
        }
        if value_start < value_end && (is_ows(buf[value_start]) || is_ows(buf[value_end - 1])) {
            (value_start, value_end) = trim(buf, value_start, value_end);
        }
        if config.allow_obs_fold && matches!(buf.get(next), Some(b' ' | b'\t')) {
            match unfold(w, buf, name_start, value_start, value_end, next, config)? {
                Some((s, e, n)) => (value_start, value_end, next) = (s, e, n),
                None => return partial_line(buf, name_start, max_line),
            }
            obs_fold = true;
        }
        match fields.get_mut(count) {
            Some(slot) => {
                *slot = Entry::new(span(name_start, name_end), span(value_start, value_end))
            }
            None => return err(K::TooManyFields, name_start),
        }
        count += 1;
        sink.field(
            buf,
            Line {
                name_start,
                name_end,
                value_start,
                value_end,
            },
        )?;
        pos = next;
        if pos - base >= 64 {
            base = pos;
            [nt, nv] = w.masks(buf, pos);
        }
    }
}

/// The empty line that ends a head: `Some(end)`, `None` when incomplete.
#[inline(always)]
fn empty_line(buf: &[u8], pos: usize, config: &Config) -> Result<Option<usize>> {
    match (buf[pos], buf.get(pos + 1)) {
        (b'\r', Some(b'\n')) => Ok(Some(pos + 2)),
        (b'\r', None) => Ok(None),
        (b'\r', Some(_)) => err(K::BareCr, pos),
        _ if config.allow_bare_lf => Ok(Some(pos + 1)),
        _ => err(K::BareLf, pos),
    }
}

/// `value` without leading and trailing whitespace.
#[cold]
#[inline(never)]
fn trim(buf: &[u8], mut start: usize, mut end: usize) -> (usize, usize) {
    while start < end && is_ows(buf[start]) {
        start += 1;
    }
    while end > start && is_ows(buf[end - 1]) {
        end -= 1;
    }
    (start, end)
}

/// Extends a value over obs-fold continuation lines (leniency only):
/// `(value start, value end, next line)`, `None` when incomplete.
#[cold]
#[inline(never)]
fn unfold<C: Classify>(
    w: &mut Window<C>,
    buf: &[u8],
    name_start: usize,
    mut value_start: usize,
    mut value_end: usize,
    mut next: usize,
    config: &Config,
) -> Result<Option<(usize, usize, usize)>> {
    while matches!(buf.get(next), Some(b' ' | b'\t')) {
        let (e, n) = match line_end(w, buf, next, config)? {
            Some(e) => e,
            None => return Ok(None),
        };
        if e - name_start > config.max_field_line_len {
            return err(K::FieldLineTooLong, name_start);
        }
        let (s, e) = trim(buf, next, e);
        if s < e {
            if value_start >= value_end {
                value_start = s;
            }
            value_end = e;
        }
        next = n;
    }
    Ok(Some((value_start, value_end, next)))
}

/// The line end at `end`, the first byte a value scan stopped at, when it is
/// not CRLF: the start of the next line, `None` when incomplete, or the
/// error.
#[cold]
#[inline(never)]
fn line_end_slow(buf: &[u8], end: usize, config: &Config) -> Result<Option<usize>> {
    match buf.get(end) {
        None => Ok(None),
        Some(b'\r') => match buf.get(end + 1) {
            Some(b'\n') => Ok(Some(end + 2)),
            None => Ok(None),
            Some(_) => err(K::BareCr, end),
        },
        Some(b'\n') if config.allow_bare_lf => Ok(Some(end + 1)),
        Some(b'\n') => err(K::BareLf, end),
        Some(_) => err(K::InvalidFieldValue, end),
    }
}

/// The end of a value starting at `from`: `(end of value bytes, start of the
/// next line)`, `None` when the line is not complete yet.
#[inline(always)]
fn line_end<C: Classify>(
    w: &mut Window<C>,
    buf: &[u8],
    from: usize,
    config: &Config,
) -> Result<Option<(usize, usize)>> {
    let end = w.value_end(buf, from);
    Ok(line_end_slow(buf, end, config)?.map(|next| (end, next)))
}

#[cold]
#[inline(never)]
fn partial_line<T>(buf: &[u8], line_start: usize, max_line: usize) -> Result<Status<T>> {
    if buf.len() - line_start > max_line {
        return err(K::FieldLineTooLong, line_start);
    }
    Ok(Status::Partial)
}

/// Why a field line has no valid name: a line starting with whitespace
/// (obs-fold), whitespace before the colon, or a byte that is not a tchar.
#[cold]
#[inline(never)]
fn name_error<T>(buf: &[u8], start: usize, end: usize) -> Result<Status<T>> {
    if end == start {
        return match buf[start] {
            b' ' | b'\t' => err(K::ObsFold, start),
            _ => err(K::InvalidFieldName, start),
        };
    }
    match buf[end] {
        b' ' | b'\t' => match buf[end..].iter().find(|&&b| !is_ows(b)) {
            Some(b':') => err(K::WhitespaceBeforeColon, end),
            Some(_) => err(K::InvalidFieldName, end),
            // Only whitespace so far: which error it is depends on what comes.
            None => Ok(Status::Partial),
        },
        _ => err(K::InvalidFieldName, end),
    }
}

/// Whether the token `name` equals `lower`, an all-lowercase name of 4 to
/// 24 letters and `-`. For tchars, OR-ing 0x20 maps exactly the two cases of a
/// letter onto the lowercase one and leaves `-` alone (its only other
/// preimage, CR, is not a tchar), so whole words compare at once.
#[inline(always)]
fn name_is<const N: usize>(name: &[u8], lower: &[u8; N]) -> bool {
    if name.len() != N {
        return false;
    }
    if N < 8 {
        let w = |s: &[u8], at: usize| u32::from_le_bytes([s[at], s[at + 1], s[at + 2], s[at + 3]]);
        return w(name, 0) | 0x2020_2020 == w(lower, 0)
            && w(name, N - 4) | 0x2020_2020 == w(lower, N - 4);
    }
    let w = |s: &[u8], at: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&s[at..at + 8]);
        u64::from_le_bytes(b) | 0x2020_2020_2020_2020
    };
    let mid = if N > 16 {
        w(name, 8) == w(lower, 8)
    } else {
        true
    };
    w(name, 0) == w(lower, 0) && w(name, N - 8) == w(lower, N - 8) && mid
}

// ---------------------------------------------------------------------------
// Framing facts.

impl FieldSink for Facts {
    #[inline(always)]
    fn field(&mut self, buf: &[u8], l: Line) -> Result<()> {
        match l.name_end - l.name_start {
            4 if self.request && name_is(&buf[l.name_start..l.name_end], b"host") => {
                self.host(buf, l)
            }
            6 | 7 | 10 | 14 | 17 => self.known(buf, l),
            _ => Ok(()),
        }
    }
}

/// Accumulates the framing facts while the fields go by.
struct Facts {
    request: bool,
    version: Version,
    framing: Framing,
    content_length_at: usize,
    te_at: usize,
    te_seen: bool,
    te_chunked: bool,
    te_other: bool,
    host_count: u32,
}

impl Facts {
    #[inline(always)]
    fn new(request: bool, version: Version) -> Facts {
        Facts {
            request,
            version,
            framing: Framing::NONE,
            content_length_at: 0,
            te_at: 0,
            te_seen: false,
            te_chunked: false,
            te_other: false,
            host_count: 0,
        }
    }

    /// Records a field whose name may be one of the framing fields.
    #[inline(never)]
    fn known(&mut self, buf: &[u8], l: Line) -> Result<()> {
        let request = self.request;
        let name = &buf[l.name_start..l.name_end];
        let value = &buf[l.value_start..l.value_end];
        match name.len() {
            4 if request && name_is(name, b"host") => self.host(buf, l)?,
            6 if request && name_is(name, b"expect") => {
                self.framing.expect = if value.eq_ignore_ascii_case(b"100-continue")
                    && self.framing.expect != Expect::Other
                {
                    Expect::Continue
                } else {
                    Expect::Other
                };
            }
            7 if name_is(name, b"upgrade") => self.framing.upgrade = true,
            10 if name_is(name, b"connection") => {
                for token in list_elements(value) {
                    self.framing.connection.bits |= if token.eq_ignore_ascii_case(b"close") {
                        ConnectionTokens::CLOSE
                    } else if token.eq_ignore_ascii_case(b"keep-alive") {
                        ConnectionTokens::KEEP_ALIVE
                    } else if token.eq_ignore_ascii_case(b"upgrade") {
                        ConnectionTokens::UPGRADE
                    } else {
                        ConnectionTokens::OTHER
                    };
                }
            }
            14 if name_is(name, b"content-length") => {
                let n = parse_content_length(value)
                    .or_else(|_| err(K::InvalidContentLength, l.value_start))?;
                match self.framing.content_length {
                    Some(prev) if prev != n => return err(K::InvalidContentLength, l.value_start),
                    _ => {}
                }
                self.framing.content_length = Some(n);
                self.content_length_at = l.name_start;
            }
            17 if name_is(name, b"transfer-encoding") => self.transfer_encoding(value, l)?,
            _ => {}
        }
        Ok(())
    }

    /// Host is in every request: checked here without the call.
    #[inline(always)]
    fn host(&mut self, buf: &[u8], l: Line) -> Result<()> {
        self.host_count += 1;
        if self.host_count > 1 {
            return err(K::DuplicateHost, l.name_start);
        }
        let value = &buf[l.value_start..l.value_end];
        if !(valid_host(value, false) || value.is_empty() && self.version == Version::Http10) {
            return err(K::InvalidHost, l.value_start);
        }
        self.framing.host = Some(span(l.value_start, l.value_end));
        Ok(())
    }

    /// One `Transfer-Encoding` field: a list of codings, of which `chunked`
    /// may appear once, last, without parameters.
    fn transfer_encoding(&mut self, value: &[u8], l: Line) -> Result<()> {
        if !self.te_seen {
            self.te_at = l.name_start;
        }
        self.te_seen = true;
        let mut any = false;
        for elem in list_elements(value) {
            any = true;
            let (coding, params) = match elem.iter().position(|&b| b == b';') {
                Some(i) => (
                    h1_headers::chars::trim_ows(&elem[..i]),
                    Some(&elem[i + 1..]),
                ),
                None => (elem, None),
            };
            if !h1_headers::chars::is_token(coding) {
                return err(K::InvalidTransferEncoding, l.value_start);
            }
            if self.te_chunked {
                // Something after `chunked`: chunked is not the final coding.
                return err(K::InvalidTransferEncoding, l.value_start);
            }
            if coding.eq_ignore_ascii_case(b"chunked") {
                if params.is_some() {
                    return err(K::InvalidTransferEncoding, l.value_start);
                }
                self.te_chunked = true;
            } else {
                if let Some(p) = params {
                    if !valid_params(p) {
                        return err(K::InvalidTransferEncoding, l.value_start);
                    }
                }
                self.te_other = true;
            }
        }
        if !any {
            return err(K::InvalidTransferEncoding, l.value_start);
        }
        Ok(())
    }

    /// The cross-field rules, once every field has been seen.
    fn finish(mut self, end: usize) -> Result<Framing> {
        let (request, version) = (self.request, self.version);
        if self.te_seen {
            if self.framing.content_length.is_some() {
                return err(
                    K::ContentLengthWithTransferEncoding,
                    self.te_at.max(self.content_length_at),
                );
            }
            if version == Version::Http10 {
                return err(K::TransferEncodingInHttp10, self.te_at);
            }
            self.framing.transfer_encoding = if self.te_chunked {
                if self.te_other && request {
                    return err(K::UnsupportedTransferCoding, self.te_at);
                }
                TransferEncoding::Chunked
            } else if request {
                return err(K::InvalidTransferEncoding, self.te_at);
            } else {
                TransferEncoding::NotChunked
            };
        }
        if request && self.host_count == 0 && version == Version::Http11 {
            return err(K::MissingHost, end);
        }
        Ok(self.framing)
    }
}

/// Transfer-coding parameters: `token "=" ( token / quoted-string )`
/// separated by `;` with optional whitespace (RFC 9110 §10.1.4).
fn valid_params(p: &[u8]) -> bool {
    p.split(|&b| b == b';').all(|param| {
        let param = h1_headers::chars::trim_ows(param);
        match param.iter().position(|&b| b == b'=') {
            Some(i) => {
                let (name, val) = (&param[..i], &param[i + 1..]);
                h1_headers::chars::is_token(h1_headers::chars::trim_ows(name))
                    && (h1_headers::chars::is_token(val) || is_quoted_string(val))
            }
            None => false,
        }
    })
}

/// `DQUOTE *( qdtext / quoted-pair ) DQUOTE` (RFC 9110 §5.6.4).
pub(crate) fn is_quoted_string(s: &[u8]) -> bool {
    if s.len() < 2 || s[0] != b'"' || s[s.len() - 1] != b'"' {
        return false;
    }
    let inner = &s[1..s.len() - 1];
    let mut i = 0;
    while i < inner.len() {
        match inner[i] {
            b'\\' => {
                match inner.get(i + 1) {
                    Some(&b) if b == b'\t' || (b >= 0x20 && b != 0x7f) => {}
                    _ => return false,
                }
                i += 2;
            }
            b'"' => return false,
            b if b == b'\t' || (b >= 0x20 && b != 0x7f) => i += 1,
            _ => return false,
        }
    }
    true
}

/// `uri-host [ ":" port ]` (RFC 9110 §7.2, RFC 3986 §3.2.2). With
/// `port_required`, the port must be present and non-empty (authority-form
/// for CONNECT).
fn valid_host(v: &[u8], port_required: bool) -> bool {
    let (host_ok, rest) = if v.first() == Some(&b'[') {
        match v.iter().position(|&b| b == b']') {
            Some(i) => (valid_ip_literal(&v[1..i]), &v[i + 1..]),
            None => return false,
        }
    } else {
        let i = v.iter().position(|&b| b == b':').unwrap_or(v.len());
        (!v[..i].is_empty() && valid_reg_name(&v[..i]), &v[i..])
    };
    if !host_ok {
        return false;
    }
    match rest.split_first() {
        None => !port_required,
        Some((b':', port)) => {
            port.iter().all(u8::is_ascii_digit) && !(port_required && port.is_empty())
        }
        Some(_) => false,
    }
}

/// Bytes of a reg-name other than `%`: unreserved and sub-delims.
static REG_NAME: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric()
            || matches!(
                c,
                b'-' | b'.'
                    | b'_'
                    | b'~'
                    | b'!'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
            );
        b += 1;
    }
    t
};

/// `*( unreserved / pct-encoded / sub-delims )`.
#[inline]
fn valid_reg_name(s: &[u8]) -> bool {
    if s.iter().all(|&b| REG_NAME[b as usize]) {
        return true;
    }
    let mut i = 0;
    while i < s.len() {
        let b = s[i];
        if b == b'%' {
            if !(s.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && s.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
            {
                return false;
            }
            i += 3;
            continue;
        }
        if !REG_NAME[b as usize] {
            return false;
        }
        i += 1;
    }
    true
}

/// `IPv6address / IPvFuture` inside brackets, checked for its alphabet and
/// shape: hex digits, `:` and `.` with at least two colons, or
/// `v HEXDIG+ "." ( unreserved / sub-delims / ":" )+`.
fn valid_ip_literal(s: &[u8]) -> bool {
    if let Some(rest) = s.strip_prefix(b"v").or_else(|| s.strip_prefix(b"V")) {
        let dot = match rest.iter().position(|&b| b == b'.') {
            Some(d) => d,
            None => return false,
        };
        return dot > 0
            && rest[..dot].iter().all(u8::is_ascii_hexdigit)
            && rest.len() > dot + 1
            && rest[dot + 1..]
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:".contains(&b));
    }
    s.iter().filter(|&&b| b == b':').count() >= 2
        && s.iter()
            .all(|&b| b.is_ascii_hexdigit() || b == b':' || b == b'.')
}

// ---------------------------------------------------------------------------
// Start lines.

/// Skips empty lines before a request line (RFC 9112 §2.2).
#[inline(always)]
pub(crate) fn skip_empty_lines(buf: &[u8], config: &Config) -> Result<Option<usize>> {
    let mut pos = 0;
    loop {
        match buf.get(pos) {
            Some(b'\r') => match buf.get(pos + 1) {
                Some(b'\n') => pos += 2,
                None => return Ok(None),
                Some(_) => return err(K::BareCr, pos),
            },
            Some(b'\n') if config.allow_bare_lf => pos += 1,
            Some(b'\n') => return err(K::BareLf, pos),
            Some(_) => return Ok(Some(pos)),
            None => return Ok(None),
        }
    }
}

/// `HTTP/DIGIT.DIGIT` followed by the line end, at `pos`. Returns the
/// version and the start of the next line.
#[inline(always)]
fn parse_version_line(buf: &[u8], pos: usize, config: &Config) -> Result<Status<(Version, usize)>> {
    if let Some(v) = buf.get(pos..pos + 10) {
        if v == b"HTTP/1.1\r\n" {
            return Ok(Status::Complete((Version::Http11, pos + 10)));
        }
        if v == b"HTTP/1.0\r\n" {
            return Ok(Status::Complete((Version::Http10, pos + 10)));
        }
    }
    let (version, after) = match parse_version(buf, pos)? {
        Status::Complete(v) => v,
        Status::Partial => return Ok(Status::Partial),
    };
    match buf.get(after) {
        Some(b'\r') => match buf.get(after + 1) {
            Some(b'\n') => version.map(|v| Status::Complete((v, after + 2))),
            None => Ok(Status::Partial),
            Some(_) => err(K::BareCr, after),
        },
        Some(b'\n') if config.allow_bare_lf => version.map(|v| Status::Complete((v, after + 1))),
        Some(b'\n') => err(K::BareLf, after),
        None => Ok(Status::Partial),
        Some(b' ' | b'\t') => err(K::InvalidRequestLine, after),
        Some(_) => err(K::InvalidVersion, after),
    }
}

/// `HTTP/DIGIT.DIGIT` at `pos`: the version (or the 505 error for a major
/// other than 1, reported only once the line is known to be well formed) and
/// the index after it.
#[inline(always)]
fn parse_version(buf: &[u8], pos: usize) -> Result<Status<(Result<Version>, usize)>> {
    const SHAPE: &[u8; 8] = b"HTTP/0.0";
    for (i, &want) in SHAPE.iter().enumerate() {
        let Some(&b) = buf.get(pos + i) else {
            return Ok(Status::Partial);
        };
        let ok = if want == b'0' {
            b.is_ascii_digit()
        } else {
            b == want
        };
        if !ok {
            return err(K::InvalidVersion, pos + i);
        }
    }
    let (major, minor) = (buf[pos + 5] - b'0', buf[pos + 7] - b'0');
    let version = match (major, minor) {
        (1, 0) => Ok(Version::Http10),
        (1, _) => Ok(Version::Http11),
        _ => err(K::UnsupportedVersion, pos),
    };
    Ok(Status::Complete((version, pos + 8)))
}

/// After a request-line element: one SP (or, leniently, a run of SP/HTAB).
/// Returns the start of the next element.
#[inline(always)]
fn separator(buf: &[u8], at: usize, config: &Config) -> Result<Status<usize>> {
    match buf.get(at) {
        Some(b' ') => {
            if config.allow_multiple_spaces_in_request_line {
                let n = buf[at..].iter().take_while(|&&b| is_ows(b)).count();
                if at + n >= buf.len() {
                    return Ok(Status::Partial);
                }
                return Ok(Status::Complete(at + n));
            }
            match buf.get(at + 1) {
                Some(b' ' | b'\t') => err(K::InvalidRequestLine, at + 1),
                _ => Ok(Status::Complete(at + 1)),
            }
        }
        Some(b'\t') if config.allow_multiple_spaces_in_request_line => {
            let n = buf[at..].iter().take_while(|&&b| is_ows(b)).count();
            if at + n >= buf.len() {
                return Ok(Status::Partial);
            }
            Ok(Status::Complete(at + n))
        }
        None => Ok(Status::Partial),
        Some(_) => err(K::InvalidRequestLine, at),
    }
}

macro_rules! ready {
    ($e:expr) => {
        match $e {
            Status::Complete(v) => v,
            Status::Partial => return Ok(Status::Partial),
        }
    };
}

struct RequestKernel<'a, 'b> {
    buf: &'a [u8],
    fields: &'b mut [Entry],
    config: &'b Config,
}

impl Kernel for RequestKernel<'_, '_> {
    type Output = Result<Status<RequestHead>>;

    #[inline(always)]
    fn run<C: Classify>(self, c: C) -> Self::Output {
        let RequestKernel {
            buf,
            fields,
            config,
        } = self;
        let start = match skip_empty_lines(buf, config)? {
            Some(s) => s,
            None => return Ok(Status::Partial),
        };
        let (buf, cut) = clamp(buf, start, config.max_head_len);
        match request_in(c, buf, start, fields, config)? {
            Status::Partial if cut => err(K::HeadTooLarge, buf.len()),
            s => Ok(s),
        }
    }
}

#[inline(always)]
fn request_in<C: Classify>(
    c: C,
    buf: &[u8],
    start: usize,
    fields: &mut [Entry],
    config: &Config,
) -> Result<Status<RequestHead>> {
    let mut w = Window::new(c, buf);

    // method SP
    let method_end = w.token_end(buf, start);
    if method_end >= buf.len() {
        return Ok(Status::Partial);
    }
    if method_end == start {
        return err(
            if buf[start] == b' ' || buf[start] == b'\t' {
                K::InvalidRequestLine
            } else {
                K::InvalidMethod
            },
            start,
        );
    }
    if !matches!(buf[method_end], b' ' | b'\t') {
        return err(K::InvalidMethod, method_end);
    }
    let target_start = ready!(separator(buf, method_end, config)?);

    // request-target SP
    let target_end = w.target_end(buf, target_start);
    if target_end - target_start > config.max_target_len {
        return err(K::TargetTooLong, target_start);
    }
    if target_end >= buf.len() {
        return Ok(Status::Partial);
    }
    match buf[target_end] {
        b' ' | b'\t' => {}
        b'\r' | b'\n' if target_end > target_start => {
            return err(K::InvalidRequestLine, target_end)
        }
        _ => return err(K::InvalidTarget, target_end),
    }
    if target_end == target_start {
        return err(K::InvalidRequestLine, target_end);
    }
    let version_start = ready!(separator(buf, target_end, config)?);

    // HTTP-version CRLF
    let (version, fields_start) = ready!(parse_version_line(buf, version_start, config)?);

    let method = &buf[start..method_end];
    let method_kind = Method::from_bytes(method);
    let target = &buf[target_start..target_end];
    let target_form =
        target_form(method_kind, target).ok_or(Error::new(K::InvalidTargetForm, target_start))?;

    let mut facts = Facts::new(true, version);
    let end = ready!(parse_fields(
        &mut w,
        buf,
        fields_start,
        fields,
        config,
        &mut facts
    )?);
    let framing = facts.finish(end.end)?;
    Ok(Status::Complete(RequestHead {
        len: end.end,
        method: span(start, method_end),
        method_kind,
        target: span(target_start, target_end),
        target_form,
        version,
        field_count: end.count,
        framing,
        obs_fold: end.obs_fold,
    }))
}

/// The form of `target` for `method`, or `None` when the form is not allowed
/// (RFC 9112 §3.2).
fn target_form(method: Method, target: &[u8]) -> Option<TargetForm> {
    if method == Method::Connect {
        return valid_host(target, true).then_some(TargetForm::Authority);
    }
    match target.first() {
        Some(b'/') => Some(TargetForm::Origin),
        Some(b'*') if target.len() == 1 => {
            (method == Method::Options).then_some(TargetForm::Asterisk)
        }
        _ => valid_absolute(target).then_some(TargetForm::Absolute),
    }
}

/// `scheme "://" authority [ path-abempty ] [ "?" query ]` with a non-empty
/// host: the shape of an `http` or `https` absolute-form target. The bytes
/// were already checked to be VCHARs.
fn valid_absolute(t: &[u8]) -> bool {
    let colon = match t.iter().position(|&b| b == b':') {
        Some(c) => c,
        None => return false,
    };
    let scheme = &t[..colon];
    let scheme_ok = scheme.first().is_some_and(u8::is_ascii_alphabetic)
        && scheme
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
    let Some(rest) = t[colon + 1..].strip_prefix(b"//") else {
        return false;
    };
    let auth_end = rest
        .iter()
        .position(|&b| b == b'/' || b == b'?')
        .unwrap_or(rest.len());
    let mut authority = &rest[..auth_end];
    // userinfo is deprecated for http(s) (RFC 9110 §4.2.4) but syntactically allowed.
    if let Some(at) = authority.iter().rposition(|&b| b == b'@') {
        authority = &authority[at + 1..];
    }
    scheme_ok && valid_host(authority, false)
}

struct ResponseKernel<'a, 'b> {
    buf: &'a [u8],
    fields: &'b mut [Entry],
    config: &'b Config,
}

impl Kernel for ResponseKernel<'_, '_> {
    type Output = Result<Status<ResponseHead>>;

    #[inline(always)]
    fn run<C: Classify>(self, c: C) -> Self::Output {
        let ResponseKernel {
            buf,
            fields,
            config,
        } = self;
        let (buf, cut) = clamp(buf, 0, config.max_head_len);
        match response_in(c, buf, fields, config)? {
            Status::Partial if cut => err(K::HeadTooLarge, buf.len()),
            s => Ok(s),
        }
    }
}

#[inline(always)]
fn response_in<C: Classify>(
    c: C,
    buf: &[u8],
    fields: &mut [Entry],
    config: &Config,
) -> Result<Status<ResponseHead>> {
    let mut w = Window::new(c, buf);
    let (version, after) = ready!(parse_version(buf, 0)?);
    let version = version?;
    match buf.get(after) {
        Some(b' ') => {}
        None => return Ok(Status::Partial),
        Some(_) => return err(K::InvalidStatusLine, after),
    }
    let code_at = after + 1;
    let mut status: u16 = 0;
    for i in 0..3 {
        match buf.get(code_at + i) {
            Some(&b) if b.is_ascii_digit() => status = status * 10 + u16::from(b - b'0'),
            Some(_) => return err(K::InvalidStatusLine, code_at + i),
            None => return Ok(Status::Partial),
        }
    }
    if status < 100 {
        return err(K::InvalidStatusLine, code_at);
    }
    // SP reason-phrase, or (leniently, as many clients are) nothing at all.
    let mut reason_start = code_at + 3;
    match buf.get(reason_start) {
        Some(b' ') => reason_start += 1,
        Some(b'\r' | b'\n') => {}
        None => return Ok(Status::Partial),
        Some(_) => return err(K::InvalidStatusLine, reason_start),
    }
    let (reason_end, fields_start) = match line_end(&mut w, buf, reason_start, config) {
        Ok(Some(e)) => e,
        Ok(None) => return partial_line(buf, 0, config.max_field_line_len),
        Err(e) if e.kind() == K::InvalidFieldValue => return err(K::InvalidStatusLine, e.offset()),
        Err(e) => return Err(e),
    };
    let mut facts = Facts::new(false, version);
    let end = ready!(parse_fields(
        &mut w,
        buf,
        fields_start,
        fields,
        config,
        &mut facts
    )?);
    let framing = facts.finish(end.end)?;
    Ok(Status::Complete(ResponseHead {
        len: end.end,
        version,
        status,
        reason: span(reason_start, reason_end),
        field_count: end.count,
        framing,
        obs_fold: end.obs_fold,
    }))
}

struct TrailerKernel<'a, 'b> {
    buf: &'a [u8],
    fields: &'b mut [Entry],
    config: &'b Config,
}

impl Kernel for TrailerKernel<'_, '_> {
    type Output = Result<Status<Trailers>>;

    #[inline(always)]
    fn run<C: Classify>(self, c: C) -> Self::Output {
        let TrailerKernel {
            buf,
            fields,
            config,
        } = self;
        let (buf, cut) = clamp(buf, 0, config.max_head_len);
        let mut w = Window::new(c, buf);
        match parse_fields(&mut w, buf, 0, fields, config, &mut NoFacts)? {
            Status::Complete(end) => Ok(Status::Complete(Trailers {
                len: end.end,
                field_count: end.count,
            })),
            Status::Partial if cut => err(K::HeadTooLarge, buf.len()),
            Status::Partial => Ok(Status::Partial),
        }
    }
}

#[cfg(test)]
mod tests;
