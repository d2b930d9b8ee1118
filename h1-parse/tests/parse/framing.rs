//! The framing facts a request head records (`RequestHead::framing`):
//! Content-Length, Transfer-Encoding, Connection tokens, Host, Expect and
//! Upgrade, with the strict refusals of DESIGN.md.
use crate::common::HeadValue;
use crate::common::*;
use h1_parse::{ErrorKind as K, Expect, FieldFacts, Status, TransferEncoding};

#[track_caller]
fn framing(buf: &[u8]) -> FieldFacts {
    head(buf).0.facts
}

/// The request with these field lines fails with `kind` at the value of the
/// field line that starts with `at_line`.
#[track_caller]
fn assert_value_error(lines: &[&[u8]], kind: K, at_line: &[u8]) {
    let buf = post_with(lines);
    let line = find(&buf, at_line);
    let colon = line + buf[line..].iter().position(|&b| b == b':').unwrap();
    let value = colon
        + 1
        + buf[colon + 1..]
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
    assert_error(&buf, kind, value);
}

// ---------------------------------------------------------------------------
// Content-Length.

#[test]
fn no_framing_fields() {
    let f = framing(&post_with(&[]));
    assert_eq!(f.content_length, None);
    assert_eq!(f.transfer_encoding, TransferEncoding::Absent);
    assert!(!f.connection.close() && !f.connection.keep_alive());
    assert!(!f.connection.upgrade() && !f.connection.other());
    assert_eq!(f.expect, Expect::None);
    assert!(!f.upgrade);
}

#[test]
fn content_length_values() {
    let cases: &[(&[u8], u64)] = &[
        (b"Content-Length: 0", 0),
        (b"Content-Length: 5", 5),
        (b"Content-Length: 005", 5),
        (b"Content-Length:5", 5),
        (b"Content-Length: \t42 \t", 42),
        (b"content-length: 7", 7),
        (b"CONTENT-LENGTH: 8", 8),
        (b"Content-length: 9", 9),
        // At most 18 significant digits (the shared profile's bound).
        (
            b"Content-Length: 999999999999999999",
            999_999_999_999_999_999,
        ),
        (b"Content-Length: 0000000000000000000000005", 5),
        // Identical duplicates, in a list and across fields.
        (b"Content-Length: 5, 5", 5),
        (b"Content-Length: 5,5,\t5", 5),
    ];
    for &(line, n) in cases {
        assert_eq!(
            framing(&post_with(&[line])).content_length,
            Some(n),
            "{}",
            show(line)
        );
    }
    let f = framing(&post_with(&[
        b"Content-Length: 5",
        b"X: y",
        b"Content-Length: 5",
    ]));
    assert_eq!(f.content_length, Some(5));
    let f = framing(&post_with(&[b"Content-Length: 5, 5", b"content-length: 5"]));
    assert_eq!(f.content_length, Some(5));
}

#[test]
fn invalid_content_lengths() {
    for v in [
        &b"+5"[..],
        b"-5",
        b"-0",
        b"5 5",
        b"0x5",
        b"5a",
        b"a",
        b"1e3",
        b"5.0",
        b"",
        b",",
        b"5,",
        b",5",
        b"5, 6",
        b"5,,5",
        b"\"5\"",
        b"18446744073709551616",
        b"99999999999999999999999999",
        b"\xd9\xa5",
        // Over 18 significant digits, though it fits in 64 bits.
        b"1000000000000000000",
        b"18446744073709551615",
    ] {
        let line = [&b"Content-Length: "[..], v].concat();
        let buf = post_with(&[&line]);
        let e = error(&buf);
        assert_eq!(e.kind(), K::InvalidContentLength, "{}: {e}", show(v));
        assert_eq!(e.status(), 400);
        // Pointing into the Content-Length line.
        let at = find(&buf, b"Content-Length:");
        assert!(
            (at..at + line.len() + 1).contains(&e.offset()),
            "{}: {e}",
            show(v)
        );
    }
}

#[test]
fn differing_content_lengths_across_fields() {
    assert_value_error(
        &[b"Content-Length: 5", b"Content-Length: 6"],
        K::InvalidContentLength,
        b"Content-Length: 6",
    );
    assert_value_error(
        &[b"Content-Length: 5", b"Content-Length: 5, 6"],
        K::InvalidContentLength,
        b"Content-Length: 5, 6",
    );
    assert_value_error(
        &[b"Content-Length: 10", b"X: y", b"content-length: 011"],
        K::InvalidContentLength,
        b"content-length: 011",
    );
    // Equal numbers written differently agree.
    let f = framing(&post_with(&[b"Content-Length: 10", b"content-length: 010"]));
    assert_eq!(f.content_length, Some(10));
}

// ---------------------------------------------------------------------------
// Transfer-Encoding.

#[test]
fn chunked() {
    for v in [
        &b"chunked"[..],
        b"Chunked",
        b"CHUNKED",
        b" chunked \t",
        b"chunked,",
        b", chunked",
    ] {
        let line = [&b"Transfer-Encoding: "[..], v].concat();
        let f = framing(&post_with(&[&line]));
        assert_eq!(
            f.transfer_encoding,
            TransferEncoding::Chunked,
            "{}",
            show(v)
        );
        assert_eq!(f.content_length, None);
    }
    let f = framing(&post_with(&[b"transfer-encoding: chunked"]));
    assert_eq!(f.transfer_encoding, TransferEncoding::Chunked);
}

#[test]
fn unimplemented_codings_are_501() {
    for lines in [
        &[&b"Transfer-Encoding: gzip, chunked"[..]][..],
        &[b"Transfer-Encoding: gzip", b"Transfer-Encoding: chunked"],
        &[b"Transfer-Encoding: deflate,chunked"],
        &[b"Transfer-Encoding: x-custom;a=b, chunked"],
        // Parameters with whitespace around `=` (BWS), quoted values.
        &[b"Transfer-Encoding: x-custom ; a = \"b c\" ;d=\"e\\\"f\", chunked"],
    ] {
        let buf = post_with(lines);
        let e = error(&buf);
        assert_eq!(
            (e.kind(), e.status()),
            (K::UnsupportedTransferCoding, 501),
            "{}",
            show(&buf)
        );
        assert_eq!(e.offset(), find(&buf, b"Transfer-Encoding"));
    }
}

#[test]
fn invalid_transfer_encodings() {
    for lines in [
        // chunked not last
        &[&b"Transfer-Encoding: chunked, gzip"[..]][..],
        &[b"Transfer-Encoding: chunked", b"Transfer-Encoding: gzip"],
        // chunked twice
        &[b"Transfer-Encoding: chunked, chunked"],
        &[b"Transfer-Encoding: chunked", b"Transfer-Encoding: chunked"],
        &[b"Transfer-Encoding: chunked", b"transfer-encoding: CHUNKED"],
        // parameters on chunked
        &[b"Transfer-Encoding: chunked;q=1"],
        &[b"Transfer-Encoding: chunked ; a=b"],
        &[b"Transfer-Encoding: chunked;"],
        // empty
        &[b"Transfer-Encoding:"],
        &[b"Transfer-Encoding:   "],
        &[b"Transfer-Encoding: ,"],
        &[b"Transfer-Encoding: , ,"],
        // final coding not chunked (request: length unknown)
        &[b"Transfer-Encoding: gzip"],
        &[b"Transfer-Encoding: identity"],
        // not a token
        &[b"Transfer-Encoding: \"chunked\""],
        &[b"Transfer-Encoding: chun ked"],
        &[b"Transfer-Encoding: chunked\x80"],
        &[b"Transfer-Encoding: gzip;a, chunked"],
        &[b"Transfer-Encoding: gzip;@=b, chunked"],
        &[b"Transfer-Encoding: gzip;a=\"b\"c, chunked"],
        &[b"Transfer-Encoding: gzip;a=b\", chunked"],
        &[b"Transfer-Encoding: gzip;a=\"b\"c\", chunked"],
        // a quoted-string holding `,` or `;` (refused on purpose)
        &[b"Transfer-Encoding: gzip;a=\"b,c\", chunked"],
        &[b"Transfer-Encoding: gzip;a=\"b;c\", chunked"],
    ] {
        let buf = post_with(lines);
        let e = error(&buf);
        assert_eq!(
            (e.kind(), e.status()),
            (K::InvalidTransferEncoding, 400),
            "{}",
            show(&buf)
        );
        let first = find(&buf, b"Transfer-Encoding").min(
            buf.windows(17)
                .position(|w| w.eq_ignore_ascii_case(b"transfer-encoding"))
                .unwrap(),
        );
        assert!(
            e.offset() >= first && e.offset() < buf.len(),
            "{}: {e}",
            show(&buf)
        );
    }
}

#[test]
fn transfer_encoding_with_content_length() {
    for lines in [
        &[&b"Transfer-Encoding: chunked"[..], b"Content-Length: 5"][..],
        &[b"Content-Length: 5", b"Transfer-Encoding: chunked"],
        &[b"Content-Length: 0", b"Transfer-Encoding: chunked"],
        &[b"Transfer-Encoding: chunked", b"X: y", b"content-length: 1"],
    ] {
        let buf = post_with(lines);
        let e = error(&buf);
        assert_eq!(
            (e.kind(), e.status()),
            (K::ContentLengthWithTransferEncoding, 400),
            "{}",
            show(&buf)
        );
        assert!(e.offset() >= find(&buf, b"\r\n") && e.offset() < buf.len());
    }
}

#[test]
fn transfer_encoding_in_http10() {
    let buf = b"POST / HTTP/1.0\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n";
    let e = error(buf);
    assert_eq!(
        (e.kind(), e.offset(), e.status()),
        (K::TransferEncodingInHttp10, find(buf, b"Transfer"), 400)
    );
    let buf = b"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n";
    assert_eq!(error(buf).kind(), K::TransferEncodingInHttp10);
}

// ---------------------------------------------------------------------------
// Connection.

#[test]
fn connection_tokens() {
    let cases: &[(&[&[u8]], [bool; 4])] = &[
        (&[b"Connection: close"], [true, false, false, false]),
        (&[b"Connection: Close"], [true, false, false, false]),
        (&[b"connection: CLOSE"], [true, false, false, false]),
        (&[b"Connection: keep-alive"], [false, true, false, false]),
        (&[b"Connection: Keep-Alive"], [false, true, false, false]),
        (&[b"Connection: upgrade"], [false, false, true, false]),
        (&[b"Connection: Upgrade"], [false, false, true, false]),
        (&[b"Connection: x-hop"], [false, false, false, true]),
        (&[b"Connection: closed"], [false, false, false, true]),
        (&[b"Connection: keep"], [false, false, false, true]),
        (&[b"Connection: close, Upgrade"], [true, false, true, false]),
        (
            &[b"Connection: ,keep-alive , ,te,"],
            [false, true, false, true],
        ),
        (&[b"Connection:"], [false, false, false, false]),
        (
            &[b"Connection: keep-alive", b"X: y", b"CONNECTION: upgrade"],
            [false, true, true, false],
        ),
        (
            &[b"Connection: close", b"Connection: foo"],
            [true, false, false, true],
        ),
    ];
    for &(lines, [close, keep_alive, upgrade, other]) in cases {
        let buf = post_with(lines);
        let c = framing(&buf).connection;
        assert_eq!(
            [c.close(), c.keep_alive(), c.upgrade(), c.other()],
            [close, keep_alive, upgrade, other],
            "{}",
            show(&buf)
        );
    }
}

// ---------------------------------------------------------------------------
// Host.

#[test]
fn host_is_required_in_http11() {
    let buf = b"GET / HTTP/1.1\r\nX: y\r\n\r\n";
    let e = error(buf);
    assert_eq!((e.kind(), e.status()), (K::MissingHost, 400));
    assert!(e.offset() <= buf.len());
    let buf = b"GET / HTTP/1.1\r\n\r\n";
    assert_eq!(error(buf).kind(), K::MissingHost);
    // Optional in HTTP/1.0.
    let (h, _) = head(b"GET / HTTP/1.0\r\n\r\n");
    assert_eq!(h.facts.host, None);
    let buf = b"GET / HTTP/1.0\r\nHost: example.com\r\n\r\n";
    assert_eq!(framing(buf).host.unwrap().slice(buf), b"example.com");
}

#[test]
fn duplicate_host() {
    for (buf, second) in [
        (&b"GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n"[..], 25),
        (b"GET / HTTP/1.1\r\nHost: a\r\nX: y\r\nhost: b\r\n\r\n", 31),
        (b"GET / HTTP/1.0\r\nHost: a\r\nHOST: a\r\n\r\n", 25),
    ] {
        assert_error(buf, K::DuplicateHost, second);
    }
}

#[test]
fn valid_hosts() {
    for v in [
        &b"example.com"[..],
        b"EXAMPLE.com",
        b"localhost",
        b"localhost:8080",
        b"127.0.0.1",
        b"127.0.0.1:80",
        b"[::1]",
        b"[::1]:443",
        b"[2001:db8::8:800:200c:417a]:8080",
        b"[v1.fe80::a+en1]",
        b"ex%41mple.com",
        b"xn--bcher-kva.example",
        b"a-b_c~d!$&'()*+;=.example",
        b"h",
        // Percent-encoding anywhere in a reg-name.
        b"%41bc",
        b"ab%2f",
        b"%41%42%43:80",
        // IP literals (RFC 3986 §3.2.2): IPv6 in each shape, with an IPv4
        // tail, and IPvFuture.
        b"[1:2:3:4:5:6:7:8]",
        b"[1:2:3:4:5:6:1.2.3.4]",
        b"[::]",
        b"[1::]",
        b"[1:2:3:4:5:6:7::]",
        b"[::2:3:4:5:6:7:8]",
        b"[abcd:EF01::9]",
        b"[::ffff:192.0.2.1]",
        b"[::255.255.255.255]",
        b"[::0.0.0.0]",
        b"[V1.a]",
        b"[vAf.x:y]",
        b"[v9.!$&'()*+,;=:-._~]:80",
    ] {
        let line = [&b"Host: "[..], v].concat();
        let buf = [&b"GET / HTTP/1.1\r\n"[..], &line, b"\r\n\r\n"].concat();
        let host = framing(&buf).host.expect("host");
        assert_eq!(host.slice(&buf), v, "{}", show(v));
        assert_eq!(host.offset(), 22);
    }
    // OWS around the value is not part of it.
    let buf = b"GET / HTTP/1.1\r\nHost: \t example.com \t\r\n\r\n";
    assert_eq!(framing(buf).host.unwrap().slice(buf), b"example.com");
}

#[test]
fn invalid_hosts() {
    for v in [
        &b"user@example.com"[..],
        b"user:pass@example.com",
        b"example.com/path",
        b"example.com/",
        b"example.com?q",
        b"exa mple.com",
        b"",
        b"[::1",
        b"::1",
        b"[::1]x",
        b"[]",
        b"[example]",
        b"a, b",
        b"example.com, example.org",
        b"example.com:port",
        b"example.com:80:80",
        b":80",
        b"ex%zzample.com",
        b"ex%4",
        b"example.com\x80",
        b"\"example.com\"",
        b"http://example.com",
        // Percent-encoding cut short or not hex, and a bad byte after one.
        b"%g1",
        b"ab%",
        b"ab%4",
        b"%%41",
        b"ab%41/",
        // IPv6: too many or too few groups, a group too long or not hex,
        // two `::`, an IPv4 tail that is not one or not last.
        b"[1:2:3:4:5:6:7:8:9]",
        b"[1:2:3:4:5:6:7]",
        b"[1:2:3:4:5:6:7::8]",
        b"[12345::]",
        b"[g::]",
        b"[1::2::3]",
        b"[1:2:3:4:5:6:7:1.2.3.4]",
        b"[::1.2.3]",
        b"[::1.2.3.4.5]",
        b"[::256.1.1.1]",
        b"[::01.1.1.1]",
        b"[::1.2.3.]",
        b"[::1234.1.1.1]",
        b"[::1.2.3.4a]",
        b"[::1.2.3.4:1]",
        b"[1.2.3.4::]",
        // IPvFuture: no version, a version not hex, nothing after the dot,
        // no dot, a byte outside its alphabet.
        b"[v.a]",
        b"[vg.a]",
        b"[v1.]",
        b"[v1]",
        b"[v1.a/b]",
        b"[v1.a b]",
    ] {
        let line = [&b"Host: "[..], v].concat();
        let buf = [&b"GET / HTTP/1.1\r\n"[..], &line, b"\r\n\r\n"].concat();
        let e = error(&buf);
        assert_eq!(
            (e.kind(), e.status()),
            (K::InvalidHost, 400),
            "{}: {e}",
            show(v)
        );
        if !v.is_empty() {
            assert_eq!(e.offset(), 22, "{}", show(v));
        }
        // Malformed in HTTP/1.0 too.
        if !v.is_empty() {
            let buf = [&b"GET / HTTP/1.0\r\n"[..], &line, b"\r\n\r\n"].concat();
            assert_eq!(error(&buf).kind(), K::InvalidHost, "1.0 {}", show(v));
        }
    }
}

/// An empty `Host` is valid grammar: with an absolute-form target the
/// target's authority governs and the origin server MUST ignore Host (RFC
/// 9112 §3.2.2), so the request is taken, one-shot and in pieces; with an
/// origin-form target in HTTP/1.1 h1 refuses it (§3.3 lets a server), while
/// a malformed Host stays refused with any target.
#[test]
fn an_empty_host_is_ignored_beside_an_absolute_form_target() {
    use h1_parse::{Config, Entry, HeadParser, TargetForm};
    let buf = b"GET http://example.com/e HTTP/1.1\r\nHost:\r\n\r\n";
    let (h, _) = head(buf);
    assert_eq!(h.target_form, TargetForm::Absolute);
    assert_eq!(h.facts.host.map(|s| s.len()), Some(0));
    let mut p = HeadParser::new(Config::default());
    let mut f = [Entry::EMPTY; 8];
    for n in 1..buf.len() {
        assert_eq!(
            p.request(&buf[..n], &mut f),
            Ok(Status::Partial),
            "{n} bytes"
        );
    }
    assert_eq!(p.request(buf, &mut f), Ok(Status::Complete(h)));

    let origin = b"GET /e HTTP/1.1\r\nHost:\r\n\r\n";
    assert_eq!(error(origin).kind(), K::InvalidHost);
    let malformed = b"GET http://example.com/e HTTP/1.1\r\nHost: a b\r\n\r\n";
    assert_eq!(error(malformed).kind(), K::InvalidHost);
}

// ---------------------------------------------------------------------------
// Expect and Upgrade.

#[test]
fn expect() {
    let cases: &[(&[&[u8]], Expect)] = &[
        (&[b"Expect: 100-continue"], Expect::Continue),
        (&[b"Expect: 100-Continue"], Expect::Continue),
        (&[b"expect: 100-CONTINUE"], Expect::Continue),
        (&[b"Expect:  100-continue  "], Expect::Continue),
        (&[b"Expect: 200-ok"], Expect::Other),
        (&[b"Expect: 100-continued"], Expect::Other),
        (&[b"Expect: 100"], Expect::Other),
        // A list (RFC 9110 §10.1.1) whose empty elements are ignored
        // (RFC 9110 §5.6.1.2).
        (&[b"Expect:"], Expect::None),
        (&[b"Expect: ,"], Expect::None),
        (&[b"Expect: 100-continue,"], Expect::Continue),
        (&[b"Expect: , 100-continue"], Expect::Continue),
        (&[b"Expect: 100-continue, 100-continue"], Expect::Continue),
        (&[b"Expect: 100-continue, foo"], Expect::Other),
        (&[b"Expect: 100-continue;x=1"], Expect::Other),
        (&[b"Expect: 100-continue", b"Expect: foo"], Expect::Other),
        (&[b"Expect: foo", b"Expect: 100-continue"], Expect::Other),
    ];
    for &(lines, want) in cases {
        let buf = post_with(lines);
        assert_eq!(framing(&buf).expect, want, "{}", show(&buf));
    }
}

#[test]
fn upgrade() {
    let buf = post_with(&[b"Connection: Upgrade", b"Upgrade: websocket"]);
    let f = framing(&buf);
    assert!(f.upgrade);
    assert!(f.connection.upgrade());
    assert!(framing(&post_with(&[b"upgrade: h2c"])).upgrade);
    assert!(!framing(&post_with(&[b"Upgrades: x"])).upgrade);
    assert!(!framing(&post_with(&[b"X-Upgrade: x"])).upgrade);
    // As long as `Upgrade` and starting with its letter.
    assert!(!framing(&post_with(&[b"Upgradx: x"])).upgrade);
    assert!(!framing(&post_with(&[b"Unicorn: x"])).upgrade);
}

/// Names that only look like the framing fields record nothing.
#[test]
fn near_miss_names() {
    let buf = post_with(&[
        b"Content-Lengths: x",
        b"Content-Lengt: x",
        b"Transfer-Encodings: x",
        b"Transfer_Encoding: x",
        b"Hosts: x, y",
        b"Connections: close",
        b"Expects: 100-continue",
        b"Xontent-Length: x",
    ]);
    let f = framing(&buf);
    assert_eq!(f.content_length, None);
    assert_eq!(f.transfer_encoding, TransferEncoding::Absent);
    assert!(!f.connection.close());
    assert_eq!(f.expect, Expect::None);
    assert_eq!(f.host.unwrap().slice(&buf), b"example.com");
}

#[test]
fn content_length_is_limited_to_18_digits() {
    let ok = b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 999999999999999999\r\n\r\n";
    assert_eq!(
        head(ok).0.facts.content_length,
        Some(999_999_999_999_999_999)
    );
    let big = b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1000000000000000000\r\n\r\n";
    assert_eq!(error(big).kind(), K::InvalidContentLength);
}

#[test]
fn request_body_framing_is_chunked_then_length_then_none() {
    use h1_parse::Framing;
    assert_eq!(head(&post_with(&[])).0.framing(), Framing::Empty);
    assert_eq!(
        head(&post_with(&[b"Content-Length: 7"])).0.framing(),
        Framing::Length(7)
    );
    assert_eq!(
        head(&post_with(&[b"Content-Length: 0"])).0.framing(),
        Framing::Length(0)
    );
    let chunked = head(&post_with(&[b"Transfer-Encoding: chunked"])).0;
    assert_eq!(chunked.framing(), Framing::Chunked);
}
