//! Unit tests of the head parsers: what no verdict shows, so the public API
//! (the integration tests in `tests/`) cannot pin it.

extern crate std;
use std::string::String;
use std::vec::Vec;

use h1_headers::Entry;

use super::blocks::{find, Blocks};
use super::fields::unusual_lines;
use super::start::{any_line, status_start, strict_line, usual_status_start, LineParts};
use super::{parse_request_with_path, small, ResponseKernel, Result, TrailerKernel};
use crate::head::{RequestHead, ResponseHead, Status};
use crate::scan::{available_paths as paths, Classify, Kernel, Path, Stop};
use crate::Config;

/// A name or value of `len` bytes that needs no trimming.
fn text(len: usize, first: u8) -> Vec<u8> {
    (0..len).map(|i| first + (i % 26) as u8).collect()
}

/// Field lines of the usual shape around a line whose name and value have
/// the lengths given: name and value of many lengths put every line end,
/// colon and value start at every offset of a block, in the first block,
/// in later ones and in the buffer's last, partial one. Among them the
/// framing lines the walk takes itself (a first usual `Host`, a lone
/// `Connection` token) and names as long as a framing name and starting
/// with its letter, which the sink must not decline.
fn usual_lines(name_len: usize, value_len: usize) -> Vec<u8> {
    [
        &b"Host: example.com\r\nConnection: keep-alive\r\nEngine: e\r\n"[..],
        b"Unicorn: u\r\nContent-Id: c\r\nContent-Digest: d\r\nTracking-Consents: t\r\n",
        &text(name_len, b'a'),
        // An empty value after ": " would need trimming.
        if value_len == 0 { b":" } else { b": " },
        &text(value_len, b'A'),
        b"\r\nAccept:*/*\r\nX-Empty:\r\nX-Obs: \x80\xff\r\nX-Tab: a\tb\r\n\r\n",
    ]
    .concat()
}

/// What a buffer of field lines is parsed as.
#[derive(Clone, Copy)]
enum Section {
    Request,
    Response,
    /// A trailer section (field lines without a start line), whose sink
    /// records no framing facts.
    Trailers,
}

/// Parses `buf` on path `p` as `section` and asserts that it is complete
/// and that the walk's call-free loop took every line.
fn assert_loop_takes_every_line(p: Path, section: Section, buf: &[u8], config: &Config) {
    let mut fields = [Entry::EMPTY; 16];
    let before = unusual_lines::so_far();
    let len = match section {
        Section::Request => {
            let mut head = RequestHead::EMPTY;
            parse_request_with_path(p, buf, &mut head, &mut fields, config)
        }
        Section::Response => {
            let mut head = ResponseHead::EMPTY;
            p.run(ResponseKernel {
                buf,
                head: &mut head,
                fields: &mut fields,
                config,
                track: &mut (),
            })
        }
        Section::Trailers => {
            let trailers = p.run(TrailerKernel {
                buf,
                fields: &mut fields,
                config,
            });
            trailers.map(|s| match s {
                Status::Complete(t) => Status::Complete(t.len),
                Status::Partial => Status::Partial,
            })
        }
    };
    let shown = String::from_utf8_lossy(buf);
    assert_eq!(len, Ok(Status::Complete(buf.len())), "{p:?} {shown:?}");
    assert_eq!(unusual_lines::so_far(), before, "{p:?} {shown:?}");
}

/// Request and response heads and trailer sections made only of usual
/// lines are decided by the walk's call-free loop alone, on every scanner
/// path and buffer length, the shortest (one block, the cursor starting
/// after the start line) included: no line is left to the sink's
/// out-of-line `field`, to trimming or to `slow_line`. A walk that lost a
/// line's stops, gave up on a value running into the next block or missed
/// the empty line would still give every verdict right, only slower.
#[test]
fn usual_lines_stay_in_the_walks_loop() {
    let config = Config::default();
    let mut shapes: Vec<(usize, usize)> = (1..=70).map(|n| (n, 1)).collect();
    shapes.extend((0..=140).map(|v| (3, v)));
    shapes.extend([(1, 0), (100, 100), (64, 64), (63, 65)]);
    for p in paths() {
        assert_loop_takes_every_line(
            p,
            Section::Request,
            b"GET / HTTP/1.1\r\nHost: a\r\nX: v\r\n\r\n",
            &config,
        );
        assert_loop_takes_every_line(
            p,
            Section::Response,
            b"HTTP/1.1 200 OK\r\nA: b\r\n\r\n",
            &config,
        );
        for &(n, v) in &shapes {
            let lines = usual_lines(n, v);
            let request = [&b"GET /x HTTP/1.1\r\n"[..], &lines].concat();
            assert_loop_takes_every_line(p, Section::Request, &request, &config);
            let response = [&b"HTTP/1.1 200 OK\r\n"[..], &lines].concat();
            assert_loop_takes_every_line(p, Section::Response, &response, &config);
            assert_loop_takes_every_line(p, Section::Trailers, &lines, &config);
        }
    }
}

/// A line exactly as long as `max_field_line_len` allows, its CR at every
/// offset of a block and the line far past the head's first
/// `max_field_line_len` bytes, stays in the loop too: the loop's own limit
/// checks give up only on a line over the limit.
#[test]
fn a_line_at_its_limit_stays_in_the_walks_loop() {
    let config = Config {
        max_field_line_len: 40,
        ..Config::default()
    };
    // "X-Limit: " and a value: 40 bytes before the CR.
    let at_limit = [&b"X-Limit: "[..], &text(31, b'a'), b"\r\n"].concat();
    for p in paths() {
        for shift in 0..64 {
            // Two lines within the limit that move the rest by `shift`.
            let fill = |n: usize| [&b"X-Fill:"[..], &text(n, b'A'), b"\r\n"].concat();
            let (a, b) = (fill(shift / 2), fill(shift - shift / 2));
            let head = [&a[..], &b, &at_limit, &at_limit, b"\r\n"].concat();
            let request = [&b"GET / HTTP/1.1\r\nHost: a\r\n"[..], &head].concat();
            assert_loop_takes_every_line(p, Section::Request, &request, &config);
            let response = [&b"HTTP/1.1 200 OK\r\n"[..], &head].concat();
            assert_loop_takes_every_line(p, Section::Response, &response, &config);
            assert_loop_takes_every_line(p, Section::Trailers, &head, &config);
        }
    }
}

/// The paths with a small-head parser that this CPU runs.
fn small_paths() -> Vec<Path> {
    [Path::Avx2, Path::Avx512]
        .into_iter()
        .filter(|p| p.is_available())
        .collect()
}

/// Runs the small-head parser alone.
struct SmallOnly<'a> {
    buf: &'a [u8],
    head: &'a mut RequestHead,
    fields: &'a mut [Entry],
    config: &'a Config,
}

impl Kernel for SmallOnly<'_> {
    type Output = Option<usize>;
    #[inline(always)]
    fn run<C: Classify>(self, c: C) -> Option<usize> {
        small::request(c, self.buf, self.head, self.fields, self.config)
    }
}

/// Usual requests shorter than a block: each shape of request line and
/// each framing field the small-head parser knows.
const USUAL_SMALL_HEADS: [&[u8]; 18] = [
    b"GET / HTTP/1.1\r\nHost: a\r\n\r\n",
    b"GET /plaintext HTTP/1.1\r\nHost: localhost:8080\r\n\r\n",
    b"GET / HTTP/1.0\r\n\r\n",
    b"GET /a?b=c HTTP/1.0\r\nX:\r\nY:v\r\nZ: w\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: a.b-c\r\nUpgrade: websocket\r\n\r\n",
    b"POST /a HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\n",
    b"PUT / HTTP/1.1\r\nHost: a\r\nContent-Length:5\r\ncontent-length:5\r\n\r\n",
    b"PUT /x HTTP/1.1\r\nHOST: h\r\nContent-Length: 0\r\n\r\n",
    b"OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n",
    b"GET http://a/b HTTP/1.1\r\nHost: a\r\n\r\n",
    b"CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n",
    b"DELETE /items/1 HTTP/1.1\r\nHost: api\r\nAccept: */*\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: a\r\nX: \x80\xff\r\nUser-Agent: curl/8.0\r\n\r\n",
    b"GET /0123456789abcdef HTTP/1.1\r\nHost: 0123456789abcdefghi\r\n\r\n",
    // A name as long as `Transfer-Encoding`, and a token said twice.
    b"GET / HTTP/1.1\r\nHost: a\r\nX-Forwarded-Proto: https\r\n\r\n",
    b"GET / HTTP/1.0\r\nConnection:close\r\nConnection:close\r\n\r\n",
];

/// The usual small requests are taken whole by the small-head parser on
/// the paths that have one (AVX2's from 32 bytes, AVX-512's from the
/// first), with the head and fields the general parser gives: each shape
/// of request line and each framing field it knows, up to a head of 63
/// bytes, with the default limits and with the tightest such a head
/// allows. Were it to leave them to the general parser, every verdict
/// would still be right, only slower.
#[test]
fn usual_small_heads_are_taken_by_the_small_parser() {
    let config = Config::default();
    let small_paths = small_paths();
    // Every x86-64 CPU this crate is benchmarked and tested on has AVX2,
    // detected at run time with `std` (without it, only the compile-time
    // target features count).
    assert!(
        !cfg!(all(target_arch = "x86_64", feature = "std")) || !small_paths.is_empty(),
        "no path with a small-head parser runs here"
    );
    for (buf, tight) in USUAL_SMALL_HEADS
        .into_iter()
        .flat_map(|b| [(b, false), (b, true)])
    {
        assert!(buf.len() < 64, "{}", buf.len());
        // The limits as tight as a head this short allows: every one of its
        // lines and its target fits a block, and the head its own length.
        let config = match tight {
            false => config.clone(),
            true => Config {
                max_head_len: buf.len(),
                max_field_line_len: 64,
                max_target_len: 64,
                ..config.clone()
            },
        };
        let (mut want, mut want_fields) = (RequestHead::EMPTY, [Entry::EMPTY; 8]);
        let status =
            parse_request_with_path(Path::Scalar, buf, &mut want, &mut want_fields, &config);
        assert_eq!(status, Ok(Status::Complete(buf.len())));
        for &p in &small_paths {
            if p == Path::Avx2 && buf.len() < 32 {
                // AVX2's small-head parser loads two halves of 32 bytes.
                continue;
            }
            let (mut head, mut fields) = (RequestHead::EMPTY, [Entry::EMPTY; 8]);
            let taken = p.run(SmallOnly {
                buf,
                head: &mut head,
                fields: &mut fields,
                config: &config,
            });
            let shown = String::from_utf8_lossy(buf);
            assert_eq!(taken, Some(buf.len()), "{p:?} {shown:?}");
            assert_eq!(head, want, "{p:?} {shown:?}");
            assert_eq!(fields, want_fields, "{p:?} {shown:?}");
        }
    }
}

/// The bytes a test puts in place of each byte of a usual line: one of
/// every class (whitespace, CR, LF, separators, control bytes, obs-text,
/// and the bytes of methods, targets, hosts and versions).
const EVERY_CLASS: &[u8] = b" \t\r\n:/;,\"@[]\x00\x7f\x80\xffaZ09-.%?*HTP";

/// What the small-head parser takes, it takes as the general parser does:
/// each usual small head with each byte replaced by a byte of every class
/// (whitespace, CR, LF, separators, control bytes, obs-text, and the
/// bytes of names, targets and hosts), and cut short, with the default
/// limits, tight ones and every leniency on, is either left to the
/// general parser (`None`) or read to the same length, head and fields.
#[test]
fn the_small_parser_agrees_with_the_general_parser() {
    let lenient = Config {
        allow_bare_lf: true,
        allow_obs_fold: true,
        allow_multiple_spaces_in_request_line: true,
        ..Config::default()
    };
    let paths = small_paths();
    for base in USUAL_SMALL_HEADS {
        let tight = Config {
            max_head_len: base.len(),
            max_field_line_len: 64,
            max_target_len: 64,
            max_fields: 2,
            ..Config::default()
        };
        for config in [&Config::default(), &tight, &lenient] {
            for at in 0..base.len() {
                for &b in EVERY_CLASS {
                    let mut buf = base.to_vec();
                    buf[at] = b;
                    assert_small_agrees(&paths, &buf, config);
                }
                assert_small_agrees(&paths, &base[..at], config);
            }
        }
    }
}

/// Asserts that the small-head parser of each of `paths` either leaves
/// `buf` to the general parser or reads it as the scalar general parser
/// does.
fn assert_small_agrees(paths: &[Path], buf: &[u8], config: &Config) {
    let (mut want, mut want_fields) = (RequestHead::EMPTY, [Entry::EMPTY; 8]);
    let status = parse_request_with_path(Path::Scalar, buf, &mut want, &mut want_fields, config);
    for &p in paths {
        let (mut head, mut fields) = (RequestHead::EMPTY, [Entry::EMPTY; 8]);
        let taken = p.run(SmallOnly {
            buf,
            head: &mut head,
            fields: &mut fields,
            config,
        });
        if let Some(len) = taken {
            let shown = String::from_utf8_lossy(buf);
            assert_eq!(status, Ok(Status::Complete(len)), "{p:?} {shown:?}");
            assert_eq!(head, want, "{p:?} {shown:?}");
            assert_eq!(fields, want_fields, "{p:?} {shown:?}");
        }
    }
}

/// Runs the strict request-line parser and the general one on the request
/// line at the start of `buf`, on the blocks the head parser gives them
/// (`SHORT` for a buffer shorter than a block, as it does).
struct BothLines<'a, const SHORT: bool> {
    buf: &'a [u8],
    config: &'a Config,
}

impl<const SHORT: bool> Kernel for BothLines<'_, SHORT> {
    type Output = (Option<LineParts>, Result<Status<LineParts>>);
    #[inline(always)]
    fn run<C: Classify>(self, c: C) -> Self::Output {
        let BothLines { buf, config } = self;
        let blocks = Blocks::<C, SHORT>::with_target(c, buf, 0);
        let method_end = find(c, buf, 0, Stop::Token);
        (
            strict_line(&blocks, buf, 0, method_end, config),
            any_line(&blocks, buf, 0, method_end, config),
        )
    }
}

/// Both request-line parsers on `buf` on path `p`, with `SHORT` when the
/// buffer is shorter than a block and without it.
fn both_lines(
    p: Path,
    buf: &[u8],
    config: &Config,
) -> Vec<(Option<LineParts>, Result<Status<LineParts>>)> {
    let mut runs = std::vec![p.run(BothLines::<false> { buf, config })];
    if buf.len() < 64 {
        runs.push(p.run(BothLines::<true> { buf, config }));
    }
    runs
}

/// Usual request lines, each shape of target, and the field lines after.
fn usual_request_lines() -> Vec<Vec<u8>> {
    let mut lines: Vec<Vec<u8>> = [
        &b"GET / HTTP/1.1\r\n"[..],
        b"GET /plaintext HTTP/1.1\r\n",
        b"POST /a?b=c HTTP/1.0\r\n",
        b"OPTIONS * HTTP/1.1\r\n",
        b"CONNECT a:443 HTTP/1.1\r\n",
        b"GET http://a/b HTTP/1.1\r\n",
        b"M-SEARCH /x%20y HTTP/1.1\r\n",
    ]
    .iter()
    .map(|l| l.to_vec())
    .collect();
    // Targets ending at every offset of the first three blocks.
    for n in 1..=140 {
        lines.push([&b"GET /"[..], &text(n, b'a'), b" HTTP/1.1\r\n"].concat());
    }
    for line in &mut lines {
        line.extend_from_slice(b"Host: a\r\n\r\n");
    }
    lines
}

/// The target's length in a usual request line.
fn target_len(line: &[u8]) -> usize {
    let sp = |from: usize| from + line[from..].iter().position(|&b| b == b' ').unwrap();
    let start = sp(0) + 1;
    sp(start) - start
}

/// The usual request line (one SP between its parts, HTTP/1.0 or
/// HTTP/1.1) is taken by the strict parser, with the parts the general
/// one gives, on every path, its target at every offset of a block and as
/// long as `max_target_len` allows. Were the strict parser to leave it to
/// the general one, every verdict would still be right, only slower.
#[test]
fn usual_request_lines_are_taken_by_the_strict_parser() {
    for line in usual_request_lines() {
        let exact = Config {
            max_target_len: target_len(&line),
            ..Config::default()
        };
        for config in [&Config::default(), &exact] {
            for p in paths() {
                for (strict, any) in both_lines(p, &line, config) {
                    let shown = String::from_utf8_lossy(&line);
                    assert!(strict.is_some(), "{p:?} {shown:?}");
                    assert_eq!(
                        any,
                        Ok(Status::Complete(strict.unwrap())),
                        "{p:?} {shown:?}"
                    );
                }
            }
        }
    }
}

/// What the strict request-line parser takes, it takes as the general one
/// does: each usual request line with each byte replaced by one of every
/// class, and cut short at either end (a line without its method starts
/// with the SP), with the default limits, a target limit at and below the
/// target's length, and every leniency on.
#[test]
fn the_strict_request_line_agrees_with_the_general_one() {
    let lenient = Config {
        allow_bare_lf: true,
        allow_multiple_spaces_in_request_line: true,
        ..Config::default()
    };
    let lines = usual_request_lines();
    let some = lines
        .iter()
        .take(7)
        .chain([60, 63, 64, 65].map(|n| &lines[7 + n - 1]));
    for base in some {
        let target = target_len(base);
        let at = |max_target_len| Config {
            max_target_len,
            ..Config::default()
        };
        for config in [&Config::default(), &at(target), &at(target - 1), &lenient] {
            for i in 0..base.len() {
                for &b in EVERY_CLASS {
                    let mut buf = base.clone();
                    buf[i] = b;
                    assert_strict_line_agrees(&buf, config);
                }
                assert_strict_line_agrees(&base[..i], config);
                assert_strict_line_agrees(&base[i..], config);
            }
        }
    }
}

fn assert_strict_line_agrees(buf: &[u8], config: &Config) {
    if buf.is_empty() {
        return;
    }
    for p in paths() {
        for (strict, any) in both_lines(p, buf, config) {
            if let Some(parts) = strict {
                let shown = String::from_utf8_lossy(buf);
                assert_eq!(any, Ok(Status::Complete(parts)), "{p:?} {shown:?}");
            }
        }
    }
}

/// Usual status lines: a three-digit status and a reason, empty or not.
const USUAL_STATUS_LINES: [&[u8]; 6] = [
    b"HTTP/1.1 200 OK\r\n",
    b"HTTP/1.0 404 Not Found\r\n",
    b"HTTP/1.1 100 Continue\r\n",
    b"HTTP/1.1 999 \r\n",
    b"HTTP/1.0 101 Switching Protocols\r\nUpgrade: websocket\r\n",
    b"HTTP/1.1 500 \xff\r\n",
];

/// The usual start of a status line (`HTTP/1.x DDD ` with a status of 100
/// to 999) is read from two words, as the general reading gives it, and
/// whatever the two-word reading takes it takes alike: each usual status
/// line with each byte replaced by one of every class, and cut short.
#[test]
fn the_usual_status_start_agrees_with_the_general_one() {
    for base in USUAL_STATUS_LINES {
        let usual = usual_status_start(base);
        assert!(usual.is_some(), "{:?}", String::from_utf8_lossy(base));
        assert_eq!(status_start(base), Ok(Status::Complete(usual.unwrap())));
        for i in 0..base.len() {
            for &b in EVERY_CLASS {
                let mut buf = base.to_vec();
                buf[i] = b;
                assert_usual_status_agrees(&buf);
            }
            assert_usual_status_agrees(&base[..i]);
        }
    }
}

fn assert_usual_status_agrees(buf: &[u8]) {
    if let Some(start) = usual_status_start(buf) {
        let shown = String::from_utf8_lossy(buf);
        assert_eq!(status_start(buf), Ok(Status::Complete(start)), "{shown:?}");
    }
}
