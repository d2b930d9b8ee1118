//! Drivers that parse the shared reference inputs with `h1-parse`, `httparse`
//! and picohttpparser, used by the criterion bench (`benches/parse.rs`), the
//! agreement test (`tests/agree.rs`) and the callgrind binary
//! (`src/bin/callgrind_parse.rs`).
//!
//! Every driver parses a *complete* buffer: all the heads in it, back to back
//! (the pipelined input holds 16), advancing by each head's length, with all
//! fields returned as name/value pairs in storage for [`MAX_FIELDS`] fields
//! that the driver owns and reuses. Two entry points per driver:
//!
//! - [`Parser::parse`] is the timed one: it hands each head and its fields to
//!   [`black_box`] and returns a [`Summary`] (heads, fields, bytes consumed);
//! - [`Parser::collect`] copies every head out into owned [`Head`]s so the
//!   three parsers can be compared byte for byte.
//!
//! The only `unsafe` code is the FFI call into picohttpparser, in [`pico`].
#![deny(unsafe_code)]

use std::fmt;
use std::hint::black_box;
use std::mem::MaybeUninit;
use std::path::PathBuf;

use h1_headers::Entry;
use h1_parse::{parse_request, parse_response, Config, RequestHead, ResponseHead, Status};

pub mod pico;

/// Field storage every driver has: enough for the largest input (40 fields).
pub const MAX_FIELDS: usize = 64;

/// The reference inputs, in the order of `testdata/inputs/README.md`.
pub const INPUT_NAMES: [&str; 5] = [
    "1_wrk_min",
    "2_chrome12",
    "3_tfb_pipelined16",
    "4_response",
    "5_large40",
];

/// Whether a buffer holds request heads or response heads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Request heads (`GET / HTTP/1.1` ...).
    Request,
    /// Response heads (`HTTP/1.1 200 OK` ...).
    Response,
}

/// One reference input, read from disk.
#[derive(Clone, Debug)]
pub struct Input {
    /// The file stem, e.g. `2_chrome12`.
    pub name: String,
    /// The bytes of the file.
    pub bytes: Vec<u8>,
    /// Requests or responses (a response starts with `HTTP/`).
    pub kind: Kind,
}

/// The directory that holds the reference inputs: `$H1_BENCH_INPUTS` when
/// set, else the repository's `testdata/inputs/`.
pub fn inputs_dir() -> PathBuf {
    match std::env::var_os("H1_BENCH_INPUTS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/inputs/")),
    }
}

/// An input made in memory: sixteen `2_chrome12` heads back to back, as a
/// pipelining browser-like client sends them.
pub const CHROME_X16: &str = "2_chrome12x16";

/// Reads the input `name`: a file stem such as `2_chrome12`, or
/// [`CHROME_X16`].
///
/// The error names the path tried and how to point elsewhere.
pub fn load_input(name: &str) -> Result<Input, String> {
    if name == CHROME_X16 {
        let one = load_input("2_chrome12")?;
        return Ok(Input {
            name: CHROME_X16.to_owned(),
            bytes: one.bytes.repeat(16),
            kind: one.kind,
        });
    }
    let path = inputs_dir().join(format!("{name}.http"));
    let bytes = std::fs::read(&path).map_err(|e| {
        format!(
            "cannot read reference input {}: {e}\n\
             (the inputs live in the repository's testdata/inputs/; \
             set H1_BENCH_INPUTS to another directory to override)",
            path.display()
        )
    })?;
    if bytes.is_empty() {
        return Err(format!("reference input {} is empty", path.display()));
    }
    let kind = if bytes.starts_with(b"HTTP/") {
        Kind::Response
    } else {
        Kind::Request
    };
    Ok(Input {
        name: name.to_owned(),
        bytes,
        kind,
    })
}

/// Reads every input of [`INPUT_NAMES`].
pub fn load_inputs() -> Result<Vec<Input>, String> {
    INPUT_NAMES.iter().map(|name| load_input(name)).collect()
}

/// What a timed parse of a whole buffer returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Summary {
    /// Heads parsed.
    pub heads: usize,
    /// Fields over all heads.
    pub fields: usize,
    /// Bytes consumed over all heads.
    pub consumed: usize,
}

/// One head, copied out of the buffer, for comparing parsers.
#[derive(Clone, PartialEq, Eq)]
pub struct Head {
    /// Bytes the head took, including the empty line.
    pub len: usize,
    /// The minor version: 0 or 1.
    pub minor_version: u8,
    /// Method (request) or the status code as decimal digits (response).
    pub first: Vec<u8>,
    /// Request-target (request) or reason phrase (response).
    pub second: Vec<u8>,
    /// Every field line as (name, value).
    pub fields: Vec<(Vec<u8>, Vec<u8>)>,
}

impl fmt::Debug for Head {
    /// Bytes as escaped text, so a difference is readable.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = |b: &[u8]| b.escape_ascii().to_string();
        f.debug_struct("Head")
            .field("len", &self.len)
            .field("minor_version", &self.minor_version)
            .field("first", &text(&self.first))
            .field("second", &text(&self.second))
            .field(
                "fields",
                &self
                    .fields
                    .iter()
                    .map(|(n, v)| (text(n), text(v)))
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl Head {
    fn field_bytes(
        fields: impl Iterator<Item = (impl AsRef<[u8]>, impl AsRef<[u8]>)>,
    ) -> Vec<(Vec<u8>, Vec<u8>)> {
        fields
            .map(|(n, v)| (n.as_ref().to_vec(), v.as_ref().to_vec()))
            .collect()
    }
}

/// Why a driver could not parse a whole buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The parser rejected the head starting at `at`.
    Rejected {
        /// Offset of the head in the buffer.
        at: usize,
        /// The parser's own words.
        detail: String,
    },
    /// The parser wanted more bytes for the head starting at `at`.
    Partial {
        /// Offset of the head in the buffer.
        at: usize,
    },
    /// The parser claimed a head of zero bytes or more bytes than there are.
    BadLength {
        /// Offset of the head in the buffer.
        at: usize,
        /// The length it claimed.
        len: usize,
    },
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Rejected { at, detail } => write!(f, "head at byte {at} rejected: {detail}"),
            Failure::Partial { at } => write!(f, "head at byte {at} reported partial"),
            Failure::BadLength { at, len } => write!(f, "head at byte {at} claimed length {len}"),
        }
    }
}

impl std::error::Error for Failure {}

/// A parser under test, with its field storage and configuration.
///
/// The lifetime is the buffer's: `httparse` stores slices of it in its
/// header array, so that storage is tied to one buffer.
pub trait Parser<'b> {
    /// The name used for the criterion function and on the command line.
    const NAME: &'static str;

    /// Parses every head in `buf`, handing each to [`black_box`].
    fn parse(&mut self, buf: &'b [u8], kind: Kind) -> Result<Summary, Failure>;

    /// Parses every head in `buf` and copies it out.
    fn collect(&mut self, buf: &'b [u8], kind: Kind) -> Result<Vec<Head>, Failure>;
}

/// Checks a head length a parser returned and advances `at` past it.
#[inline(always)]
fn advance(at: &mut usize, len: usize, remaining: usize) -> Result<(), Failure> {
    if len == 0 || len > remaining {
        return Err(Failure::BadLength { at: *at, len });
    }
    *at += len;
    Ok(())
}

/// `h1-parse` with [`Config::default`] (strict), called as the README does:
/// each head is parsed into the caller's head and field storage (both
/// reused) and read there.
pub type H1 = H1Driver<false>;

/// [`H1`], with each head then copied once (handed to `black_box` by
/// value): what a caller pays that moves the head it was given somewhere
/// else right away. The copy reads the head the parser has just written,
/// with loads wider than its stores, so it waits for them to land (a store
/// forwarding stall).
pub type H1Copied = H1Driver<true>;

/// The `h1-parse` driver; `COPY` says whether each head is copied (see
/// [`H1`] and [`H1Copied`]).
pub struct H1Driver<const COPY: bool> {
    request: RequestHead,
    response: ResponseHead,
    fields: [Entry; MAX_FIELDS],
    config: Config,
}

impl<const COPY: bool> H1Driver<COPY> {
    /// Storage for a head and [`MAX_FIELDS`] fields, and the strict default
    /// configuration.
    pub fn new() -> Self {
        H1Driver {
            request: RequestHead::EMPTY,
            response: ResponseHead::EMPTY,
            fields: [Entry::EMPTY; MAX_FIELDS],
            config: Config::default(),
        }
    }

    /// Reads the head where the parser wrote it or, with `COPY`, copies it.
    #[inline(always)]
    fn hand_over<T: Copy>(head: &T) {
        if COPY {
            black_box(*head);
        } else {
            black_box(head);
        }
    }
}

impl<const COPY: bool> Default for H1Driver<COPY> {
    fn default() -> Self {
        Self::new()
    }
}

fn h1_rejected(at: usize, e: h1_parse::Error) -> Failure {
    Failure::Rejected {
        at,
        detail: format!(
            "{:?} at offset {} (status {})",
            e.kind(),
            e.offset(),
            e.status()
        ),
    }
}

impl<'b, const COPY: bool> Parser<'b> for H1Driver<COPY> {
    const NAME: &'static str = if COPY { "h1-copied" } else { "h1" };

    /// Each head is parsed into the driver's storage the way the README's
    /// example does (`match parse_request(buf, &mut head, &mut fields, ..)`)
    /// and read there (`black_box(&head)`), or with `COPY` copied.
    #[inline]
    fn parse(&mut self, buf: &[u8], kind: Kind) -> Result<Summary, Failure> {
        let mut sum = Summary::default();
        let mut at = 0;
        while at < buf.len() {
            let rest = &buf[at..];
            let (len, count) = match kind {
                Kind::Request => {
                    let head = &mut self.request;
                    let len = match parse_request(rest, head, &mut self.fields, &self.config) {
                        Ok(Status::Complete(len)) => len,
                        Ok(Status::Partial) => return Err(Failure::Partial { at }),
                        Err(e) => return Err(h1_rejected(at, e)),
                    };
                    Self::hand_over(head);
                    (len, head.field_count)
                }
                Kind::Response => {
                    let head = &mut self.response;
                    let len = match parse_response(rest, head, &mut self.fields, &self.config) {
                        Ok(Status::Complete(len)) => len,
                        Ok(Status::Partial) => return Err(Failure::Partial { at }),
                        Err(e) => return Err(h1_rejected(at, e)),
                    };
                    Self::hand_over(head);
                    (len, head.field_count)
                }
            };
            black_box(&self.fields[..count.min(MAX_FIELDS)]);
            advance(&mut at, len, rest.len())?;
            sum.heads += 1;
            sum.fields += count;
        }
        sum.consumed = at;
        Ok(sum)
    }

    fn collect(&mut self, buf: &[u8], kind: Kind) -> Result<Vec<Head>, Failure> {
        let mut heads = Vec::new();
        let mut at = 0;
        while at < buf.len() {
            let rest = &buf[at..];
            let minor = |v: h1_parse::Version| u8::from(v.as_str() == "HTTP/1.1");
            let span = |s: h1_headers::Span| {
                s.get(rest).map(<[u8]>::to_vec).ok_or(Failure::Rejected {
                    at,
                    detail: format!("span {:?} outside the buffer", s.range()),
                })
            };
            let (len, minor_version, first, second, count) = match kind {
                Kind::Request => {
                    match parse_request(rest, &mut self.request, &mut self.fields, &self.config) {
                        Ok(Status::Complete(len)) => (
                            len,
                            minor(self.request.version),
                            span(self.request.method)?,
                            span(self.request.target)?,
                            self.request.field_count,
                        ),
                        Ok(Status::Partial) => return Err(Failure::Partial { at }),
                        Err(e) => return Err(h1_rejected(at, e)),
                    }
                }
                Kind::Response => {
                    match parse_response(rest, &mut self.response, &mut self.fields, &self.config) {
                        Ok(Status::Complete(len)) => (
                            len,
                            minor(self.response.version),
                            self.response.status.to_string().into_bytes(),
                            span(self.response.reason)?,
                            self.response.field_count,
                        ),
                        Ok(Status::Partial) => return Err(Failure::Partial { at }),
                        Err(e) => return Err(h1_rejected(at, e)),
                    }
                }
            };
            let entries = self.fields.get(..count).ok_or(Failure::Rejected {
                at,
                detail: format!("field_count {count} exceeds the storage"),
            })?;
            let mut fields = Vec::with_capacity(count);
            for e in entries {
                fields.push((span(e.name)?, span(e.value)?));
            }
            heads.push(Head {
                len,
                minor_version,
                first,
                second,
                fields,
            });
            advance(&mut at, len, rest.len())?;
        }
        Ok(heads)
    }
}

/// `httparse` with its default (strict) configuration, at its fastest:
/// requests through `parse_with_uninit_headers` (no header array to
/// initialise per parse), responses through `parse`.
pub struct Httparse<'b> {
    headers: [httparse::Header<'b>; MAX_FIELDS],
    uninit: [MaybeUninit<httparse::Header<'b>>; MAX_FIELDS],
}

impl Httparse<'_> {
    /// Storage for [`MAX_FIELDS`] fields.
    pub fn new() -> Self {
        Httparse {
            headers: [httparse::EMPTY_HEADER; MAX_FIELDS],
            uninit: [MaybeUninit::uninit(); MAX_FIELDS],
        }
    }
}

impl Default for Httparse<'_> {
    fn default() -> Self {
        Self::new()
    }
}

fn httparse_rejected(at: usize, e: httparse::Error) -> Failure {
    Failure::Rejected {
        at,
        detail: format!("{e:?}"),
    }
}

fn httparse_head<'b>(
    at: usize,
    buf: &'b [u8],
    kind: Kind,
    headers: &mut [httparse::Header<'b>],
) -> Result<Head, Failure> {
    let (len, minor_version, first, second, fields) = match kind {
        Kind::Request => {
            let mut req = httparse::Request::new(headers);
            let len = match req.parse(buf) {
                Ok(httparse::Status::Complete(len)) => len,
                Ok(httparse::Status::Partial) => return Err(Failure::Partial { at }),
                Err(e) => return Err(httparse_rejected(at, e)),
            };
            (
                len,
                req.version.unwrap_or(u8::MAX),
                req.method.unwrap_or_default().as_bytes().to_vec(),
                req.path.unwrap_or_default().as_bytes().to_vec(),
                Head::field_bytes(req.headers.iter().map(|h| (h.name, h.value))),
            )
        }
        Kind::Response => {
            let mut res = httparse::Response::new(headers);
            let len = match res.parse(buf) {
                Ok(httparse::Status::Complete(len)) => len,
                Ok(httparse::Status::Partial) => return Err(Failure::Partial { at }),
                Err(e) => return Err(httparse_rejected(at, e)),
            };
            (
                len,
                res.version.unwrap_or(u8::MAX),
                res.code.unwrap_or_default().to_string().into_bytes(),
                res.reason.unwrap_or_default().as_bytes().to_vec(),
                Head::field_bytes(res.headers.iter().map(|h| (h.name, h.value))),
            )
        }
    };
    Ok(Head {
        len,
        minor_version,
        first,
        second,
        fields,
    })
}

impl<'b> Parser<'b> for Httparse<'b> {
    const NAME: &'static str = "httparse";

    #[inline]
    fn parse(&mut self, buf: &'b [u8], kind: Kind) -> Result<Summary, Failure> {
        let mut sum = Summary::default();
        let mut at = 0;
        while at < buf.len() {
            let rest = &buf[at..];
            let (len, count) = match kind {
                Kind::Request => {
                    let mut req = httparse::Request::new(&mut []);
                    match req.parse_with_uninit_headers(rest, &mut self.uninit) {
                        Ok(httparse::Status::Complete(len)) => {
                            black_box(&req);
                            (len, req.headers.len())
                        }
                        Ok(httparse::Status::Partial) => return Err(Failure::Partial { at }),
                        Err(e) => return Err(httparse_rejected(at, e)),
                    }
                }
                Kind::Response => {
                    let mut res = httparse::Response::new(&mut self.headers);
                    match res.parse(rest) {
                        Ok(httparse::Status::Complete(len)) => {
                            black_box(&res);
                            (len, res.headers.len())
                        }
                        Ok(httparse::Status::Partial) => return Err(Failure::Partial { at }),
                        Err(e) => return Err(httparse_rejected(at, e)),
                    }
                }
            };
            advance(&mut at, len, rest.len())?;
            sum.heads += 1;
            sum.fields += count;
        }
        sum.consumed = at;
        Ok(sum)
    }

    fn collect(&mut self, buf: &'b [u8], kind: Kind) -> Result<Vec<Head>, Failure> {
        let mut heads = Vec::new();
        let mut at = 0;
        while at < buf.len() {
            let rest = &buf[at..];
            let head = httparse_head(at, rest, kind, &mut self.headers)?;
            advance(&mut at, head.len, rest.len())?;
            heads.push(head);
        }
        Ok(heads)
    }
}

/// The [`Summary`] that [`Parser::parse`] must return for these heads.
pub fn summarize(heads: &[Head]) -> Summary {
    Summary {
        heads: heads.len(),
        fields: heads.iter().map(|h| h.fields.len()).sum(),
        consumed: heads.iter().map(|h| h.len).sum(),
    }
}

/// Runs one parser both ways over `input` and checks the two agree and
/// consume the whole buffer.
fn run_one<'b, P: Parser<'b>>(mut parser: P, input: &'b Input) -> Result<Vec<Head>, String> {
    let fail = |e: Failure| format!("{}: {}: {e}", input.name, P::NAME);
    let heads = parser.collect(&input.bytes, input.kind).map_err(fail)?;
    let sum = parser.parse(&input.bytes, input.kind).map_err(fail)?;
    if sum != summarize(&heads) {
        return Err(format!(
            "{}: {}: timed parse returned {sum:?}, the copied heads say {:?}",
            input.name,
            P::NAME,
            summarize(&heads)
        ));
    }
    if sum.consumed != input.bytes.len() {
        return Err(format!(
            "{}: {}: consumed {} of {} bytes",
            input.name,
            P::NAME,
            sum.consumed,
            input.bytes.len()
        ));
    }
    Ok(heads)
}

/// Parses `input` with all three parsers, both the timed way and the copying
/// way, and checks that they agree on every head's length, start line and
/// fields (count and bytes), and that each consumed the whole buffer.
///
/// Returns the agreed [`Summary`], or a message naming the first difference.
pub fn check_agreement(input: &Input) -> Result<Summary, String> {
    let h1 = run_one(H1::new(), input)?;
    let httparse = run_one(Httparse::new(), input)?;
    let pico = run_one(pico::Pico::new(), input)?;
    for (other_name, other) in [(Httparse::NAME, &httparse), (pico::Pico::NAME, &pico)] {
        if other.len() != h1.len() {
            return Err(format!(
                "{}: h1 found {} heads, {other_name} {}",
                input.name,
                h1.len(),
                other.len()
            ));
        }
        for (i, (a, b)) in h1.iter().zip(other.iter()).enumerate() {
            if a != b {
                return Err(format!(
                    "{}: head {i} differs:\n  h1: {a:?}\n  {other_name}: {b:?}",
                    input.name
                ));
            }
        }
    }
    Ok(summarize(&h1))
}
