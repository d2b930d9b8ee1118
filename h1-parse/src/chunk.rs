//! Chunk-size lines of the chunked transfer coding (RFC 9112 §7.1).
//!
//! ```text
//! chunk          = chunk-size [ chunk-ext ] CRLF
//! chunk-size     = 1*HEXDIG
//! chunk-ext      = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
//! chunk-ext-name = token
//! chunk-ext-val  = token / quoted-string
//! ```
//!
//! The common line (`5\r\n`, `1f4\r\n`) costs one table lookup per hex digit
//! and a check for CRLF; only a line with something else after the size walks
//! the extension state machine.

use h1_headers::chars::{is_field_value_byte, is_tchar, TOKEN};
use h1_headers::Span;

use crate::config::Config;
use crate::error::{Error, ErrorKind};
use crate::head::Status;

/// One parsed chunk-size line: `chunk-size [ chunk-ext ] CRLF`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkSize {
    /// Bytes the line took, CRLF included: the chunk data starts here.
    pub len: usize,
    /// The chunk size: how many data bytes follow the line. `0` marks the
    /// last chunk; the trailer section follows it.
    pub size: u64,
    /// The raw extension bytes, from the end of the size up to (excluding)
    /// the CRLF, the leading BWS and `;` included. They have been checked
    /// against the grammar, not interpreted (unknown extensions are ignored,
    /// RFC 9112 §7.1.1). An empty span at the end of the size when the line
    /// has none.
    pub extensions: Span,
}

/// Parses a chunk-size line (RFC 9112 §7.1) at the start of `buf`.
///
/// Returns [`Status::Complete`] with the size and the line's length (CRLF
/// included; the chunk data starts there), or [`Status::Partial`] when the
/// bytes so far are a valid prefix of a line. Bytes after the line are not
/// looked at.
///
/// Strict, always (the chunked framing has no leniencies; in particular
/// [`Config::allow_bare_lf`] does not apply):
///
/// - the size is one or more hex digits of either case, with any number of
///   leading zeros but at most 16 significant digits, so it always fits a
///   `u64`; no sign, no `0x`, no whitespace before it
///   ([`ErrorKind::InvalidChunkSize`]);
/// - whitespace after the size only before a `;` (BWS of the extension);
/// - extensions follow the grammar exactly: a token name, optionally `=` and
///   a token or quoted-string value, BWS only around `;` and `=`
///   ([`ErrorKind::InvalidChunkExtension`]);
/// - the line ends in CRLF: a CR followed by anything but LF is
///   [`ErrorKind::BareCr`], an LF without CR is [`ErrorKind::BareLf`];
/// - the line, without its CRLF, is at most
///   [`Config::max_chunk_line_len`] bytes ([`ErrorKind::ChunkLineTooLong`]),
///   checked as the bytes arrive, so a line that never ends is refused once
///   it passes the limit.
///
/// An error's offset is the first byte at which the input stops being a valid
/// prefix of a line (for a line that is too long, the first byte past the
/// limit), except for a bare CR, where it is the CR itself.
///
/// ```
/// use h1_parse::{parse_chunk_size, Config, Status};
///
/// let config = Config::default();
/// let buf = b"1f4;name=\"value\"\r\n<500 bytes of data>";
/// let line = match parse_chunk_size(buf, &config).unwrap() {
///     Status::Complete(line) => line,
///     Status::Partial => unreachable!("the line is complete"),
/// };
/// assert_eq!(line.size, 500);
/// assert_eq!(line.len, 18);
/// assert_eq!(line.extensions.slice(buf), b";name=\"value\"");
///
/// assert_eq!(parse_chunk_size(b"1f4;na", &config), Ok(Status::Partial));
///
/// let err = parse_chunk_size(b"0x1f4\r\n", &config).unwrap_err();
/// assert_eq!(err.kind(), h1_parse::ErrorKind::InvalidChunkSize);
/// assert_eq!(err.offset(), 1);
/// ```
pub fn parse_chunk_size(buf: &[u8], config: &Config) -> Result<Status<ChunkSize>, Error> {
    // The extension span must be representable; a larger limit is no limit.
    let limit = if config.max_chunk_line_len < Span::MAX {
        config.max_chunk_line_len
    } else {
        Span::MAX
    };

    // The size: a tight loop over hex digits, never past the limit.
    let digits = &buf[..buf.len().min(limit)];
    let mut size: u64 = 0;
    let mut i = 0;
    while let Some(&b) = digits.get(i) {
        let d = HEX[b as usize];
        if d == NOT_HEX {
            break;
        }
        // A non-zero top nibble means 16 significant digits are in already
        // (the first significant digit is at least 1, so 16 of them are at
        // least 16^15 = 2^60); one more would overflow.
        if size >> 60 != 0 {
            return Err(Error::new(ErrorKind::InvalidChunkSize, i));
        }
        size = (size << 4) | u64::from(d);
        i += 1;
    }

    // The common case: a non-empty size right before CRLF. `i <= limit`, so
    // the line is within the limit.
    if i != 0 && buf.get(i) == Some(&b'\r') && buf.get(i + 1) == Some(&b'\n') {
        return Ok(Status::Complete(ChunkSize {
            len: i + 2,
            size,
            extensions: span(i, i)?,
        }));
    }

    let state = if i == 0 {
        State::Start
    } else {
        State::AfterSize
    };
    parse_rest(buf, limit, state, i, size)
}

/// Where the extension state machine is; each state is a valid prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Nothing yet (no hex digit at the start of the line).
    Start,
    /// Right after the last hex digit.
    AfterSize,
    /// In BWS after the size; only `;` may follow.
    SizeWs,
    /// After `;`, in BWS before the name.
    BeforeName,
    /// In an extension name.
    Name,
    /// In BWS after a name; `=` or `;` must follow.
    AfterName,
    /// After `=`, in BWS before the value.
    BeforeValue,
    /// In a token value.
    Token,
    /// Inside a quoted-string value.
    Quoted,
    /// Right after the backslash of a quoted-pair.
    QuotedPair,
    /// Right after the closing quote of a value.
    AfterQuoted,
    /// In BWS after a value; only `;` may follow.
    AfterValue,
}

impl State {
    /// Whether the line may end (CRLF) here.
    #[inline]
    fn can_end(self) -> bool {
        matches!(
            self,
            State::AfterSize | State::Name | State::Token | State::AfterQuoted
        )
    }

    /// What a byte that does not fit here is.
    #[inline]
    fn error_kind(self) -> ErrorKind {
        match self {
            State::Start | State::AfterSize | State::SizeWs => ErrorKind::InvalidChunkSize,
            _ => ErrorKind::InvalidChunkExtension,
        }
    }

    /// The state after byte `b` (not CR or LF outside a quoted string), or
    /// `None` if `b` cannot follow.
    #[inline]
    fn step(self, b: u8) -> Option<State> {
        let ws = b == b' ' || b == b'\t';
        let next = match self {
            // Hex digits were taken by the size loop (unless the limit
            // stopped it, which is checked before this).
            State::Start => return None,
            State::AfterSize | State::SizeWs => match b {
                b';' => State::BeforeName,
                _ if ws => State::SizeWs,
                _ => return None,
            },
            State::BeforeName => match b {
                _ if ws => State::BeforeName,
                _ if is_tchar(b) => State::Name,
                _ => return None,
            },
            State::Name => match b {
                b'=' => State::BeforeValue,
                b';' => State::BeforeName,
                _ if ws => State::AfterName,
                _ if is_tchar(b) => State::Name,
                _ => return None,
            },
            State::AfterName => match b {
                b'=' => State::BeforeValue,
                b';' => State::BeforeName,
                _ if ws => State::AfterName,
                _ => return None,
            },
            State::BeforeValue => match b {
                b'"' => State::Quoted,
                _ if ws => State::BeforeValue,
                _ if is_tchar(b) => State::Token,
                _ => return None,
            },
            State::Token => match b {
                b';' => State::BeforeName,
                _ if ws => State::AfterValue,
                _ if is_tchar(b) => State::Token,
                _ => return None,
            },
            // qdtext = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text
            State::Quoted => match b {
                b'"' => State::AfterQuoted,
                b'\\' => State::QuotedPair,
                b'\t' | 0x20..=0x7e | 0x80..=0xff => State::Quoted,
                _ => return None,
            },
            // quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text )
            State::QuotedPair => match b {
                b'\t' | 0x20..=0x7e | 0x80..=0xff => State::Quoted,
                _ => return None,
            },
            State::AfterQuoted | State::AfterValue => match b {
                b';' => State::BeforeName,
                _ if ws => State::AfterValue,
                _ => return None,
            },
        };
        Some(next)
    }
}

/// The rest of the line after the size (or at the start, when there is no
/// size): the extensions and the line end.
#[inline(never)]
fn parse_rest(
    buf: &[u8],
    limit: usize,
    mut state: State,
    size_end: usize,
    size: u64,
) -> Result<Status<ChunkSize>, Error> {
    // The bytes a line may hold, and one more: it may be the CR.
    let content = &buf[..buf.len().min(limit)];
    let line = &buf[..buf.len().min(limit.saturating_add(1))];
    let mut j = size_end;
    while let Some(&b) = line.get(j) {
        if (b == b'\r' || b == b'\n') && !matches!(state, State::Quoted | State::QuotedPair) {
            return finish(buf, state, size_end, j, size);
        }
        if j >= limit {
            return Err(Error::new(ErrorKind::ChunkLineTooLong, j));
        }
        state = match state.step(b) {
            Some(next) => next,
            None => return Err(Error::new(state.error_kind(), j)),
        };
        j += 1;
        // Names and values are runs of bytes that keep the state: take the
        // rest of the run in a tight loop (within the limit).
        let run = match state {
            State::Name | State::Token => &TOKEN,
            State::Quoted => &QDTEXT,
            _ => continue,
        };
        while let Some(&c) = content.get(j) {
            if !run[c as usize] {
                break;
            }
            j += 1;
        }
    }
    // Every state is a valid prefix, and a byte past the limit would have
    // ended the loop with an error: wait for more.
    Ok(Status::Partial)
}

/// The line ends at `end` (a CR or LF outside a quoted string) in `state`.
#[inline]
fn finish(
    buf: &[u8],
    state: State,
    size_end: usize,
    end: usize,
    size: u64,
) -> Result<Status<ChunkSize>, Error> {
    if buf.get(end) == Some(&b'\n') {
        return Err(Error::new(ErrorKind::BareLf, end));
    }
    if !state.can_end() {
        return Err(Error::new(state.error_kind(), end));
    }
    match buf.get(end + 1) {
        None => Ok(Status::Partial),
        Some(&b'\n') => Ok(Status::Complete(ChunkSize {
            len: end + 2,
            size,
            extensions: span(size_end, end)?,
        })),
        Some(_) => Err(Error::new(ErrorKind::BareCr, end)),
    }
}

/// The span `start..end`. The line limit is clamped to [`Span::MAX`], so this
/// cannot fail; should it, the line is too long to describe.
#[inline]
fn span(start: usize, end: usize) -> Result<Span, Error> {
    Span::from_range(start, end).ok_or(Error::new(ErrorKind::ChunkLineTooLong, end))
}

/// `qdtext` (RFC 9110 §5.6.4): the field-value bytes that stand for
/// themselves inside a quoted string; `"` ends it and `\` starts a
/// quoted-pair.
static QDTEXT: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = is_field_value_byte(c) && c != b'"' && c != b'\\';
        b += 1;
    }
    t
};

/// Marks a byte that is not a hex digit in [`HEX`].
const NOT_HEX: u8 = 0xff;

/// The value of each hex digit (either case); [`NOT_HEX`] for other bytes.
static HEX: [u8; 256] = {
    let mut t = [NOT_HEX; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => NOT_HEX,
        };
        b += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use std::vec::Vec;

    fn parse(buf: &[u8]) -> Result<Status<ChunkSize>, Error> {
        parse_chunk_size(buf, &Config::DEFAULT)
    }

    fn with_limit(limit: usize) -> Config {
        Config {
            max_chunk_line_len: limit,
            ..Config::DEFAULT
        }
    }

    /// Asserts a complete line of `len` bytes with `size` and `ext`.
    #[track_caller]
    fn assert_line(buf: &[u8], config: &Config, len: usize, size: u64, ext: &[u8]) {
        match parse_chunk_size(buf, config) {
            Ok(Status::Complete(line)) => {
                assert_eq!(line.len, len, "len of {:?}", buf.escape_ascii());
                assert_eq!(line.size, size, "size of {:?}", buf.escape_ascii());
                assert_eq!(
                    line.extensions.slice(buf),
                    ext,
                    "extensions of {:?}",
                    buf.escape_ascii()
                );
                // An empty extension span sits at the end of the size.
                assert_eq!(line.extensions.end(), len - 2);
            }
            other => panic!(
                "{:?}: expected a complete line, got {other:?}",
                buf.escape_ascii()
            ),
        }
    }

    /// Asserts a complete line that is all of `line` (which ends in CRLF):
    /// alone, followed by more bytes, and that every shorter prefix is Partial.
    #[track_caller]
    fn assert_valid(line: &[u8], size: u64, ext: &[u8]) {
        assert_valid_with(line, &Config::DEFAULT, size, ext);
    }

    #[track_caller]
    fn assert_valid_with(line: &[u8], config: &Config, size: u64, ext: &[u8]) {
        assert!(line.ends_with(b"\r\n"));
        assert_line(line, config, line.len(), size, ext);
        for tail in [&b"hello"[..], b"\r\n", b"\n", b"0\r\n\r\n", b"\x00\xff"] {
            let mut buf = line.to_vec();
            buf.extend_from_slice(tail);
            assert_line(&buf, config, line.len(), size, ext);
        }
        for k in 0..line.len() {
            assert_eq!(
                parse_chunk_size(&line[..k], config),
                Ok(Status::Partial),
                "prefix {:?} of {:?}",
                line[..k].escape_ascii(),
                line.escape_ascii()
            );
        }
    }

    /// Asserts that `buf` fails with `kind` at `offset`, that every prefix
    /// before the failure is Partial (or the same error) and that appending
    /// bytes does not change the error.
    #[track_caller]
    fn assert_invalid(buf: &[u8], kind: ErrorKind, offset: usize) {
        assert_invalid_with(buf, &Config::DEFAULT, kind, offset);
    }

    #[track_caller]
    fn assert_invalid_with(buf: &[u8], config: &Config, kind: ErrorKind, offset: usize) {
        let expected = Err(Error::new(kind, offset));
        assert_eq!(
            parse_chunk_size(buf, config),
            expected,
            "{:?}",
            buf.escape_ascii()
        );
        // The error is known as soon as its byte is there (a bare CR: as
        // soon as the byte after it is).
        let known_at = if kind == ErrorKind::BareCr {
            offset + 2
        } else {
            offset + 1
        };
        for k in 0..buf.len() {
            let want = if k < known_at {
                Ok(Status::Partial)
            } else {
                expected
            };
            assert_eq!(
                parse_chunk_size(&buf[..k], config),
                want,
                "prefix {:?} of {:?}",
                buf[..k].escape_ascii(),
                buf.escape_ascii()
            );
        }
        let mut longer = buf.to_vec();
        longer.extend_from_slice(b"\r\nhello\r\n");
        assert_eq!(
            parse_chunk_size(&longer, config),
            expected,
            "{:?}",
            longer.escape_ascii()
        );
    }

    fn line_of(parts: &[&[u8]]) -> Vec<u8> {
        parts.concat()
    }

    // ---- sizes ----

    #[test]
    fn simple_sizes() {
        assert_valid(b"0\r\n", 0, b"");
        assert_valid(b"5\r\n", 5, b"");
        assert_valid(b"1f4\r\n", 500, b"");
        assert_valid(b"1F4\r\n", 500, b"");
        assert_valid(b"1e\r\n", 30, b"");
        assert_valid(b"A\r\n", 10, b"");
        assert_valid(b"aA\r\n", 170, b"");
        assert_valid(b"0005\r\n", 5, b"");
        assert_valid(b"000\r\n", 0, b"");
        assert_valid(b"17\r\n", 23, b"");
        assert_valid(b"0123456789abcdef\r\n", 0x0123_4567_89ab_cdef, b"");
        assert_valid(b"0123456789ABCDEF\r\n", 0x0123_4567_89ab_cdef, b"");
    }

    #[test]
    fn every_hex_digit() {
        for (digit, value) in (b'0'..=b'9')
            .zip(0u64..)
            .chain((b'a'..=b'f').zip(10u64..))
            .chain((b'A'..=b'F').zip(10u64..))
        {
            assert_valid(&[digit, b'\r', b'\n'], value, b"");
            assert_valid(&[b'1', digit, b'\r', b'\n'], 16 + value, b"");
        }
    }

    #[test]
    fn sixteen_significant_digits() {
        assert_valid(b"ffffffffffffffff\r\n", u64::MAX, b"");
        assert_valid(b"FFFFFFFFFFFFFFFF\r\n", u64::MAX, b"");
        assert_valid(b"1000000000000000\r\n", 1 << 60, b"");
        assert_valid(b"8000000000000000\r\n", 1 << 63, b"");
        assert_valid(b"0000000000000000ffffffffffffffff\r\n", u64::MAX, b"");
        assert_valid(b"0fffffffffffffff\r\n", u64::MAX >> 4, b"");
        let mut zeros = [b'0'; 300].to_vec();
        zeros.extend_from_slice(b"1000000000000000\r\n");
        assert_valid(&zeros, 1 << 60, b"");
        let mut zeros = [b'0'; 300].to_vec();
        zeros.extend_from_slice(b"\r\n");
        assert_valid(&zeros, 0, b"");
    }

    #[test]
    fn seventeen_significant_digits() {
        use ErrorKind::InvalidChunkSize;
        assert_invalid(b"10000000000000000\r\n", InvalidChunkSize, 16);
        assert_invalid(b"FFFFFFFFFFFFFFFFF\r\n", InvalidChunkSize, 16);
        assert_invalid(b"10000000000000005\r\n", InvalidChunkSize, 16);
        assert_invalid(b"ffffffffffffffff0\r\n", InvalidChunkSize, 16);
        assert_invalid(b"0010000000000000000\r\n", InvalidChunkSize, 18);
        let mut zeros = [b'0'; 52].to_vec();
        zeros.extend_from_slice(b"10000000000000000;a\r\n");
        assert_invalid(&zeros, InvalidChunkSize, 68);
        // Detected without waiting for the end of the line.
        assert_eq!(
            parse(b"100000000000000000000"),
            Err(Error::new(InvalidChunkSize, 16))
        );
    }

    #[test]
    fn bad_sizes() {
        use ErrorKind::InvalidChunkSize;
        // Empty.
        assert_invalid(b"\r\n", InvalidChunkSize, 0);
        assert_invalid(b"\r", InvalidChunkSize, 0);
        assert_invalid(b";a=b\r\n", InvalidChunkSize, 0);
        assert_invalid(b"=\r\n", InvalidChunkSize, 0);
        // Whitespace before.
        assert_invalid(b" 5\r\n", InvalidChunkSize, 0);
        assert_invalid(b"\t5\r\n", InvalidChunkSize, 0);
        // Signs and prefixes.
        assert_invalid(b"-5\r\n", InvalidChunkSize, 0);
        assert_invalid(b"+5\r\n", InvalidChunkSize, 0);
        assert_invalid(b"-0x0\r\n", InvalidChunkSize, 0);
        assert_invalid(b"0x5\r\n", InvalidChunkSize, 1);
        assert_invalid(b"0X5\r\n", InvalidChunkSize, 1);
        assert_invalid(b"x5\r\n", InvalidChunkSize, 0);
        assert_invalid(b"5h\r\n", InvalidChunkSize, 1);
        // Not hex.
        assert_invalid(b"g\r\n", InvalidChunkSize, 0);
        assert_invalid(b"G\r\n", InvalidChunkSize, 0);
        assert_invalid(b"5_\r\n", InvalidChunkSize, 1);
        assert_invalid(b"0_2e\r\n", InvalidChunkSize, 1);
        assert_invalid(b"1.5\r\n", InvalidChunkSize, 1);
        assert_invalid(b"5,5\r\n", InvalidChunkSize, 1);
        assert_invalid(b"5\x00\r\n", InvalidChunkSize, 1);
        assert_invalid(b"\x00\r\n", InvalidChunkSize, 0);
        assert_invalid(b"5\xff\r\n", InvalidChunkSize, 1);
        assert_invalid(b"\xef\xbc\x95\r\n", InvalidChunkSize, 0); // fullwidth 5
        assert_invalid(b"1these-bytes-never-get-validated\r\n", InvalidChunkSize, 1);
        // Whitespace after, not before a `;`.
        assert_invalid(b"5 \r\n", InvalidChunkSize, 2);
        assert_invalid(b"5\t\r\n", InvalidChunkSize, 2);
        assert_invalid(b"5 \t \r\n", InvalidChunkSize, 4);
        assert_invalid(b"5 5\r\n", InvalidChunkSize, 2);
        assert_invalid(b"5 x\r\n", InvalidChunkSize, 2);
        assert_invalid(b"5 =a\r\n", InvalidChunkSize, 2);
        assert_invalid(b"5\x0b\r\n", InvalidChunkSize, 1);
        assert_invalid(b"5\x0c\r\n", InvalidChunkSize, 1);
    }

    // ---- line endings ----

    #[test]
    fn line_endings() {
        use ErrorKind::{BareCr, BareLf};
        assert_invalid(b"5\nhello", BareLf, 1);
        assert_invalid(b"\n", BareLf, 0);
        assert_invalid(b"5\rhello", BareCr, 1);
        assert_invalid(b"5\r\r\n", BareCr, 1);
        assert_invalid(b"5\r5\r\n", BareCr, 1);
        assert_invalid(b"1\r0\n", BareCr, 1);
        assert_invalid(b"2\r\r;a\r\n", BareCr, 1);
        assert_invalid(b"5;a\n", BareLf, 3);
        assert_invalid(b"5;a=b\n", BareLf, 5);
        assert_invalid(b"5;a=\"b\"\n", BareLf, 7);
        assert_invalid(b"5;a=b\rX", BareCr, 5);
        assert_invalid(b"5;a\r;b\r\n", BareCr, 3);
        assert_invalid(b"5;a=\"b\"\r \r\n", BareCr, 7);
        // A LF right after the size or in the middle of an extension.
        assert_invalid(b"5 \n", BareLf, 2);
        assert_invalid(b"5;\n", BareLf, 2);
        assert_invalid(b"5;a=\n", BareLf, 4);
    }

    #[test]
    fn bare_lf_is_never_allowed() {
        let lenient = Config {
            allow_bare_lf: true,
            ..Config::DEFAULT
        };
        assert_eq!(
            parse_chunk_size(b"5\nhello", &lenient),
            Err(Error::new(ErrorKind::BareLf, 1))
        );
        assert_eq!(
            parse_chunk_size(b"5;a\n", &lenient),
            Err(Error::new(ErrorKind::BareLf, 3))
        );
        assert_eq!(
            parse_chunk_size(b"5\r\n", &lenient),
            Ok(Status::Complete(ChunkSize {
                len: 3,
                size: 5,
                extensions: Span::new(1, 0).unwrap(),
            }))
        );
    }

    // ---- extensions ----

    #[test]
    fn token_extensions() {
        assert_valid(b"5;name\r\n", 5, b";name");
        assert_valid(b"5;a=b\r\n", 5, b";a=b");
        assert_valid(b"0;final=yes\r\n", 0, b";final=yes");
        assert_valid(b"5;a;b;c\r\n", 5, b";a;b;c");
        assert_valid(b"6;blahblah;blah\r\n", 6, b";blahblah;blah");
        assert_valid(
            b"5;ilovew3;somuchlove=aretheseparametersfor;another=withvalue\r\n",
            5,
            b";ilovew3;somuchlove=aretheseparametersfor;another=withvalue",
        );
        // Every tchar in names and values.
        let tchars =
            b"!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
        let line = line_of(&[b"a;", tchars, b"=", tchars, b"\r\n"]);
        assert_valid(&line, 10, &line[1..line.len() - 2]);
    }

    #[test]
    fn quoted_extensions() {
        assert_valid(b"5;a=\"b\"\r\n", 5, b";a=\"b\"");
        assert_valid(b"5;a=\"\"\r\n", 5, b";a=\"\"");
        assert_valid(b"5;a=\"b c\"\r\n", 5, b";a=\"b c\"");
        assert_valid(b"5;a=\"b\tc\"\r\n", 5, b";a=\"b\tc\"");
        assert_valid(
            b"5;a=\"; = , ( ) [ ] { } / ? @ :\"\r\n",
            5,
            b";a=\"; = , ( ) [ ] { } / ? @ :\"",
        );
        assert_valid(b"5;a=\"\\\"\"\r\n", 5, b";a=\"\\\"\"");
        assert_valid(b"5;a=\"\\\\\"\r\n", 5, b";a=\"\\\\\"");
        assert_valid(b"5;a=\"x\\\"y\\\\z\\q\"\r\n", 5, b";a=\"x\\\"y\\\\z\\q\"");
        assert_valid(b"5;a=\"\\ \\\t\"\r\n", 5, b";a=\"\\ \\\t\"");
        // obs-text, plain and escaped.
        assert_valid(b"5;a=\"\x80\xff\"\r\n", 5, b";a=\"\x80\xff\"");
        assert_valid(b"5;a=\"\\\x80\\\xff\"\r\n", 5, b";a=\"\\\x80\\\xff\"");
        // Every qdtext byte.
        let mut qdtext: Vec<u8> = (0x20..=0xffu8)
            .filter(|&b| b != b'"' && b != b'\\' && b != 0x7f)
            .collect();
        qdtext.push(b'\t');
        let line = line_of(&[b"5;a=\"", &qdtext, b"\"\r\n"]);
        assert_valid(&line, 5, &line[1..line.len() - 2]);
        // Every byte that may be escaped.
        let escapable: Vec<u8> = (0x20..=0xffu8)
            .filter(|&b| b != 0x7f)
            .chain([b'\t'])
            .flat_map(|b| [b'\\', b])
            .collect();
        let line = line_of(&[b"5;a=\"", &escapable, b"\"\r\n"]);
        assert_valid(&line, 5, &line[1..line.len() - 2]);
        // Several, mixed.
        assert_valid(b"5;a=\"x\";b;c=d\r\n", 5, b";a=\"x\";b;c=d");
    }

    #[test]
    fn bws() {
        assert_valid(b"5 ;a\r\n", 5, b" ;a");
        assert_valid(b"5\t;a\r\n", 5, b"\t;a");
        assert_valid(b"5 ;a=b\r\n", 5, b" ;a=b");
        assert_valid(b"5; a\r\n", 5, b"; a");
        assert_valid(b"5;a =b\r\n", 5, b";a =b");
        assert_valid(b"5;a= b\r\n", 5, b";a= b");
        assert_valid(b"5;a = b\r\n", 5, b";a = b");
        assert_valid(b"5 \t ; \t a \t = \t b\r\n", 5, b" \t ; \t a \t = \t b");
        assert_valid(b"5;a ;b\r\n", 5, b";a ;b");
        assert_valid(b"5;a=b ;c\r\n", 5, b";a=b ;c");
        assert_valid(b"5;a=\"b\" ;c\r\n", 5, b";a=\"b\" ;c");
        assert_valid(b"5 ; a = \"x\" ; b\r\n", 5, b" ; a = \"x\" ; b");
    }

    #[test]
    fn bad_extensions() {
        use ErrorKind::InvalidChunkExtension as E;
        // Bare `;`, missing names.
        assert_invalid(b"5;\r\n", E, 2);
        assert_invalid(b"5; \r\n", E, 3);
        assert_invalid(b"5 ;\r\n", E, 3);
        assert_invalid(b"5;;a\r\n", E, 2);
        assert_invalid(b"5;a;\r\n", E, 4);
        assert_invalid(b"5;a;;b\r\n", E, 4);
        assert_invalid(b"5;=b\r\n", E, 2);
        assert_invalid(b"5; =b\r\n", E, 3);
        // `=` without a value.
        assert_invalid(b"5;a=\r\n", E, 4);
        assert_invalid(b"5;a= \r\n", E, 5);
        assert_invalid(b"5;a=;b\r\n", E, 4);
        assert_invalid(b"5;a==b\r\n", E, 4);
        assert_invalid(b"5;a=b=c\r\n", E, 5);
        // Trailing whitespace (BWS only goes before `;` and `=`).
        assert_invalid(b"5;a \r\n", E, 4);
        assert_invalid(b"5;a\t\r\n", E, 4);
        assert_invalid(b"5;a=b \r\n", E, 6);
        assert_invalid(b"5;a=\"b\" \r\n", E, 8);
        // Whitespace inside names and tokens.
        assert_invalid(b"5;a b\r\n", E, 4);
        assert_invalid(b"5;a=b c\r\n", E, 6);
        assert_invalid(b"5;a=\"x\" y\r\n", E, 8);
        // Bytes that are not tchar.
        assert_invalid(b"5;bad[=x\r\n", E, 5);
        assert_invalid(b"5;\x00ext\r\n", E, 2);
        assert_invalid(b"5;a\x00\r\n", E, 3);
        assert_invalid(b"5;a=b\x00\r\n", E, 5);
        assert_invalid(b"5;a=b[\r\n", E, 5);
        assert_invalid(b"5;a,b\r\n", E, 3);
        assert_invalid(b"5;\xff\r\n", E, 2);
        assert_invalid(b"5;a=\xff\r\n", E, 4);
        assert_invalid(b"5;a=\x7f\r\n", E, 4);
        assert_invalid(b"5;\"a\"\r\n", E, 2);
        // Quoted strings.
        assert_invalid(b"5;a=\"b\r\n", E, 6);
        assert_invalid(b"5;a=\"b\n", E, 6);
        assert_invalid(b"5;a=\"\r\n\"\r\n", E, 5);
        assert_invalid(b"5;a=\"b\"c\r\n", E, 7);
        assert_invalid(b"5;a=\"b\"\"c\"\r\n", E, 7);
        assert_invalid(b"5;a=b\"c\"\r\n", E, 5);
        assert_invalid(b"5;a=\"b\x7f\"\r\n", E, 6);
        assert_invalid(b"5;a=\"b\x00\"\r\n", E, 6);
        assert_invalid(b"5;a=\"b\x1f\"\r\n", E, 6);
        assert_invalid(b"5;a=\"\\\x01\"\r\n", E, 6);
        assert_invalid(b"5;a=\"\\\x7f\"\r\n", E, 6);
        assert_invalid(b"5;a=\"\\\r\n\"\r\n", E, 6);
        assert_invalid(b"5;a=\"\\\"\r\n", E, 7);
        assert_invalid(
            b"5;ilovew3=\"abc\";somuchlove=\"def; ghi\r\nhello\r\n",
            E,
            36,
        );
    }

    // ---- the line limit ----

    #[test]
    fn line_limit_complete() {
        use ErrorKind::ChunkLineTooLong;
        let config = with_limit(8);
        assert_valid_with(b"5;abcdef\r\n", &config, 5, b";abcdef");
        assert_valid_with(b"5;a=\"bc\"\r\n", &config, 5, b";a=\"bc\"");
        assert_valid_with(b"00000005\r\n", &config, 5, b"");
        assert_invalid_with(b"5;abcdefg\r\n", &config, ChunkLineTooLong, 8);
        assert_invalid_with(b"000000005\r\n", &config, ChunkLineTooLong, 8);
        assert_invalid_with(b"5;a=\"bcd\"\r\n", &config, ChunkLineTooLong, 8);
        assert_invalid_with(b"5       ;a\r\n", &config, ChunkLineTooLong, 8);
        // The first problem wins.
        assert_invalid_with(
            b"5;;abcdefgh\r\n",
            &config,
            ErrorKind::InvalidChunkExtension,
            2,
        );
        assert_invalid_with(b"5;abcdef\n", &config, ErrorKind::BareLf, 8);
        assert_invalid_with(b"5;abcdef\rx", &config, ErrorKind::BareCr, 8);
        // A CR inside a quoted string is not the line end: the line goes on
        // past the limit.
        assert_invalid_with(b"5;a=\"bcd\r\n", &config, ChunkLineTooLong, 8);
        assert_invalid_with(
            b"5;a=\"bc\r\n",
            &config,
            ErrorKind::InvalidChunkExtension,
            7,
        );
        assert_invalid_with(
            b"5;abcde;\r\n",
            &config,
            ErrorKind::InvalidChunkExtension,
            8,
        );
    }

    #[test]
    fn line_limit_partial() {
        let config = with_limit(8);
        let too_long = Err(Error::new(ErrorKind::ChunkLineTooLong, 8));
        // Exactly at the limit and still waiting for CRLF: fine.
        assert_eq!(parse_chunk_size(b"5;abcdef", &config), Ok(Status::Partial));
        assert_eq!(
            parse_chunk_size(b"5;abcdef\r", &config),
            Ok(Status::Partial)
        );
        assert_eq!(parse_chunk_size(b"00000000", &config), Ok(Status::Partial));
        // One byte more, and no CRLF in sight.
        assert_eq!(parse_chunk_size(b"5;abcdefg", &config), too_long);
        assert_eq!(parse_chunk_size(b"000000000", &config), too_long);
        assert_eq!(parse_chunk_size(b"5;a=\"bcde", &config), too_long);
        assert_eq!(
            parse_chunk_size(b"5;a=\"bc\\", &config),
            Ok(Status::Partial)
        );
        assert_eq!(parse_chunk_size(b"5;a=\"bc\\\"", &config), too_long);
        // A line that never ends, at the default limit.
        let mut buf = b"5;a=".to_vec();
        buf.resize(100_000, b'x');
        assert_eq!(parse(&buf[..4096]), Ok(Status::Partial));
        assert_eq!(
            parse(&buf[..4097]),
            Err(Error::new(ErrorKind::ChunkLineTooLong, 4096))
        );
        assert_eq!(
            parse(&buf),
            Err(Error::new(ErrorKind::ChunkLineTooLong, 4096))
        );
        let zeros = [b'0'; 10_000];
        assert_eq!(parse(&zeros[..4096]), Ok(Status::Partial));
        assert_eq!(
            parse(&zeros),
            Err(Error::new(ErrorKind::ChunkLineTooLong, 4096))
        );
    }

    #[test]
    fn line_limit_default() {
        // 4096 bytes before CRLF: accepted; 4097: refused.
        let mut line = b"5;ext=".to_vec();
        line.resize(4096, b'a');
        line.extend_from_slice(b"\r\n");
        assert_line(&line, &Config::DEFAULT, 4098, 5, &line[1..4096]);
        let mut line = b"5;ext=".to_vec();
        line.resize(4097, b'a');
        line.extend_from_slice(b"\r\nhello\r\n0\r\n\r\n");
        assert_eq!(
            parse(&line),
            Err(Error::new(ErrorKind::ChunkLineTooLong, 4096))
        );
        // The limit counts the size's leading zeros too.
        let mut line = [b'0'; 4096].to_vec();
        line.extend_from_slice(b"\r\n");
        assert_line(&line, &Config::DEFAULT, 4098, 0, b"");
        let mut line = [b'0'; 4097].to_vec();
        line.extend_from_slice(b"\r\n");
        assert_eq!(
            parse(&line),
            Err(Error::new(ErrorKind::ChunkLineTooLong, 4096))
        );
    }

    #[test]
    fn tiny_and_huge_limits() {
        use ErrorKind::{ChunkLineTooLong, InvalidChunkSize};
        let zero = with_limit(0);
        assert_invalid_with(b"0\r\n", &zero, ChunkLineTooLong, 0);
        assert_invalid_with(b"\r\n", &zero, InvalidChunkSize, 0);
        assert_eq!(parse_chunk_size(b"", &zero), Ok(Status::Partial));
        let one = with_limit(1);
        assert_valid_with(b"5\r\n", &one, 5, b"");
        assert_invalid_with(b"55\r\n", &one, ChunkLineTooLong, 1);
        assert_invalid_with(b"5;\r\n", &one, ChunkLineTooLong, 1);
        let huge = with_limit(usize::MAX);
        assert_valid_with(b"5;a=b\r\n", &huge, 5, b";a=b");
        assert_eq!(parse_chunk_size(b"5;a=b", &huge), Ok(Status::Partial));
        let mut long = b"5;a=".to_vec();
        long.resize(100_000, b'x');
        assert_eq!(parse_chunk_size(&long, &huge), Ok(Status::Partial));
        long.extend_from_slice(b"\r\n");
        assert_line(&long, &huge, 100_002, 5, &long[1..100_000]);
    }

    // ---- lengths and offsets ----

    #[test]
    fn len_and_span_with_following_bytes() {
        let buf = b"1f4;a=b\r\n0\r\n\r\n";
        let line = parse(buf).unwrap().complete().unwrap();
        assert_eq!(line.len, 9);
        assert_eq!(line.size, 500);
        assert_eq!(line.extensions, Span::new(3, 4).unwrap());
        assert_eq!(&buf[line.len..], b"0\r\n\r\n");
        let line = parse(&buf[line.len..]).unwrap().complete().unwrap();
        assert_eq!(
            line,
            ChunkSize {
                len: 3,
                size: 0,
                extensions: Span::new(1, 0).unwrap()
            }
        );
        assert_eq!(parse(b""), Ok(Status::Partial));
    }

    /// The chunk-size lines of the shared conformance vectors (categories
    /// `chunked-valid`, `chunked-invalid`, `smuggling-desync`), from the
    /// first byte of the line to the end of the vector.
    #[test]
    fn conformance_vectors() {
        use ErrorKind::*;
        let valid: &[(&str, &[u8], u64, usize)] = &[
            ("chunk-ok-001", b"5\r\nhello\r\n0\r\n\r\n", 5, 3),
            (
                "chunk-ok-002",
                b"1e\r\nall your base are belong to us\r\n",
                30,
                4,
            ),
            ("chunk-ok-003", b"A\r\n0123456789\r\n", 10, 3),
            ("chunk-ok-005", b"0005\r\nhello\r\n", 5, 6),
            (
                "chunk-ok-006",
                b"5;ilovew3;somuchlove=aretheseparametersfor;another=withvalue\r\nhello\r\n",
                5,
                62,
            ),
            ("chunk-ok-006", b"6;blahblah;blah\r\n world\r\n", 6, 17),
            ("chunk-ok-008", b"5;name\r\nhello\r\n", 5, 8),
            ("chunk-ok-010", b"0;final=yes\r\n\r\n", 0, 13),
            ("chunk-ok-011", b"0\r\nVary: *\r\n", 0, 3),
            ("chunk-ok-017", b"aA\r\nxxxx", 170, 4),
            ("chunk-ok-018", b"1\r\n\r\r\n1\r\n\n\r\n0\r\n\r\n", 1, 3),
            ("chunk-bad-005", b"0\r\n\r\n", 0, 3),
            (
                "chunk-bad-036",
                b"17\r\n0\r\n\r\nGET / HTTP/1.1\r\n\r\n\r\n0\r\n\r\n",
                23,
                4,
            ),
        ];
        for &(id, buf, size, len) in valid {
            let line = parse(buf).unwrap_or_else(|e| panic!("{id}: {e}"));
            let line = line.complete().unwrap_or_else(|| panic!("{id}: partial"));
            assert_eq!((line.size, line.len), (size, len), "{id}");
        }
        let invalid: &[(&str, &[u8], ErrorKind, usize)] = &[
            (
                "chunk-bad-001",
                b"FFFFFFFFFFFFFFFFF\r\nhello\r\n",
                InvalidChunkSize,
                16,
            ),
            (
                "chunk-bad-002",
                b"10000000000000005\r\nhello\r\n",
                InvalidChunkSize,
                16,
            ),
            ("chunk-bad-003", b" 5\r\nhello\r\n", InvalidChunkSize, 0),
            ("chunk-bad-004", b"-5\r\nhello\r\n", InvalidChunkSize, 0),
            ("chunk-bad-005", b"0x5\r\nhello\r\n", InvalidChunkSize, 1),
            ("chunk-bad-006", b"+5\r\nhello\r\n", InvalidChunkSize, 0),
            (
                "chunk-bad-007",
                b"0_2e\r\n\r\nGET / HTTP/1.1\r\n",
                InvalidChunkSize,
                1,
            ),
            ("chunk-bad-008", b"-0x0\r\n\r\n", InvalidChunkSize, 0),
            (
                "chunk-bad-010",
                b"1these-bytes-never-get-validated\r\nZ\r\n",
                InvalidChunkSize,
                1,
            ),
            ("chunk-bad-011", b"5 \r\nhello\r\n", InvalidChunkSize, 2),
            (
                "chunk-bad-014",
                b"5;ilovew3=\"abc\";somuchlove=\"def; ghi\r\nhello\r\n",
                InvalidChunkExtension,
                36,
            ),
            (
                "chunk-bad-015",
                b"5;bad[=x\r\nhello\r\n",
                InvalidChunkExtension,
                5,
            ),
            (
                "chunk-bad-016",
                b"5;\x00ext\r\nhello\r\n",
                InvalidChunkExtension,
                2,
            ),
            ("chunk-bad-017", b"5;a\nhello\r\n", BareLf, 3),
            ("chunk-bad-019", b"5\nhello\r\n", BareLf, 1),
            ("chunk-bad-025", b"\r\n", InvalidChunkSize, 0),
            ("chunk-bad-030", b"1\r0\n", BareCr, 1),
            ("chunk-bad-034", b"5\rhello\r\n", BareCr, 1),
            ("chunk-bad-035", b"\r\n0\r\n\r\n", InvalidChunkSize, 0),
            ("smug-004", b"5_\r\nhello\r\n0\r\n\r\n", InvalidChunkSize, 1),
            ("smug-005", b"2\r\r;a\r\n02\r\n41\r\n", BareCr, 1),
        ];
        for &(id, buf, kind, offset) in invalid {
            assert_eq!(parse(buf), Err(Error::new(kind, offset)), "{id}");
        }
        // chunk-bad-031: a 4101-byte extension.
        let mut buf = b"5;ext=".to_vec();
        buf.resize(4101, b'a');
        buf.extend_from_slice(b"\r\nhello\r\n0\r\n\r\n");
        assert_eq!(
            parse(&buf),
            Err(Error::new(ChunkLineTooLong, 4096)),
            "chunk-bad-031"
        );
    }

    // ---- against an independent model ----

    /// A second, straightforward reading of the grammar over a complete line
    /// (without CRLF): the size, or `None` if the line is invalid.
    fn model(line: &[u8]) -> Option<u64> {
        fn ws(s: &[u8]) -> &[u8] {
            let n = s.iter().take_while(|&&b| b == b' ' || b == b'\t').count();
            &s[n..]
        }
        fn token(s: &[u8]) -> Option<&[u8]> {
            let n = s.iter().take_while(|&&b| is_tchar(b)).count();
            (n > 0).then(|| &s[n..])
        }
        fn quoted(s: &[u8]) -> Option<&[u8]> {
            let mut s = s.strip_prefix(b"\"")?;
            loop {
                match *s {
                    [b'"', ref rest @ ..] => return Some(rest),
                    [b'\\', c, ref rest @ ..] if c == b'\t' || (c >= 0x20 && c != 0x7f) => s = rest,
                    [c, ref rest @ ..] if c == b'\t' || (c >= 0x20 && c != 0x7f && c != b'\\') => {
                        s = rest
                    }
                    _ => return None,
                }
            }
        }
        let digits = line.iter().take_while(|b| b.is_ascii_hexdigit()).count();
        if digits == 0 {
            return None;
        }
        let significant = line[..digits].iter().skip_while(|&&b| b == b'0');
        if significant.clone().count() > 16 {
            return None;
        }
        let size = significant.fold(0u64, |n, &b| {
            n * 16 + (b as char).to_digit(16).unwrap() as u64
        });
        let mut rest = &line[digits..];
        while !rest.is_empty() {
            rest = ws(rest).strip_prefix(b";")?;
            rest = token(ws(rest))?;
            let after_ws = ws(rest);
            if let Some(value) = after_ws.strip_prefix(b"=") {
                let value = ws(value);
                rest = token(value).or_else(|| quoted(value))?;
            }
        }
        Some(size)
    }

    /// Calls `f` with every string of length `0..=max` over `alphabet`.
    fn for_all_strings(alphabet: &[u8], max: usize, f: &mut dyn FnMut(&[u8])) {
        let mut s = Vec::new();
        fn go(alphabet: &[u8], max: usize, s: &mut Vec<u8>, f: &mut dyn FnMut(&[u8])) {
            f(s);
            if s.len() < max {
                for &b in alphabet {
                    s.push(b);
                    go(alphabet, max, s, f);
                    s.pop();
                }
            }
        }
        go(alphabet, max, &mut s, f);
    }

    #[test]
    fn agrees_with_model() {
        let alphabet = b"0fag ;=\"\\\t\x00\x80";
        let mut count = 0;
        for_all_strings(alphabet, 6, &mut |line| {
            let mut buf = line.to_vec();
            buf.extend_from_slice(b"\r\nx");
            let got = parse(&buf);
            match model(line) {
                Some(size) => {
                    count += 1;
                    assert_eq!(
                        got,
                        Ok(Status::Complete(ChunkSize {
                            len: line.len() + 2,
                            size,
                            extensions: Span::from_range(
                                line.iter().take_while(|b| b.is_ascii_hexdigit()).count(),
                                line.len()
                            )
                            .unwrap(),
                        })),
                        "{:?}",
                        line.escape_ascii()
                    );
                }
                None => assert!(got.is_err(), "{:?}: {got:?}", line.escape_ascii()),
            }
        });
        assert!(count > 1000, "only {count} valid lines");
    }

    /// Partial really means "valid prefix so far", errors and complete
    /// results do not change when more bytes arrive, and nothing panics.
    #[test]
    fn results_are_stable_under_appending() {
        let alphabet = b"0f \t;=\"\\\r\na\x00";
        for limit in [3, 4096] {
            let config = with_limit(limit);
            for_all_strings(alphabet, 5, &mut |s| {
                let first = parse_chunk_size(s, &config);
                let mut longer = s.to_vec();
                for &b in alphabet {
                    longer.push(b);
                    let next = parse_chunk_size(&longer, &config);
                    match first {
                        Ok(Status::Partial) => {}
                        _ => assert_eq!(next, first, "{:?}", longer.escape_ascii()),
                    }
                    if let Err(e) = next {
                        assert!(e.offset() < longer.len());
                    }
                    longer.pop();
                }
            });
        }
    }

    #[test]
    fn every_prefix_of_valid_lines_is_partial() {
        // assert_valid checks every prefix; a few long, varied lines here.
        assert_valid(
            b"00Ab3 \t; a1 = \"x\\\"y;z\" ;flag\t;k=v;q=\"\"\r\n",
            0xab3,
            b" \t; a1 = \"x\\\"y;z\" ;flag\t;k=v;q=\"\"",
        );
        assert_valid(b"ffffffffffffffff;x=\"\x80\"\r\n", u64::MAX, b";x=\"\x80\"");
    }
}
