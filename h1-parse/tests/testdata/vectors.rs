//! The shared conformance vectors (`testdata/conformance/vectors.jsonl`)
//! whose verdict a request head decides, run through [`parse_request`] and,
//! split at every byte boundary, through [`HeadParser`].
//!
//! Which vectors a head decides is data, below: category rules
//! ([`rule_for`]) plus explicit per-vector decisions ([`OVERRIDES`]), each
//! with a one-line reason. A vector whose verdict is decided after the head
//! (by chunked framing, the trailer section, an incomplete body, or the
//! server's policy) is *excluded* from the verdict check, but its first head
//! must still parse `Complete`: the defect those vectors carry lies after a
//! valid head. Counts are asserted against floors ([`MIN_HEAD_DECIDED`] …) so
//! that a broken classifier cannot silently shrink the coverage.
//!
//! Every mismatch is collected and printed in one list before the test fails.
use std::fmt::{self, Write as _};

use h1_headers::Entry;
use h1_parse::{Config, Error, HeadParser, RequestHead, Status, TransferEncoding};
use serde_json::Value;

use crate::common::{parse_request, HeadValue};

/// The repository's copy of the shared vectors (this test is left out of the
/// crate's package).
const VECTORS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../testdata/conformance/vectors.jsonl"
);

/// The file holds 265 vectors (README.md); fewer means it was truncated.
const MIN_VECTORS: usize = 265;
/// Vectors whose verdict a request head decides: 91 accepts + 140 rejects.
const MIN_HEAD_DECIDED: usize = 231;
/// Vectors decided after a valid first head (excluded from the verdict check,
/// first head parse-checked).
const MIN_HEAD_VALID: usize = 34;
/// Inputs up to this length get a one-shot parse of every prefix; longer
/// ones a sample (see `check_head`).
const ALL_PREFIXES_UP_TO: usize = 2048;
/// Field storage handed to the parser: more than `Config::max_fields` (100),
/// so the limit, not the storage, decides `lim-003`.
const STORAGE: usize = 128;

/// What a vector says about request heads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// `accept`: the first `requests` heads parse `Complete`.
    Accept,
    /// `accept` by the profile, but the head may also be refused with a
    /// status from `alt_status` (the RFC permits both).
    AcceptOrAlt,
    /// `reject`: `requests` heads parse `Complete`, the next one is refused
    /// with `status` or a member of `alt_status`.
    Reject,
    /// `reject`, but the head never ends (no empty line before EOF) although
    /// a complete line already holds the defect: an early refusal (the
    /// vector's status) or `Partial` (the server answers/closes at EOF).
    RejectOrPartial,
    /// Decided after the head; the head itself must parse `Complete`.
    Excluded(Why),
}

/// Why a vector's verdict is not decided by a request head.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Why {
    /// A chunk-size line, chunk extension or chunk-data end is malformed.
    ChunkedBody,
    /// A trailer field line is malformed.
    TrailerSection,
    /// `status: null`: the body is incomplete at EOF.
    IncompleteBody,
    /// `layer: server`: the codec parses the head, the server's policy answers.
    ServerPolicy,
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Class::Accept => f.write_str("accept"),
            Class::AcceptOrAlt => f.write_str("accept-or-alt"),
            Class::Reject => f.write_str("reject"),
            Class::RejectOrPartial => f.write_str("reject-or-partial"),
            Class::Excluded(why) => write!(f, "excluded:{why:?}"),
        }
    }
}

/// Explicit decisions, applied before the category rules. Every id must be in
/// the file.
const OVERRIDES: &[(&str, Class, &str)] = &[
    (
        "chunk-bad-030",
        Class::Reject,
        "chunked-invalid, but the request line has two SPs (and no Host): the head is fatal",
    ),
    (
        "te-011",
        Class::Reject,
        "layer=server, but DESIGN.md makes the codec refuse an unimplemented coding ('cow, chunked') with 501",
    ),
    (
        "pipe-016",
        Class::Reject,
        "error in the 2nd pipelined head (ws before colon); the 1st is bodiless, so the walk reaches it",
    ),
    (
        "pipe-017",
        Class::Excluded(Why::ChunkedBody),
        "chunk-size 'INVALID!!!' after a valid head",
    ),
    (
        "smug-004",
        Class::Excluded(Why::ChunkedBody),
        "chunk-size '5_' after a valid head",
    ),
    (
        "smug-005",
        Class::Excluded(Why::ChunkedBody),
        "bare CR in a chunk-size line after a valid head",
    ),
    (
        "exp-004",
        Class::Excluded(Why::ServerPolicy),
        "'Expect: 200-ok' -> 417 is server policy; the codec reports Expect::Other",
    ),
    (
        "cl-005",
        Class::AcceptOrAlt,
        "'Content-Length: 5, 5': DESIGN.md says identical duplicates 'may be accepted'; 400 is conformant too",
    ),
    (
        "cl-006",
        Class::AcceptOrAlt,
        "two 'Content-Length: 5' lines: as cl-005",
    ),
    (
        "rl-018",
        Class::RejectOrPartial,
        "after the skipped CRLFs only ' \\r\\n' arrives, no empty line: 400 early or Partial until EOF",
    ),
    (
        "le-007",
        Class::RejectOrPartial,
        "'\\r\\n\\rabc' never ends the head; the bare CR is certain: 400 early or Partial until EOF",
    ),
];

/// Categories whose `reject` vectors (layer `codec`, status non-null) are all
/// decided by the first head; other categories need a rule or an override.
const HEAD_REJECT_CATEGORIES: &[&str] = &[
    "cl-te-conflict",
    "connect",
    "content-length",
    "field-syntax",
    "host",
    "http10-keepalive",
    "limits",
    "line-endings",
    "request-line",
    "request-target",
    "smuggling-desync",
    "te-obfuscation",
    "version",
];

/// One vector, decoded.
struct Vector {
    id: String,
    category: String,
    layer: String,
    accept: bool,
    status: Option<u16>,
    alt_status: Vec<u16>,
    requests: usize,
    /// `accept`: the decoded body of the first request.
    body: Option<Vec<u8>>,
    raw: Vec<u8>,
}

/// ISO-8859-1: each char (all <= U+00FF) is one byte.
fn latin1(id: &str, field: &str, s: &str) -> Vec<u8> {
    s.chars()
        .map(|c| {
            u8::try_from(u32::from(c)).unwrap_or_else(|_| {
                panic!(
                    "{id}: `{field}` holds {c:?} (U+{:04X}), not ISO-8859-1",
                    u32::from(c)
                )
            })
        })
        .collect()
}

fn decode(line_no: usize, line: &str) -> Vector {
    let v: Value =
        serde_json::from_str(line).unwrap_or_else(|e| panic!("{VECTORS}:{line_no}: not JSON: {e}"));
    let str_field = |name: &str| -> String {
        v[name]
            .as_str()
            .unwrap_or_else(|| panic!("{VECTORS}:{line_no}: `{name}` is not a string"))
            .to_owned()
    };
    let id = str_field("id");
    let status_of = |x: &Value| -> u16 {
        x.as_u64()
            .and_then(|n| u16::try_from(n).ok())
            .unwrap_or_else(|| panic!("{id}: bad status {x}"))
    };
    let expect = str_field("expect");
    let accept = match expect.as_str() {
        "accept" => true,
        "reject" => false,
        other => panic!("{id}: expect = {other:?}"),
    };
    let status = match &v["status"] {
        Value::Null => None,
        x => Some(status_of(x)),
    };
    let alt_status = match &v["alt_status"] {
        Value::Null => Vec::new(),
        Value::Array(xs) => xs.iter().map(status_of).collect(),
        x => panic!("{id}: alt_status = {x}"),
    };
    let requests = v["requests"]
        .as_u64()
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or_else(|| panic!("{id}: bad `requests`"));
    let body = v["body"].as_str().map(|b| latin1(&id, "body", b));
    let raw = latin1(&id, "raw", &str_field("raw"));
    Vector {
        category: str_field("category"),
        layer: str_field("layer"),
        id,
        accept,
        status,
        alt_status,
        requests,
        body,
        raw,
    }
}

fn load() -> Vec<Vector> {
    let text = std::fs::read_to_string(VECTORS)
        .unwrap_or_else(|e| panic!("cannot read the shared conformance vectors at {VECTORS}: {e}"));
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| decode(i + 1, l))
        .collect()
}

/// The category rules. `Err` means "this vector needs an explicit decision".
fn rule_for(v: &Vector) -> Result<(Class, &'static str), String> {
    if v.accept {
        if v.alt_status.is_empty() {
            return Ok((
                Class::Accept,
                "accept: the first `requests` heads parse Complete",
            ));
        }
        if v.category == "trailers" {
            return Ok((
                Class::Accept,
                "accept; alt_status concerns framing fields in the trailer section, not the head",
            ));
        }
        return Err(format!("accept with alt_status {:?}", v.alt_status));
    }
    if v.status.is_none() {
        return Ok((
            Class::Excluded(Why::IncompleteBody),
            "status null: the body is incomplete at EOF, after a complete head",
        ));
    }
    if v.layer != "codec" {
        return Err(format!("reject at layer {:?}", v.layer));
    }
    match v.category.as_str() {
        "chunked-invalid" => Ok((
            Class::Excluded(Why::ChunkedBody),
            "chunked-invalid: the defect is in the chunked body, after a valid head",
        )),
        "trailers" => Ok((
            Class::Excluded(Why::TrailerSection),
            "trailers: the defect is in the trailer section, after a valid head",
        )),
        c if HEAD_REJECT_CATEGORIES.contains(&c) => Ok((
            Class::Reject,
            "reject: request line, fields or the framing facts derived from them",
        )),
        c => Err(format!("reject in category {c:?}")),
    }
}

/// What one head must yield.
#[derive(Clone, Debug)]
enum Want {
    Complete,
    CompleteOr(Vec<u16>),
    Reject(Vec<u16>),
    RejectOrPartial(Vec<u16>),
}

impl fmt::Display for Want {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Want::Complete => f.write_str("Complete"),
            Want::CompleteOr(s) => write!(f, "Complete or Err(status in {s:?})"),
            Want::Reject(s) => write!(f, "Err(status in {s:?})"),
            Want::RejectOrPartial(s) => write!(f, "Err(status in {s:?}) or Partial"),
        }
    }
}

/// A parse result with the fields it wrote, comparable across calls.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Outcome {
    Complete(RequestHead, Vec<Entry>),
    Partial,
    Err(Error),
}

impl Outcome {
    fn of(r: Result<Status<RequestHead>, Error>, storage: &[Entry]) -> Outcome {
        match r {
            Ok(Status::Complete(h)) => {
                // A field_count beyond the storage leaves `fields` short; check_head flags it.
                let fields = storage.get(..h.field_count).unwrap_or_default().to_vec();
                Outcome::Complete(h, fields)
            }
            Ok(Status::Partial) => Outcome::Partial,
            Err(e) => Outcome::Err(e),
        }
    }

    fn short(&self) -> String {
        match self {
            Outcome::Complete(h, _) => format!(
                "Complete(len {}, {} fields, {:?}, cl {:?}, te {:?})",
                h.len, h.field_count, h.version, h.facts.content_length, h.facts.transfer_encoding
            ),
            Outcome::Partial => "Partial".to_owned(),
            Outcome::Err(e) => format!("Err({:?} at {} -> {})", e.kind(), e.offset(), e.status()),
        }
    }
}

fn escape(bytes: &[u8]) -> String {
    const SHOW: usize = 160;
    let mut s = String::new();
    for &b in bytes.iter().take(SHOW) {
        match b {
            b'\r' => s.push_str("\\r"),
            b'\n' => s.push_str("\\n"),
            b'\t' => s.push_str("\\t"),
            b'\\' => s.push_str("\\\\"),
            0x20..=0x7e => s.push(char::from(b)),
            _ => {
                let _ = write!(s, "\\x{b:02x}");
            }
        }
    }
    if bytes.len() > SHOW {
        let _ = write!(s, "… ({} bytes in all)", bytes.len());
    }
    s
}

/// Collects mismatches, one readable block each.
struct Report {
    mismatches: Vec<String>,
}

impl Report {
    fn push(&mut self, v: &Vector, class: Class, head: usize, off: usize, want: &str, got: &str) {
        self.mismatches.push(format!(
            "{} [{}, {}] head #{} (byte {} of raw)\n    raw:      \"{}\"\n    expected: {}\n    got:      {}",
            v.id,
            v.category,
            class,
            head,
            off,
            escape(&v.raw),
            want,
            got
        ));
    }
}

fn satisfies(want: &Want, got: &Outcome) -> bool {
    match (want, got) {
        (Want::Complete | Want::CompleteOr(_), Outcome::Complete(..)) => true,
        (Want::CompleteOr(s) | Want::Reject(s) | Want::RejectOrPartial(s), Outcome::Err(e)) => {
            s.contains(&e.status())
        }
        (Want::RejectOrPartial(_), Outcome::Partial) => true,
        _ => false,
    }
}

/// Whether the one-shot result on a prefix of `k` bytes is consistent with
/// the one on the whole input: an incomplete prefix is `Partial` or the same
/// error; a prefix holding the whole head yields the same head.
fn prefix_consistent(k: usize, prefix: &Outcome, full: &Outcome) -> bool {
    match (prefix, full) {
        (Outcome::Partial, Outcome::Complete(h, _)) => k < h.len,
        (Outcome::Partial, _) => true,
        (Outcome::Complete(..), Outcome::Complete(..)) => prefix == full,
        (Outcome::Err(a), Outcome::Err(b)) => a == b,
        _ => false,
    }
}

/// Counters for the summary line.
#[derive(Default)]
struct Stats {
    heads: usize,
    prefixes: usize,
    walk_stopped_at_chunked: usize,
    /// Which branch the vectors with a choice took, for the summary.
    choices: Vec<String>,
}

/// Checks one head at `raw[off..]`: the verdict, every one-shot prefix, and
/// `HeadParser` fed one more byte at a time. Returns the one-shot outcome.
#[allow(clippy::too_many_arguments)]
fn check_head(
    v: &Vector,
    class: Class,
    index: usize,
    off: usize,
    want: &Want,
    hp: &mut HeadParser,
    cfg: &Config,
    report: &mut Report,
    stats: &mut Stats,
) -> Outcome {
    let sub = &v.raw[off..];
    stats.heads += 1;

    let mut storage = [Entry::EMPTY; STORAGE];
    let full = Outcome::of(parse_request(sub, &mut storage, cfg), &storage);
    if matches!(want, Want::CompleteOr(_) | Want::RejectOrPartial(_)) {
        stats.choices.push(format!("{}: {}", v.id, full.short()));
    }
    if !satisfies(want, &full) {
        report.push(v, class, index, off, &want.to_string(), &full.short());
    }
    if let Outcome::Complete(h, fields) = &full {
        if fields.len() != h.field_count {
            report.push(
                v,
                class,
                index,
                off,
                &format!("field_count <= storage ({STORAGE})"),
                &full.short(),
            );
        }
    }

    // Strict prefixes, one shot: every one for short inputs; for long ones
    // (each one-shot parse of a prefix is O(k), so all of them are O(n^2)) the
    // start, the end, a stride, and the neighbourhood of the head end, the
    // error offset and where the target and field-line limits are crossed.
    // HeadParser below still sees every byte boundary.
    let marks: Vec<usize> = match &full {
        Outcome::Complete(h, _) => vec![h.len],
        Outcome::Err(e) => vec![
            e.offset(),
            e.offset().saturating_add(cfg.max_target_len),
            e.offset().saturating_add(cfg.max_field_line_len),
        ],
        Outcome::Partial => Vec::new(),
    };
    let sampled = |k: usize| {
        sub.len() <= ALL_PREFIXES_UP_TO
            || k < 256
            || k + 64 >= sub.len()
            || k % 61 == 0
            || marks.iter().any(|&m| k.abs_diff(m) <= 64)
    };
    let mut prefix_storage = [Entry::EMPTY; STORAGE];
    for k in (0..sub.len()).filter(|&k| sampled(k)) {
        stats.prefixes += 1;
        let got = Outcome::of(
            parse_request(&sub[..k], &mut prefix_storage, cfg),
            &prefix_storage,
        );
        if !prefix_consistent(k, &got, &full) {
            report.push(
                v,
                class,
                index,
                off,
                &format!(
                    "one-shot parse of the first {k} bytes: Partial, or what the whole input gives ({})",
                    full.short()
                ),
                &got.short(),
            );
            break; // one report per head is enough
        }
    }

    // Byte by byte through HeadParser (reset, as between two requests of a
    // connection), as a server receiving one byte per read.
    hp.reset();
    let mut inc_storage = [Entry::EMPTY; STORAGE];
    let mut last = Outcome::Partial;
    let mut fed = 0;
    for k in 0..=sub.len() {
        fed = k;
        last = Outcome::of(hp.request(&sub[..k], &mut inc_storage), &inc_storage);
        if last != Outcome::Partial {
            break;
        }
    }
    if last != full {
        report.push(
            v,
            class,
            index,
            off,
            &format!(
                "HeadParser fed byte by byte: the one-shot outcome {}",
                full.short()
            ),
            &format!("{} after {fed} of {} bytes", last.short(), sub.len()),
        );
    }
    full
}

/// Independent oracle for the recorded framing facts of an accepted head:
/// `Content-Length` (identical 1*DIGIT list members) and whether a
/// `Transfer-Encoding` field is present.
fn framing_oracle(buf: &[u8], fields: &[Entry]) -> (Result<Option<u64>, ()>, bool) {
    let mut cl: Option<u64> = None;
    let mut bad = false;
    let mut te = false;
    for e in fields {
        let (Some(name), Some(value)) = (e.name.get(buf), e.value.get(buf)) else {
            return (Err(()), te);
        };
        if name.eq_ignore_ascii_case(b"transfer-encoding") {
            te = true;
        }
        if !name.eq_ignore_ascii_case(b"content-length") {
            continue;
        }
        for member in value.split(|&b| b == b',') {
            let member = trim_ows(member);
            let n = std::str::from_utf8(member)
                .ok()
                .filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|s| s.parse::<u64>().ok());
            match (n, cl) {
                (None, _) => bad = true,
                (Some(n), None) => cl = Some(n),
                (Some(n), Some(c)) => bad |= n != c,
            }
        }
    }
    (if bad { Err(()) } else { Ok(cl) }, te)
}

fn trim_ows(mut s: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = s {
        s = rest;
    }
    while let [rest @ .., b' ' | b'\t'] = s {
        s = rest;
    }
    s
}

/// Walks the heads of one vector per its class.
fn check_vector(
    v: &Vector,
    class: Class,
    hp: &mut HeadParser,
    cfg: &Config,
    report: &mut Report,
    stats: &mut Stats,
) {
    let statuses: Vec<u16> = v
        .status
        .into_iter()
        .chain(v.alt_status.iter().copied())
        .collect();
    let mut wants: Vec<Want> = Vec::new();
    match class {
        Class::Accept => wants.extend((0..v.requests).map(|_| Want::Complete)),
        Class::AcceptOrAlt => {
            wants.push(Want::CompleteOr(v.alt_status.clone()));
            wants.extend((1..v.requests).map(|_| Want::Complete));
        }
        Class::Reject | Class::RejectOrPartial | Class::Excluded(_) => {
            wants.extend((0..v.requests).map(|_| Want::Complete));
            wants.push(match class {
                Class::Reject => Want::Reject(statuses),
                Class::RejectOrPartial => Want::RejectOrPartial(statuses),
                _ => Want::Complete,
            });
        }
    }

    let mut off = 0;
    for (i, want) in wants.iter().enumerate() {
        let Outcome::Complete(head, fields) =
            check_head(v, class, i, off, want, hp, cfg, report, stats)
        else {
            return; // a refusal ends the connection; mismatches are reported
        };
        let buf = &v.raw[off..];

        // The recorded framing facts against an independent reading of the fields.
        let (cl, te_present) = framing_oracle(buf, &fields);
        let te_chunked = head.facts.transfer_encoding == TransferEncoding::Chunked;
        if cl != Ok(head.facts.content_length) || te_present != te_chunked {
            report.push(
                v,
                class,
                i,
                off,
                &format!("framing from the fields: content_length {cl:?}, chunked {te_present}"),
                &format!(
                    "content_length {:?}, transfer_encoding {:?}",
                    head.facts.content_length, head.facts.transfer_encoding
                ),
            );
            return;
        }
        if te_chunked {
            // The body is chunked; walking past it is body decoding, not this test's job.
            if i + 1 < wants.len() {
                if !matches!(wants[i + 1], Want::Complete) {
                    report.push(
                        v,
                        class,
                        i,
                        off,
                        "classification: the error head is reachable without a body decoder",
                        "a chunked body in the way",
                    );
                }
                stats.walk_stopped_at_chunked += 1;
            }
            return;
        }
        let body_len = head.facts.content_length.unwrap_or(0);
        let body_end = usize::try_from(body_len)
            .ok()
            .and_then(|n| head.len.checked_add(n))
            .filter(|&end| end <= buf.len());
        let Some(body_end) = body_end else {
            // Only an accepted vector walks past a body; its body must be complete.
            if i + 1 < wants.len() || v.accept {
                report.push(
                    v,
                    class,
                    i,
                    off,
                    &format!(
                        "a body that fits in the {} bytes after the head",
                        buf.len() - head.len.min(buf.len())
                    ),
                    &format!("head len {}, content_length {body_len}", head.len),
                );
            }
            return;
        };
        if i == 0 && v.accept {
            if let Some(body) = &v.body {
                if buf[head.len..body_end] != body[..] {
                    report.push(
                        v,
                        class,
                        i,
                        off,
                        &format!("body \"{}\"", escape(body)),
                        &format!("body \"{}\"", escape(&buf[head.len..body_end])),
                    );
                }
            }
        }
        off += body_end;
    }
}

#[test]
fn conformance_vectors_head_verdicts() {
    let vectors = load();
    assert!(
        vectors.len() >= MIN_VECTORS,
        "{VECTORS} holds {} vectors, expected at least {MIN_VECTORS}",
        vectors.len()
    );

    // Classify: overrides first (each must name a vector), then category rules.
    let mut classes = Vec::with_capacity(vectors.len());
    let mut unclassified = Vec::new();
    for (id, _, _) in OVERRIDES {
        let n = vectors.iter().filter(|v| v.id == *id).count();
        assert_eq!(n, 1, "override {id} matches {n} vectors");
    }
    for v in &vectors {
        let decided = match OVERRIDES.iter().find(|(id, _, _)| *id == v.id) {
            Some(&(_, class, reason)) => Ok((class, reason)),
            None => rule_for(v),
        };
        match decided {
            Ok(c) => classes.push(c),
            Err(e) => {
                unclassified.push(format!("{}: {e}", v.id));
                classes.push((Class::Excluded(Why::ServerPolicy), "unclassified"));
            }
        }
    }
    assert!(
        unclassified.is_empty(),
        "vectors without a decision (add a rule or an override):\n  {}",
        unclassified.join("\n  ")
    );

    let count = |f: fn(&Class) -> bool| classes.iter().filter(|(c, _)| f(c)).count();
    let decided = count(|c| !matches!(c, Class::Excluded(_)));
    let head_valid = count(|c| matches!(c, Class::Excluded(_)));
    assert!(
        decided >= MIN_HEAD_DECIDED,
        "only {decided} vectors classified as decided by a head, expected at least {MIN_HEAD_DECIDED}"
    );
    assert!(
        head_valid >= MIN_HEAD_VALID,
        "only {head_valid} vectors classified as decided after the head, expected at least {MIN_HEAD_VALID}"
    );

    let cfg = Config::default();
    let mut report = Report {
        mismatches: Vec::new(),
    };
    let mut stats = Stats::default();
    let mut hp = HeadParser::new(cfg.clone());
    let (mut accepts, mut rejects) = (0, 0);
    let mut excluded: Vec<(String, Vec<&str>)> = Vec::new();
    for (v, &(class, reason)) in vectors.iter().zip(&classes) {
        match class {
            Class::Accept | Class::AcceptOrAlt => accepts += 1,
            Class::Reject | Class::RejectOrPartial => rejects += 1,
            Class::Excluded(_) => {
                let key = format!("{class}: {reason}");
                match excluded.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, ids)) => ids.push(&v.id),
                    None => excluded.push((key, vec![&v.id])),
                }
            }
        }
        check_vector(v, class, &mut hp, &cfg, &mut report, &mut stats);
    }

    println!(
        "{} vectors: {decided} decided by a head ({accepts} accept, {rejects} reject), \
         {head_valid} decided later (first head must parse Complete); \
         {} heads checked, {} one-shot prefixes, {} walks stopped at a chunked body",
        vectors.len(),
        stats.heads,
        stats.prefixes,
        stats.walk_stopped_at_chunked
    );
    println!("excluded from the verdict check (first head parse-checked):");
    for (key, ids) in &excluded {
        println!("  {key}\n    {} vector(s): {}", ids.len(), ids.join(" "));
    }
    println!("choices taken: {}", stats.choices.join("; "));
    println!("explicit decisions:");
    for (id, class, reason) in OVERRIDES {
        println!("  {id:<14} {class}: {reason}");
    }

    assert!(
        report.mismatches.is_empty(),
        "{} mismatch(es):\n\n{}\n",
        report.mismatches.len(),
        report.mismatches.join("\n\n")
    );
}
