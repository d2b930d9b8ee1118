//! Differential targets: h1 against implementations that share no code with
//! it.
//!
//! - [`diff_request`]: `h1_parse::parse_request` (strict defaults, and every
//!   leniency on) against httparse.
//! - [`diff_pico_request`]: the same against picohttpparser (C).
//! - [`diff_response`]: `h1_parse::parse_response` against httparse and
//!   picohttpparser.
//! - [`diff_chunked`]: `h1_conn::BodyDecoder` with chunked framing against
//!   [`reference_chunked`], a byte-at-a-time decoder written here from the
//!   grammar of RFC 9112 §7.1.
//!
//! When both sides read a complete head they must agree on all of it: the
//! method and target (or status code and reason), the version, every field
//! (name, value, order, count) and the head's length. A field value is
//! compared as RFC 9112 §5 defines it: the bytes after the colon without
//! leading and trailing whitespace, each obs-fold replaced by SP (§5.2).
//!
//! When they disagree on accept / ask for more / reject, the disagreement
//! must fall in a class listed in `fuzz/README.md`, each justified by
//! RFC 9112 or RFC 9110:
//!
//! - h1 rejects and the other does not: [`h1_stricter`] names the class
//!   from h1's error and checks the input itself shows it (a bare LF at the
//!   offset, two `Host` lines, ...). An error no class explains panics.
//! - h1 accepts (or asks for more) and the other rejects: the input is
//!   rewritten without the features h1 accepts on RFC grounds and the other
//!   parser lacks ([`canonical`]: several empty lines before the request
//!   line, `HTTP/1.2`..`HTTP/1.9`, the request line's whitespace and
//!   obs-fold under the leniencies, a status line without the SP before an
//!   empty reason); the other parser must then agree with h1 exactly. If
//!   nothing was rewritten, or it still disagrees, the target panics.

use h1_headers::{Entry, Version};
use h1_parse::{Config, Error, ErrorKind as K, RequestHead, ResponseHead};

use crate::pico::{self, PicoResult};
use crate::{decode_run, lenient, strict, STORAGE};

/// Every class of disagreement the head targets accept, as named in
/// `fuzz/README.md`: first those where h1 is the stricter, then those where
/// the other parser is.
pub const CLASSES: [&str; 23] = [
    "bare-lf",
    "obs-fold",
    "missing-host",
    "duplicate-host",
    "invalid-host",
    "invalid-content-length",
    "content-length-with-transfer-encoding",
    "transfer-encoding-in-http10",
    "transfer-coding",
    "target-byte",
    "target-form",
    "method-not-token",
    "request-line-empty-part",
    "version-digits",
    "empty-line-before-status-line",
    "status-code",
    "limit",
    "empty-lines-before-request-line",
    "http-1x-minor-above-1",
    "request-line-whitespace",
    "status-line-without-sp",
    "deferred-verdict",
    "httparse-obs-text-reason",
];

/// A class and the parser it was seen against.
type Seen = (&'static str, &'static str);

thread_local! {
    /// The classes the head targets have accepted on this thread.
    static SEEN: std::cell::RefCell<std::collections::BTreeSet<Seen>> =
        const { std::cell::RefCell::new(std::collections::BTreeSet::new()) };
}

fn record(class: &'static str, reference: Reference) {
    assert!(CLASSES.contains(&class), "class {class} is not listed");
    SEEN.with(|s| s.borrow_mut().insert((class, reference.name())));
}

/// The disagreement classes accepted on this thread since the last call,
/// each with the name of the parser it was seen against (for the replay
/// test, and for reports of what fuzzing found).
pub fn take_classes_seen() -> Vec<(&'static str, &'static str)> {
    SEEN.with(|s| std::mem::take(&mut *s.borrow_mut()))
        .into_iter()
        .collect()
}

/// Request or response head.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Request,
    Response,
}

/// A field line as compared: the name's bytes and the field value.
type Field = (Vec<u8>, Vec<u8>);

/// A complete head as any parser read it, in one comparable form.
#[derive(Clone, PartialEq, Eq)]
struct Parsed {
    /// Bytes the head took, through the empty line.
    len: usize,
    /// Request: the method. Response: the status code in decimal.
    first: Vec<u8>,
    /// Request: the target. Response: the reason phrase.
    second: Vec<u8>,
    /// The minor version: 0 for HTTP/1.0, 1 for HTTP/1.1 (h1 reads
    /// `HTTP/1.2`..`HTTP/1.9` as 1.1; picohttpparser reports the number).
    minor: i64,
    /// Every field line, in order.
    fields: Vec<Field>,
}

/// Bytes as an escaped string, cut short: failure messages must stay
/// readable for inputs of many kilobytes.
struct Short<'a>(&'a [u8]);

impl std::fmt::Debug for Short<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const MAX: usize = 160;
        let cut = &self.0[..self.0.len().min(MAX)];
        write!(f, "b\"{}\"", cut.escape_ascii())?;
        if self.0.len() > MAX {
            write!(f, "...({} bytes)", self.0.len())?;
        }
        Ok(())
    }
}

impl std::fmt::Debug for Parsed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Parsed")
            .field("len", &self.len)
            .field("first", &Short(&self.first))
            .field("second", &Short(&self.second))
            .field("minor", &self.minor)
            .field(
                "fields",
                &self
                    .fields
                    .iter()
                    .take(8)
                    .map(|(n, v)| (Short(n), Short(v)))
                    .collect::<Vec<_>>(),
            )
            .field("field_count", &self.fields.len())
            .finish()
    }
}

/// What the other parser said.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Verdict {
    Complete(Parsed),
    Partial,
    Rejected(String),
}

/// What h1 said.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Ours {
    Complete(Parsed),
    Partial,
    Rejected(Error),
}

/// The parser h1 is held against.
#[derive(Clone, Copy, Debug)]
enum Reference {
    /// httparse; `lenient` turns on its options for what h1's leniencies
    /// allow (several SP in the request line, obs-fold in responses).
    Httparse { lenient: bool },
    /// picohttpparser (it has no options).
    Pico,
}

fn is_ows(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// `tchar` (RFC 9110 §5.6.2), written out.
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// `VCHAR / obs-text / SP / HTAB`: the bytes a field value may hold.
fn is_value_byte(b: u8) -> bool {
    (0x20..=0x7e).contains(&b) || b >= 0x80 || b == b'\t'
}

fn trim(v: &[u8]) -> &[u8] {
    let start = v.iter().position(|&b| !is_ows(b)).unwrap_or(v.len());
    let end = v.iter().rposition(|&b| !is_ows(b)).map_or(start, |i| i + 1);
    &v[start..end.max(start)]
}

/// The field value RFC 9112 §5 and §5.2 define, from the raw bytes after
/// the colon: each CR and LF (of an obs-fold) replaced by SP, then the
/// leading and trailing whitespace removed.
fn field_value(raw: &[u8]) -> Vec<u8> {
    let v: Vec<u8> = raw
        .iter()
        .map(|&b| if b == b'\r' || b == b'\n' { b' ' } else { b })
        .collect();
    trim(&v).to_vec()
}

fn minor_of(v: Version) -> i64 {
    match v {
        Version::Http10 => 0,
        Version::Http11 => 1,
    }
}

fn h1_fields(data: &[u8], entries: &[Entry]) -> Vec<Field> {
    entries
        .iter()
        .map(|e| {
            (
                e.name.slice(data).to_vec(),
                field_value(e.value.slice(data)),
            )
        })
        .collect()
}

/// h1's reading of the head at the start of `data`.
fn h1_head(kind: Kind, data: &[u8], config: &Config) -> Ours {
    let mut storage = vec![Entry::EMPTY; STORAGE];
    let r = match kind {
        Kind::Request => {
            let mut head = RequestHead::EMPTY;
            h1_parse::parse_request(data, &mut head, &mut storage, config).map(|s| {
                s.complete().map(|len| Parsed {
                    len,
                    first: head.method.slice(data).to_vec(),
                    second: head.target.slice(data).to_vec(),
                    minor: minor_of(head.version),
                    fields: h1_fields(data, &storage[..head.field_count]),
                })
            })
        }
        Kind::Response => {
            let mut head = ResponseHead::EMPTY;
            h1_parse::parse_response(data, &mut head, &mut storage, config).map(|s| {
                s.complete().map(|len| Parsed {
                    len,
                    first: head.status.to_string().into_bytes(),
                    second: head.reason.slice(data).to_vec(),
                    minor: minor_of(head.version),
                    fields: h1_fields(data, &storage[..head.field_count]),
                })
            })
        }
    };
    match r {
        Ok(Some(p)) => Ours::Complete(p),
        Ok(None) => Ours::Partial,
        Err(e) => Ours::Rejected(e),
    }
}

impl Reference {
    fn name(self) -> &'static str {
        match self {
            Reference::Httparse { lenient: false } => "httparse",
            Reference::Httparse { lenient: true } => "httparse (lenient options)",
            Reference::Pico => "picohttpparser",
        }
    }

    fn parse(self, kind: Kind, data: &[u8]) -> Verdict {
        match self {
            Reference::Httparse { lenient } => httparse_head(kind, data, lenient),
            Reference::Pico => pico_head(kind, data),
        }
    }
}

fn httparse_head(kind: Kind, data: &[u8], lenient: bool) -> Verdict {
    let mut headers = [httparse::EMPTY_HEADER; STORAGE];
    let mut config = httparse::ParserConfig::default();
    let fields = |h: &[httparse::Header<'_>]| -> Vec<Field> {
        h.iter()
            .map(|h| (h.name.as_bytes().to_vec(), field_value(h.value)))
            .collect()
    };
    let r = match kind {
        Kind::Request => {
            config.allow_multiple_spaces_in_request_line_delimiters(lenient);
            let mut req = httparse::Request::new(&mut headers);
            config.parse_request(&mut req, data).map(|s| match s {
                httparse::Status::Complete(len) => Some(Parsed {
                    len,
                    first: req.method.unwrap_or_default().as_bytes().to_vec(),
                    second: req.path.unwrap_or_default().as_bytes().to_vec(),
                    minor: req.version.map_or(-1, i64::from),
                    fields: fields(req.headers),
                }),
                httparse::Status::Partial => None,
            })
        }
        Kind::Response => {
            config.allow_obsolete_multiline_headers_in_responses(lenient);
            let mut resp = httparse::Response::new(&mut headers);
            config.parse_response(&mut resp, data).map(|s| match s {
                httparse::Status::Complete(len) => Some(Parsed {
                    len,
                    first: resp.code.unwrap_or_default().to_string().into_bytes(),
                    second: resp.reason.unwrap_or_default().as_bytes().to_vec(),
                    minor: resp.version.map_or(-1, i64::from),
                    fields: fields(resp.headers),
                }),
                httparse::Status::Partial => None,
            })
        }
    };
    match r {
        Ok(Some(p)) => Verdict::Complete(p),
        Ok(None) => Verdict::Partial,
        Err(e) => Verdict::Rejected(format!("httparse: {e:?}")),
    }
}

fn pico_head(kind: Kind, data: &[u8]) -> Verdict {
    let h = match pico::parse(data, kind == Kind::Request) {
        PicoResult::Complete(h) => h,
        PicoResult::Partial => return Verdict::Partial,
        PicoResult::Rejected(ret) => {
            return Verdict::Rejected(format!("picohttpparser returned {ret}"))
        }
    };
    // A continuation line (obs-fold) extends the value before it: the value
    // is then every byte from its start to the continuation's end, which
    // `field_value` unfolds.
    let mut ranges: Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> = Vec::new();
    for f in h.fields {
        match f.name {
            Some(name) => ranges.push((name, f.value)),
            None => {
                let last = ranges
                    .last_mut()
                    .expect("picohttpparser: a continuation line before any field");
                last.1.end = f.value.end;
            }
        }
    }
    Verdict::Complete(Parsed {
        len: h.len,
        first: match kind {
            Kind::Request => data[h.method].to_vec(),
            Kind::Response => h.status.to_string().into_bytes(),
        },
        second: data[h.text].to_vec(),
        minor: i64::from(h.minor_version),
        fields: ranges
            .into_iter()
            .map(|(n, v)| (data[n].to_vec(), field_value(&data[v])))
            .collect(),
    })
}

/// Asserts that h1's head `ours` and the other parser's `theirs` (of an
/// input rewritten by [`canonical`] with `delta` bytes added before the
/// head's end) are the same head.
fn same(reference: Reference, kind: Kind, ours: &Parsed, theirs: &Parsed, delta: isize, at: &str) {
    let who = reference.name();
    assert_eq!(
        ours.len.checked_add_signed(delta),
        Some(theirs.len),
        "{at}: head length: h1 {} (+{delta} rewritten), {who} {}",
        ours.len,
        theirs.len
    );
    assert_eq!(
        ours.first,
        theirs.first,
        "{at}: method / status: h1 {:?}, {who} {:?}",
        Short(&ours.first),
        Short(&theirs.first)
    );
    // httparse hands out an empty reason when the reason holds obs-text
    // (its `reason` is a `&str`); that is its representation, not a
    // different reading.
    let httparse_obs_reason = matches!(reference, Reference::Httparse { .. })
        && kind == Kind::Response
        && theirs.second.is_empty()
        && ours.second.iter().any(|&b| b >= 0x80);
    if httparse_obs_reason {
        record("httparse-obs-text-reason", reference);
    } else {
        assert_eq!(
            ours.second,
            theirs.second,
            "{at}: target / reason: h1 {:?}, {who} {:?}",
            Short(&ours.second),
            Short(&theirs.second)
        );
    }
    // HTTP/1.x with x > 1 is HTTP/1.1 to h1 (RFC 9110 §2.5).
    assert!(
        (0..=9).contains(&theirs.minor) && (ours.minor == 0) == (theirs.minor == 0),
        "{at}: version: h1 1.{}, {who} 1.{}",
        ours.minor,
        theirs.minor
    );
    assert_eq!(
        ours.fields.len(),
        theirs.fields.len(),
        "{at}: field count: h1 {ours:?}, {who} {theirs:?}"
    );
    for (i, (a, b)) in ours.fields.iter().zip(&theirs.fields).enumerate() {
        assert!(
            a == b,
            "{at}: field {i}: h1 ({:?}, {:?}), {who} ({:?}, {:?})",
            Short(&a.0),
            Short(&a.1),
            Short(&b.0),
            Short(&b.1)
        );
    }
}

/// The head as plainly split as possible, for the evidence of a class: the
/// start line (after skipped empty lines, for a request) and each complete
/// field line before the empty line, as (name, trimmed value). Lines end at
/// LF (a CR before it dropped); continuation lines and lines without a colon
/// are left out.
struct Plain<'a> {
    /// Where the start line begins (after skipped empty lines).
    start_at: usize,
    start: &'a [u8],
    fields: Vec<(&'a [u8], &'a [u8])>,
    /// The complete lines after the start line, before the empty line:
    /// (offset, length without the line end).
    lines: Vec<(usize, usize)>,
    /// Where the lines after the start line stop: the start of the empty
    /// line, or of the unfinished last line.
    fields_end: usize,
    /// Where the head ends: after its empty line, or `data.len()` when
    /// there is none.
    head_end: usize,
}

fn plain(data: &[u8], kind: Kind) -> Plain<'_> {
    let mut pos = 0;
    if kind == Kind::Request {
        loop {
            if data[pos..].starts_with(b"\r\n") {
                pos += 2;
            } else if data[pos..].starts_with(b"\n") {
                pos += 1;
            } else {
                break;
            }
        }
    }
    let mut out = Plain {
        start_at: pos,
        start: &[],
        fields: Vec::new(),
        lines: Vec::new(),
        fields_end: data.len(),
        head_end: data.len(),
    };
    let mut first = true;
    loop {
        let Some(nl) = data[pos..].iter().position(|&b| b == b'\n') else {
            if !first {
                out.fields_end = pos;
            }
            break;
        };
        let mut line = &data[pos..pos + nl];
        if line.last() == Some(&b'\r') {
            line = &line[..line.len() - 1];
        }
        let at = pos;
        pos += nl + 1;
        if first {
            out.start = line;
            first = false;
            continue;
        }
        if line.is_empty() {
            (out.fields_end, out.head_end) = (at, pos);
            break;
        }
        out.lines.push((at, line.len()));
        if is_ows(line[0]) {
            continue;
        }
        if let Some(c) = line.iter().position(|&b| b == b':') {
            out.fields.push((&line[..c], trim(&line[c + 1..])));
        }
    }
    if first {
        out.start = &data[pos..];
    }
    out
}

impl Plain<'_> {
    fn values(&self, name: &[u8]) -> Vec<&[u8]> {
        self.fields
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|&(_, v)| v)
            .collect()
    }

    fn has(&self, name: &[u8]) -> bool {
        !self.values(name).is_empty()
    }

    /// The version's minor digit, when the start line has the shape
    /// `HTTP/1.d`.
    fn minor(&self, kind: Kind) -> Option<u8> {
        let v = match kind {
            Kind::Request => self.start.get(self.start.len().checked_sub(8)?..)?,
            Kind::Response => self.start.get(..8)?,
        };
        let d = v.strip_prefix(b"HTTP/1.")?[0];
        d.is_ascii_digit().then_some(d - b'0')
    }

    /// The request line's method and target, split at SP (or at runs of SP
    /// and HTAB, which h1 takes with its leniency).
    fn method_target(&self) -> (&[u8], &[u8]) {
        let mut parts = self
            .start
            .split(|&b| b == b' ' || b == b'\t')
            .filter(|p| !p.is_empty());
        (
            parts.next().unwrap_or_default(),
            parts.next().unwrap_or_default(),
        )
    }
}

/// `1*DIGIT`, or a list of equal ones (RFC 9110 §8.6), up to 18 digits
/// after leading zeros, in every `Content-Length` value: the one length, or
/// `None` if any value breaks that.
fn plain_content_length(values: &[&[u8]]) -> Option<u128> {
    let mut seen = None;
    for v in values {
        for elem in v.split(|&b| b == b',') {
            let e = trim(elem);
            if e.is_empty() || !e.iter().all(u8::is_ascii_digit) {
                return None;
            }
            let significant = &e[e.iter().take_while(|&&b| b == b'0').count()..];
            if significant.len() > 18 {
                return None;
            }
            let n = significant
                .iter()
                .fold(0u128, |n, &d| n * 10 + u128::from(d - b'0'));
            if seen.is_some_and(|s| s != n) {
                return None;
            }
            seen = Some(n);
        }
    }
    seen
}

/// Where the parts of the request line lie, read plainly: the method is
/// the run of tchars at the line's start, the target starts after the SP
/// and HTAB that follow it.
struct RequestLine {
    start: usize,
    method_end: usize,
    target_at: usize,
    /// The line's end (its CR or LF), or the input's end.
    end: usize,
}

fn request_line(p: &Plain<'_>, data: &[u8]) -> RequestLine {
    let method_end = p.start_at + p.start.iter().take_while(|&&b| is_tchar(b)).count();
    let target_at = method_end
        + data[method_end..]
            .iter()
            .take_while(|&&b| is_ows(b))
            .count();
    RequestLine {
        start: p.start_at,
        method_end,
        target_at,
        end: p.start_at + p.start.len(),
    }
}

impl RequestLine {
    /// How many parts (runs of bytes other than SP and HTAB) the line has
    /// before `o`.
    fn parts_before(&self, data: &[u8], o: usize) -> usize {
        data[self.start.min(o)..o]
            .split(|&b| is_ows(b))
            .filter(|p| !p.is_empty())
            .count()
    }
}

/// A byte a request-target may hold (RFC 9112 §3.2, RFC 3986: VCHAR; `#`
/// starts a fragment, which a target does not have).
fn is_target_byte(b: u8) -> bool {
    (0x21..=0x7e).contains(&b) && b != b'#'
}

/// Whether `HTTP/` DIGIT `.` DIGIT ends just before `o`.
fn after_version(data: &[u8], o: usize) -> bool {
    o >= 8
        && data.get(o - 8..o).is_some_and(|v| {
            v.starts_with(b"HTTP/")
                && v[5].is_ascii_digit()
                && v[6] == b'.'
                && v[7].is_ascii_digit()
        })
}

/// `uri-host [ ":" port ]` with a non-empty host (RFC 9110 §7.2, RFC 3986
/// §3.2.2, read by fluent-uri); with `connect`, the `uri-host ":" port` of
/// CONNECT's authority-form, its port a TCP port (RFC 9110 §9.3.6: a
/// server MUST reject an empty or invalid port).
fn valid_authority(v: &[u8], connect: bool) -> bool {
    let Ok(v) = std::str::from_utf8(v) else {
        return false;
    };
    if v.contains(['/', '?', '#', '@']) {
        return false;
    }
    let uri = format!("http://{v}/");
    let Ok(uri) = fluent_uri::Uri::parse(uri.as_str()) else {
        return false;
    };
    let Some(auth) = uri.authority() else {
        return false;
    };
    auth.as_str() == v
        && !auth.host().is_empty()
        && (!connect || auth.port_to_u16().is_ok_and(|p| p.is_some_and(|p| p != 0)))
}

/// Whether the request line's target is in absolute-form (RFC 9112
/// §3.2.2), as [`target_form_valid`] takes it.
fn is_absolute_form(p: &Plain<'_>) -> bool {
    let (method, target) = p.method_target();
    method != b"CONNECT"
        && target != b"*"
        && !target.starts_with(b"/")
        && target_form_valid(method, target)
}

/// Whether RFC 9112 §3.2 has a server take `target` with `method`:
/// authority-form for CONNECT alone (§3.2.3), asterisk-form for OPTIONS
/// alone (§3.2.4), else origin-form or an absolute URI with a non-empty
/// host and no userinfo (§3.2.2; RFC 9110 §4.2.1: a recipient MUST reject
/// an `http` URI with an empty host, §4.2.4: userinfo is an error).
fn target_form_valid(method: &[u8], target: &[u8]) -> bool {
    if method == b"CONNECT" {
        return valid_authority(target, true);
    }
    if target == b"*" {
        return method == b"OPTIONS";
    }
    if target.starts_with(b"/") {
        return true;
    }
    let Ok(t) = std::str::from_utf8(target) else {
        return false;
    };
    fluent_uri::Uri::parse(t).is_ok_and(|uri| {
        uri.authority()
            .is_some_and(|a| !a.host().is_empty() && a.userinfo().is_none())
    })
}

/// Whether the input shows a refusable obs-fold (RFC 9112 §5.2: a server
/// MAY reject it) at h1's offset `o`: a line of the head starting with SP
/// or HTAB, at `o`; with `allow_obs_fold`, a folded framing field (h1
/// unfolds others), its value starting at `o`, or a line starting with
/// whitespace right after the start line (it continues no field).
fn obs_fold_at(p: &Plain<'_>, data: &[u8], o: usize, config: &Config) -> bool {
    let line_start_ows = |at: usize| {
        at > p.start_at
            && at <= p.fields_end
            && data[at - 1] == b'\n'
            && data.get(at).copied().is_some_and(is_ows)
    };
    if !config.allow_obs_fold {
        return line_start_ows(o);
    }
    if line_start_ows(o) && p.lines.first().is_none_or(|&(first, _)| first == o) {
        return true;
    }
    // The field holding `o` (its value starts on its first line or, when
    // that is empty, on a continuation line): its name, and whether a
    // continuation line follows its first line.
    let Some(mut i) = p.lines.iter().rposition(|&(at, _)| at < o) else {
        return false;
    };
    while i > 0 && is_ows(data[p.lines[i].0]) {
        i -= 1;
    }
    let (at, len) = p.lines[i];
    let line = &data[at..at + len];
    let Some(colon) = line.iter().position(|&b| b == b':') else {
        return false;
    };
    let next = p
        .lines
        .get(i + 1)
        .map(|&(at, _)| at)
        .unwrap_or(p.fields_end);
    const FRAMING: [&[u8]; 6] = [
        b"host",
        b"expect",
        b"upgrade",
        b"connection",
        b"content-length",
        b"transfer-encoding",
    ];
    at + colon < o
        && FRAMING
            .iter()
            .any(|f| line[..colon].eq_ignore_ascii_case(f))
        && line_start_ows(next)
}

/// The codings of the `Transfer-Encoding` field values, lowercased, each
/// with whether it has parameters, read by the grammar of RFC 9110 §10.1.4
/// (`transfer-coding = token *( OWS ";" OWS transfer-parameter )`,
/// `transfer-parameter = token BWS "=" BWS ( token / quoted-string )`,
/// lists by §5.6.1 with empty elements skipped); `None` if a value breaks
/// it. Split at `,` and `;` outside quoted strings.
fn te_codings(values: &[&[u8]]) -> Option<Vec<(String, bool)>> {
    fn split(v: &[u8], sep: u8) -> Option<Vec<&[u8]>> {
        let (mut out, mut start, mut quoted, mut i) = (Vec::new(), 0, false, 0);
        while i < v.len() {
            match (quoted, v[i]) {
                (true, b'\\') => i += 1,
                (_, b'"') => quoted = !quoted,
                (false, b) if b == sep => {
                    out.push(&v[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
            i += 1;
        }
        (!quoted && i == v.len()).then(|| {
            out.push(&v[start..]);
            out
        })
    }
    let token = |t: &[u8]| !t.is_empty() && t.iter().all(|&b| is_tchar(b));
    let quoted_string = |t: &[u8]| {
        let Some(inner) = t.strip_prefix(b"\"").and_then(|t| t.strip_suffix(b"\"")) else {
            return false;
        };
        let mut i = 0;
        while i < inner.len() {
            match inner[i] {
                b'\\' if inner.get(i + 1).copied().is_some_and(is_value_byte) => i += 2,
                b'\\' | b'"' => return false,
                b if !is_value_byte(b) => return false,
                _ => i += 1,
            }
        }
        true
    };
    let mut codings = Vec::new();
    for v in values {
        for elem in split(v, b',')? {
            let elem = trim(elem);
            if elem.is_empty() {
                continue;
            }
            let parts = split(elem, b';')?;
            let coding = trim(parts[0]);
            if !token(coding) {
                return None;
            }
            for param in &parts[1..] {
                let param = trim(param);
                let eq = param.iter().position(|&b| b == b'=')?;
                let (name, value) = (trim(&param[..eq]), trim(&param[eq + 1..]));
                if !token(name) || !(token(value) || quoted_string(value)) {
                    return None;
                }
            }
            let name = String::from_utf8_lossy(coding).to_ascii_lowercase();
            codings.push((name, parts.len() > 1));
        }
    }
    Some(codings)
}

/// Whether the `Transfer-Encoding` values are ones h1 may refuse:
///
/// - against the grammar of RFC 9110 §10.1.4 ([`te_codings`]);
/// - `chunked` more than once, not last, or with parameters (RFC 9112
///   §6.1: a sender MUST NOT apply it more than once, and it is the final
///   coding; §7: chunked defines no parameters);
/// - in a request, anything but `chunked` alone (§6.3 rule 4: a request
///   whose final coding is not chunked MUST get 400; §6.1: a coding the
///   server does not understand, SHOULD 501; h1 understands only chunked);
/// - a field with no coding (`Transfer-Encoding:` empty, or only commas):
///   h1's stricter choice, as a peer that reads the field differently
///   (ignoring it, or taking the first line only) frames the body another
///   way;
/// - a parameter's quoted-string holding `,` or `;`: h1's stricter choice,
///   as a reader that splits the list without regard to quotes sees other
///   codings (RFC-valid, refused: listed in fuzz/README.md).
fn te_refusable(kind: Kind, values: &[&[u8]]) -> bool {
    let empty_field = values
        .iter()
        .any(|v| trim(v).split(|&b| b == b',').all(|e| trim(e).is_empty()));
    let quoted_delimiter = |v: &[u8]| {
        let (mut quoted, mut escaped) = (false, false);
        for &b in v {
            match (quoted, escaped, b) {
                (true, _, b',' | b';') => return true,
                (_, true, _) => escaped = false,
                (true, false, b'\\') => escaped = true,
                (_, false, b'"') => quoted = !quoted,
                _ => {}
            }
        }
        false
    };
    let quoted_delimiter = values.iter().any(|v| quoted_delimiter(v));
    let Some(codings) = te_codings(values) else {
        return true;
    };
    let chunked: Vec<usize> = (0..codings.len())
        .filter(|&i| codings[i].0 == "chunked")
        .collect();
    let bad_chunked = chunked.len() > 1
        || chunked
            .first()
            .is_some_and(|&i| i + 1 != codings.len() || codings[i].1);
    let request_not_chunked = kind == Kind::Request && (codings.len() != 1 || chunked.is_empty());
    empty_field || quoted_delimiter || bad_chunked || request_not_chunked
}

/// The class of a rejection by h1 of what the other parser accepts or
/// finds a valid prefix (the classes of `fuzz/README.md`), checked against
/// the input itself; `Err` with the reason when the input does not show it.
fn h1_stricter(
    kind: Kind,
    data: &[u8],
    config: &Config,
    e: &Error,
) -> Result<&'static str, String> {
    let o = e.offset();
    let at = |i: usize| data.get(i).copied();
    let p = plain(data, kind);
    let shown = |ok: bool, class: &'static str| {
        if ok {
            Ok(class)
        } else {
            Err(format!("{e:?} but the input does not show {class}"))
        }
    };
    match e.kind() {
        K::BareLf => shown(
            !config.allow_bare_lf
                && o < p.head_end
                && at(o) == Some(b'\n')
                && (o == 0 || at(o - 1) != Some(b'\r')),
            "bare-lf",
        ),
        K::ObsFold => shown(obs_fold_at(&p, data, o, config), "obs-fold"),
        K::MissingHost => shown(
            kind == Kind::Request && p.minor(kind).is_some_and(|m| m >= 1) && !p.has(b"host"),
            "missing-host",
        ),
        K::DuplicateHost => shown(
            kind == Kind::Request && p.values(b"host").len() >= 2,
            "duplicate-host",
        ),
        K::InvalidHost => {
            // An empty `Host` is taken beside an absolute-form target, whose
            // authority the server uses instead (RFC 9112 §3.2.2).
            let valid =
                |v: &[u8]| valid_authority(v, false) || v.is_empty() && is_absolute_form(&p);
            shown(
                kind == Kind::Request && p.values(b"host").iter().any(|v| !valid(v)),
                "invalid-host",
            )
        }
        K::InvalidContentLength => shown(
            p.has(b"content-length")
                && plain_content_length(&p.values(b"content-length")).is_none(),
            "invalid-content-length",
        ),
        K::ContentLengthWithTransferEncoding => shown(
            p.has(b"content-length") && p.has(b"transfer-encoding"),
            "content-length-with-transfer-encoding",
        ),
        K::TransferEncodingInHttp10 => shown(
            p.minor(kind) == Some(0) && p.has(b"transfer-encoding"),
            "transfer-encoding-in-http10",
        ),
        K::InvalidTransferEncoding => shown(
            te_refusable(kind, &p.values(b"transfer-encoding")),
            "transfer-coding",
        ),
        K::UnsupportedTransferCoding => shown(
            kind == Kind::Request
                && te_codings(&p.values(b"transfer-encoding"))
                    .is_some_and(|c| c.iter().any(|(name, _)| name != "chunked")),
            "transfer-coding",
        ),
        K::InvalidTarget => {
            // The first byte of the target's run that is neither a target
            // byte nor the SP or line end after it.
            let r = request_line(&p, data);
            shown(
                o >= r.target_at
                    && data[r.target_at..o].iter().all(|&b| is_target_byte(b))
                    && at(o)
                        .is_some_and(|b| !is_target_byte(b) && !matches!(b, b' ' | b'\r' | b'\n')),
                "target-byte",
            )
        }
        K::InvalidTargetForm => {
            let (method, target) = p.method_target();
            shown(!target_form_valid(method, target), "target-form")
        }
        K::InvalidMethod => {
            // Where the method's token run stops, at a byte that is not the
            // SP after it.
            let r = request_line(&p, data);
            shown(
                o == r.method_end && at(o).is_some_and(|b| !matches!(b, b' ' | b'\t')),
                "method-not-token",
            )
        }
        K::InvalidRequestLine => {
            let r = request_line(&p, data);
            let ws = |b: Option<u8>| b.is_some_and(is_ows);
            let strict = !config.allow_multiple_spaces_in_request_line;
            // Whitespace first; in the strict profile a second SP or any
            // HTAB (an empty part, or a separator the grammar lacks); the
            // line ending before its three parts; anything but the line end
            // after the version.
            let shows = (o == p.start_at && ws(at(o)))
                || (strict
                    && o > p.start_at
                    && ws(at(o))
                    && (ws(at(o - 1)) || at(o) == Some(b'\t')))
                || (matches!(at(o), Some(b'\r' | b'\n')) && r.parts_before(data, o) < 3)
                || (after_version(data, o) && !matches!(at(o), Some(b'\r' | b'\n')));
            shown(o <= r.end && shows, "request-line-empty-part")
        }
        K::InvalidVersion if kind == Kind::Response && o == 0 => shown(
            matches!(at(0), Some(b'\r' | b'\n')),
            "empty-line-before-status-line",
        ),
        K::InvalidVersion => shown(
            at(o).is_some_and(|b| b.is_ascii_digit()) && after_version(data, o),
            "version-digits",
        ),
        K::InvalidStatusLine if o == 8 && at(o).is_some_and(|b| b.is_ascii_digit()) => {
            shown(after_version(data, o), "version-digits")
        }
        K::InvalidStatusLine => {
            let code = p.start.get(9..).unwrap_or_default();
            let n = code.iter().take_while(|b| b.is_ascii_digit()).count();
            shown(
                p.start.len() >= 9 && (n != 3 || code[0] == b'0'),
                "status-code",
            )
        }
        K::TargetTooLong => shown(
            p.method_target().1.len() > config.max_target_len
                || (p.start_at..=request_line(&p, data).end).contains(&o)
                    && data[o..]
                        .iter()
                        .take_while(|&&b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
                        .count()
                        > config.max_target_len,
            "limit",
        ),
        K::TooManyFields => {
            // Field lines, not continuation lines, the unfinished last one
            // included.
            let complete = p.lines.iter().filter(|&&(at, _)| !is_ows(data[at])).count();
            let unfinished = usize::from(
                p.fields_end < data.len()
                    && !matches!(data[p.fields_end], b' ' | b'\t' | b'\r' | b'\n'),
            );
            shown(complete + unfinished > config.max_fields, "limit")
        }
        K::FieldLineTooLong => {
            // The line at the offset (a field line, or a status line, which
            // h1 holds to the same limit), with its continuation lines when
            // obs-fold is allowed (a folded field is one line to the limit),
            // without the CR of its end (or a last CR, which may start it).
            let line_start = match kind {
                Kind::Response => o == 0,
                Kind::Request => false,
            } || (o > p.start_at && o <= p.fields_end && data[o - 1] == b'\n');
            let mut end = o;
            loop {
                match data[end..].iter().position(|&b| b == b'\n') {
                    None => {
                        end = data.len() - usize::from(data.last() == Some(&b'\r'));
                        break;
                    }
                    Some(i) if config.allow_obs_fold && at(end + i + 1).is_some_and(is_ows) => {
                        end += i + 1;
                    }
                    Some(i) => {
                        end += i - usize::from(i > 0 && data[end + i - 1] == b'\r');
                        break;
                    }
                }
            }
            shown(line_start && end - o > config.max_field_line_len, "limit")
        }
        K::HeadTooLarge => shown(p.head_end > config.max_head_len, "limit"),
        _ => Err(format!("{e:?}: no class lists this error")),
    }
}

/// `data` rewritten without what h1 accepts on RFC grounds and `reference`
/// lacks, within the head (`head_len`, or all of `data` while the head is
/// incomplete); the classes rewritten, and the bytes added before the head's
/// end (negative when removed). Each rewrite is made only for the parser
/// that lacks the feature, so the rest of the input is compared as that
/// parser reads it:
///
/// - `empty-lines-before-request-line` (picohttpparser, which skips one):
///   removed (RFC 9112 §2.2 asks a server to skip at least one);
/// - `request-line-whitespace`, under
///   `allow_multiple_spaces_in_request_line` (RFC 9112 §3 MAY): runs of SP
///   and HTAB in the request line become one SP (picohttpparser), or HTAB
///   becomes SP (httparse, whose option takes runs of SP only);
/// - `http-1x-minor-above-1` (httparse): `HTTP/1.2`..`HTTP/1.9` becomes
///   `HTTP/1.1` (RFC 9110 §2.5: processed as the highest minor version
///   supported);
/// - `status-line-without-sp` (picohttpparser): an SP inserted between the
///   status code and the line end (an empty reason; h1 and httparse accept
///   it without);
/// - `obs-fold` (httparse, requests: it has the option for responses
///   only), under `allow_obs_fold`: each fold's CR LF becomes SP (RFC 9112
///   §5.2: replaced by SP before the value is interpreted).
fn canonical(
    reference: Reference,
    kind: Kind,
    data: &[u8],
    head_len: Option<usize>,
    config: &Config,
) -> (Vec<u8>, Vec<&'static str>, isize) {
    let pico = matches!(reference, Reference::Pico);
    let end = head_len.unwrap_or(data.len());
    let mut classes = Vec::new();
    // The request line starts after any empty lines; picohttpparser skips
    // one, so it gets the others removed; httparse keeps them all.
    let empty_line = |at: usize| match data[at..end] {
        [b'\n', ..] => 1,
        [b'\r', b'\n', ..] => 2,
        _ => 0,
    };
    let mut pos = 0;
    if kind == Kind::Request {
        while empty_line(pos) > 0 {
            pos += empty_line(pos);
        }
    }
    let kept = if pico { empty_line(0) } else { pos };
    if kept < pos {
        classes.push("empty-lines-before-request-line");
    }
    let line_end = data[pos..end]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(end, |i| pos + i);
    // The start line without its line end.
    let mut body_of_line = line_end;
    if body_of_line > pos && data[body_of_line - 1] == b'\r' {
        body_of_line -= 1;
    }
    let mut line: Vec<u8> = Vec::new();
    let original = &data[pos..body_of_line];
    if kind == Kind::Request && config.allow_multiple_spaces_in_request_line {
        for &b in original {
            if !is_ows(b) {
                line.push(b);
            } else if !pico || line.last() != Some(&b' ') {
                // (picohttpparser: one SP for the whole run)
                line.push(b' ');
            }
        }
        if line != original {
            classes.push("request-line-whitespace");
        }
    } else {
        line.extend_from_slice(original);
    }
    // Where `HTTP/1.` starts: the request line's last part, the status
    // line's first.
    let version_at = match kind {
        Kind::Request => line
            .iter()
            .rposition(|&b| b == b' ')
            .map(|i| i + 1)
            .filter(|&v| line.len() == v + 8 && line[v..].starts_with(b"HTTP/1.")),
        Kind::Response => line.starts_with(b"HTTP/1.").then_some(0),
    };
    if let Some(d) = version_at.and_then(|v| line.get_mut(v + 7)) {
        if !pico && (b'2'..=b'9').contains(d) {
            *d = b'1';
            classes.push("http-1x-minor-above-1");
        }
    }
    if pico
        && kind == Kind::Response
        && line.len() == 12
        && line[9..12].iter().all(u8::is_ascii_digit)
        && body_of_line < end
    {
        line.push(b' ');
        classes.push("status-line-without-sp");
    }
    let mut out = data[..kept].to_vec();
    out.extend_from_slice(&line);
    out.extend_from_slice(&data[body_of_line..end]);
    if config.allow_obs_fold && !pico && kind == Kind::Request {
        let first_field = out[kept..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(out.len(), |i| kept + i + 1);
        let mut folded = false;
        for i in first_field..out.len() {
            if out[i] == b'\n' && out.get(i + 1).is_some_and(|&b| is_ows(b)) {
                out[i] = b' ';
                if out[i - 1] == b'\r' {
                    out[i - 1] = b' ';
                }
                folded = true;
            }
        }
        if folded {
            classes.push("obs-fold");
        }
    }
    let delta = out.len() as isize - end as isize;
    out.extend_from_slice(&data[end..]);
    (out, classes, delta)
}

/// One comparison of h1 (under `config`) with `reference` on `data`.
fn judge(reference: Reference, kind: Kind, data: &[u8], config: &Config, ours: &Ours) {
    let theirs = reference.parse(kind, data);
    let mode = if config.allow_obs_fold {
        "lenient"
    } else {
        "strict"
    };
    let at = format!("{kind:?}, h1 {mode} vs {}", reference.name());
    match (ours, &theirs) {
        (Ours::Complete(a), Verdict::Complete(b)) => same(reference, kind, a, b, 0, &at),
        (Ours::Partial, Verdict::Partial) | (Ours::Rejected(_), Verdict::Rejected(_)) => {}
        (Ours::Rejected(e), _) => match h1_stricter(kind, data, config, e) {
            Ok(class) => record(class, reference),
            Err(why) => panic!(
                "{at}: h1 rejects ({e:?}) what {} finds {theirs:?}, and no listed class \
                     explains it: {why}",
                reference.name()
            ),
        },
        (Ours::Complete(_) | Ours::Partial, _) => {
            let head_len = match ours {
                Ours::Complete(a) => Some(a.len),
                _ => None,
            };
            let (canon, classes, delta) = canonical(reference, kind, data, head_len, config);
            let again = (!classes.is_empty()).then(|| reference.parse(kind, &canon));
            match (ours, &again) {
                (Ours::Complete(a), Some(Verdict::Complete(b))) => {
                    let at = format!("{at} ({classes:?} rewritten)");
                    same(reference, kind, a, b, delta, &at);
                    classes.iter().for_each(|&c| record(c, reference));
                }
                (Ours::Partial, Some(Verdict::Partial)) => {
                    classes.iter().for_each(|&c| record(c, reference));
                }
                (Ours::Partial, _)
                    if matches!(again.as_ref().unwrap_or(&theirs), Verdict::Rejected(_))
                        && deferred(reference, kind, data, &canon, config) =>
                {
                    record("deferred-verdict", reference);
                }
                _ => panic!(
                    "{at}: h1 says {ours:?}; {} says {theirs:?}, and no listed class explains it \
                     (rewritten for {classes:?}: {again:?} on {:?})",
                    reference.name(),
                    Short(&canon)
                ),
            }
        }
    }
}

/// Class `deferred-verdict`: h1 asks for more bytes where `reference` has
/// already rejected, because h1 names the error only once the line ends
/// (505 for a well-formed version other than 1.x, RFC 9112 §2.3; whitespace
/// before a colon, RFC 9112 §5.1, or a bad name): the reference's rejection
/// lies in the unfinished last line (it does not reject the bytes before
/// that line, of `canon`, the input as [`canonical`] rewrote it), and h1
/// rejects `data` once that line ends with CRLF.
fn deferred(reference: Reference, kind: Kind, data: &[u8], canon: &[u8], config: &Config) -> bool {
    let line_start = canon.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let before = reference.parse(kind, &canon[..line_start]);
    let ended = [data, b"\r\n"].concat();
    !matches!(before, Verdict::Rejected(_))
        && matches!(h1_head(kind, &ended, config), Ours::Rejected(_))
}

/// Target `diff_request`: h1's request parser (strict, and all leniencies)
/// against httparse. See the module docs.
pub fn diff_request(data: &[u8]) {
    for (config, lenient) in [(strict(), false), (lenient(), true)] {
        let ours = h1_head(Kind::Request, data, &config);
        judge(
            Reference::Httparse { lenient },
            Kind::Request,
            data,
            &config,
            &ours,
        );
    }
}

/// Target `diff_pico_request`: h1's request parser (strict, and all
/// leniencies) against picohttpparser. See the module docs.
pub fn diff_pico_request(data: &[u8]) {
    for config in [strict(), lenient()] {
        let ours = h1_head(Kind::Request, data, &config);
        judge(Reference::Pico, Kind::Request, data, &config, &ours);
    }
}

/// Target `diff_response`: h1's response parser (strict, and all
/// leniencies) against httparse and picohttpparser. See the module docs.
pub fn diff_response(data: &[u8]) {
    for (config, lenient) in [(strict(), false), (lenient(), true)] {
        let ours = h1_head(Kind::Response, data, &config);
        for reference in [Reference::Httparse { lenient }, Reference::Pico] {
            judge(reference, Kind::Response, data, &config, &ours);
        }
    }
}

/// What a chunked body decoded to, as either decoder reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Dechunked {
    /// The chunk data, concatenated (up to the error, if any).
    data: Vec<u8>,
    /// The trailer fields (name, trimmed value), once the body is complete.
    trailers: Vec<Field>,
    /// The bytes the body took, or why it failed.
    end: Result<usize, String>,
}

/// The limits the reference applies: the same policy as h1's defaults,
/// checked in the plainest way (they are limits, not grammar).
struct Limits {
    /// Declared chunk sizes, summed, may not pass this.
    max_body: u128,
    /// Longest chunk-size line without its CRLF.
    max_line: usize,
    /// Extension bytes over the whole body.
    max_ext: usize,
    /// Trailer fields.
    max_fields: usize,
    /// Longest trailer field line without its CRLF.
    max_field_line: usize,
    /// Longest trailer section, its empty line included.
    max_section: usize,
}

/// Where [`reference_chunked`] is in the grammar of RFC 9112 §7.1:
///
/// ```text
/// chunked-body   = *chunk last-chunk trailer-section CRLF
/// chunk          = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
/// chunk-size     = 1*HEXDIG
/// last-chunk     = 1*("0") [ chunk-ext ] CRLF
/// chunk-ext      = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
/// chunk-ext-name = token
/// chunk-ext-val  = token / quoted-string
/// trailer-section = *( field-line CRLF )
/// field-line     = field-name ":" OWS field-value OWS
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum St {
    /// In the size's hex digits (none yet at the start of a line).
    Size,
    /// BWS after the size or after an extension: only `;` may end it.
    BwsThenSemi,
    /// BWS after `;`: a name comes.
    BwsThenName,
    /// In an extension name.
    ExtName,
    /// BWS after an extension name: `=` or `;` may end it.
    BwsAfterName,
    /// BWS after `=`: a value comes.
    BwsThenValue,
    /// In a token value.
    ExtToken,
    /// In a quoted-string value, after `"`.
    Quoted,
    /// After a backslash in a quoted-string.
    QuotedPair,
    /// After the closing `"`.
    AfterQuoted,
    /// After the CR of the chunk-size line.
    LineLf,
    /// In chunk data: this many bytes left.
    Data(u128),
    /// After chunk data: CR comes.
    DataCr,
    /// After chunk data's CR: LF comes.
    DataLf,
    /// At the start of a trailer line (or the empty line).
    TrailerLine,
    /// In a trailer field name.
    TrailerName,
    /// In a trailer field value.
    TrailerValue,
    /// After the CR of a trailer field line.
    TrailerLf,
    /// After the CR of the empty line.
    FinalLf,
}

/// The reference chunked decoder: one byte at a time through [`St`],
/// sharing no code with h1. Returns what it decoded and where the body
/// ended (or why it failed).
fn reference_chunked(input: &[u8], limits: &Limits) -> Dechunked {
    let mut out = Dechunked {
        data: Vec::new(),
        trailers: Vec::new(),
        end: Err(String::from("input ended inside the body")),
    };
    let fail = |mut out: Dechunked, i: usize, why: &str| {
        out.trailers.clear();
        out.end = Err(format!("byte {i}: {why}"));
        out
    };
    let mut st = St::Size;
    // The chunk-size line: hex digits seen, the size, where the line
    // started; extension bytes so far; declared sizes so far.
    let (mut digits, mut size, mut line_start) = (0usize, 0u128, 0usize);
    let (mut ext, mut declared) = (0usize, 0u128);
    // The trailer line and section being read.
    let (mut name, mut value) = (Vec::new(), Vec::new());
    let (mut field_start, mut section_start) = (0usize, 0usize);
    for (i, &b) in input.iter().enumerate() {
        st = match st {
            St::Size => {
                if let Some(d) = (b as char).to_digit(16) {
                    digits += 1;
                    // Past any limit already: saturate instead of growing.
                    size = (size * 16 + u128::from(d)).min(u128::from(u64::MAX) + 1);
                    St::Size
                } else if digits == 0 {
                    return fail(out, i, "chunk-size without a hex digit");
                } else {
                    match b {
                        b'\r' => St::LineLf,
                        b';' => St::BwsThenName,
                        b' ' | b'\t' => St::BwsThenSemi,
                        _ => return fail(out, i, "byte after the chunk size"),
                    }
                }
            }
            St::BwsThenSemi => match b {
                b' ' | b'\t' => St::BwsThenSemi,
                b';' => St::BwsThenName,
                _ => return fail(out, i, "BWS not followed by ';'"),
            },
            St::BwsThenName => match b {
                b' ' | b'\t' => St::BwsThenName,
                _ if is_tchar(b) => St::ExtName,
                _ => return fail(out, i, "no chunk-ext-name after ';'"),
            },
            St::ExtName => match b {
                _ if is_tchar(b) => St::ExtName,
                b' ' | b'\t' => St::BwsAfterName,
                b'=' => St::BwsThenValue,
                b';' => St::BwsThenName,
                b'\r' => St::LineLf,
                _ => return fail(out, i, "byte in chunk-ext-name"),
            },
            St::BwsAfterName => match b {
                b' ' | b'\t' => St::BwsAfterName,
                b'=' => St::BwsThenValue,
                b';' => St::BwsThenName,
                _ => {
                    return fail(
                        out,
                        i,
                        "BWS after chunk-ext-name not followed by '=' or ';'",
                    )
                }
            },
            St::BwsThenValue => match b {
                b' ' | b'\t' => St::BwsThenValue,
                b'"' => St::Quoted,
                _ if is_tchar(b) => St::ExtToken,
                _ => return fail(out, i, "no chunk-ext-val after '='"),
            },
            St::ExtToken => match b {
                _ if is_tchar(b) => St::ExtToken,
                b' ' | b'\t' => St::BwsThenSemi,
                b';' => St::BwsThenName,
                b'\r' => St::LineLf,
                _ => return fail(out, i, "byte in a token chunk-ext-val"),
            },
            St::Quoted => match b {
                b'"' => St::AfterQuoted,
                b'\\' => St::QuotedPair,
                // qdtext = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text
                b'\t' | b' ' | 0x21 | 0x23..=0x5b | 0x5d..=0x7e | 0x80..=0xff => St::Quoted,
                _ => return fail(out, i, "byte in a quoted-string"),
            },
            St::QuotedPair => match b {
                // quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text )
                b'\t' | b' ' | 0x21..=0x7e | 0x80..=0xff => St::Quoted,
                _ => return fail(out, i, "byte in a quoted-pair"),
            },
            St::AfterQuoted => match b {
                b' ' | b'\t' => St::BwsThenSemi,
                b';' => St::BwsThenName,
                b'\r' => St::LineLf,
                _ => return fail(out, i, "byte after a quoted-string"),
            },
            St::LineLf => {
                if b != b'\n' {
                    return fail(out, i, "CR not followed by LF");
                }
                let line_len = i - 1 - line_start;
                ext += line_len - digits;
                if line_len > limits.max_line {
                    return fail(out, i, "chunk-size line over the limit");
                }
                if ext > limits.max_ext {
                    return fail(out, i, "chunk extensions over the limit");
                }
                declared += size;
                if declared > limits.max_body {
                    return fail(out, i, "chunk sizes over the body limit");
                }
                if size == 0 {
                    section_start = i + 1;
                    St::TrailerLine
                } else {
                    St::Data(size)
                }
            }
            St::Data(left) => {
                out.data.push(b);
                if left == 1 {
                    St::DataCr
                } else {
                    St::Data(left - 1)
                }
            }
            St::DataCr => {
                if b != b'\r' {
                    return fail(out, i, "chunk data not followed by CR");
                }
                St::DataLf
            }
            St::DataLf => {
                if b != b'\n' {
                    return fail(out, i, "chunk data not followed by CRLF");
                }
                (digits, size, line_start) = (0, 0, i + 1);
                St::Size
            }
            St::TrailerLine => match b {
                b'\r' => St::FinalLf,
                _ if is_tchar(b) => {
                    (name, field_start) = (vec![b], i);
                    St::TrailerName
                }
                _ => return fail(out, i, "trailer line does not start with a field name"),
            },
            St::TrailerName => match b {
                b':' => {
                    value.clear();
                    St::TrailerValue
                }
                _ if is_tchar(b) => {
                    name.push(b);
                    St::TrailerName
                }
                _ => return fail(out, i, "byte in a trailer field name"),
            },
            St::TrailerValue => match b {
                b'\r' => St::TrailerLf,
                _ if is_value_byte(b) => {
                    value.push(b);
                    St::TrailerValue
                }
                _ => return fail(out, i, "byte in a trailer field value"),
            },
            St::TrailerLf => {
                if b != b'\n' {
                    return fail(out, i, "CR not followed by LF in the trailers");
                }
                if i - 1 - field_start > limits.max_field_line {
                    return fail(out, i, "trailer field line over the limit");
                }
                out.trailers
                    .push((std::mem::take(&mut name), trim(&value).to_vec()));
                if out.trailers.len() > limits.max_fields {
                    return fail(out, i, "too many trailer fields");
                }
                St::TrailerLine
            }
            St::FinalLf => {
                if b != b'\n' {
                    return fail(out, i, "CR not followed by LF at the end");
                }
                if i + 1 - section_start > limits.max_section {
                    return fail(out, i, "trailer section over the limit");
                }
                out.end = Ok(i + 1);
                return out;
            }
        };
    }
    out.trailers.clear();
    out
}

/// Target `diff_chunked`: `h1_conn::BodyDecoder` with chunked framing
/// against [`reference_chunked`] on the whole input: the same data, the
/// same trailers, the same end; or both fail, having decoded the same data
/// first.
pub fn diff_chunked(data: &[u8]) {
    let config = h1_conn::Config::default();
    let limits = Limits {
        max_body: u128::from(config.max_body_len),
        max_line: config.parse.max_chunk_line_len,
        max_ext: config.max_chunk_ext_len,
        max_fields: config.parse.max_fields,
        max_field_line: config.parse.max_field_line_len,
        max_section: config.parse.max_head_len,
    };
    let want = reference_chunked(data, &limits);
    let got = decode_run(
        h1_conn::Framing::Chunked,
        data,
        &[data.len()],
        &config,
        STORAGE,
        "one piece",
    );
    let got = Dechunked {
        data: got.data,
        trailers: got
            .trailers
            .unwrap_or_default()
            .into_iter()
            .map(|(n, v)| (n, field_value(&v)))
            .collect(),
        end: got.end.map_err(|e| format!("{e:?}")),
    };
    let show = |d: &Dechunked| {
        format!(
            "end {:?}, data {:?}, trailers {:?}",
            d.end,
            Short(&d.data),
            d.trailers
                .iter()
                .map(|(n, v)| (Short(n), Short(v)))
                .collect::<Vec<_>>()
        )
    };
    let agree = match (&got.end, &want.end) {
        (Ok(_), Ok(_)) => got == want,
        // Both fail: the data decoded before the failure is the same.
        (Err(_), Err(_)) => got.data == want.data,
        _ => false,
    };
    assert!(
        agree,
        "h1 and the reference decoder disagree:\n  h1:        {}\n  reference: {}",
        show(&got),
        show(&want)
    );
}

#[cfg(test)]
mod tests;
