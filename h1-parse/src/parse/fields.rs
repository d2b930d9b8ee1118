//! Field lines: the walk shared by request heads, response heads and
//! trailer sections.

use h1_headers::chars::is_ows;
use h1_headers::Entry;

use super::blocks::{find, Blocks};
use super::{err, span, Result};
use crate::error::ErrorKind as K;
use crate::head::Status;
use crate::scan::{Classify, Stop};
use crate::Config;

/// A field line, as positions in the buffer.
#[derive(Clone, Copy)]
pub(super) struct Line {
    pub(super) name_start: usize,
    pub(super) name_end: usize,
    pub(super) value_start: usize,
    pub(super) value_end: usize,
    /// The value continues over obs-fold lines (leniency only): its span
    /// holds CR and LF bytes.
    pub(super) folded: bool,
}

/// What the field walk ended with.
pub(super) struct FieldsEnd {
    /// Index after the empty line.
    pub(super) end: usize,
    pub(super) count: usize,
    pub(super) obs_fold: bool,
}

/// Where an incomplete field walk stopped: the first line not yet
/// committed, how many were, and whether one of them was folded.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Resume {
    pub(super) line: usize,
    pub(super) count: usize,
    pub(super) obs_fold: bool,
}

/// What the field walk tells about each field line.
pub(super) trait FieldSink {
    /// One field line, already validated and stored (`c` classifies bytes
    /// for the checks of a value).
    fn field<C: Classify>(&mut self, c: C, buf: &[u8], line: Line) -> Result<()>;

    /// The same as [`FieldSink::field`] for a line it can take without a
    /// call and without error: `true` when it did, `false` (having changed
    /// nothing) when [`FieldSink::field`] must see the line.
    fn field_inline<C: Classify>(&mut self, c: C, buf: &[u8], line: Line) -> bool;
}

/// Trailer fields carry no framing facts.
pub(super) struct NoFacts;

impl FieldSink for NoFacts {
    #[inline(always)]
    fn field<C: Classify>(&mut self, _: C, _: &[u8], _: Line) -> Result<()> {
        Ok(())
    }

    #[inline(always)]
    fn field_inline<C: Classify>(&mut self, _: C, _: &[u8], _: Line) -> bool {
        true
    }
}

/// Walks field lines from `pos` up to and including the empty line, storing
/// them into `fields` and telling `sink` of each.
///
/// The loop handles the common shape inline: a name followed by `:`, a
/// value followed by CRLF (each through as many blocks as it needs), at most
/// one SP before the value. Everything else (line errors, bare LF,
/// incomplete lines) goes through [`slow_line`], which decides with the
/// same predicates.
///
/// The walk is compiled twice, with and without obs-fold: the strict one
/// then carries no fold state and makes no fold call.
#[inline(always)]
pub(super) fn parse_fields<C: Classify, const SHORT: bool>(
    blocks: &mut Blocks<C, SHORT>,
    buf: &[u8],
    pos: usize,
    fields: &mut [Entry],
    config: &Config,
    sink: &mut impl FieldSink,
    resume: &mut Resume,
) -> Result<Status<FieldsEnd>> {
    if config.allow_obs_fold {
        walk::<C, true, SHORT>(blocks, buf, pos, fields, config, sink, resume)
    } else {
        walk::<C, false, SHORT>(blocks, buf, pos, fields, config, sink, resume)
    }
}

/// [`parse_fields`], with `allow_obs_fold` as `FOLD`.
#[inline(always)]
fn walk<C: Classify, const FOLD: bool, const SHORT: bool>(
    blocks: &mut Blocks<C, SHORT>,
    buf: &[u8],
    mut pos: usize,
    fields: &mut [Entry],
    config: &Config,
    sink: &mut impl FieldSink,
    resume: &mut Resume,
) -> Result<Status<FieldsEnd>> {
    let max_fields = config.max_fields.min(fields.len());
    // The next free entry is the walk's one moving part for storage: the
    // count is how far the iterator has got.
    let mut slots = fields[..max_fields].iter_mut();
    let count = |slots: &core::slice::IterMut<'_, Entry>| max_fields - slots.len();
    let max_line = config.max_field_line_len;
    let mut obs_fold = false;
    loop {
        // The usual lines, in a loop that makes no call: its values can
        // stay in registers. What needs a call (an unusual line, trimming,
        // obs-fold, a framing field the sink cannot decide inline) is left
        // to the code after it, which then resumes the loop.
        let pending = loop {
            blocks.seek(buf, pos);
            let m = blocks.nt >> (pos - blocks.base);
            if m & 1 != 0 {
                if buf.get(pos..pos + 2) == Some(b"\r\n") {
                    return Ok(Status::Complete(FieldsEnd {
                        end: pos + 2,
                        count: count(&slots),
                        obs_fold,
                    }));
                }
                break Pending::Slow;
            }
            // A name starts here; it may run on into the next blocks.
            // Where the value scan starts: a name's bytes and its colon are
            // all value bytes, so within the name's block the scan starts
            // at the line and finds the value's end without waiting for the
            // name's (one dependent mask lookup, not two). A name that runs
            // into later blocks has moved the cursor, so the scan starts
            // after its colon.
            let (name_end, mut vrel) = if m != 0 {
                (pos + m.trailing_zeros() as usize, pos - blocks.base)
            } else {
                let end = loop {
                    if blocks.base + 64 >= buf.len() {
                        break buf.len();
                    }
                    blocks.advance(buf);
                    if blocks.nt != 0 {
                        break blocks.base + blocks.nt.trailing_zeros() as usize;
                    }
                };
                (end, end + 1 - blocks.base)
            };
            if buf.get(name_end) != Some(&b':') {
                break Pending::Slow;
            }
            let value_end = loop {
                let m = if vrel < 64 { blocks.nv >> vrel } else { 0 };
                if m != 0 {
                    break blocks.base + vrel + m.trailing_zeros() as usize;
                }
                if blocks.base + 64 >= buf.len() || blocks.base + 64 - pos > max_line {
                    break usize::MAX;
                }
                blocks.advance(buf);
                vrel = 0;
            };
            if value_end == usize::MAX
                || buf.get(value_end..value_end + 2) != Some(b"\r\n")
                || value_end - pos > max_line
            {
                break Pending::Slow;
            }
            let mut value_start = name_end + 1;
            if value_start < value_end {
                // `: value`: skip the one SP; any other whitespace at either
                // end is rare and trimmed after the loop. The value scan
                // stopped at every control byte but HTAB, so a value byte up
                // to SP is whitespace.
                let last = buf[value_end - 1];
                value_start += usize::from(buf[value_start] == b' ');
                if (value_start < value_end && buf[value_start] <= b' ') | (last <= b' ') {
                    break Pending::Line {
                        name_end,
                        value_end,
                    };
                }
            }
            if FOLD {
                break Pending::Line {
                    name_end,
                    value_end,
                };
            }
            match slots.next() {
                Some(slot) => {
                    *slot = Entry::new(span(pos, name_end), span(value_start, value_end));
                }
                None => return err(K::TooManyFields, pos),
            }
            let line = Line {
                name_start: pos,
                name_end,
                value_start,
                value_end,
                folded: false,
            };
            if !sink.field_inline(blocks.c, buf, line) {
                break Pending::Sink(line);
            }
            pos = value_end + 2;
        };
        #[cfg(test)]
        unusual_lines::count();
        let (name_end, mut value_end, mut next) = match pending {
            Pending::Sink(line) => {
                sink.field(blocks.c, buf, line)?;
                pos = line.value_end + 2;
                continue;
            }
            Pending::Line {
                name_end,
                value_end,
            } => (name_end, value_end, value_end + 2),
            Pending::Slow => match slow_line(blocks.c, buf, pos, config)? {
                SlowLine::Field {
                    name_end,
                    value_end,
                    next,
                } => (name_end, value_end, next),
                SlowLine::End(end) => {
                    return Ok(Status::Complete(FieldsEnd {
                        end,
                        count: count(&slots),
                        obs_fold,
                    }))
                }
                SlowLine::Partial => {
                    *resume = Resume {
                        line: pos,
                        count: count(&slots),
                        obs_fold,
                    };
                    return Ok(Status::Partial);
                }
            },
        };
        // A line the call-free loop left: trim, unfold, store, tell the sink.
        let mut value_start = name_end + 1;
        if value_start < value_end {
            let last = buf[value_end - 1];
            value_start += usize::from(buf[value_start] == b' ');
            if (value_start < value_end && buf[value_start] <= b' ') | (last <= b' ') {
                (value_start, value_end) = trim(buf, value_start, value_end);
            }
        }
        let mut folded = false;
        if FOLD {
            match fold(blocks.c, buf, pos, value_start, value_end, next, config)? {
                Status::Complete((s, e, n)) => {
                    folded = n != next;
                    obs_fold |= folded;
                    (value_start, value_end, next) = (s, e, n);
                }
                Status::Partial => {
                    *resume = Resume {
                        line: pos,
                        count: count(&slots),
                        obs_fold,
                    };
                    return Ok(Status::Partial);
                }
            }
        }
        match slots.next() {
            Some(slot) => {
                *slot = Entry::new(span(pos, name_end), span(value_start, value_end));
            }
            None => return err(K::TooManyFields, pos),
        }
        sink.field(
            blocks.c,
            buf,
            Line {
                name_start: pos,
                name_end,
                value_start,
                value_end,
                folded,
            },
        )?;
        pos = next;
    }
}

/// What the call-free loop of [`walk`] left for the code after it.
enum Pending {
    /// A line of another shape (or the end, an error, an incomplete line):
    /// [`slow_line`] decides it.
    Slow,
    /// A valid line whose value needs trimming or unfolding: name end (the
    /// colon) and value end (at a CR LF).
    Line { name_end: usize, value_end: usize },
    /// A stored line the sink wants to see through [`FieldSink::field`].
    Sink(Line),
}

/// A line the fast path did not take.
enum SlowLine {
    /// A valid field line: name end (the colon), value end, next line.
    Field {
        name_end: usize,
        value_end: usize,
        next: usize,
    },
    /// The empty line: the index after it.
    End(usize),
    /// Not complete yet.
    Partial,
}

/// One line, decided byte class by byte class without the block cursor.
#[cold]
#[inline(never)]
fn slow_line<C: Classify>(c: C, buf: &[u8], pos: usize, config: &Config) -> Result<SlowLine> {
    let max_line = config.max_field_line_len;
    match buf.get(pos) {
        None => return Ok(SlowLine::Partial),
        Some(b'\r' | b'\n') => {
            return Ok(match empty_line(buf, pos, config)? {
                Some(end) => SlowLine::End(end),
                None => SlowLine::Partial,
            })
        }
        Some(_) => {}
    }
    let name_end = find(c, buf, pos, Stop::Token);
    if name_end >= buf.len() {
        return partial_line::<()>(buf, pos, max_line).map(|_| SlowLine::Partial);
    }
    if buf[name_end] != b':' || name_end == pos {
        return name_error::<()>(buf, pos, name_end, max_line).map(|_| SlowLine::Partial);
    }
    let value_end = find(c, buf, name_end + 1, Stop::Value);
    // The line is too long before whatever ends it is looked at, so the
    // error does not depend on how many bytes have arrived.
    if value_end - pos > max_line {
        return err(K::FieldLineTooLong, pos);
    }
    let next = match line_end(buf, value_end, config)? {
        Some(n) => n,
        None => return partial_line::<()>(buf, pos, max_line).map(|_| SlowLine::Partial),
    };
    Ok(SlowLine::Field {
        name_end,
        value_end,
        next,
    })
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

/// With obs-fold allowed, the line's value extended over the continuation
/// lines that follow it: `(value start, value end, next line)`, `Partial`
/// while it is unknown whether more continuation lines follow (the line
/// itself is complete and within its limit), or while a continuation line is
/// incomplete (unless it is already over the limit). Out of line, so the
/// strict field loop stays small.
#[inline(never)]
fn fold<C: Classify>(
    c: C,
    buf: &[u8],
    name_start: usize,
    value_start: usize,
    value_end: usize,
    next: usize,
    config: &Config,
) -> Result<Status<(usize, usize, usize)>> {
    // Whether the next line continues this one is unknown until it starts.
    match buf.get(next) {
        None => Ok(Status::Partial),
        Some(b' ' | b'\t') => {
            match unfold(c, buf, name_start, value_start, value_end, next, config)? {
                Some((s, e, n)) if n < buf.len() => Ok(Status::Complete((s, e, n))),
                Some(_) => Ok(Status::Partial),
                None => partial_line(buf, name_start, config.max_field_line_len),
            }
        }
        Some(_) => Ok(Status::Complete((value_start, value_end, next))),
    }
}

/// Extends a value over obs-fold continuation lines (leniency only):
/// `(value start, value end, next line)`, `None` when incomplete.
#[cold]
#[inline(never)]
fn unfold<C: Classify>(
    c: C,
    buf: &[u8],
    name_start: usize,
    mut value_start: usize,
    mut value_end: usize,
    mut next: usize,
    config: &Config,
) -> Result<Option<(usize, usize, usize)>> {
    while matches!(buf.get(next), Some(b' ' | b'\t')) {
        let end = find(c, buf, next, Stop::Value);
        // The limit before whatever ends the line, as for a single line:
        // the verdict must not depend on how many bytes have arrived.
        if end - name_start > config.max_field_line_len {
            return err(K::FieldLineTooLong, name_start);
        }
        let after = match line_end(buf, end, config)? {
            Some(n) => n,
            None => return Ok(None),
        };
        let (s, e) = trim(buf, next, end);
        if s < e {
            if value_start >= value_end {
                value_start = s;
            }
            value_end = e;
        }
        next = after;
    }
    Ok(Some((value_start, value_end, next)))
}

/// The line end at `end`, the first byte a value scan stopped at: the start
/// of the next line, `None` when incomplete, or the error.
#[inline]
pub(super) fn line_end(buf: &[u8], end: usize, config: &Config) -> Result<Option<usize>> {
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

/// Partial, unless the incomplete line is already over the limit.
#[cold]
#[inline(never)]
pub(super) fn partial_line<T>(buf: &[u8], line_start: usize, max_line: usize) -> Result<Status<T>> {
    // A final CR may be the start of the CRLF that ends the line.
    let len = buf.len() - line_start - usize::from(buf.last() == Some(&b'\r'));
    if len > max_line {
        return err(K::FieldLineTooLong, line_start);
    }
    Ok(Status::Partial)
}

/// Why a field line has no valid name: a line starting with whitespace
/// (obs-fold), whitespace before the colon, or a byte that is not a tchar.
#[cold]
#[inline(never)]
fn name_error<T>(buf: &[u8], start: usize, end: usize, max_line: usize) -> Result<Status<T>> {
    if end == start {
        return match buf[start] {
            b' ' | b'\t' => err(K::ObsFold, start),
            _ => err(K::InvalidFieldName, start),
        };
    }
    // A defect that lies past the line limit is not seen by a reader that
    // got only the bytes up to the limit: the limit is the first error, so
    // the verdict does not depend on how many bytes have arrived.
    if end - start > max_line {
        return err(K::FieldLineTooLong, start);
    }
    match buf[end] {
        b' ' | b'\t' => match buf[end..].iter().position(|&b| !is_ows(b)) {
            Some(i) if end + i - start > max_line => err(K::FieldLineTooLong, start),
            Some(i) if buf[end + i] == b':' => err(K::WhitespaceBeforeColon, end),
            Some(_) => err(K::InvalidFieldName, end),
            // Only whitespace so far: which error it is depends on what
            // comes, within the line limit.
            None => partial_line(buf, start, max_line),
        },
        _ => err(K::InvalidFieldName, end),
    }
}

/// How many lines the call-free loop of [`walk`] has left to the code
/// after it, on this thread: to the sink's out-of-line
/// [`FieldSink::field`] (a framing field, which `field_inline` declined),
/// or to be trimmed, unfolded or decided by [`slow_line`]. No verdict shows
/// which code decided a line (both decide alike), so the unit tests read
/// this to pin that the usual lines stay in the loop: a loop that gave up
/// on them, or a sink that declined them, would only be slower.
#[cfg(test)]
pub(super) mod unusual_lines {
    extern crate std;
    use core::cell::Cell;

    std::thread_local!(static UNUSUAL_LINES: Cell<usize> = const { Cell::new(0) });

    pub(in crate::parse) fn count() {
        UNUSUAL_LINES.with(|n| n.set(n.get() + 1));
    }

    /// Lines left by the loop on this thread so far.
    pub(in crate::parse) fn so_far() -> usize {
        UNUSUAL_LINES.with(Cell::get)
    }
}
