//! Small heads: a request head that ends within the first 64 bytes of its
//! buffer (health checks, load generators, the smallest API calls) is read
//! from one classification of those bytes, by bit tests on its masks: no
//! byte loop, no block cursor.
//!
//! It only ever accepts. A head it does not take whole (any error, any
//! leniency the head needs, a framing field out of the ordinary) is left to
//! the general parser, which then decides it alone, so every verdict but
//! the usual "complete" comes from one place. What it accepts must be
//! exactly what the general parser accepts, with the same head and fields:
//! the scanner paths without a small-head parser (scalar, SWAR) are the
//! oracle the tests and the fuzz targets compare it with.

use h1_headers::{Entry, Span};

use super::facts::{lone_connection_token, name_is, plain_digits, MAX_CONTENT_LENGTH};
use super::fields::Line;
use super::span;
use super::start::target_form;
use crate::head::{
    ConnectionTokens, Expect, FieldFacts, Method, RequestHead, TargetForm, TransferEncoding,
};
use crate::scan::{low_bits, Classify, Small};
use crate::Config;
use h1_headers::Version;

/// Parses a request head that ends within the first 64 bytes of `buf`
/// into `head` and `fields`, as the general parser would: its length, or
/// `None` when the general parser must decide (`head` and `fields` may then
/// have been written in part, as on any head that is not complete).
#[inline(always)]
pub(super) fn request<C: Classify>(
    c: C,
    buf: &[u8],
    head: &mut RequestHead,
    fields: &mut [Entry],
    config: &Config,
) -> Option<usize> {
    let s = c.small(buf)?;
    let end = s.end;
    // Limits a head this short can only break when set below a block.
    if end > config.max_head_len || config.max_field_line_len < 64 || config.max_target_len < 64 {
        return None;
    }
    let head_bits = low_bits(end);
    // Every CR followed by LF and every LF preceded by CR, and no other
    // control byte or DEL anywhere: then a field value is every byte
    // between its start and its line's CR.
    if ((s.cr << 1 ^ s.lf) | s.nv & !(s.cr | s.lf)) & head_bits != 0 {
        return None;
    }
    let (line, mut pos) = request_line(&s, buf)?;
    head.method = span(0, line.method_end);
    head.method_kind = line.method_kind;
    head.target = span(line.method_end + 1, line.target_end);
    head.target_form = line.target_form;
    head.version = line.version;
    let mut facts = SmallFacts::default();
    let max_fields = config.max_fields.min(fields.len());
    let mut count = 0;
    while s.cr >> pos & 1 == 0 {
        let line = field_line(&s, pos)?;
        if count == max_fields {
            return None;
        }
        let slot = fields.get_mut(count)?;
        *slot = Entry::new(
            span(pos, line.name_end),
            span(line.value_start, line.value_end),
        );
        count += 1;
        facts.field(&s, buf, &line)?;
        pos = line.value_end + 2;
    }
    // The empty line is the head's end (the first CR LF CR LF).
    if pos + 2 != end || facts.host == 0 && line.version == Version::Http11 {
        return None;
    }
    head.len = end;
    head.field_count = count;
    head.facts = FieldFacts {
        content_length: facts.content_length,
        transfer_encoding: TransferEncoding::Absent,
        connection: ConnectionTokens {
            bits: facts.connection,
        },
        host: (facts.host != 0)
            .then(|| Span::from_parts(facts.host as u32, (facts.host >> 32) as u32)),
        expect: Expect::None,
        upgrade: facts.upgrade,
    };
    head.obs_fold = false;
    Some(end)
}

/// The framing facts of a small head, for the usual framing fields only: a
/// first `Host` of the usual shape, `Connection` with a lone `keep-alive`
/// or `close`, `Upgrade`, `Content-Length` of plain digits (repeated with
/// the same value). Any other framing field (a second `Host`, `Expect`,
/// `Transfer-Encoding`, a `Connection` list, ...) leaves the head to the
/// general parser, whose facts say the same of these.
#[derive(Default)]
struct SmallFacts {
    /// `Host`'s value as offset and length (low and high half), 0 when
    /// none: a value starts after its name, never at 0.
    host: u64,
    connection: u8,
    upgrade: bool,
    content_length: Option<u64>,
}

impl SmallFacts {
    /// One field line: `None` when the general parser must decide.
    #[inline(always)]
    fn field(&mut self, s: &Small, buf: &[u8], l: &Line) -> Option<()> {
        let name = &buf[l.name_start..l.name_end];
        let (start, end) = (l.value_start, l.value_end);
        match name.len() {
            4 if name_is(name, b"host") => {
                if self.host != 0 || !usual_host(s, start, end) {
                    return None;
                }
                self.host = start as u64 | ((end - start) as u64) << 32;
            }
            6 if name_is(name, b"expect") => return None,
            7 if name_is(name, b"upgrade") => self.upgrade = true,
            10 if name_is(name, b"connection") => {
                self.connection |= lone_connection_token(&buf[start..end])?;
            }
            14 if name_is(name, b"content-length") => {
                let n = plain_digits(&buf[start..end]).filter(|&n| n <= MAX_CONTENT_LENGTH)?;
                if self.content_length.is_some_and(|m| m != n) {
                    return None;
                }
                self.content_length = Some(n);
            }
            17 if name_is(name, b"transfer-encoding") => return None,
            _ => {}
        }
        Some(())
    }
}

/// A request line read from the masks.
struct RequestLine {
    method_end: usize,
    method_kind: Method,
    target_end: usize,
    target_form: TargetForm,
    version: Version,
}

/// `method SP target SP HTTP/1.x CRLF` at the start of the buffer: the line,
/// and where the first field line starts. The method is a token, the target
/// target bytes, one SP between each.
#[inline(always)]
fn request_line(s: &Small, buf: &[u8]) -> Option<(RequestLine, usize)> {
    let method_end = s.nt.trailing_zeros() as usize;
    let target_start = method_end + 1;
    if method_end == 0 || s.sp >> method_end & 1 == 0 || target_start >= 64 {
        return None;
    }
    let target_end = target_start + (s.ntg >> target_start).trailing_zeros() as usize;
    if target_end == target_start || target_end >= 64 || s.sp >> target_end & 1 == 0 {
        return None;
    }
    // `HTTP/1.x` as one word, CR LF as another.
    let v = buf.get(target_end + 1..target_end + 11)?;
    let word = u64::from_le_bytes([v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]]);
    let version = if word == u64::from_le_bytes(*b"HTTP/1.1") {
        Version::Http11
    } else if word == u64::from_le_bytes(*b"HTTP/1.0") {
        Version::Http10
    } else {
        return None;
    };
    if [v[8], v[9]] != *b"\r\n" {
        return None;
    }
    let target = &buf[target_start..target_end];
    // `GET /`, the usual start, as one word and a byte.
    let (method_kind, target_form) = if buf[..4] == *b"GET " && target[0] == b'/' {
        (Method::Get, TargetForm::Origin)
    } else {
        let kind = Method::from_bytes(&buf[..method_end]);
        (kind, target_form(kind, target)?)
    };
    let line = RequestLine {
        method_end,
        method_kind,
        target_end,
        target_form,
        version,
    };
    Some((line, target_end + 11))
}

/// The field line at `pos` (not the empty line): `name ":" OWS value OWS`
/// with a token name, at most one SP before the value and no whitespace
/// after it (anything else is left to the general parser, which trims).
#[inline(always)]
fn field_line(s: &Small, pos: usize) -> Option<Line> {
    // The head's end is within the block, so every line's CR is too.
    let cr = pos + (s.cr >> pos).trailing_zeros() as usize;
    let name_end = pos + (s.nt >> pos).trailing_zeros() as usize;
    if name_end == pos || s.colon >> name_end & 1 == 0 {
        return None;
    }
    let mut value_start = name_end + 1;
    if value_start < cr {
        value_start += (s.sp >> value_start & 1) as usize;
        if value_start == cr || s.ows >> value_start & 1 != 0 || s.ows >> (cr - 1) & 1 != 0 {
            return None;
        }
    }
    Some(Line {
        name_start: pos,
        name_end,
        value_start,
        value_end: cr,
        folded: false,
    })
}

/// Whether `start..end` holds a usual `Host` value: letters, digits, `-`
/// and `.`, then optionally `:` and digits (what `facts::host_usual` says,
/// read from the masks).
#[inline(always)]
fn usual_host(s: &Small, start: usize, end: usize) -> bool {
    let len = end - start;
    let value = low_bits(len);
    let bad = s.nhn >> start & value;
    if bad == 0 {
        return len > 0;
    }
    let colon = bad.trailing_zeros() as usize;
    colon > 0
        && s.colon >> (start + colon) & 1 != 0
        && s.nd >> (start + colon + 1) & (value >> (colon + 1)) == 0
}
