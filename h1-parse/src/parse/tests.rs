//! Unit tests of the head parsers: what no verdict shows, so the public API
//! (the integration tests in `tests/`) cannot pin it.

extern crate std;
use std::string::String;
use std::vec::Vec;

use h1_headers::Entry;

use super::fields::unusual_lines;
use super::{parse_request_with_path, small, ResponseKernel, TrailerKernel};
use crate::head::{RequestHead, ResponseHead, Status};
use crate::scan::{available_paths as paths, Classify, Kernel, Path};
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
    let bytes = b" \t\r\n:/;,\"@[]\x00\x7f\x80\xffaZ09-.%?*";
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
                for &b in bytes {
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
