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
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use arbitrary::{Arbitrary, Unstructured};
use h1_headers::{chars, Entry, Span};
use h1_parse::scan::{self, Path};
use h1_parse::{
    Config, Error, HeadParser, Method, RequestHead, ResponseHead, Status, TransferEncoding, Version,
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
    fn len(&self) -> usize;
    fn field_count(&self) -> usize;
}

impl Head for RequestHead {
    fn len(&self) -> usize {
        self.len
    }
    fn field_count(&self) -> usize {
        self.field_count
    }
}

impl Head for ResponseHead {
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

/// Runs a parse with fresh storage of `n` entries and keeps what it wrote.
fn run<T: Head>(
    n: usize,
    parse: impl FnOnce(&mut [Entry]) -> Result<Status<T>, Error>,
) -> Outcome<T> {
    let mut storage = vec![Entry::EMPTY; n];
    let result = parse(&mut storage);
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
    run(n, |f| h1_parse::parse_request(data, f, config))
}

fn response_once(data: &[u8], config: &Config, n: usize) -> Outcome<ResponseHead> {
    run(n, |f| h1_parse::parse_response(data, f, config))
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

    let f = &h.framing;
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
    let f = &h.framing;
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
type Step<T> = dyn Fn(&mut HeadParser, &[u8], &mut [Entry]) -> Result<Status<T>, Error>;

/// The incremental parser fed the data in pieces agrees with a one-shot parse
/// of the bytes so far, and after a complete head and `reset` the same holds
/// for the bytes that follow (pipelining). It may report an error in an
/// incomplete head later than the one-shot parser (it revalidates only when
/// the buffer has doubled, to stay O(n)), so:
///
/// - one-shot `Complete` ⇔ incremental `Complete`, with the same head and
///   fields;
/// - incremental `Err` ⇒ one-shot `Err`;
/// - incremental `Partial` ⇒ one-shot `Partial` or `Err`.
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
            let result = step(&mut parser, buf, &mut storage);
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
                (Err(_), Err(_)) | (Ok(Status::Partial), _) => {}
                (Err(e), Ok(Status::Partial)) => {
                    panic!("incremental rejects ({e:?}) what one-shot finds a valid prefix ({at})")
                }
            }
            assert!(
                parser.examined() <= buf.len() + 2 * (calls + 1),
                "HeadParser examined {} bytes for {} fed in {} calls ({at})",
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
            let alt = run(STORAGE, |f| {
                h1_parse::parse_request_with_path(path, data, f, &config)
            });
            assert_eq!(alt, out, "path {path:?} differs from the default path");
        }
        check_cut(data, &out, once);
        let prefix = once(&data[..split_point(data, 3)]);
        check_prefix(&prefix, &out);
        check_incremental(data, &config, &once, &|p, b, f| p.parse_request(b, f));
    }
    // Small limits and small storage: checked, and an accepted head is
    // accepted unchanged with the default limits.
    let config = knobs.config();
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
        check_incremental(data, &config, &once, &|p, b, f| p.parse_response(b, f));
    }
    let config = knobs.config();
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
