//! The head parsers: request line, status line, field lines, trailers.
//!
//! One validating pass over the head. A cursor streams over 64-byte blocks,
//! each classified once by the detected [`Path`] into two masks (bytes that
//! end a name, bytes that end a value); a field line then usually costs two
//! `trailing_zeros`, a CRLF check and a store.

use h1_headers::{Entry, Span};

use crate::error::{Error, ErrorKind as K};
use crate::head::{RequestHead, ResponseHead, Status};
use crate::scan::{Classify, Kernel, Path};
use crate::Config;

/// Unwraps a [`Status::Complete`], returning early on [`Status::Partial`].
macro_rules! ready {
    ($e:expr) => {
        match $e {
            Status::Complete(v) => v,
            Status::Partial => return Ok(Status::Partial),
        }
    };
}

mod blocks;
mod facts;
mod fields;
mod progress;
mod small;
mod start;
#[cfg(test)]
mod tests;

use progress::Track;
pub(crate) use progress::{continue_request, continue_response, Progress};
use start::{skip_empty_lines, Skip};

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

/// The buffer cut so spans fit in 32 bits and the head limit holds (counted
/// from the first byte, skipped empty lines included).
#[inline(always)]
fn clamp(buf: &[u8], max_head: usize) -> (&[u8], bool) {
    let limit = max_head.min(Span::MAX);
    if buf.len() > limit {
        (&buf[..limit], true)
    } else {
        (buf, false)
    }
}

/// Parses a request head from the start of `buf` into `head`, writing one
/// [`Entry`] per field line into `fields`.
///
/// Returns [`Status::Partial`] while `buf` is a valid prefix of a head, the
/// head's length once it is complete (then `head` holds it), or the first
/// error. Read `head` only after `Complete`: a partial or refused head may
/// have been written in part, and a complete one overwrites every field of
/// it, so the storage can be reused from one head to the next. Empty lines
/// before the request line are skipped (RFC 9112 §2.2) and counted in the
/// length. For heads that arrive in pieces prefer
/// [`HeadParser`](crate::HeadParser), which does not re-parse on every call.
///
/// The head is written into storage the caller owns, like the fields, and
/// read there: a head handed back by value would be copied out of the
/// parser's result right after the parser wrote it, and that copy's wide
/// loads wait for the parser's narrower stores to land (on small heads
/// this cost more than the parse).
///
/// ```
/// use h1_parse::{parse_request, Config, Entry, ErrorKind, RequestHead, Status};
///
/// let mut head = RequestHead::EMPTY;
/// let mut fields = [Entry::EMPTY; 8];
/// let cfg = Config::default();
/// let partial = parse_request(b"GET / HTTP/1.1\r\nHost: a", &mut head, &mut fields, &cfg);
/// assert_eq!(partial, Ok(Status::Partial));
///
/// let smuggle = b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n";
/// let e = parse_request(smuggle, &mut head, &mut fields, &cfg).unwrap_err();
/// assert_eq!(e.kind(), ErrorKind::ContentLengthWithTransferEncoding);
/// assert_eq!(e.status(), 400);
/// ```
#[inline]
pub fn parse_request(
    buf: &[u8],
    head: &mut RequestHead,
    fields: &mut [Entry],
    config: &Config,
) -> Result<Status<usize>> {
    if buf.len() < 64 {
        Path::run_detected(RequestKernel::<true, ()> {
            buf,
            head,
            fields,
            config,
            track: &mut (),
        })
    } else {
        Path::run_detected(RequestKernel::<false, ()> {
            buf,
            head,
            fields,
            config,
            track: &mut (),
        })
    }
}

/// [`parse_request`] from where `progress` says the start line may start
/// (empty lines before it were skipped), with where an unfinished head
/// stopped kept in `progress`.
pub(crate) fn request_tracked(
    buf: &[u8],
    head: &mut RequestHead,
    fields: &mut [Entry],
    config: &Config,
    progress: &mut Progress<RequestHead>,
) -> Result<Status<usize>> {
    if buf.len() < 64 {
        Path::run_detected(RequestKernel::<true, _> {
            buf,
            head,
            fields,
            config,
            track: progress,
        })
    } else {
        Path::run_detected(RequestKernel::<false, _> {
            buf,
            head,
            fields,
            config,
            track: progress,
        })
    }
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
    head: &mut RequestHead,
    fields: &mut [Entry],
    config: &Config,
) -> Result<Status<usize>> {
    // A buffer shorter than a block (the smallest requests) gets the walk
    // compiled for one block, as a kernel of its own so the general one is
    // compiled as if it were alone.
    if buf.len() < 64 {
        path.run(RequestKernel::<true, ()> {
            buf,
            head,
            fields,
            config,
            track: &mut (),
        })
    } else {
        path.run(RequestKernel::<false, ()> {
            buf,
            head,
            fields,
            config,
            track: &mut (),
        })
    }
}

/// Parses a response head from the start of `buf` into `head`, as
/// [`parse_request`] parses a request.
///
/// The framing facts are recorded but not judged against a request: whether
/// the response has a body depends on the request method and the status,
/// which the connection layer knows. `Content-Length` together with
/// `Transfer-Encoding` is refused, as is `Transfer-Encoding` in HTTP/1.0.
///
/// ```
/// use h1_parse::{parse_response, Config, Entry, ResponseHead, Status};
///
/// let buf = b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
/// let mut head = ResponseHead::EMPTY;
/// let mut fields = [Entry::EMPTY; 8];
/// let status = parse_response(buf, &mut head, &mut fields, &Config::default()).unwrap();
/// assert_eq!(status, Status::Complete(buf.len()));
/// assert_eq!(head.status, 404);
/// assert_eq!(head.reason.slice(buf), b"Not Found");
/// assert_eq!(head.facts.content_length, Some(0));
/// ```
#[inline]
pub fn parse_response(
    buf: &[u8],
    head: &mut ResponseHead,
    fields: &mut [Entry],
    config: &Config,
) -> Result<Status<usize>> {
    Path::run_detected(ResponseKernel {
        buf,
        head,
        fields,
        config,
        track: &mut (),
    })
}

/// [`parse_response`], with where an unfinished head stopped kept in
/// `progress`.
pub(crate) fn response_tracked(
    buf: &[u8],
    head: &mut ResponseHead,
    fields: &mut [Entry],
    config: &Config,
    progress: &mut Progress<ResponseHead>,
) -> Result<Status<usize>> {
    Path::run_detected(ResponseKernel {
        buf,
        head,
        fields,
        config,
        track: progress,
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
/// use h1_parse::{parse_trailers, Config, Entry, Status, Trailers};
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
    Path::run_detected(TrailerKernel {
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
// One kernel per entry point, compiled once per scanner path.

/// `SHORT`: `buf` is shorter than a block. `track` says where the head may
/// start (empty lines before were skipped) and learns where an unfinished
/// head stopped.
struct RequestKernel<'a, 'b, const SHORT: bool, T> {
    buf: &'a [u8],
    head: &'b mut RequestHead,
    fields: &'b mut [Entry],
    config: &'b Config,
    track: &'b mut T,
}

impl<const SHORT: bool, T: Track<RequestHead>> Kernel for RequestKernel<'_, '_, SHORT, T> {
    type Output = Result<Status<usize>>;

    #[inline(always)]
    fn run<C: Classify>(self, c: C) -> Self::Output {
        let RequestKernel {
            buf,
            head,
            fields,
            config,
            track,
        } = self;
        let from = track.from();
        if SHORT && from == 0 {
            // (It holds the head to the limit itself: no clamping needed.)
            if let Some(len) = small::request(c, buf, head, fields, config) {
                return Ok(Status::Complete(len));
            }
        }
        let (buf, cut) = clamp(buf, config.max_head_len);
        let start = match skip_empty_lines(buf, from, config)? {
            Skip::Start(s) => s,
            Skip::More(_) if cut => return err(K::HeadTooLarge, buf.len()),
            Skip::More(at) => {
                track.start_line(at);
                return Ok(Status::Partial);
            }
        };
        let r = start::request_in::<C, SHORT, T>(c, buf, start, head, fields, config, track);
        if cut && matches!(r, Ok(Status::Partial)) {
            return err(K::HeadTooLarge, buf.len());
        }
        r
    }
}

struct ResponseKernel<'a, 'b, T> {
    buf: &'a [u8],
    head: &'b mut ResponseHead,
    fields: &'b mut [Entry],
    config: &'b Config,
    track: &'b mut T,
}

impl<T: Track<ResponseHead>> Kernel for ResponseKernel<'_, '_, T> {
    type Output = Result<Status<usize>>;

    #[inline(always)]
    fn run<C: Classify>(self, c: C) -> Self::Output {
        let ResponseKernel {
            buf,
            head,
            fields,
            config,
            track,
        } = self;
        let (buf, cut) = clamp(buf, config.max_head_len);
        let r = start::response_in(c, buf, head, fields, config, track);
        if cut && matches!(r, Ok(Status::Partial)) {
            return err(K::HeadTooLarge, buf.len());
        }
        r
    }
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
        let (buf, cut) = clamp(buf, config.max_head_len);
        let mut blocks = blocks::Blocks::<C, false>::new(c, buf, 0);
        match fields::parse_fields(
            &mut blocks,
            buf,
            0,
            fields,
            config,
            &mut fields::NoFacts,
            &mut fields::Resume::default(),
        )? {
            Status::Complete(end) => Ok(Status::Complete(Trailers {
                len: end.end,
                field_count: end.count,
            })),
            Status::Partial if cut => err(K::HeadTooLarge, buf.len()),
            Status::Partial => Ok(Status::Partial),
        }
    }
}
