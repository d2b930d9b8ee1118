//! Bodies of the h1 fuzz targets.
//!
//! Each function here is one target: `fuzz_targets/<name>.rs` only hands the
//! fuzzer's bytes to it, and `tests/replay.rs` runs it over the committed
//! seed corpus on stable. A target must never panic except through the
//! assertions it makes; every assertion is a property the crates promise:
//!
//! - [`parse_request`], [`parse_response`]: results are the same on every
//!   SIMD path, for one-shot and incremental parsing, for any split of the
//!   bytes, and for the parsed head cut out of the buffer; a `Complete` head
//!   lies inside the buffer and holds only what the strict grammar allows;
//!   looser limits never change an accepted head.
//! - [`parse_chunk_size`], [`parse_trailers`]: lengths and spans are
//!   consistent with the bytes, and re-parsing exactly the consumed bytes
//!   gives the same answer while any shorter prefix asks for more.
//! - [`scan_token`], [`scan_target`], [`scan_value`], [`scan_head_end`]: every
//!   available [`Path`] agrees with the scalar twin in
//!   [`h1_parse::scan::scalar`], at every alignment, and the twin agrees with
//!   the byte classes of [`h1_headers::chars`].
//! - [`server_splits`]: an `h1_conn::ServerConn` fed the bytes in one read
//!   and in pieces (drawn from the input) reports the same events, writes
//!   the same output (but for a `100 Continue` the pieces may add: it is
//!   written only while none of the body has arrived) and ends in the same
//!   `closing()`, never loops, and never hands out a span outside
//!   `received()`.
//! - [`body_decoder`]: `h1_conn::BodyDecoder` gives the same data, trailers
//!   and end (or error) for any split of its input, and never consumes more
//!   than it was given.
//! - [`roundtrip`]: what `h1_conn::ClientConn` encodes, a `ServerConn` parses
//!   back unchanged, and the response the server encodes reaches the client
//!   unchanged (status, fields, body, trailers), one exchange at a time or
//!   pipelined.
//! - [`diff_request`], [`diff_pico_request`], [`diff_response`]: `h1-parse`
//!   reads a head exactly as httparse and picohttpparser do, or the
//!   difference is one of the strictness classes listed in `fuzz/README.md`
//!   (see the [`differential`] module docs).
//! - [`diff_chunked`]: `h1_conn::BodyDecoder` decodes a chunked body exactly
//!   as a byte-at-a-time reference decoder written from RFC 9112 §7.1 does.
//! - [`header_blob`]: `h1_headers::HeaderBlob` holds exactly the fields a
//!   model list holds after any sequence of operations, refuses exactly the
//!   fields RFC 9110's grammar refuses, and views and `SharedHeaders` over
//!   arbitrary spans skip or refuse the ones outside their buffer (see the
//!   [`header_blob`](mod@header_blob) module docs).
// `deny`, not `forbid`: calling picohttpparser (C) is `unsafe`, and the one
// module that does it (`pico`) allows it for itself; `forbid` could not be
// lifted there.
#![deny(unsafe_code)]
#![deny(missing_docs)]

pub mod differential;
pub mod header_blob;
mod pico;

pub use differential::{diff_chunked, diff_pico_request, diff_request, diff_response};
pub use header_blob::header_blob;

use arbitrary::{Arbitrary, Unstructured};
use h1_headers::{chars, Entry, Framing, Span};
use h1_parse::scan::{self, Path};
use h1_parse::{
    Config, Error, ErrorKind, HeadParser, Method, RequestHead, ResponseHead, Status,
    TransferEncoding, Version,
};

/// Field storage for the parses with unchanged limits: more than the default
/// `max_fields` (100), so the limit, not the storage, is what binds.
const STORAGE: usize = 128;

/// Inputs up to this length are also fed to the incremental parsers one byte
/// at a time, checking every intermediate answer.
const BYTEWISE_MAX: usize = 300;

/// Suffix offsets the scanner targets try, to move the data across every
/// alignment of the 16-, 32- and 64-byte blocks.
const MAX_SHIFT: usize = 70;

/// How much of each shifted suffix the scanner targets check: four 64-byte
/// blocks and a tail, enough to cross every hand-off between widths.
const SHIFT_WINDOW: usize = 300;

/// A result and the fields it wrote, as one comparable value.
#[derive(Debug, PartialEq, Eq)]
struct Outcome<T> {
    result: Result<Status<T>, Error>,
    fields: Vec<Entry>,
}

/// What the request and response heads have in common, for shared checks.
trait Head: Copy + core::fmt::Debug + PartialEq {
    /// Storage for a head before it is parsed.
    const EMPTY: Self;
    fn len(&self) -> usize;
    fn field_count(&self) -> usize;
}

impl Head for RequestHead {
    const EMPTY: Self = RequestHead::EMPTY;
    fn len(&self) -> usize {
        self.len
    }
    fn field_count(&self) -> usize {
        self.field_count
    }
}

impl Head for ResponseHead {
    const EMPTY: Self = ResponseHead::EMPTY;
    fn len(&self) -> usize {
        self.len
    }
    fn field_count(&self) -> usize {
        self.field_count
    }
}

/// FNV-1a over the data and a salt: split points that depend on the input
/// but need no bytes of it.
fn mix(data: &[u8], salt: u64) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ salt;
    for &b in data {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// A split point in `0..=data.len()` derived from the data.
fn split_point(data: &[u8], salt: u64) -> usize {
    (mix(data, salt) % (data.len() as u64 + 1)) as usize
}

/// The strict defaults.
fn strict() -> Config {
    Config::default()
}

/// Every leniency on, default limits.
fn lenient() -> Config {
    let mut c = Config::default();
    c.allow_bare_lf = true;
    c.allow_obs_fold = true;
    c.allow_multiple_spaces_in_request_line = true;
    c
}

/// Limits and leniencies drawn from the data, to reach the limit checks with
/// inputs of fuzzing size.
#[derive(Arbitrary, Debug)]
struct Knobs {
    max_head_len: u16,
    max_field_line_len: u16,
    max_fields: u8,
    max_target_len: u16,
    max_chunk_line_len: u16,
    storage: u8,
    allow_bare_lf: bool,
    allow_obs_fold: bool,
    allow_multiple_spaces_in_request_line: bool,
}

impl Knobs {
    /// Draws the knobs from the last bytes of the data (the first bytes are
    /// the message, so the seeds stay plain HTTP).
    fn from_data(data: &[u8]) -> Knobs {
        let tail = &data[data.len().saturating_sub(16)..];
        let mut u = Unstructured::new(tail);
        Knobs::arbitrary(&mut u).unwrap_or(Knobs {
            max_head_len: 0,
            max_field_line_len: 0,
            max_fields: 0,
            max_target_len: 0,
            max_chunk_line_len: 0,
            storage: 0,
            allow_bare_lf: false,
            allow_obs_fold: false,
            allow_multiple_spaces_in_request_line: false,
        })
    }

    /// The config: small limits in the ranges where they bind.
    fn config(&self) -> Config {
        let mut c = Config::default();
        c.max_head_len = usize::from(self.max_head_len % 4096);
        c.max_field_line_len = usize::from(self.max_field_line_len % 1024);
        c.max_fields = usize::from(self.max_fields % 48);
        c.max_target_len = usize::from(self.max_target_len % 512);
        c.max_chunk_line_len = usize::from(self.max_chunk_line_len % 256);
        c.allow_bare_lf = self.allow_bare_lf;
        c.allow_obs_fold = self.allow_obs_fold;
        c.allow_multiple_spaces_in_request_line = self.allow_multiple_spaces_in_request_line;
        c
    }

    /// The same leniencies with the default limits.
    fn relaxed(&self) -> Config {
        let mut c = Config::default();
        c.allow_bare_lf = self.allow_bare_lf;
        c.allow_obs_fold = self.allow_obs_fold;
        c.allow_multiple_spaces_in_request_line = self.allow_multiple_spaces_in_request_line;
        c
    }

    /// Field storage of a size that may be smaller than the fields.
    fn storage(&self) -> usize {
        usize::from(self.storage % 40)
    }
}

/// The parsers' result with the head they wrote as a value: `Complete(head)`
/// for `Complete(len)`, which must be the head's own length.
fn as_value<T: Head>(r: Result<Status<usize>, Error>, head: T) -> Result<Status<T>, Error> {
    match r? {
        Status::Complete(len) => {
            assert_eq!(len, head.len(), "the length returned is not the head's");
            Ok(Status::Complete(head))
        }
        Status::Partial => Ok(Status::Partial),
    }
}

/// Runs a parse with fresh head and field storage of `n` entries and keeps
/// what it wrote.
fn run<T: Head>(
    n: usize,
    parse: impl FnOnce(&mut T, &mut [Entry]) -> Result<Status<usize>, Error>,
) -> Outcome<T> {
    let mut storage = vec![Entry::EMPTY; n];
    let mut head = T::EMPTY;
    let result = as_value(parse(&mut head, &mut storage), head);
    let fields = match &result {
        Ok(Status::Complete(h)) => {
            assert!(
                h.field_count() <= n,
                "field_count {} exceeds storage {n}",
                h.field_count()
            );
            storage[..h.field_count()].to_vec()
        }
        _ => Vec::new(),
    };
    Outcome { result, fields }
}

fn request_once(data: &[u8], config: &Config, n: usize) -> Outcome<RequestHead> {
    run(n, |h, f| h1_parse::parse_request(data, h, f, config))
}

fn response_once(data: &[u8], config: &Config, n: usize) -> Outcome<ResponseHead> {
    run(n, |h, f| h1_parse::parse_response(data, h, f, config))
}

/// Asserts a span lies within `0..end` and returns its bytes.
fn within<'a>(data: &'a [u8], span: Span, end: usize, what: &str) -> &'a [u8] {
    assert!(
        span.end() <= end,
        "{what} span {span:?} ends past {end} (input {} bytes)",
        data.len()
    );
    span.slice(data)
}

fn is_target_byte(b: u8) -> bool {
    (0x21..=0x7e).contains(&b) && b != b'#'
}

fn check_error(data: &[u8], e: &Error, statuses: &[u16]) {
    assert!(
        e.offset() <= data.len(),
        "error offset {} past the input ({} bytes): {e:?}",
        e.offset(),
        data.len()
    );
    assert!(
        statuses.contains(&e.status()),
        "unexpected status {} for {e:?}",
        e.status()
    );
}

/// Checks the fields of a complete head (or trailer section) of `len` bytes.
/// Returns the head with every folded value unfolded (as the caller of
/// [`h1_parse::unfold_in_place`] would see it).
fn check_fields(
    data: &[u8],
    fields: &[Entry],
    len: usize,
    obs_fold: bool,
    config: &Config,
) -> Vec<u8> {
    assert!(
        fields.len() <= config.max_fields,
        "more fields than max_fields"
    );
    let mut unfolded = data[..len].to_vec();
    for (i, e) in fields.iter().enumerate() {
        let name = within(data, e.name, len, "field name");
        assert!(
            !name.is_empty() && chars::is_token(name),
            "field {i}: name {name:?} is not a token"
        );
        let value = within(data, e.value, len, "field value");
        assert!(
            e.value.end() - e.name.offset() <= config.max_field_line_len,
            "field {i} longer than max_field_line_len"
        );
        if obs_fold {
            h1_parse::unfold_in_place(&mut unfolded, e.value);
        }
        let value = if obs_fold {
            e.value.slice(&unfolded)
        } else {
            value
        };
        assert!(
            chars::is_field_value(value),
            "field {i}: value {value:?} holds a byte a field value may not"
        );
        assert_eq!(
            chars::trim_ows(value),
            value,
            "field {i}: value {value:?} keeps surrounding whitespace"
        );
    }
    unfolded
}

/// The line terminators a complete head or trailer section may end with.
fn check_head_end(data: &[u8], len: usize, config: &Config) {
    let head = &data[..len];
    if config.allow_bare_lf {
        assert!(head.ends_with(b"\n"), "head does not end with LF");
    } else {
        assert!(
            head.ends_with(b"\r\n"),
            "strict head does not end with CRLF"
        );
    }
}

/// Checks one request outcome against the strict grammar and the config.
fn check_request(data: &[u8], config: &Config, out: &Outcome<RequestHead>) {
    let h = match &out.result {
        Err(e) => return check_error(data, e, &[400, 414, 431, 501, 505]),
        Ok(Status::Partial) => return,
        Ok(Status::Complete(h)) => h,
    };
    assert!(
        h.len <= data.len(),
        "head.len {} > input {}",
        h.len,
        data.len()
    );
    check_head_end(data, h.len, config);
    if !config.allow_bare_lf {
        assert!(data[..h.len].ends_with(b"\r\n\r\n"));
    }
    let method = within(data, h.method, h.len, "method");
    assert!(
        !method.is_empty() && chars::is_token(method),
        "method {method:?}"
    );
    assert_eq!(h.method_kind, Method::from_bytes(method));
    assert!(
        h.len - h.method.offset() <= config.max_head_len,
        "head over max_head_len"
    );
    let target = within(data, h.target, h.len, "target");
    assert!(!target.is_empty(), "empty target");
    assert!(
        target.iter().all(|&b| is_target_byte(b)),
        "target {target:?}"
    );
    assert!(
        target.len() <= config.max_target_len,
        "target over the limit"
    );
    assert!(
        h.target.offset() > h.method.end(),
        "target before method end"
    );
    let unfolded = check_fields(data, &out.fields, h.len, h.obs_fold, config);
    if !config.allow_obs_fold {
        assert!(!h.obs_fold, "obs_fold set without the leniency");
    }

    let f = &h.facts;
    let view = h.fields(&unfolded, &out.fields);
    // Host: exactly one in HTTP/1.1, at most one in HTTP/1.0; the span is
    // that field's value.
    let hosts: Vec<&Entry> = out
        .fields
        .iter()
        .filter(|e| e.name.slice(data).eq_ignore_ascii_case(b"host"))
        .collect();
    assert!(hosts.len() <= 1, "{} Host fields accepted", hosts.len());
    if h.version == Version::Http11 {
        assert_eq!(hosts.len(), 1, "HTTP/1.1 request without Host accepted");
    }
    match (f.host, hosts.first()) {
        (Some(span), Some(e)) => {
            within(data, span, h.len, "host");
            assert_eq!(span, e.value, "framing.host is not the Host value");
        }
        (None, None) => {}
        (host, field) => panic!("framing.host {host:?} but Host field {field:?}"),
    }
    // Content-Length agrees with the fields; never together with
    // Transfer-Encoding; no Transfer-Encoding in HTTP/1.0; a request's coding
    // is chunked or the request was refused.
    let cl = h1_headers::content_length(view.get_all(b"content-length"));
    assert_eq!(cl, Ok(f.content_length), "framing.content_length");
    let has_te = view.contains(b"transfer-encoding");
    match f.transfer_encoding {
        TransferEncoding::Absent => assert!(!has_te, "Transfer-Encoding present but Absent"),
        TransferEncoding::Chunked => {
            assert!(has_te);
            assert!(f.content_length.is_none(), "CL with TE accepted");
            assert_eq!(h.version, Version::Http11, "TE in HTTP/1.0 accepted");
        }
        other => panic!("request with transfer_encoding {other:?}"),
    }
    assert_eq!(f.upgrade, view.contains(b"upgrade"), "framing.upgrade");
}

/// Checks one response outcome.
fn check_response(data: &[u8], config: &Config, out: &Outcome<ResponseHead>) {
    let h = match &out.result {
        Err(e) => return check_error(data, e, &[400, 431, 501, 505]),
        Ok(Status::Partial) => return,
        Ok(Status::Complete(h)) => h,
    };
    assert!(
        h.len <= data.len(),
        "head.len {} > input {}",
        h.len,
        data.len()
    );
    check_head_end(data, h.len, config);
    assert!(h.len <= config.max_head_len, "head over max_head_len");
    assert!((100..=999).contains(&h.status), "status {}", h.status);
    let reason = within(data, h.reason, h.len, "reason");
    assert!(
        reason.iter().all(|&b| chars::is_field_value_byte(b)),
        "reason {reason:?}"
    );
    let unfolded = check_fields(data, &out.fields, h.len, h.obs_fold, config);
    if !config.allow_obs_fold {
        assert!(!h.obs_fold, "obs_fold set without the leniency");
    }
    let f = &h.facts;
    assert_eq!(f.host, None, "a response has no framing.host");
    let view = h.fields(&unfolded, &out.fields);
    if f.transfer_encoding == TransferEncoding::Absent {
        assert!(!view.contains(b"transfer-encoding"));
    } else {
        assert!(view.contains(b"transfer-encoding"));
    }
}

/// A head parsed from the whole buffer is also what the buffer cut to the
/// head's length gives; and one byte less is a valid prefix (`Partial`).
fn check_cut<T: Head>(data: &[u8], out: &Outcome<T>, again: impl Fn(&[u8]) -> Outcome<T>) {
    if let Ok(Status::Complete(h)) = &out.result {
        let len = h.len();
        assert_eq!(
            &again(&data[..len]),
            out,
            "re-parse of the head alone differs"
        );
        if len > 0 {
            let shorter = again(&data[..len - 1]);
            assert_eq!(
                shorter.result,
                Ok(Status::Partial),
                "head minus its last byte is not Partial"
            );
        }
    }
}

/// Prefix monotonicity: what a prefix says stays true for the whole buffer.
fn check_prefix<T: Head>(prefix: &Outcome<T>, full: &Outcome<T>) {
    match &prefix.result {
        Ok(Status::Partial) => {}
        Ok(Status::Complete(_)) => assert_eq!(prefix, full, "complete prefix, different whole"),
        Err(_) => assert!(full.result.is_err(), "rejected prefix, accepted whole"),
    }
}

/// One call of [`HeadParser::parse_request`] or [`HeadParser::parse_response`].
type Step<T> = dyn Fn(&mut HeadParser, &[u8], &mut T, &mut [Entry]) -> Result<Status<usize>, Error>;

/// The incremental parser fed the data in pieces agrees with a one-shot parse
/// of the bytes so far, and after a complete head and `reset` the same holds
/// for the bytes that follow (pipelining). It may report a defect inside the
/// unfinished last line later than the one-shot parser (when the line ends
/// or passes its limit: it does not walk a line at every call, to stay
/// O(n)), so:
///
/// - one-shot `Complete` ⇔ incremental `Complete`, with the same head and
///   fields;
/// - incremental `Err` ⇒ one-shot `Err`;
/// - incremental `Partial` ⇒ one-shot `Partial` or `Err`, and not a field
///   line, a target or a head over its limit (`FieldLineTooLong`,
///   `TargetTooLong`, `HeadTooLarge`): what passes a limit is refused when
///   the bytes arrive.
///
/// It also checks the O(n) promise: the end-of-head search looks at no more
/// than the bytes fed plus two per call.
fn check_incremental<T: Head>(
    data: &[u8],
    config: &Config,
    once: &dyn Fn(&[u8]) -> Outcome<T>,
    step: &Step<T>,
) {
    let k1 = split_point(data, 1);
    let k2 = k1 + split_point(&data[k1..], 2);
    let mut cuts = vec![k1, k2, data.len()];
    if data.len() <= BYTEWISE_MAX {
        cuts = (0..=data.len()).collect();
    }
    let mut start = 0;
    let mut parser = HeadParser::new(config.clone());
    for round in 0..3 {
        let mut storage = vec![Entry::EMPTY; STORAGE];
        let mut last = None;
        for (calls, &cut) in cuts.iter().filter(|&&c| c >= start).enumerate() {
            let buf = &data[start..cut];
            let mut head = T::EMPTY;
            let result = as_value(step(&mut parser, buf, &mut head, &mut storage), head);
            let fields = match &result {
                Ok(Status::Complete(h)) => storage[..h.field_count()].to_vec(),
                _ => Vec::new(),
            };
            let got = Outcome { result, fields };
            let want = once(buf);
            let at = format!("round {round}, bytes {start}..{cut}");
            match (&got.result, &want.result) {
                (Ok(Status::Complete(_)), _) | (_, Ok(Status::Complete(_))) => {
                    assert_eq!(got, want, "incremental and one-shot differ ({at})")
                }
                (Ok(Status::Partial), Err(e))
                    if matches!(
                        e.kind(),
                        ErrorKind::FieldLineTooLong
                            | ErrorKind::TargetTooLong
                            | ErrorKind::HeadTooLarge
                    ) =>
                {
                    panic!("incremental waits on what one-shot refuses as {e:?} ({at}, {config:?})")
                }
                (Err(_), Err(_)) | (Ok(Status::Partial), _) => {}
                (Err(e), Ok(Status::Partial)) => {
                    panic!("incremental rejects ({e:?}) what one-shot finds a valid prefix ({at})")
                }
            }
            // The O(n) promise of `HeadParser::examined`: each byte searched
            // for a line end once, walked at most twice (while its line was
            // unfinished, and complete), and, in a request line longer than
            // the target limit before its end, searched for the target's
            // end once.
            assert!(
                parser.examined() <= 4 * buf.len() + 2 * (calls + 1),
                "HeadParser examined {} bytes for {} fed in {} calls ({at}, {config:?})",
                parser.examined(),
                buf.len(),
                calls + 1
            );
            if got.result != Ok(Status::Partial) {
                last = Some(got);
                break;
            }
        }
        match last {
            Some(Outcome {
                result: Ok(Status::Complete(h)),
                ..
            }) if h.len() > 0 && start + h.len() < data.len() => {
                start += h.len();
                parser.reset();
            }
            _ => return,
        }
    }
}

/// Target `parse_request`: see the crate docs.
pub fn parse_request(data: &[u8]) {
    let knobs = Knobs::from_data(data);
    for config in [strict(), lenient()] {
        let once = |buf: &[u8]| request_once(buf, &config, STORAGE);
        let out = once(data);
        check_request(data, &config, &out);
        for path in Path::ALL.into_iter().filter(|p| p.is_available()) {
            let alt = run(STORAGE, |h, f| {
                h1_parse::parse_request_with_path(path, data, h, f, &config)
            });
            assert_eq!(alt, out, "path {path:?} differs from the default path");
        }
        check_cut(data, &out, once);
        let prefix = once(&data[..split_point(data, 3)]);
        check_prefix(&prefix, &out);
        check_incremental(data, &config, &once, &|p, b, h, f| p.parse_request(b, h, f));
    }
    // Small limits and small storage: checked, and an accepted head is
    // accepted unchanged with the default limits.
    let config = knobs.config();
    let once = |buf: &[u8]| request_once(buf, &config, STORAGE);
    check_incremental(data, &config, &once, &|p, b, h, f| p.parse_request(b, h, f));
    let out = request_once(data, &config, knobs.storage());
    check_request(data, &config, &out);
    if out.result.as_ref().is_ok_and(|s| s.is_complete()) {
        let relaxed = request_once(data, &knobs.relaxed(), STORAGE);
        assert_eq!(relaxed, out, "looser limits changed an accepted head");
    }
}

/// Target `parse_response`: see the crate docs.
pub fn parse_response(data: &[u8]) {
    let knobs = Knobs::from_data(data);
    for config in [strict(), lenient()] {
        let once = |buf: &[u8]| response_once(buf, &config, STORAGE);
        let out = once(data);
        check_response(data, &config, &out);
        check_cut(data, &out, once);
        let prefix = once(&data[..split_point(data, 3)]);
        check_prefix(&prefix, &out);
        check_incremental(data, &config, &once, &|p, b, h, f| {
            p.parse_response(b, h, f)
        });
    }
    let config = knobs.config();
    let once = |buf: &[u8]| response_once(buf, &config, STORAGE);
    check_incremental(data, &config, &once, &|p, b, h, f| {
        p.parse_response(b, h, f)
    });
    let out = response_once(data, &config, knobs.storage());
    check_response(data, &config, &out);
    if out.result.as_ref().is_ok_and(|s| s.is_complete()) {
        let relaxed = response_once(data, &knobs.relaxed(), STORAGE);
        assert_eq!(relaxed, out, "looser limits changed an accepted head");
    }
}

/// The leading hex digits: how many there are, how many are significant
/// (after leading zeros), and their value if it fits in 64 bits.
fn leading_hex(data: &[u8]) -> (usize, usize, Option<u64>) {
    let n = data.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    let zeros = data[..n].iter().take_while(|&&b| b == b'0').count();
    let mut v: Option<u64> = Some(0);
    for &b in &data[zeros..n] {
        let d = u64::from((b as char).to_digit(16).unwrap_or(0));
        v = v
            .and_then(|v| v.checked_mul(16))
            .and_then(|v| v.checked_add(d));
    }
    (n, n - zeros, v)
}

/// Target `parse_chunk_size`: see the crate docs.
pub fn parse_chunk_size(data: &[u8]) {
    let knobs = Knobs::from_data(data);
    // Leniencies must not loosen chunked framing (no bare LF there, ever).
    for config in [strict(), lenient(), knobs.config()] {
        let r = h1_parse::parse_chunk_size(data, &config);
        match &r {
            Err(e) => check_error(data, e, &[400]),
            Ok(Status::Partial) => {}
            Ok(Status::Complete(c)) => {
                assert!(c.len <= data.len(), "len {} > input {}", c.len, data.len());
                assert!(c.len >= 3, "chunk line of {} bytes", c.len);
                let line = &data[..c.len];
                assert!(
                    line.ends_with(b"\r\n"),
                    "chunk line {line:?} not ended by CRLF"
                );
                assert!(
                    c.len - 2 <= config.max_chunk_line_len,
                    "line over the limit"
                );
                let (digits, significant, value) = leading_hex(line);
                assert!(digits >= 1, "no hex digit in an accepted chunk line");
                assert!(significant <= 16, "{significant} significant hex digits");
                assert_eq!(value, Some(c.size), "size differs from the digits");
                if c.extensions.is_empty() {
                    assert_eq!(c.len, digits + 2, "bytes after the size but no extensions");
                } else {
                    assert_eq!(c.extensions.offset(), digits, "extensions start");
                    assert_eq!(c.extensions.end(), c.len - 2, "extensions end");
                    let ext = c.extensions.slice(data);
                    assert!(!ext.contains(&b'\n') && !ext.contains(&b'\r'));
                }
                let again = h1_parse::parse_chunk_size(&data[..c.len], &config);
                assert_eq!(again, r, "re-parse of the line alone differs");
                let shorter = h1_parse::parse_chunk_size(&data[..c.len - 1], &config);
                assert_eq!(
                    shorter,
                    Ok(Status::Partial),
                    "line minus a byte not Partial"
                );
            }
        }
        let k = split_point(data, 4);
        match h1_parse::parse_chunk_size(&data[..k], &config) {
            Ok(Status::Partial) => {}
            Ok(Status::Complete(c)) => assert_eq!(Ok(Status::Complete(c)), r, "prefix differs"),
            Err(_) => assert!(r.is_err(), "rejected prefix, accepted whole"),
        }
    }
}

/// Target `parse_trailers`: see the crate docs.
pub fn parse_trailers(data: &[u8]) {
    let knobs = Knobs::from_data(data);
    for (config, n) in [
        (strict(), STORAGE),
        (lenient(), STORAGE),
        (knobs.config(), knobs.storage()),
    ] {
        let once = |buf: &[u8]| {
            let mut storage = vec![Entry::EMPTY; n];
            let r = h1_parse::parse_trailers(buf, &mut storage, &config);
            let fields = match &r {
                Ok(Status::Complete(t)) => {
                    assert!(t.field_count <= n, "field_count exceeds storage");
                    storage[..t.field_count].to_vec()
                }
                _ => Vec::new(),
            };
            (r, fields)
        };
        let (r, fields) = once(data);
        match &r {
            Err(e) => check_error(data, e, &[400, 431]),
            Ok(Status::Partial) => {}
            Ok(Status::Complete(t)) => {
                assert!(t.len <= data.len(), "len {} > input {}", t.len, data.len());
                assert!(t.len >= 1);
                check_head_end(data, t.len, &config);
                if config.allow_obs_fold {
                    // Folded values keep their CRLF until unfolded; only the
                    // spans are checked.
                    for e in &fields {
                        within(data, e.name, t.len, "trailer name");
                        within(data, e.value, t.len, "trailer value");
                    }
                } else {
                    let _ = check_fields(data, &fields, t.len, false, &config);
                }
                assert_eq!(
                    once(&data[..t.len]),
                    (r, fields.clone()),
                    "re-parse differs"
                );
                assert_eq!(
                    once(&data[..t.len - 1]).0,
                    Ok(Status::Partial),
                    "trailers minus a byte not Partial"
                );
            }
        }
        let k = split_point(data, 5);
        let (p, pf) = once(&data[..k]);
        match p {
            Ok(Status::Partial) => {}
            Ok(Status::Complete(_)) => assert_eq!((p, pf), (r, fields), "prefix differs"),
            Err(_) => assert!(r.is_err(), "rejected prefix, accepted whole"),
        }
    }
}

/// Runs `check` on the data and a shortened copy, then on every suffix
/// starting at offsets 1..=[`MAX_SHIFT`] (cut to [`SHIFT_WINDOW`] bytes, and
/// shorter still), so every block hand-off of every path sees the same bytes
/// at a different alignment without making long inputs quadratic.
fn shifted(data: &[u8], mut check: impl FnMut(&[u8])) {
    let cut = split_point(data, 6) % 67;
    check(data);
    check(&data[..data.len().saturating_sub(cut)]);
    for off in 1..=data.len().min(MAX_SHIFT) {
        let d = &data[off..];
        let d = &d[..d.len().min(SHIFT_WINDOW)];
        check(d);
        check(&d[..d.len().saturating_sub(cut)]);
    }
}

/// Compares a length scanner on every path with its scalar twin, and the twin
/// with the byte class it stands for.
fn scan_len(
    data: &[u8],
    name: &str,
    class: fn(u8) -> bool,
    twin: fn(&[u8]) -> usize,
    default: fn(&[u8]) -> usize,
    path_fn: fn(Path, &[u8]) -> usize,
) {
    shifted(data, |d| {
        let want = d.iter().position(|&b| !class(b)).unwrap_or(d.len());
        assert_eq!(
            twin(d),
            want,
            "scalar::{name} disagrees with the byte class"
        );
        assert_eq!(default(d), want, "scan::{name} (detected path)");
        for path in Path::ALL.into_iter().filter(|p| p.is_available()) {
            assert_eq!(path_fn(path, d), want, "{path:?}.{name} on {d:?}");
        }
    });
}

/// Target `scan_token`: see the crate docs.
pub fn scan_token(data: &[u8]) {
    scan_len(
        data,
        "token_len",
        chars::is_tchar,
        scan::scalar::token_len,
        scan::token_len,
        |p, d| p.token_len(d),
    );
}

/// Target `scan_target`: see the crate docs.
pub fn scan_target(data: &[u8]) {
    scan_len(
        data,
        "target_len",
        is_target_byte,
        scan::scalar::target_len,
        scan::target_len,
        |p, d| p.target_len(d),
    );
}

/// Target `scan_value`: see the crate docs.
pub fn scan_value(data: &[u8]) {
    scan_len(
        data,
        "value_len",
        chars::is_field_value_byte,
        scan::scalar::value_len,
        scan::value_len,
        |p, d| p.value_len(d),
    );
}

/// The index after the first `\n\n` or `\n\r\n`, written as plainly as
/// possible.
fn naive_head_end(d: &[u8]) -> Option<usize> {
    (2..=d.len()).find(|&e| {
        d[e - 1] == b'\n'
            && (d[e - 2] == b'\n' || (e >= 3 && d[e - 2] == b'\r' && d[e - 3] == b'\n'))
    })
}

/// Target `scan_head_end`: see the crate docs.
pub fn scan_head_end(data: &[u8]) {
    shifted(data, |d| {
        let want = naive_head_end(d);
        assert_eq!(
            scan::scalar::find_head_end(d),
            want,
            "scalar::find_head_end"
        );
        assert_eq!(scan::find_head_end(d), want, "scan::find_head_end");
        for path in Path::ALL.into_iter().filter(|p| p.is_available()) {
            assert_eq!(
                path.find_head_end(d),
                want,
                "{path:?}.find_head_end on {d:?}"
            );
        }
    });
    // The incremental finder, fed growing prefixes, answers what a search of
    // each prefix answers, and looks at each byte a bounded number of times.
    let k1 = split_point(data, 7);
    let k2 = k1 + split_point(&data[k1..], 8);
    let cuts: Vec<usize> = if data.len() <= BYTEWISE_MAX {
        (0..=data.len()).collect()
    } else {
        vec![k1, k2, data.len()]
    };
    let mut finder = scan::HeadEnd::new();
    for (calls, &cut) in cuts.iter().enumerate() {
        let got = finder.find(&data[..cut]);
        assert_eq!(got, naive_head_end(&data[..cut]), "HeadEnd at {cut}");
        assert!(finder.scanned() <= cut, "scanned past the buffer");
        assert!(
            finder.examined() <= cut + 2 * (calls + 1),
            "HeadEnd examined {} bytes for {cut}",
            finder.examined()
        );
        if got.is_some() {
            break;
        }
    }
}

// ---------------------------------------------------------------------------
// h1-conn: the server role over any split of its input, the body decoder,
// and encode-then-parse round trips.
// ---------------------------------------------------------------------------

/// A fixed `Date` line, so output bytes are the same in every run.
const FIXED_DATE: &[u8] = b"Sun, 06 Nov 1994 08:49:37 GMT";

/// A small deterministic generator (SplitMix64) for split points: the seed
/// comes from the input, the sequence needs no more of its bytes.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A value in `1..=max`.
    fn upto(&mut self, max: usize) -> usize {
        1 + (self.next() % max.max(1) as u64) as usize
    }
}

/// How a connection target cuts its input and configures the connection,
/// drawn (with `arbitrary`) from the last bytes of the data, as [`Knobs`]
/// are, so the seeds stay plain HTTP.
#[derive(Arbitrary, Debug, Default)]
struct ConnKnobs {
    /// 0: strict defaults; 1: every leniency, default limits; 2 and 3: the
    /// small limits of `parse`, with the body limits below.
    profile: u8,
    parse: Option<Knobs>,
    max_body_len: u16,
    max_chunk_ext_len: u16,
    /// Responses carry a fixed `Date` (else the connection has no clock:
    /// `Config::send_date` off).
    date: bool,
    /// The split: 0 pieces of up to 4 bytes, 1 of up to 32, 2 of up to
    /// 512, 3 two cuts anywhere.
    pieces: u8,
    seed: u64,
    /// Bit i: piece i goes in through `read_buf`/`filled` (else `feed`).
    read_buf: u64,
    /// `Config::refuse_unknown_expect` off: a request with an unknown
    /// expectation is delivered, and the driver answers it 417 (else the
    /// connection does).
    deliver_expect: bool,
    /// `Config::auto_continue` off (the driver sends the 100 at the head).
    manual_continue: bool,
}

impl ConnKnobs {
    fn from_data(data: &[u8]) -> ConnKnobs {
        let tail = &data[data.len().saturating_sub(48)..];
        ConnKnobs::arbitrary(&mut Unstructured::new(tail)).unwrap_or_default()
    }

    /// The connection's config. The receive buffer always holds the whole
    /// input, so "one read" is one read and no piece is refused.
    fn config(&self, input_len: usize) -> h1_conn::Config {
        let mut c = h1_conn::Config::default();
        match (self.profile % 4, &self.parse) {
            (0, _) | (_, None) => {}
            (1, _) => c.parse = lenient(),
            (_, Some(k)) => {
                c.parse = k.config();
                c.max_body_len = u64::from(self.max_body_len % 2048);
                c.max_chunk_ext_len = usize::from(self.max_chunk_ext_len % 512);
            }
        }
        c.read_buf_len = c.read_buf_len.max(input_len + 1);
        // A clock would make two runs differ; the fixed date is set instead.
        c.send_date = false;
        c.refuse_unknown_expect = !self.deliver_expect;
        c.auto_continue = !self.manual_continue;
        c
    }

    /// The piece lengths of the split.
    fn split(&self, len: usize) -> Vec<usize> {
        let mut rng = SplitMix(self.seed ^ len as u64);
        let mut pieces = Vec::new();
        let mut left = len;
        let max = match self.pieces % 4 {
            0 => 4,
            1 => 32,
            2 => 512,
            _ => {
                let a = (rng.next() % (len as u64 + 1)) as usize;
                let b = (rng.next() % (len as u64 - a as u64 + 1)) as usize;
                return vec![a, b, len - a - b];
            }
        };
        while left > 0 {
            let n = rng.upto(max).min(left);
            pieces.push(n);
            left -= n;
        }
        pieces
    }
}

/// A field section copied out of the connection.
type Fields = Vec<(Vec<u8>, Vec<u8>)>;

fn owned_fields(view: Option<h1_headers::HeadersView<'_>>, count: usize, what: &str) -> Fields {
    let view = view.unwrap_or_else(|| panic!("{what}: no field view right after the event"));
    let fields: Fields = view.iter().map(|(n, v)| (n.to_vec(), v.to_vec())).collect();
    // The view skips entries whose spans fall outside the buffer.
    assert_eq!(
        fields.len(),
        count,
        "{what}: {count} fields reported, {} inside received()",
        fields.len()
    );
    fields
}

/// A server event with its bytes copied out: what must not depend on how
/// the input was split.
#[derive(Clone, Debug, PartialEq, Eq)]
enum ServerEv {
    Request {
        method: Vec<u8>,
        target: Vec<u8>,
        version: Version,
        host: Option<Vec<u8>>,
        fields: Fields,
        framing: h1_conn::Framing,
        expect: h1_conn::Expect,
        flags: [bool; 2],
    },
    /// Consecutive `Data` events, coalesced.
    Data(Vec<u8>),
    Trailers(Fields),
    End,
    Error(h1_conn::Error),
    /// The bytes handed to the new protocol: the span of the event and every
    /// byte not yet fed.
    Switch(Vec<u8>),
    Closed,
}

/// What the driver knows of the request being received.
#[derive(Clone, Copy, Debug, Default)]
struct ReqInfo {
    upgrade: bool,
    connect: bool,
    expect_other: bool,
    /// Derived from the target, so every run answers alike.
    policy: u64,
    answered: bool,
}

impl ReqInfo {
    /// Answered at the head, before the body: a quarter of the requests
    /// that do not switch protocols.
    fn early(&self) -> bool {
        !self.upgrade && !self.connect && self.policy % 8 >= 6
    }
}

/// One run of the server role over the input cut into `pieces`: the events
/// and all output, with the checks that hold for every run.
#[derive(Debug, PartialEq, Eq)]
struct ServerRun {
    events: Vec<ServerEv>,
    out: Vec<u8>,
    closing: h1_conn::Closing,
}

/// How a drain of the events ended.
enum Stop {
    NeedMore,
    Closed,
    Switched,
}

struct ServerDriver<'d> {
    conn: h1_conn::ServerConn,
    data: &'d [u8],
    /// Bytes of `data` given to the connection so far.
    fed: usize,
    events: Vec<ServerEv>,
    out: Vec<u8>,
    req: ReqInfo,
    /// `next_event` calls left: a loop in the connection runs out of them.
    budget: usize,
    failed: bool,
    label: String,
}

impl ServerDriver<'_> {
    fn push(&mut self, ev: ServerEv) {
        if let (ServerEv::Data(more), Some(ServerEv::Data(have))) = (&ev, self.events.last_mut()) {
            have.extend_from_slice(more);
            return;
        }
        self.events.push(ev);
    }

    fn next(&mut self) -> h1_conn::ServerEvent {
        self.budget = self.budget.checked_sub(1).unwrap_or_else(|| {
            panic!(
                "{}: next_event called too often for {} bytes (a loop?); events so far {:?}",
                self.label,
                self.data.len(),
                self.events
            )
        });
        self.conn.next_event()
    }

    fn take_out(&mut self) {
        let out = self.conn.out();
        let n = out.len();
        self.out.extend_from_slice(out);
        self.conn.written(n);
    }

    fn give(&mut self, piece: usize, via_read_buf: bool) {
        let data = self.data;
        let bytes = &data[self.fed..self.fed + piece];
        if via_read_buf {
            let mut done = 0;
            while done < bytes.len() {
                let buf = self.conn.read_buf();
                let n = buf.len().min(bytes.len() - done);
                assert!(
                    n > 0,
                    "{}: read_buf is empty before the input fits",
                    self.label
                );
                buf[..n].copy_from_slice(&bytes[done..done + n]);
                self.conn.filled(n);
                done += n;
            }
        } else {
            let n = self.conn.feed(bytes);
            assert_eq!(n, bytes.len(), "{}: feed refused bytes", self.label);
        }
        self.fed += piece;
    }

    /// The answer to the request being received, by a policy that depends
    /// only on the request, so every run writes the same bytes. Every answer
    /// here is one the connection must accept.
    fn answer(&mut self) {
        let req = self.req;
        self.req.answered = true;
        let conn = &mut self.conn;
        let r = if req.upgrade {
            conn.respond(101, Framing::Empty).and_then(|mut r| {
                r.field(b"Upgrade", b"websocket")?;
                r.field(b"Connection", b"upgrade")?;
                r.finish().map(|_| ())
            })
        } else if req.connect {
            conn.respond_with(200, [("X-Tunnel", "1")], b"")
        } else if req.expect_other {
            conn.respond_with(417, [("Content-Type", "text/plain")], b"no")
        } else {
            match req.policy % 6 {
                0 => conn.respond_with(200, [("Content-Type", "text/plain")], b"hello"),
                1 => conn
                    .respond(200, Framing::Chunked)
                    .and_then(|mut r| {
                        r.field(b"Content-Type", b"text/plain")?;
                        r.finish()
                    })
                    .and_then(|sent| {
                        if !sent.body {
                            return Ok(());
                        }
                        conn.send_data(b"hel")?;
                        conn.send_data(b"lo")?;
                        match conn.send_end_with_trailers([("X-Sum", "1")]) {
                            Err(h1_conn::SendError::Encode(
                                h1_encode::Error::TrailersNotAllowed,
                            )) => conn.send_end(),
                            r => r,
                        }
                    }),
                2 => conn.respond_with(204, [("X-A", "b")], b""),
                3 => conn.respond_with(404, [("Content-Type", "text/plain")], b"not found"),
                // The connection's last response, whatever follows.
                4 => {
                    conn.close_after_response();
                    conn.respond_with(200, [("Content-Type", "text/plain")], b"last")
                }
                // The body written in place: the frame goes after what
                // the connection had encoded before it.
                _ => conn
                    .respond(200, Framing::Chunked)
                    .and_then(|r| r.finish())
                    .and_then(|sent| {
                        if !sent.body {
                            return Ok(());
                        }
                        let out = conn.out();
                        self.out.extend_from_slice(out);
                        let n = out.len();
                        conn.written(n);
                        let frame = conn.send_data_frame(b"framed")?;
                        self.out.extend_from_slice(frame.prefix());
                        self.out.extend_from_slice(frame.data());
                        self.out.extend_from_slice(frame.suffix());
                        conn.send_end()
                    }),
            }
        };
        if let Err(e) = r {
            panic!(
                "{}: the answer to {req:?} was refused: {e:?}; events so far {:?}",
                self.label, self.events
            );
        }
    }

    /// Loops over events until the connection needs bytes, closes or
    /// switches, checking every event.
    fn drain(&mut self) -> Stop {
        let mut last: Option<h1_conn::ServerEvent> = None;
        let label = self.label.clone();
        loop {
            let ev = self.next();
            let received = self.conn.received().len();
            let in_buf = |s: Span, what: &str| {
                assert!(
                    s.end() <= received,
                    "{label}: {what} span {s:?} past received() ({received} bytes)"
                );
            };
            use h1_conn::ServerEvent as E;
            if self.failed {
                assert!(
                    matches!(ev, E::Closed | E::Paused(_)),
                    "{label}: {ev:?} after an error"
                );
            }
            match ev {
                E::NeedMore | E::Closed | E::Switch(_) => {
                    // Waiting events are stable: asked again, the same.
                    let again = self.next();
                    assert_eq!(
                        again, ev,
                        "{}: a waiting event changed by itself",
                        self.label
                    );
                }
                E::Paused(why) => {
                    // Every request is answered at once, so the only reason
                    // left is the output waiting to be written: write it.
                    assert_eq!(why, h1_conn::Pause::OutputFull, "{label}: paused");
                    let owed = self.conn.out().len();
                    assert!(
                        owed > 0,
                        "{label}: Paused with nothing owed (unanswered {}, send {:?})",
                        self.conn.unanswered(),
                        self.conn.send_state()
                    );
                    self.take_out();
                    last = None;
                    continue;
                }
                _ => assert!(
                    last != Some(ev),
                    "{label}: {ev:?} twice in a row without new input"
                ),
            }
            last = Some(ev);
            match ev {
                E::Request(req) => {
                    let h = &req.head;
                    in_buf(h.method, "method");
                    in_buf(h.target, "target");
                    let buf = self.conn.received();
                    let host = h.facts.host.map(|s| {
                        in_buf(s, "host");
                        s.slice(buf).to_vec()
                    });
                    let (method, target) =
                        (h.method.slice(buf).to_vec(), h.target.slice(buf).to_vec());
                    let fields = owned_fields(self.conn.fields(), h.field_count, &label);
                    self.req = ReqInfo {
                        upgrade: req.upgrade,
                        connect: req.method() == Method::Connect,
                        expect_other: req.expect() == h1_conn::Expect::Other,
                        policy: mix(&target, 9),
                        answered: false,
                    };
                    self.push(ServerEv::Request {
                        method,
                        target,
                        version: req.version(),
                        host,
                        fields,
                        framing: req.framing,
                        expect: req.expect(),
                        flags: [req.upgrade, req.persistent],
                    });
                    // With `auto_continue` the connection writes the 100 when
                    // the body is awaited; else the driver does, at the head.
                    // Written or not (not once body bytes are here), it is
                    // counted apart when runs are compared.
                    if req.expect() == h1_conn::Expect::Continue
                        && !self.conn.config().auto_continue
                        && !self.req.early()
                    {
                        let wrote = self.conn.send_continue();
                        assert!(wrote.is_ok(), "{label}: send_continue: {wrote:?}");
                    }
                    if self.req.early() {
                        self.answer();
                    }
                }
                E::Data(span) => {
                    in_buf(span, "data");
                    assert!(!span.is_empty(), "{label}: empty Data");
                    let bytes = span.slice(self.conn.received()).to_vec();
                    self.push(ServerEv::Data(bytes));
                }
                E::Trailers(n) => {
                    let fields = owned_fields(self.conn.trailers(), n, &label);
                    self.push(ServerEv::Trailers(fields));
                }
                E::End => {
                    self.push(ServerEv::End);
                    if !self.req.answered {
                        self.answer();
                    }
                }
                E::Error(e) => {
                    self.failed = true;
                    self.push(ServerEv::Error(e));
                }
                E::NeedMore => return Stop::NeedMore,
                E::Closed => {
                    assert_ne!(
                        self.conn.closing(),
                        h1_conn::Closing::Open,
                        "{label}: Closed but closing() says Open"
                    );
                    self.push(ServerEv::Closed);
                    return Stop::Closed;
                }
                E::Switch(span) => {
                    in_buf(span, "switch");
                    assert_eq!(span.end(), received, "{label}: Switch leaves bytes behind");
                    let mut rest = span.slice(self.conn.received()).to_vec();
                    rest.extend_from_slice(&self.data[self.fed..]);
                    self.push(ServerEv::Switch(rest));
                    return Stop::Switched;
                }
                other => panic!("{label}: unexpected event {other:?}"),
            }
        }
    }
}

/// Feeds `data` to a server connection in `pieces`, answering every request,
/// then signals the end of input.
fn server_run(
    data: &[u8],
    config: &h1_conn::Config,
    date: bool,
    pieces: &[usize],
    read_buf: u64,
    label: &str,
) -> ServerRun {
    let mut conn = h1_conn::ServerConn::new(config.clone());
    if date {
        conn.set_date(h1_encode::DateLine::new(FIXED_DATE).expect("IMF-fixdate"));
    }
    let mut d = ServerDriver {
        conn,
        data,
        fed: 0,
        events: Vec::new(),
        out: Vec::new(),
        req: ReqInfo::default(),
        budget: 3 * data.len() + 4 * pieces.len() + 32,
        failed: false,
        label: label.to_string(),
    };
    let mut stop = Stop::NeedMore;
    for (i, &piece) in pieces.iter().enumerate() {
        d.give(piece, read_buf >> (i % 64) & 1 == 1);
        stop = d.drain();
        d.take_out();
        if !matches!(stop, Stop::NeedMore) {
            break;
        }
    }
    // The peer's stream ends in every run, also when the connection
    // stopped reading earlier: `closing()` depends on it (linger or close),
    // and the one-read run may stop before the split run sees the end.
    d.conn.eof();
    if matches!(stop, Stop::NeedMore) {
        stop = d.drain();
        d.take_out();
        assert!(
            !matches!(stop, Stop::NeedMore),
            "{label}: NeedMore after the end of input"
        );
    }
    ServerRun {
        events: d.events,
        out: d.out,
        closing: d.conn.closing(),
    }
}

/// Target `server_splits`: see the crate docs.
pub fn server_splits(data: &[u8]) {
    let knobs = ConnKnobs::from_data(data);
    let config = knobs.config(data.len());
    let once = server_run(data, &config, knobs.date, &[data.len()], 0, "one read");
    let mut splits = vec![("split", knobs.split(data.len()))];
    if data.len() <= BYTEWISE_MAX {
        splits.push(("bytewise", vec![1; data.len()]));
    }
    for (name, pieces) in splits {
        let label = format!("{name} {pieces:?}");
        let split = server_run(data, &config, knobs.date, &pieces, knobs.read_buf, &label);
        assert_eq!(
            split.events, once.events,
            "{label}: events differ from one read"
        );
        // `100 Continue` is written only while none of the body has
        // arrived (RFC 9110 §10.1.1 lets a server omit it after that), so
        // a run whose bytes come in pieces may write one that the one-read
        // run does not, never the other way round; the rest is the same.
        let (split_out, split_100s) = without_continues(&split.out);
        let (once_out, once_100s) = without_continues(&once.out);
        assert_eq!(
            split_out.escape_ascii().to_string(),
            once_out.escape_ascii().to_string(),
            "{label}: output differs from one read"
        );
        assert!(
            split_100s >= once_100s,
            "{label}: {split_100s} 100 Continue, {once_100s} in one read"
        );
        assert_eq!(split.closing, once.closing, "{label}: closing() differs");
    }
}

/// The output without its `100 Continue` responses, and how many there were.
/// (No answer the driver writes holds those bytes otherwise.)
fn without_continues(out: &[u8]) -> (Vec<u8>, usize) {
    const CONTINUE: &[u8] = b"HTTP/1.1 100 Continue\r\n\r\n";
    let (mut rest, mut n, mut at) = (Vec::with_capacity(out.len()), 0, 0);
    while at < out.len() {
        if out[at..].starts_with(CONTINUE) {
            at += CONTINUE.len();
            n += 1;
        } else {
            rest.push(out[at]);
            at += 1;
        }
    }
    (rest, n)
}

/// What a body decoder made of its input.
#[derive(Debug, PartialEq, Eq)]
struct Decoding {
    data: Vec<u8>,
    trailers: Option<Fields>,
    /// At the end: how many input bytes the body took; or the error.
    end: Result<usize, h1_conn::Error>,
}

/// Decodes `input` given in `pieces` (the unconsumed bytes handed in again
/// with each new piece, as a connection does), then at the end of input.
fn decode_run(
    kind: h1_conn::Framing,
    input: &[u8],
    pieces: &[usize],
    config: &h1_conn::Config,
    storage: usize,
    label: &str,
) -> Decoding {
    use h1_conn::Decoded;
    let mut dec = h1_conn::BodyDecoder::new(kind);
    let mut trailers = vec![Entry::EMPTY; storage];
    let mut out = Decoding {
        data: Vec::new(),
        trailers: None,
        end: Err(h1_conn::Error::UnexpectedEof),
    };
    let (mut have, mut pos, mut next_piece, mut eof) = (0usize, 0usize, 0usize, false);
    let mut budget = 3 * input.len() + 3 * pieces.len() + 16;
    let mut last = None;
    loop {
        budget = budget
            .checked_sub(1)
            .unwrap_or_else(|| panic!("{label}: decode called too often (a loop?)"));
        let buf = &input[pos..have];
        let r = dec.decode(buf, eof, &mut trailers, config);
        let (used, what) = match r {
            Err(e) => {
                out.end = Err(e);
                return out;
            }
            Ok(r) => r,
        };
        assert!(
            used <= buf.len(),
            "{label}: consumed {used} of {} bytes",
            buf.len()
        );
        if used == 0 && what != Decoded::NeedMore && what != Decoded::End {
            assert_ne!(last, Some(what), "{label}: {what:?} twice without progress");
        }
        last = Some(what);
        match what {
            Decoded::Data(span) => {
                assert!(
                    !span.is_empty() && span.end() <= used,
                    "{label}: data span {span:?} outside the {used} bytes consumed"
                );
                out.data.extend_from_slice(span.slice(buf));
            }
            Decoded::Trailers(n) => {
                assert!(
                    n <= storage,
                    "{label}: {n} trailers in storage for {storage}"
                );
                assert!(out.trailers.is_none(), "{label}: two trailer sections");
                let fields = trailers[..n]
                    .iter()
                    .map(|e| {
                        assert!(
                            e.name.end() <= used && e.value.end() <= used,
                            "{label}: trailer {e:?} outside the {used} bytes consumed"
                        );
                        (e.name.slice(buf).to_vec(), e.value.slice(buf).to_vec())
                    })
                    .collect();
                out.trailers = Some(fields);
            }
            Decoded::End => {
                assert!(dec.is_done(), "{label}: End but not is_done()");
                pos += used;
                // Done stays done and takes nothing more.
                let again = dec.decode(&input[pos..have], eof, &mut trailers, config);
                assert_eq!(again, Ok((0, Decoded::End)), "{label}: after End");
                out.end = Ok(pos);
                break;
            }
            Decoded::NeedMore => {
                assert!(!eof, "{label}: NeedMore at the end of input");
                match pieces.get(next_piece) {
                    Some(&n) => {
                        have += n;
                        next_piece += 1;
                    }
                    None => eof = true,
                }
            }
            _ => panic!("{label}: unknown result {what:?}"),
        }
        pos += used;
    }
    assert_eq!(
        dec.received(),
        out.data.len() as u64,
        "{label}: received() is not the data reported"
    );
    assert!(
        dec.received() <= config.max_body_len,
        "{label}: more than max_body_len decoded"
    );
    out
}

/// Target `body_decoder`: see the crate docs.
pub fn body_decoder(data: &[u8]) {
    use h1_conn::Framing;
    let Some((&tag, rest)) = data.split_first() else {
        return;
    };
    // The first byte picks the framing ('L', 'U', 'C' in the seeds); a
    // length takes the next two bytes, little-endian.
    let (kind, input) = match tag % 4 {
        0 => {
            let (n, body) = rest.split_at(rest.len().min(2));
            let n = n.iter().rev().fold(0u64, |a, &b| a << 8 | u64::from(b));
            (Framing::Length(n), body)
        }
        1 => (Framing::UntilClose, rest),
        _ => (Framing::Chunked, rest),
    };
    let knobs = ConnKnobs::from_data(data);
    let mut config = knobs.config(data.len());
    let storage = match &knobs.parse {
        Some(k) if knobs.profile % 4 >= 2 => k.storage(),
        _ => STORAGE,
    };
    let once = decode_run(kind, input, &[input.len()], &config, storage, "one piece");
    match (kind, &once.end) {
        (Framing::Length(n), Ok(used)) => {
            assert_eq!(*used as u64, n, "Length({n}) took {used} bytes");
            assert_eq!(&once.data[..], &input[..*used], "Length body bytes");
        }
        (Framing::Length(n), Err(e)) => assert!(
            (*e == h1_conn::Error::UnexpectedEof && (input.len() as u64) < n)
                || (*e == h1_conn::Error::BodyTooLarge && n > config.max_body_len),
            "Length({n}) of {} bytes failed with {e:?}",
            input.len()
        ),
        (Framing::UntilClose, Ok(used)) => {
            assert_eq!(*used, input.len(), "UntilClose ended early");
            assert_eq!(&once.data[..], input, "UntilClose body bytes");
        }
        (Framing::UntilClose, Err(e)) => assert!(
            *e == h1_conn::Error::BodyTooLarge && input.len() as u64 > config.max_body_len,
            "UntilClose of {} bytes failed with {e:?}",
            input.len()
        ),
        _ => {}
    }
    if kind != Framing::Chunked {
        assert_eq!(once.trailers, None, "trailers outside chunked framing");
    }
    let mut splits = vec![("split", knobs.split(input.len()))];
    if input.len() <= BYTEWISE_MAX {
        splits.push(("bytewise", vec![1; input.len()]));
    }
    for (name, pieces) in splits {
        let label = format!("{name} {pieces:?}");
        let split = decode_run(kind, input, &pieces, &config, storage, &label);
        assert_eq!(split, once, "{label}: differs from one piece");
    }
    // The head parser's leniencies never loosen body framing.
    config.parse.allow_bare_lf = !config.parse.allow_bare_lf;
    config.parse.allow_obs_fold = !config.parse.allow_obs_fold;
    let flipped = decode_run(
        kind,
        input,
        &[input.len()],
        &config,
        storage,
        "leniencies flipped",
    );
    assert_eq!(
        flipped, once,
        "the head parser's leniencies changed the body"
    );
}

/// Methods the round trip sends (CONNECT needs an authority target and
/// switches protocols; the server target covers it).
const RT_METHODS: [&[u8]; 8] = [
    b"GET", b"HEAD", b"POST", b"PUT", b"DELETE", b"OPTIONS", b"PATCH", b"TRACE",
];

/// Field names with a meaning to the encoder or the parsers, drawn as often
/// as made-up ones; the encoder refuses some of them in some places.
const RT_NAMES: [&[u8]; 16] = [
    b"Accept",
    b"User-Agent",
    b"Cookie",
    b"Content-Type",
    b"Cache-Control",
    b"Date",
    b"Upgrade",
    b"Expect",
    b"Connection",
    b"TE",
    b"Trailer",
    b"Keep-Alive",
    b"Host",
    b"Content-Length",
    b"Transfer-Encoding",
    b"Link",
];

const TOKEN_CHARS: &[u8] =
    b"!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/// Origin-form bytes (no `%`, whose escapes the target need not check).
const TARGET_CHARS: &[u8] = b"ABCabcxyz0123456789-._~!$&'()*+,;=:@/?";
const HOST_CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789-.";

fn map_to(bytes: &[u8], alphabet: &[u8], max: usize) -> Vec<u8> {
    bytes
        .iter()
        .take(max)
        .map(|&b| alphabet[usize::from(b) % alphabet.len()])
        .collect()
}

#[derive(Arbitrary, Debug)]
struct RtField {
    /// Below 16: a name of [`RT_NAMES`]; else `X-` and `made_up`.
    name: u8,
    made_up: Vec<u8>,
    value: Vec<u8>,
}

impl RtField {
    fn build(&self) -> (Vec<u8>, Vec<u8>) {
        let name = match RT_NAMES.get(usize::from(self.name)) {
            Some(n) => n.to_vec(),
            None => [&b"X-"[..], &map_to(&self.made_up, TOKEN_CHARS, 24)].concat(),
        };
        // Any byte a field value may hold (obs-text too), without
        // surrounding whitespace, which a parser would trim.
        let value: Vec<u8> = self
            .value
            .iter()
            .take(48)
            .map(|&b| {
                if chars::is_field_value_byte(b) {
                    b
                } else {
                    b'a' + b % 26
                }
            })
            .collect();
        (name, chars::trim_ows(&value).to_vec())
    }
}

#[derive(Arbitrary, Debug)]
struct RtExchangeInput {
    method: u8,
    target: Vec<u8>,
    host: Vec<u8>,
    port: Option<u16>,
    http10: bool,
    req_fields: Vec<RtField>,
    req_body: Vec<u8>,
    req_chunked: bool,
    req_cuts: u64,
    interim: bool,
    status: u16,
    resp_fields: Vec<RtField>,
    resp_body: Vec<u8>,
    resp_chunked: bool,
    resp_cuts: u64,
    resp_trailers: Vec<RtField>,
}

#[derive(Arbitrary, Debug)]
struct RtInput {
    /// All requests first, then all responses (else one exchange at a time).
    pipelined: bool,
    date: bool,
    exchanges: Vec<RtExchangeInput>,
}

/// One exchange, built from the input with safe alphabets.
#[derive(Debug)]
struct Rt {
    method: &'static [u8],
    target: Vec<u8>,
    host: Vec<u8>,
    http10: bool,
    req_fields: Fields,
    req_body: Vec<u8>,
    req_chunked: bool,
    req_pieces: Vec<usize>,
    interim: bool,
    status: u16,
    resp_fields: Fields,
    resp_body: Vec<u8>,
    resp_chunked: bool,
    resp_pieces: Vec<usize>,
    resp_trailers: Fields,
}

fn pieces_of(len: usize, seed: u64) -> Vec<usize> {
    let mut rng = SplitMix(seed);
    let mut out = Vec::new();
    let mut left = len;
    while left > 0 {
        let n = rng.upto(64).min(left);
        out.push(n);
        left -= n;
    }
    out
}

impl RtExchangeInput {
    fn build(&self) -> Rt {
        let mut host = map_to(&self.host, HOST_CHARS, 32);
        if host.is_empty() {
            host.push(b'h');
        }
        if let Some(port) = self.port {
            host.extend_from_slice(format!(":{port}").as_bytes());
        }
        let fields = |f: &[RtField]| f.iter().take(8).map(RtField::build).collect::<Fields>();
        let req_body: Vec<u8> = self.req_body.iter().take(512).copied().collect();
        let resp_body: Vec<u8> = self.resp_body.iter().take(512).copied().collect();
        Rt {
            method: RT_METHODS[usize::from(self.method) % RT_METHODS.len()],
            target: [&b"/"[..], &map_to(&self.target, TARGET_CHARS, 64)].concat(),
            host,
            http10: self.http10,
            req_fields: fields(&self.req_fields),
            req_pieces: pieces_of(req_body.len(), self.req_cuts),
            req_body,
            req_chunked: self.req_chunked,
            interim: self.interim,
            status: 200 + self.status % 400,
            resp_fields: fields(&self.resp_fields),
            resp_pieces: pieces_of(resp_body.len(), self.resp_cuts),
            resp_body,
            resp_chunked: self.resp_chunked,
            resp_trailers: fields(&self.resp_trailers),
        }
    }
}

/// Whether a refusal is one the encoder documents for what the input asked
/// (a framing field from the caller, a body a status forbids, a request
/// after a closing one, ...), as opposed to bytes the safe alphabets
/// cannot produce, which would be a bug.
fn documented_refusal(e: &h1_conn::SendError) -> bool {
    use h1_conn::SendError as S;
    use h1_encode::Error as E;
    match e {
        S::Encode(
            E::InvalidFieldName
            | E::InvalidFieldValue
            | E::InvalidTarget
            | E::InvalidMethod
            | E::MissingHost
            | E::InvalidStatus
            | E::InvalidReason,
        ) => false,
        S::Encode(_) | S::Closed => true,
        _ => false,
    }
}

/// A client event with its bytes copied out.
#[derive(Clone, Debug, PartialEq, Eq)]
enum ClientEv {
    Informational(u16, Fields),
    Head(u16, Fields, bool),
    Data(Vec<u8>),
    Trailers(Fields),
    End,
}

fn owned(fields: &[(Vec<u8>, Vec<u8>)]) -> Fields {
    fields.to_vec()
}

fn pair(name: &str, value: &[u8]) -> (Vec<u8>, Vec<u8>) {
    (name.as_bytes().to_vec(), value.to_vec())
}

/// Encodes the request of `rt`. `Ok(false)`: refused as documented, nothing
/// was written.
fn rt_request(client: &mut h1_conn::ClientConn, rt: &Rt) -> bool {
    let version = if rt.http10 {
        Version::Http10
    } else {
        Version::Http11
    };
    let body = if rt.req_chunked {
        Framing::Chunked
    } else {
        Framing::Length(rt.req_body.len() as u64)
    };
    let head = client
        .request_version(version, rt.method, &rt.target, Some(&rt.host), body)
        .and_then(|mut r| {
            r.fields(rt.req_fields.iter().map(|(n, v)| (n, v)))?;
            r.finish()
        });
    if let Err(e) = head {
        assert!(documented_refusal(&e), "request {rt:?} refused: {e:?}");
        return false;
    }
    // A `Content-Length: 0` request is complete with its head.
    let body_state = client.send_state() == h1_conn::state::SendState::Body;
    assert_eq!(
        body_state,
        !rt.req_body.is_empty() || rt.req_chunked,
        "request body state after the head"
    );
    if body_state {
        let mut at = 0;
        for &n in &rt.req_pieces {
            let r = client.send_data(&rt.req_body[at..at + n]);
            assert_eq!(r, Ok(()), "request body refused");
            at += n;
        }
        assert_eq!(client.send_end(), Ok(()), "request end refused");
    }
    true
}

/// Answers the request of `rt` on `server`; the events the client must see,
/// or `None` when the encoder refused (as documented).
fn rt_answer(
    server: &mut h1_conn::ServerConn,
    rt: &Rt,
    date: bool,
) -> Option<(Vec<ClientEv>, bool)> {
    use h1_encode::Framing;
    let mut want = Vec::new();
    let refused = |e: h1_conn::SendError| {
        assert!(documented_refusal(&e), "response for {rt:?} refused: {e:?}");
        None
    };
    if rt.interim && !rt.http10 {
        let link: &[u8] = b"</s.css>; rel=preload";
        let r = server.respond(103, Framing::Empty).and_then(|mut r| {
            r.field(b"Link", link)?;
            r.finish()
        });
        assert!(r.is_ok_and(|s| !s.body && !s.close), "103: {r:?}");
        want.push(ClientEv::Informational(103, vec![pair("Link", link)]));
    }
    let body = match (rt.resp_chunked, rt.resp_body.len()) {
        (true, _) => Framing::Chunked,
        (false, 0) => Framing::Empty,
        (false, n) => Framing::Length(n as u64),
    };
    let head = server.respond(rt.status, body).and_then(|mut r| {
        r.fields(rt.resp_fields.iter().map(|(n, v)| (n, v)))?;
        r.finish()
    });
    let sent = match head {
        Ok(sent) => sent,
        Err(e) => return refused(e),
    };
    assert_eq!(
        sent.body,
        server.send_state() == h1_conn::state::SendState::Body,
        "Sent::body and the send state disagree"
    );
    let mut trailers_sent = false;
    if sent.body {
        let mut at = 0;
        for &n in &rt.resp_pieces {
            let r = server.send_data(&rt.resp_body[at..at + n]);
            assert_eq!(r, Ok(()), "response body refused");
            at += n;
        }
        let end = if rt.resp_trailers.is_empty() {
            server.send_end()
        } else {
            let t = rt.resp_trailers.iter().map(|(n, v)| (n, v));
            match server.send_end_with_trailers(t) {
                Ok(()) => {
                    trailers_sent = true;
                    Ok(())
                }
                Err(h1_conn::SendError::Encode(
                    h1_encode::Error::ForbiddenTrailer | h1_encode::Error::TrailersNotAllowed,
                )) => server.send_end(),
                Err(e) => Err(e),
            }
        };
        assert_eq!(end, Ok(()), "response end refused");
    }

    // What the client must see, from RFC 9110 / 9112 rather than from the
    // encoder's code.
    let head_req = rt.method == b"HEAD";
    let no_content = head_req || rt.status == 204 || rt.status == 304;
    let until_close = rt.http10 && body == Framing::Chunked;
    let close = rt.http10;
    // The connection's `Date` follows the caller's fields, unless they
    // brought one.
    let mut fields = owned(&rt.resp_fields);
    if date && !fields.iter().any(|(n, _)| n.eq_ignore_ascii_case(b"date")) {
        fields.push(pair("Date", FIXED_DATE));
    }
    match (rt.status, body) {
        (204, _) | (304, Framing::Empty) => {}
        (_, Framing::Empty) => fields.push(pair("Content-Length", b"0")),
        (_, Framing::Length(n)) => fields.push(pair("Content-Length", n.to_string().as_bytes())),
        (_, Framing::Chunked) if rt.http10 => {}
        (_, Framing::Chunked) => fields.push(pair("Transfer-Encoding", b"chunked")),
        (_, Framing::UntilClose) => unreachable!("the target never asks for it"),
    }
    if close {
        fields.push(pair("Connection", b"close"));
    }
    assert_eq!(sent.close, close || until_close, "Sent::close");
    assert_eq!(
        sent.body,
        !(no_content || body == Framing::Empty || body == Framing::Length(0)),
        "Sent::body for {} {:?}",
        rt.status,
        body
    );
    want.push(ClientEv::Head(rt.status, fields, !close && !until_close));
    if !no_content && !rt.resp_body.is_empty() {
        want.push(ClientEv::Data(rt.resp_body.clone()));
    }
    if trailers_sent && !no_content {
        want.push(ClientEv::Trailers(owned(&rt.resp_trailers)));
    }
    want.push(ClientEv::End);
    Some((want, close))
}

/// Sends the requests of `batch`, lets the server answer them, and checks
/// what each side saw. False when the connection cannot go on (a refusal,
/// or an exchange that closed it).
fn rt_batch(
    client: &mut h1_conn::ClientConn,
    server: &mut h1_conn::ServerConn,
    batch: &[Rt],
    date: bool,
) -> bool {
    use h1_conn::{ClientEvent as C, ServerEvent as S};
    let sent = batch.iter().take_while(|rt| rt_request(client, rt)).count();
    if sent == 0 {
        return false;
    }
    let out = client.out();
    assert_eq!(server.feed(out), out.len(), "server buffer full");
    client.written(out.len());

    // The server: each request as sent, answered at its end.
    let mut want_client = Vec::new();
    let (mut i, mut body, mut closed) = (0, Vec::new(), false);
    for _ in 0..(16 * server.received().len() + 64) {
        match server.next_event() {
            S::Request(req) => {
                let rt = &batch[i];
                let buf = server.received();
                assert_eq!(req.head.method.slice(buf), rt.method, "method");
                assert_eq!(req.head.target.slice(buf), &rt.target[..], "target");
                let version = if rt.http10 {
                    Version::Http10
                } else {
                    Version::Http11
                };
                assert_eq!(req.version(), version, "version");
                let mut want = vec![pair("Host", &rt.host)];
                want.extend(owned(&rt.req_fields));
                if rt.req_chunked {
                    want.push(pair("Transfer-Encoding", b"chunked"));
                    assert_eq!(req.framing, h1_conn::Framing::Chunked);
                } else {
                    let n = rt.req_body.len();
                    want.push(pair("Content-Length", n.to_string().as_bytes()));
                    assert_eq!(req.framing, h1_conn::Framing::Length(n as u64));
                }
                if rt.http10 {
                    want.push(pair("Connection", b"close"));
                }
                let got = owned_fields(server.fields(), req.head.field_count, "request");
                assert_eq!(got, want, "request fields");
                assert_eq!(req.persistent, !rt.http10, "request persistence");
                body.clear();
            }
            S::Data(span) => body.extend_from_slice(span.slice(server.received())),
            S::End => {
                let rt = &batch[i];
                assert_eq!(body, rt.req_body, "request body");
                match rt_answer(server, rt, date) {
                    Some((want, close)) => {
                        want_client.extend(want);
                        closed |= close;
                    }
                    None => return false,
                }
                i += 1;
            }
            S::NeedMore | S::Closed => break,
            other => panic!("server: {other:?} for requests it was sent"),
        }
    }
    assert_eq!(i, sent, "the server saw {i} of {sent} requests");

    // The client: every response, in order, with what was sent.
    let out = server.out();
    assert_eq!(client.feed(out), out.len(), "client buffer full");
    let n = out.len();
    server.written(n);
    if server.closing() != h1_conn::Closing::Open {
        client.eof();
    }
    let mut got: Vec<ClientEv> = Vec::new();
    for _ in 0..(16 * client.received().len() + 64) {
        match client.next_event() {
            C::Interim(r) => {
                let f = owned_fields(client.fields(), r.head.field_count, "interim");
                got.push(ClientEv::Informational(r.status(), f));
            }
            C::Response(r) => {
                let f = owned_fields(client.fields(), r.head.field_count, "response");
                got.push(ClientEv::Head(r.status(), f, r.persistent));
            }
            C::Data(span) => {
                let bytes = span.slice(client.received());
                match got.last_mut() {
                    Some(ClientEv::Data(have)) => have.extend_from_slice(bytes),
                    _ => got.push(ClientEv::Data(bytes.to_vec())),
                }
            }
            C::Trailers(n) => {
                let f = owned_fields(client.trailers(), n, "trailers");
                got.push(ClientEv::Trailers(f));
            }
            C::End => got.push(ClientEv::End),
            C::NeedMore | C::Closed => break,
            other => panic!("client: {other:?} for responses the server wrote"),
        }
    }
    assert_eq!(
        got, want_client,
        "the client saw other responses than were sent"
    );
    !closed && sent == batch.len()
}

/// Target `roundtrip`: see the crate docs.
pub fn roundtrip(data: &[u8]) {
    let Ok(input) = RtInput::arbitrary(&mut Unstructured::new(data)) else {
        return;
    };
    let exchanges: Vec<Rt> = input
        .exchanges
        .iter()
        .take(4)
        .map(RtExchangeInput::build)
        .collect();
    let mut client = h1_conn::ClientConn::default();
    let mut config = h1_conn::Config::default();
    // No clock (its `Date` could not be expected): the fixed date or none.
    config.send_date = false;
    // The request fields are drawn from any names, `Expect` among them: an
    // unknown expectation is delivered and answered like any request.
    config.refuse_unknown_expect = false;
    let mut server = h1_conn::ServerConn::new(config);
    if input.date {
        server.set_date(h1_encode::DateLine::new(FIXED_DATE).expect("IMF-fixdate"));
    }
    let batch = if input.pipelined {
        exchanges.len().max(1)
    } else {
        1
    };
    for b in exchanges.chunks(batch) {
        if !rt_batch(&mut client, &mut server, b, input.date) {
            return;
        }
    }
}
