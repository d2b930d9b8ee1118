//! Helpers shared by the integration tests of `h1-parse` (each test file
//! includes this module with `mod common;` and uses a subset of it).
#![allow(dead_code)]

use std::path::PathBuf;

use h1_headers::Entry;
use h1_parse::scan::Path;
use h1_parse::{Config, Error, ErrorKind, HeadParser, RequestHead, ResponseHead, Status};

/// Field storage handed to the parser: more than the default `max_fields`
/// (100), so the limit, not the storage, decides.
pub(crate) const STORAGE: usize = 128;

/// A request parse: the result and the storage it filled.
pub(crate) type RequestResult = Result<Status<RequestHead>, Error>;
/// A response parse.
pub(crate) type ResponseResult = Result<Status<ResponseHead>, Error>;

/// The head as a value, for comparing whole results: `Complete(head)` for
/// `Complete(len)` (checking `len == head.len`), else the status or error.
fn as_value<H: Copy>(
    r: Result<Status<usize>, Error>,
    head: H,
    len: impl Fn(&H) -> usize,
) -> Result<Status<H>, Error> {
    match r? {
        Status::Complete(n) => {
            assert_eq!(n, len(&head), "the length returned is the head's");
            Ok(Status::Complete(head))
        }
        Status::Partial => Ok(Status::Partial),
    }
}

/// [`h1_parse::parse_request`], the head returned as a value.
pub(crate) fn parse_request(buf: &[u8], fields: &mut [Entry], config: &Config) -> RequestResult {
    let mut head = RequestHead::EMPTY;
    let r = h1_parse::parse_request(buf, &mut head, fields, config);
    as_value(r, head, |h| h.len)
}

/// [`h1_parse::parse_request_with_path`], the head returned as a value.
pub(crate) fn parse_request_with_path(
    path: Path,
    buf: &[u8],
    fields: &mut [Entry],
    config: &Config,
) -> RequestResult {
    let mut head = RequestHead::EMPTY;
    let r = h1_parse::parse_request_with_path(path, buf, &mut head, fields, config);
    as_value(r, head, |h| h.len)
}

/// [`h1_parse::parse_response`], the head returned as a value.
pub(crate) fn parse_response(buf: &[u8], fields: &mut [Entry], config: &Config) -> ResponseResult {
    let mut head = ResponseHead::EMPTY;
    let r = h1_parse::parse_response(buf, &mut head, fields, config);
    as_value(r, head, |h| h.len)
}

/// [`HeadParser`]'s methods with the head returned as a value.
pub(crate) trait HeadValue {
    /// [`HeadParser::parse_request`].
    fn request(&mut self, buf: &[u8], fields: &mut [Entry]) -> RequestResult;
    /// [`HeadParser::parse_response`].
    fn response(&mut self, buf: &[u8], fields: &mut [Entry]) -> ResponseResult;
}

impl HeadValue for HeadParser {
    fn request(&mut self, buf: &[u8], fields: &mut [Entry]) -> RequestResult {
        let mut head = RequestHead::EMPTY;
        let r = self.parse_request(buf, &mut head, fields);
        as_value(r, head, |h| h.len)
    }

    fn response(&mut self, buf: &[u8], fields: &mut [Entry]) -> ResponseResult {
        let mut head = ResponseHead::EMPTY;
        let r = self.parse_response(buf, &mut head, fields);
        as_value(r, head, |h| h.len)
    }
}

/// The reference inputs (the repository's `testdata/inputs/`), `(file name,
/// bytes)`, sorted by name. The tests that call this read the repository and
/// are left out of the crate's package (see `Cargo.toml`).
pub(crate) fn inputs() -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/inputs"));
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "http"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (name, bytes)
        })
        .collect();
    out.sort();
    assert_eq!(out.len(), 5, "the five reference inputs of README.md");
    out
}

/// The reference inputs that hold requests (all but `4_response.http`).
pub(crate) fn request_inputs() -> Vec<(String, Vec<u8>)> {
    inputs()
        .into_iter()
        .filter(|(n, _)| !n.contains("response"))
        .collect()
}

/// The reference response head.
pub(crate) fn response_input() -> Vec<u8> {
    inputs()
        .into_iter()
        .find(|(n, _)| n.contains("response"))
        .expect("4_response.http")
        .1
}

/// Every request head in `buf` (pipelined heads one after the other; the
/// inputs carry no bodies), each as its own buffer.
pub(crate) fn split_heads(buf: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut rest = buf;
    while !rest.is_empty() {
        let mut f = vec![Entry::EMPTY; STORAGE];
        let head = match parse_request(rest, &mut f, &Config::default()) {
            Ok(Status::Complete(h)) => h,
            other => panic!("reference head did not parse: {other:?}"),
        };
        assert_eq!(head.facts.content_length.unwrap_or(0), 0, "no bodies");
        out.push(rest[..head.len].to_vec());
        rest = &rest[head.len..];
    }
    out
}

/// `buf` escaped for messages, cut to a readable length.
pub(crate) fn show(buf: &[u8]) -> String {
    if buf.len() <= 160 {
        format!("\"{}\" ({} bytes)", buf.escape_ascii(), buf.len())
    } else {
        format!(
            "\"{}…{}\" ({} bytes)",
            buf[..120].escape_ascii(),
            buf[buf.len() - 30..].escape_ascii(),
            buf.len()
        )
    }
}

/// The offset of the first `needle` in `buf`.
#[track_caller]
pub(crate) fn find(buf: &[u8], needle: &[u8]) -> usize {
    buf.windows(needle.len())
        .position(|w| w == needle)
        .unwrap_or_else(|| panic!("{} not in {}", show(needle), show(buf)))
}

/// A config changed by `f`.
pub(crate) fn config(f: impl FnOnce(&mut Config)) -> Config {
    let mut c = Config::default();
    f(&mut c);
    c
}

/// Every leniency on.
pub(crate) fn lenient() -> Config {
    config(|c| {
        c.allow_bare_lf = true;
        c.allow_obs_fold = true;
        c.allow_multiple_spaces_in_request_line = true;
    })
}

/// `parse_request` with fresh storage; the storage is cut to the fields
/// of a complete head.
pub(crate) fn request_with(buf: &[u8], config: &Config) -> (RequestResult, Vec<Entry>) {
    let mut f = vec![Entry::EMPTY; STORAGE];
    let r = parse_request(buf, &mut f, config);
    if let Ok(Status::Complete(h)) = &r {
        f.truncate(h.field_count);
    }
    (r, f)
}

/// A complete request head, or a panic naming what came instead.
#[track_caller]
pub(crate) fn head_with(buf: &[u8], config: &Config) -> (RequestHead, Vec<Entry>) {
    match request_with(buf, config) {
        (Ok(Status::Complete(h)), f) => (h, f),
        (other, _) => panic!("{}: expected a complete head, got {other:?}", show(buf)),
    }
}

/// [`head_with`] on the strict defaults.
#[track_caller]
pub(crate) fn head(buf: &[u8]) -> (RequestHead, Vec<Entry>) {
    head_with(buf, &Config::default())
}

/// The error of a request parse, or a panic.
#[track_caller]
pub(crate) fn error_with(buf: &[u8], config: &Config) -> Error {
    match request_with(buf, config) {
        (Err(e), _) => e,
        (other, _) => panic!("{}: expected an error, got {other:?}", show(buf)),
    }
}

/// [`error_with`] on the strict defaults.
#[track_caller]
pub(crate) fn error(buf: &[u8]) -> Error {
    error_with(buf, &Config::default())
}

/// The request `buf` fails with `kind` at `offset` (strict defaults).
#[track_caller]
pub(crate) fn assert_error(buf: &[u8], kind: ErrorKind, offset: usize) {
    assert_error_with(buf, &Config::default(), kind, offset);
}

/// The request `buf` fails with `kind` at `offset`.
#[track_caller]
pub(crate) fn assert_error_with(buf: &[u8], config: &Config, kind: ErrorKind, offset: usize) {
    let e = error_with(buf, config);
    assert_eq!(
        (e.kind(), e.offset()),
        (kind, offset),
        "{}: got {e}",
        show(buf)
    );
    assert_eq!(e.status(), kind.status(), "{}", show(buf));
}

/// `parse_response` with fresh storage, cut like [`request_with`].
pub(crate) fn response_with(buf: &[u8], config: &Config) -> (ResponseResult, Vec<Entry>) {
    let mut f = vec![Entry::EMPTY; STORAGE];
    let r = parse_response(buf, &mut f, config);
    if let Ok(Status::Complete(h)) = &r {
        f.truncate(h.field_count);
    }
    (r, f)
}

/// A complete response head, or a panic.
#[track_caller]
pub(crate) fn response_head(buf: &[u8]) -> (ResponseHead, Vec<Entry>) {
    match response_with(buf, &Config::default()) {
        (Ok(Status::Complete(h)), f) => (h, f),
        (other, _) => panic!("{}: expected a complete head, got {other:?}", show(buf)),
    }
}

/// The error of a response parse, or a panic.
#[track_caller]
pub(crate) fn response_error(buf: &[u8]) -> Error {
    match response_with(buf, &Config::default()) {
        (Err(e), _) => e,
        (other, _) => panic!("{}: expected an error, got {other:?}", show(buf)),
    }
}

/// `start` (a request line without CRLF) with a valid Host and the end of the
/// head.
pub(crate) fn with_host(start: &[u8]) -> Vec<u8> {
    let mut v = start.to_vec();
    v.extend_from_slice(b"\r\nHost: example.com\r\n\r\n");
    v
}

/// `POST / HTTP/1.1`, a Host, the given field lines, the empty line.
pub(crate) fn post_with(lines: &[&[u8]]) -> Vec<u8> {
    let mut v = b"POST / HTTP/1.1\r\nHost: example.com\r\n".to_vec();
    for l in lines {
        v.extend_from_slice(l);
        v.extend_from_slice(b"\r\n");
    }
    v.extend_from_slice(b"\r\n");
    v
}

/// The tchar set of RFC 9110 §5.6.2, written out independently of the
/// parser's tables.
pub(crate) fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// The field-value bytes of RFC 9110 §5.5: HTAB, SP, VCHAR, obs-text.
pub(crate) fn is_value_byte(b: u8) -> bool {
    b == b'\t' || (0x20..=0x7e).contains(&b) || b >= 0x80
}

/// The request-target bytes DESIGN.md allows: VCHAR except `#`.
pub(crate) fn is_target_byte(b: u8) -> bool {
    (0x21..=0x7e).contains(&b) && b != b'#'
}
