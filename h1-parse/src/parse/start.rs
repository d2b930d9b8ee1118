//! Start lines: the request line and the status line.

use h1_headers::chars::is_ows;
use h1_headers::Entry;

use super::blocks::{find, Blocks};
use super::facts::{valid_host, Facts};
use super::fields::{line_end, parse_fields, partial_line, Resume};
use super::progress::Track;
use super::{err, span, Result};
use crate::error::{Error, ErrorKind as K};
use crate::head::{Method, RequestHead, ResponseHead, Status, TargetForm};
use crate::scan::{Classify, Stop};
use crate::Config;
use h1_headers::Version;

/// Skips empty lines before a request line (RFC 9112 §2.2), from `from`.
/// They count against the head limit like the rest of the head.
#[inline(always)]
pub(crate) fn skip_empty_lines(buf: &[u8], from: usize, config: &Config) -> Result<Skip> {
    let mut pos = from;
    loop {
        match buf.get(pos) {
            Some(b'\r') => match buf.get(pos + 1) {
                Some(b'\n') => pos += 2,
                None => return Ok(Skip::More(pos)),
                Some(_) => return err(K::BareCr, pos),
            },
            Some(b'\n') if config.allow_bare_lf => pos += 1,
            Some(b'\n') => return err(K::BareLf, pos),
            Some(_) => return Ok(Skip::Start(pos)),
            None => return Ok(Skip::More(pos)),
        }
    }
}

/// Where skipping empty lines got to.
pub(crate) enum Skip {
    /// The request line starts here.
    Start(usize),
    /// Only empty lines so far; resume here when more bytes arrive.
    More(usize),
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

/// A request line, as positions in the buffer.
pub(super) struct RequestLine {
    method_end: usize,
    method_kind: Method,
    target_start: usize,
    target_end: usize,
    pub(super) target_form: TargetForm,
    pub(super) version: Version,
    /// Where the first field line starts.
    pub(super) fields_start: usize,
}

/// Parses the request line at `start`; `blocks` is positioned there.
#[inline(always)]
pub(super) fn request_line<C: Classify, const SHORT: bool>(
    blocks: &mut Blocks<C, SHORT>,
    buf: &[u8],
    start: usize,
    config: &Config,
) -> Result<Status<RequestLine>> {
    let c = blocks.c;
    // method SP
    let method_end = match blocks.nt {
        0 => find(c, buf, start, Stop::Token),
        m => start + m.trailing_zeros() as usize,
    };
    let line = match strict_line(blocks, buf, start, method_end, config) {
        Some(line) => line,
        None => ready!(any_line(blocks, buf, start, method_end, config)?),
    };
    let (target_start, target_end) = (line.target_start, line.target_end);
    // `GET /...`, the usual request line, without the general matches.
    let (method_kind, target_form) = match (&buf[start..method_end], buf[target_start]) {
        (b"GET", b'/') => (Method::Get, TargetForm::Origin),
        (method, _) => {
            let kind = Method::from_bytes(method);
            let form = target_form(kind, &buf[target_start..target_end])
                .ok_or(Error::new(K::InvalidTargetForm, target_start))?;
            (kind, form)
        }
    };
    Ok(Status::Complete(RequestLine {
        method_end,
        method_kind,
        target_start,
        target_end,
        target_form,
        version: line.version,
        fields_start: line.fields_start,
    }))
}

/// Where the parts of a request line after the method are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct LineParts {
    target_start: usize,
    target_end: usize,
    version: Version,
    fields_start: usize,
}

/// The usual request line under the strict rules, `method SP target SP
/// HTTP/1.x CRLF`, with every check passing: exactly the lines on which
/// [`any_line`] succeeds with one SP between the parts and version 1.0 or
/// 1.1, in fewer steps. `None` for anything else, which [`any_line`] then
/// decides (an error, `Partial`, or a lenient or unusual line).
#[inline(always)]
pub(super) fn strict_line<C: Classify, const SHORT: bool>(
    blocks: &Blocks<C, SHORT>,
    buf: &[u8],
    start: usize,
    method_end: usize,
    config: &Config,
) -> Option<LineParts> {
    if config.allow_multiple_spaces_in_request_line
        || method_end == start
        || buf.get(method_end) != Some(&b' ')
    {
        return None;
    }
    // A target byte is neither SP nor HTAB, so a non-empty target means the
    // method was followed by exactly one SP.
    let target_start = method_end + 1;
    let target_end = blocks.target_end(buf, target_start);
    if target_end == target_start
        || target_end - target_start > config.max_target_len
        || buf.get(target_end) != Some(&b' ')
    {
        return None;
    }
    // `H` after the SP: exactly one SP before the version.
    let v = buf.get(target_end + 1..target_end + 11)?;
    let version = if v == b"HTTP/1.1\r\n" {
        Version::Http11
    } else if v == b"HTTP/1.0\r\n" {
        Version::Http10
    } else {
        return None;
    };
    Some(LineParts {
        target_start,
        target_end,
        version,
        fields_start: target_end + 11,
    })
}

/// The request line after its method, any shape, with every rule and
/// leniency: the parts, `Partial`, or the first error.
#[inline(always)]
pub(super) fn any_line<C: Classify, const SHORT: bool>(
    blocks: &Blocks<C, SHORT>,
    buf: &[u8],
    start: usize,
    method_end: usize,
    config: &Config,
) -> Result<Status<LineParts>> {
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
    let target_end = blocks.target_end(buf, target_start);
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
    Ok(Status::Complete(LineParts {
        target_start,
        target_end,
        version,
        fields_start,
    }))
}

/// Parses a request head whose request line starts at `start`. Where an
/// unfinished head stopped goes to `track`.
#[inline(always)]
pub(super) fn request_in<C: Classify, const SHORT: bool, T: Track<RequestHead>>(
    c: C,
    buf: &[u8],
    start: usize,
    head: &mut RequestHead,
    fields: &mut [Entry],
    config: &Config,
    track: &mut T,
) -> Result<Status<usize>> {
    let mut blocks = Blocks::<C, SHORT>::with_target(c, buf, start);
    let line = match request_line(&mut blocks, buf, start, config)? {
        Status::Complete(line) => line,
        Status::Partial => {
            track.start_line(start);
            return Ok(Status::Partial);
        }
    };
    // The request line goes into the head now, so its positions need not
    // be kept (in registers or spilled) through the field walk.
    head.method = span(start, line.method_end);
    head.method_kind = line.method_kind;
    head.target = span(line.target_start, line.target_end);
    head.target_form = line.target_form;
    head.version = line.version;
    let absolute = line.target_form == TargetForm::Absolute;
    let mut facts = Facts::new(true, line.version, absolute);
    let mut resume = Resume::default();
    let end = match parse_fields(
        &mut blocks,
        buf,
        line.fields_start,
        fields,
        config,
        &mut facts,
        &mut resume,
    )? {
        Status::Complete(end) => end,
        Status::Partial => {
            track.fields(head, &facts, resume);
            return Ok(Status::Partial);
        }
    };
    // As `Ends::end` does for a head finished in a later call; written out
    // here, where it compiles to fewer instructions on the usual head.
    let transfer_encoding = facts.verdict(end.end)?;
    head.len = end.end;
    head.field_count = end.count;
    head.facts = facts.field_facts(transfer_encoding);
    head.obs_fold = end.obs_fold;
    Ok(Status::Complete(end.end))
}

/// The form of `target` for `method`, or `None` when the form is not allowed
/// (RFC 9112 §3.2).
pub(super) fn target_form(method: Method, target: &[u8]) -> Option<TargetForm> {
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
/// host and no userinfo: the shape of an `http` or `https` absolute-form target. The bytes
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
    // userinfo (`user@host`) is refused: RFC 9110 §4.2.4 has a recipient
    // treat it as an error, and parsers disagree on where it ends
    // (`http://a\\@b/`), which is how one request reaches two hosts.
    let authority = &rest[..auth_end];
    scheme_ok && valid_host(authority, false)
}

/// A status line, as positions in the buffer.
pub(super) struct StatusLine {
    pub(super) version: Version,
    status: u16,
    reason_start: usize,
    reason_end: usize,
    /// Where the first field line starts.
    pub(super) fields_start: usize,
}

/// Parses the status line at the start of `buf`. It is held to the field
/// line limit, complete or not.
#[inline(always)]
pub(super) fn status_line<C: Classify>(
    c: C,
    buf: &[u8],
    config: &Config,
) -> Result<Status<StatusLine>> {
    let (version, status, reason_start) = match usual_status_start(buf) {
        Some(start) => start,
        None => match status_start(buf)? {
            Status::Complete(start) => start,
            // Too short for a status code yet may already be too long.
            Status::Partial => return partial_line(buf, 0, config.max_field_line_len),
        },
    };
    let reason_end = find(c, buf, reason_start, Stop::Value);
    if buf.get(reason_end..reason_end + 2) == Some(b"\r\n")
        && reason_end <= config.max_field_line_len
    {
        return Ok(Status::Complete(StatusLine {
            version,
            status,
            reason_start,
            reason_end,
            fields_start: reason_end + 2,
        }));
    }
    let fields_start = match line_end(buf, reason_end, config) {
        Ok(Some(next)) => next,
        Ok(None) => return partial_line(buf, 0, config.max_field_line_len),
        Err(e) if e.kind() == K::InvalidFieldValue => return err(K::InvalidStatusLine, e.offset()),
        Err(e) => return Err(e),
    };
    if reason_end > config.max_field_line_len {
        return err(K::FieldLineTooLong, 0);
    }
    Ok(Status::Complete(StatusLine {
        version,
        status,
        reason_start,
        reason_end,
        fields_start,
    }))
}

/// `HTTP/1.1 DDD ` or `HTTP/1.0 DDD ` (a status of 100 to 999 and the SP
/// before a reason), the usual start of a status line, from two words: the
/// version, the status and where the reason starts. `None` for anything
/// else, which [`status_start`] decides.
#[inline(always)]
pub(super) fn usual_status_start(buf: &[u8]) -> Option<(Version, u16, usize)> {
    let w: &[u8; 13] = buf.get(..13)?.try_into().ok()?;
    let version = match w[..8] {
        [b'H', b'T', b'T', b'P', b'/', b'1', b'.', b'1'] => Version::Http11,
        [b'H', b'T', b'T', b'P', b'/', b'1', b'.', b'0'] => Version::Http10,
        _ => return None,
    };
    let [sp, a, b, c, sp2] = [w[8], w[9], w[10], w[11], w[12]];
    let digit = |d: u8| d.wrapping_sub(b'0');
    let (a, b, c) = (digit(a), digit(b), digit(c));
    if sp != b' ' || sp2 != b' ' || a > 9 || b > 9 || c > 9 || a == 0 {
        return None;
    }
    let status = u16::from(a) * 100 + u16::from(b) * 10 + u16::from(c);
    Some((version, status, 13))
}

/// The start of a status line of any shape, up to its reason: the version,
/// the status and where the reason starts; `Partial`; or the first error.
#[inline(never)]
pub(super) fn status_start(buf: &[u8]) -> Result<Status<(Version, u16, usize)>> {
    let (version, after) = match buf.get(..8) {
        Some(b"HTTP/1.1") => (Version::Http11, 8),
        Some(b"HTTP/1.0") => (Version::Http10, 8),
        _ => {
            let (version, after) = ready!(parse_version(buf, 0)?);
            (version?, after)
        }
    };
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
    Ok(Status::Complete((version, status, reason_start)))
}

/// Parses a response head. Where an unfinished head stopped goes to
/// `track`.
#[inline(always)]
pub(super) fn response_in<C: Classify, T: Track<ResponseHead>>(
    c: C,
    buf: &[u8],
    head: &mut ResponseHead,
    fields: &mut [Entry],
    config: &Config,
    track: &mut T,
) -> Result<Status<usize>> {
    let line = match status_line(c, buf, config)? {
        Status::Complete(line) => line,
        Status::Partial => {
            track.start_line(0);
            return Ok(Status::Partial);
        }
    };
    // As for a request line: into the head before the field walk.
    head.version = line.version;
    head.status = line.status;
    head.reason = span(line.reason_start, line.reason_end);
    let mut facts = Facts::new(false, line.version, false);
    let mut blocks = Blocks::<C, false>::new(c, buf, line.fields_start);
    let mut resume = Resume::default();
    let end = match parse_fields(
        &mut blocks,
        buf,
        line.fields_start,
        fields,
        config,
        &mut facts,
        &mut resume,
    )? {
        Status::Complete(end) => end,
        Status::Partial => {
            track.fields(head, &facts, resume);
            return Ok(Status::Partial);
        }
    };
    // As `Ends::end` does for a head finished in a later call; written out
    // here, where it compiles to fewer instructions on the usual head.
    let transfer_encoding = facts.verdict(end.end)?;
    head.len = end.end;
    head.field_count = end.count;
    head.facts = facts.field_facts(transfer_encoding);
    head.obs_fold = end.obs_fold;
    Ok(Status::Complete(end.end))
}
