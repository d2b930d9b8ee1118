//! The request line through the public API: methods, the single-SP rule,
//! request-target bytes and forms, versions, skipped empty lines, bare CR and
//! LF at every position, the target limit, and error offsets.
use crate::common::HeadValue;

use crate::common::*;
use h1_parse::{ErrorKind as K, Method, Status, TargetForm, Version};

// ---------------------------------------------------------------------------
// Methods.

#[test]
fn known_methods_are_recognised() {
    let cases: &[(&[u8], Method, &[u8])] = &[
        (b"GET", Method::Get, b"/"),
        (b"HEAD", Method::Head, b"/"),
        (b"POST", Method::Post, b"/"),
        (b"PUT", Method::Put, b"/"),
        (b"DELETE", Method::Delete, b"/"),
        (b"CONNECT", Method::Connect, b"example.com:443"),
        (b"OPTIONS", Method::Options, b"*"),
        (b"TRACE", Method::Trace, b"/"),
        (b"PATCH", Method::Patch, b"/"),
        // Methods are case-sensitive (RFC 9110 §9.1).
        (b"get", Method::Other, b"/"),
        (b"Get", Method::Other, b"/"),
        (b"connect", Method::Other, b"/"),
        (b"PROPFIND", Method::Other, b"/"),
        (b"GETS", Method::Other, b"/"),
        (b"GE", Method::Other, b"/"),
        (b"M", Method::Other, b"/"),
    ];
    for &(m, kind, target) in cases {
        let mut line = m.to_vec();
        line.push(b' ');
        line.extend_from_slice(target);
        line.extend_from_slice(b" HTTP/1.1");
        let buf = with_host(&line);
        let (h, _) = head(&buf);
        assert_eq!(h.method_kind, kind, "{}", show(&buf));
        assert_eq!(h.method.slice(&buf), m);
        assert_eq!(h.method.offset(), 0);
        assert_eq!(h.target.slice(&buf), target);
        assert_eq!(h.target.offset(), m.len() + 1);
    }
}

#[test]
fn method_with_every_tchar_special() {
    let m = b"!#$%&'*+-.^_`|~0123456789azAZ";
    let mut line = m.to_vec();
    line.extend_from_slice(b" / HTTP/1.1");
    let buf = with_host(&line);
    let (h, _) = head(&buf);
    assert_eq!(h.method.slice(&buf), m);
    assert_eq!(h.method_kind, Method::Other);
}

/// Every byte at the second position of the method: tchars are kept, every
/// other byte is refused at its own offset.
#[test]
fn every_byte_in_the_method() {
    for b in 0..=255u8 {
        let mut line = vec![b'G', b, b'T'];
        line.extend_from_slice(b" / HTTP/1.1");
        let buf = with_host(&line);
        if is_tchar(b) {
            let (h, _) = head(&buf);
            assert_eq!(h.method.slice(&buf), &[b'G', b, b'T'], "{b:#04x}");
            let kind = if b == b'E' {
                Method::Get
            } else {
                Method::Other
            };
            assert_eq!(h.method_kind, kind, "{b:#04x}");
            continue;
        }
        let e = error(&buf);
        if b == b' ' {
            // "G T / HTTP/1.1": a three-part line of other shape; refused
            // somewhere after the method.
            assert_eq!(e.status(), 400, "{b:#04x}: {e}");
            continue;
        }
        assert_eq!(e.offset(), 1, "{b:#04x}: {e}");
        assert_eq!(e.status(), 400, "{b:#04x}: {e}");
        let allowed: &[K] = match b {
            b'\t' => &[K::InvalidRequestLine, K::InvalidMethod],
            b'\r' => &[K::InvalidMethod, K::BareCr],
            b'\n' => &[K::InvalidMethod, K::BareLf],
            _ => &[K::InvalidMethod],
        };
        assert!(allowed.contains(&e.kind()), "{b:#04x}: {e}");
    }
}

/// The delimiters of RFC 9110 §5.6.2, by name, at the start, inside and at
/// the end of the method.
#[test]
fn delimiters_in_the_method() {
    for &d in b"\"(),/:;<=>?@[\\]{}" {
        for at in 0..3 {
            let mut line = b"GET".to_vec();
            line.insert(at, d);
            line.extend_from_slice(b" / HTTP/1.1");
            assert_error(&with_host(&line), K::InvalidMethod, at);
        }
    }
    for b in (0x00..0x20u8).chain([0x7f, 0x80, 0xa0, 0xff]) {
        if matches!(b, b'\t' | b'\r' | b'\n') {
            continue;
        }
        let mut line = b"POST".to_vec();
        line.insert(2, b);
        line.extend_from_slice(b" / HTTP/1.1");
        assert_error(&with_host(&line), K::InvalidMethod, 2);
    }
}

/// A bad byte at every position of a long method (across every scanner
/// width hand-off).
#[test]
fn bad_byte_at_every_position_of_a_long_method() {
    for len in [1usize, 7, 8, 15, 16, 31, 32, 63, 64, 65, 130] {
        let good = vec![b'M'; len];
        let mut line = good.clone();
        line.extend_from_slice(b" / HTTP/1.1");
        let buf = with_host(&line);
        assert_eq!(head(&buf).0.method.len(), len);
        for p in 0..len {
            for bad in [0x00u8, b'"', b'@', 0x7f, 0x80, 0xff] {
                let mut line = good.clone();
                line[p] = bad;
                line.extend_from_slice(b" / HTTP/1.1");
                assert_error(&with_host(&line), K::InvalidMethod, p);
            }
        }
    }
}

#[test]
fn empty_method() {
    for buf in [
        &b" / HTTP/1.1\r\nHost: a\r\n\r\n"[..],
        b"\t/ HTTP/1.1\r\nHost: a\r\n\r\n",
    ] {
        let e = error(buf);
        assert_eq!(e.offset(), 0, "{}", show(buf));
        assert!(
            matches!(e.kind(), K::InvalidMethod | K::InvalidRequestLine),
            "{e}"
        );
    }
}

// ---------------------------------------------------------------------------
// Exactly one SP between the parts.

#[test]
fn single_sp_rule() {
    let cases: &[(&[u8], usize)] = &[
        (b"GET  / HTTP/1.1", 4),
        (b"GET   / HTTP/1.1", 4),
        (b"GET\t/ HTTP/1.1", 3),
        (b"GET \t/ HTTP/1.1", 4),
        (b"GET /  HTTP/1.1", 6),
        (b"GET /\tHTTP/1.1", 5),
        (b"GET / \tHTTP/1.1", 6),
        (b"GET  /  HTTP/1.1", 4),
        // Trailing whitespace before CRLF.
        (b"GET / HTTP/1.1 ", 14),
        (b"GET / HTTP/1.1\t", 14),
        (b"GET / HTTP/1.1  ", 14),
    ];
    for &(line, at) in cases {
        assert_error(&with_host(line), K::InvalidRequestLine, at);
    }
}

#[test]
fn leading_whitespace_before_the_request_line() {
    for (buf, at) in [
        (&b" GET / HTTP/1.1\r\nHost: a\r\n\r\n"[..], 0),
        (b"\tGET / HTTP/1.1\r\nHost: a\r\n\r\n", 0),
        // After a skipped empty line, the offset still counts from byte 0.
        (b"\r\n GET / HTTP/1.1\r\nHost: a\r\n\r\n", 2),
    ] {
        // Whitespace where the method starts: a malformed line, not a
        // method byte.
        assert_error(buf, K::InvalidRequestLine, at);
    }
    // Any other byte that is no tchar there is a bad method.
    assert_error(b"/ HTTP/1.1\r\nHost: a\r\n\r\n", K::InvalidMethod, 0);
}

/// No target between the method's SP and the line end: the target is
/// what is wrong. (With a target and no version, the line is.)
#[test]
fn a_missing_target_is_an_invalid_target() {
    assert_error(b"GET \r\nHost: a\r\n\r\n", K::InvalidTarget, 4);
    assert_error(b"GET \nHost: a\r\n\r\n", K::InvalidTarget, 4);
    assert_error(b"GET /\nHost: a\r\n\r\n", K::InvalidRequestLine, 5);
}

#[test]
fn several_spaces_with_the_leniency() {
    let config = config(|c| c.allow_multiple_spaces_in_request_line = true);
    for line in [
        &b"GET  /  HTTP/1.1"[..],
        b"GET\t/\tHTTP/1.1",
        b"GET \t / \t HTTP/1.1",
        b"GET / HTTP/1.1",
    ] {
        let buf = with_host(line);
        let (h, _) = head_with(&buf, &config);
        assert_eq!(h.method.slice(&buf), b"GET");
        assert_eq!(h.target.slice(&buf), b"/");
        assert_eq!(h.version, Version::Http11);
        assert_eq!(h.len, buf.len());
        // Still refused by default.
        if line != b"GET / HTTP/1.1" {
            assert_eq!(error(&buf).kind(), K::InvalidRequestLine);
        }
    }
}

/// With the leniency, a run of SP and HTAB of any length between the
/// parts, starting with either, is one separator.
#[test]
fn long_runs_of_spaces_and_tabs_with_the_leniency() {
    let config = config(|c| c.allow_multiple_spaces_in_request_line = true);
    for first in [b' ', b'\t'] {
        for n in [1, 4, 9, 30] {
            let run: Vec<u8> = (0..n)
                .map(|i| if i == 0 { first } else { b"\t "[i % 2] })
                .collect();
            let line = [&b"GET"[..], &run, b"/x", &run, b"HTTP/1.0"].concat();
            let buf = with_host(&line);
            let (h, _) = head_with(&buf, &config);
            assert_eq!(h.target.slice(&buf), b"/x", "{}", show(&buf));
            assert_eq!(h.version, Version::Http10, "{}", show(&buf));
            assert_eq!(h.len, buf.len(), "{}", show(&buf));
        }
    }
}

// ---------------------------------------------------------------------------
// Request-target bytes.

/// Every byte inside the target: only VCHARs other than `#` are accepted,
/// every other byte is refused at its own offset.
#[test]
fn every_byte_in_the_target() {
    for b in 0..=255u8 {
        let line = [&b"GET /a"[..], &[b], b"b HTTP/1.1"].concat();
        let buf = with_host(&line);
        if is_target_byte(b) {
            let (h, _) = head(&buf);
            assert_eq!(h.target.slice(&buf), &[b'/', b'a', b, b'b'], "{b:#04x}");
            assert_eq!(h.target_form, TargetForm::Origin);
            continue;
        }
        let e = error(&buf);
        assert_eq!(e.status(), 400, "{b:#04x}: {e}");
        if b == b' ' {
            // "/a" then "b HTTP/1.1" as the version.
            assert_eq!(e.kind(), K::InvalidVersion, "{e}");
            assert_eq!(e.offset(), 7, "{e}");
            continue;
        }
        assert_eq!(e.offset(), 6, "{b:#04x}: {e}");
        let allowed: &[K] = match b {
            b'\t' => &[K::InvalidRequestLine, K::InvalidTarget],
            b'\r' => &[K::InvalidRequestLine, K::InvalidTarget, K::BareCr],
            b'\n' => &[K::InvalidRequestLine, K::InvalidTarget, K::BareLf],
            _ => &[K::InvalidTarget],
        };
        assert!(allowed.contains(&e.kind()), "{b:#04x}: {e}");
    }
}

/// A bad byte at every position of targets of many lengths (every scanner
/// width and tail), and every length accepted whole.
#[test]
fn bad_target_byte_at_every_position() {
    for len in 1..=200usize {
        let mut target = b"/".to_vec();
        target.resize(len, b'x');
        let line = [&b"GET "[..], &target, b" HTTP/1.1"].concat();
        let buf = with_host(&line);
        let (h, _) = head(&buf);
        assert_eq!(h.target.range(), 4..4 + len);
    }
    for len in [2usize, 16, 17, 33, 64, 65, 100, 140] {
        for p in 1..len {
            for bad in [0x00u8, 0x01, 0x1f, 0x7f, 0x80, 0xff, b'#'] {
                let mut target = b"/".to_vec();
                target.resize(len, b'x');
                target[p] = bad;
                let line = [&b"GET "[..], &target, b" HTTP/1.1"].concat();
                assert_error(&with_host(&line), K::InvalidTarget, 4 + p);
            }
        }
    }
}

#[test]
fn fragment_in_the_target() {
    assert_error(&with_host(b"GET /a#frag HTTP/1.1"), K::InvalidTarget, 6);
    assert_error(&with_host(b"GET # HTTP/1.1"), K::InvalidTarget, 4);
    assert_error(
        &with_host(b"GET http://example.com/#x HTTP/1.1"),
        K::InvalidTarget,
        23,
    );
}

#[test]
fn empty_target() {
    // "GET  HTTP/1.1": two SPs, so an empty target.
    let e = error(&with_host(b"GET  HTTP/1.1"));
    assert_eq!((e.kind(), e.offset()), (K::InvalidRequestLine, 4));
}

// ---------------------------------------------------------------------------
// Request-target forms.

#[test]
fn origin_form() {
    for t in [
        &b"/"[..],
        b"/a/b/c",
        b"/?",
        b"/path?q=1&r=%20x",
        b"//double",
        b"/~user/!$&'()*+,;=:@-._",
        b"/\"<>\\^`{|}",
    ] {
        for m in [&b"GET"[..], b"POST", b"OPTIONS", b"HEAD", b"X"] {
            let line = [m, b" ", t, b" HTTP/1.1"].concat();
            let buf = with_host(&line);
            let (h, _) = head(&buf);
            assert_eq!(h.target_form, TargetForm::Origin, "{}", show(&buf));
            assert_eq!(h.target.slice(&buf), t);
        }
    }
}

#[test]
fn absolute_form() {
    for t in [
        &b"http://example.com"[..],
        b"http://example.com/",
        b"https://example.com/",
        b"http://example.com:8080",
        b"https://example.com:8443/a/b?q=1",
        b"http://example.com?query",
        b"http://example.com/?",
        b"http://127.0.0.1:8080/",
        b"http://[::1]/",
        b"http://[::1]:8080/x",
        b"HTTP://EXAMPLE.COM/",
        b"http://ex%41mple.com/",
    ] {
        for m in [&b"GET"[..], b"POST", b"OPTIONS"] {
            let line = [m, b" ", t, b" HTTP/1.1"].concat();
            let buf = with_host(&line);
            let (h, _) = head(&buf);
            assert_eq!(h.target_form, TargetForm::Absolute, "{}", show(&buf));
            assert_eq!(h.target.slice(&buf), t);
        }
    }
    // userinfo is refused (RFC 9110 §4.2.4: treat it as an error); parsers
    // disagree on where it ends, which sends one request to two hosts.
    for t in [
        &b"http://user:pass@example.com/"[..],
        b"http://user@example.com:80/p",
        b"http://good.example\\@evil.example/",
        b"http://a@b@c/",
    ] {
        let buf = with_host(&[&b"GET "[..], t, b" HTTP/1.1"].concat());
        assert_eq!(error(&buf).kind(), K::InvalidTargetForm, "{}", show(&buf));
    }
}

#[test]
fn malformed_absolute_forms() {
    for t in [
        &b"example.com"[..],
        b"example.com:80",
        b"example.com:80/x",
        b"localhost:8080",
        b"http:/example.com/",
        b"http//example.com/",
        b"http:example.com",
        b"://example.com/",
        b"1http://example.com/",
        b"http://",
        b"http:///path",
        b"http://:80/",
        b"http://user@/",
        b"http://[::1/",
        b"http://ex%zzample.com/",
        b"a",
        b"?x",
    ] {
        let line = [&b"GET "[..], t, b" HTTP/1.1"].concat();
        assert_error(&with_host(&line), K::InvalidTargetForm, 4);
    }
}

#[test]
fn authority_form_only_for_connect() {
    for t in [
        &b"example.com:443"[..],
        b"example.com:80",
        b"127.0.0.1:8080",
        b"[::1]:443",
        b"[2001:db8::1]:8443",
        b"a:1",
        b"a:65535",
        b"a:00443",
        b"[::1]:65535",
    ] {
        let line = [&b"CONNECT "[..], t, b" HTTP/1.1"].concat();
        let buf = with_host(&line);
        let (h, _) = head(&buf);
        assert_eq!(h.target_form, TargetForm::Authority, "{}", show(&buf));
        assert_eq!(h.method_kind, Method::Connect);
        assert_eq!(h.target.slice(&buf), t);
        // Authority-form with any other method.
        for m in [&b"GET "[..], b"POST ", b"OPTIONS "] {
            let line = [m, t, b" HTTP/1.1"].concat();
            let e = error(&with_host(&line));
            assert_eq!(
                (e.kind(), e.offset()),
                (K::InvalidTargetForm, m.len()),
                "{}",
                show(&line)
            );
        }
    }
}

#[test]
fn connect_needs_a_numeric_non_empty_port() {
    for t in [
        &b"example.com"[..],
        b"example.com:",
        b"example.com:https",
        b"example.com:44a",
        b"example.com:-1",
        // Not a TCP port (RFC 9110 §9.3.6: an invalid port is rejected).
        b"example.com:0",
        b"example.com:000",
        b"example.com:65536",
        b"example.com:99999",
        b"example.com:100000",
        b"example.com:0000000065536",
        b"[::1]:0",
        b"[::1]:70000",
        b":443",
        b"[::1]",
        b"[::1]:",
        b"[::1:443",
        b"user@example.com:443",
        b"/",
        b"/path",
        b"*",
        b"http://example.com:443/",
        b"http://example.com:443",
    ] {
        let line = [&b"CONNECT "[..], t, b" HTTP/1.1"].concat();
        assert_error(&with_host(&line), K::InvalidTargetForm, 8);
    }
}

#[test]
fn asterisk_form_only_for_options() {
    let buf = with_host(b"OPTIONS * HTTP/1.1");
    let (h, _) = head(&buf);
    assert_eq!(h.target_form, TargetForm::Asterisk);
    assert_eq!(h.target.slice(&buf), b"*");
    for m in [
        &b"GET"[..],
        b"HEAD",
        b"POST",
        b"PUT",
        b"DELETE",
        b"TRACE",
        b"PATCH",
        b"options",
        b"X",
    ] {
        let line = [m, b" * HTTP/1.1"].concat();
        assert_error(&with_host(&line), K::InvalidTargetForm, m.len() + 1);
    }
    for t in [&b"**"[..], b"*/", b"*x", b"*?"] {
        let line = [&b"OPTIONS "[..], t, b" HTTP/1.1"].concat();
        assert_error(&with_host(&line), K::InvalidTargetForm, 8);
    }
}

// ---------------------------------------------------------------------------
// Versions.

#[test]
fn http10_and_http11() {
    let buf = b"GET / HTTP/1.0\r\n\r\n";
    let (h, _) = head(buf);
    assert_eq!(h.version, Version::Http10);
    assert_eq!(h.len, buf.len());
    let (h, _) = head(&with_host(b"GET / HTTP/1.1"));
    assert_eq!(h.version, Version::Http11);
}

/// The version of a request line that is not the usual one, read by the
/// general parser (a bare LF after it, or more than one SP or HTAB before
/// it, when allowed), is the version written.
#[test]
fn versions_in_lenient_request_lines_are_read_as_written() {
    let lenient = config(|c| {
        c.allow_bare_lf = true;
        c.allow_multiple_spaces_in_request_line = true;
    });
    let versions = [
        (&b"HTTP/1.0"[..], Version::Http10),
        (b"HTTP/1.1", Version::Http11),
        (b"HTTP/1.9", Version::Http11),
    ];
    for (v, want) in versions {
        for (before, after) in [(&b" "[..], &b"\n"[..]), (b"  ", b"\r\n"), (b" \t", b"\n")] {
            let buf = [&b"GET /"[..], before, v, after, b"Host: a\r\n\r\n"].concat();
            let (h, _) = head_with(&buf, &lenient);
            assert_eq!(h.version, want, "{}", show(&buf));
            assert_eq!(h.len, buf.len(), "{}", show(&buf));
        }
    }
}

#[test]
fn higher_minor_versions_are_http11() {
    for minor in b'2'..=b'9' {
        let line = [&b"GET / HTTP/1."[..], &[minor]].concat();
        let (h, _) = head(&with_host(&line));
        assert_eq!(h.version, Version::Http11, "1.{}", minor as char);
        // Like HTTP/1.1 they need a Host.
        let buf = [&line[..], b"\r\n\r\n"].concat();
        assert_eq!(error(&buf).kind(), K::MissingHost);
    }
}

#[test]
fn other_major_versions_are_505() {
    for v in [
        &b"HTTP/0.9"[..],
        b"HTTP/0.0",
        b"HTTP/2.0",
        b"HTTP/2.1",
        b"HTTP/3.0",
        b"HTTP/9.9",
    ] {
        let line = [&b"GET / "[..], v].concat();
        let buf = with_host(&line);
        let e = error(&buf);
        assert_eq!(
            (e.kind(), e.offset(), e.status()),
            (K::UnsupportedVersion, 6, 505),
            "{}",
            show(&buf)
        );
    }
}

#[test]
fn malformed_versions_are_400() {
    let cases: &[(&[u8], usize)] = &[
        (b"HTTP/1", 6),
        (b"HTTP/1.10", 8),
        (b"HTTP/1.1.1", 8),
        (b"HTTP/11.1", 6),
        (b"HTTP/01.1", 6),
        (b"http/1.1", 0),
        (b"Http/1.1", 1),
        (b"HTTP/ 1.1", 5),
        (b"HTTP /1.1", 4),
        (b"HTTPS/1.1", 4),
        (b"HTTP\\1.1", 4),
        (b"HTTP/1,1", 6),
        (b"HTTP/a.1", 5),
        (b"HTTP/1.a", 7),
        (b"HTTP/1.", 7),
        (b"HTTP/", 5),
        (b"HTTP/1.1x", 8),
        (b"H", 1),
        (b"X", 0),
    ];
    for &(v, at) in cases {
        let line = [&b"GET / "[..], v].concat();
        let buf = with_host(&line);
        let e = error(&buf);
        assert_eq!(
            (e.kind(), e.offset(), e.status()),
            (K::InvalidVersion, 6 + at, 400),
            "{}",
            show(&buf)
        );
    }
    // No version at all (an HTTP/0.9 simple request).
    let e = error(b"GET /\r\n\r\n");
    assert_eq!((e.kind(), e.offset()), (K::InvalidRequestLine, 5));
    // An empty version.
    let e = error(b"GET / \r\nHost: a\r\n\r\n");
    assert_eq!((e.kind(), e.offset()), (K::InvalidVersion, 6));
}

#[test]
fn every_proper_prefix_of_valid_requests_is_partial() {
    let cases: &[&[u8]] = &[
        b"GET / HTTP/1.1\r\nHost: a\r\n\r\n",
        b"\r\n\r\nOPTIONS * HTTP/1.0\r\n\r\n",
        b"CONNECT [::1]:443 HTTP/1.1\r\nHost: [::1]:443\r\nX:\r\n\r\n",
        b"POST http://h:1/p?q HTTP/1.9\r\nHost: h:1\r\nContent-Length: 3\r\n\r\n",
    ];
    for &buf in cases {
        let (h, _) = head(buf);
        assert_eq!(h.len, buf.len());
        for n in 0..buf.len() {
            let (r, _) = request_with(&buf[..n], &h1_parse::Config::default());
            assert_eq!(r, Ok(Status::Partial), "{}", show(&buf[..n]));
        }
    }
}

// ---------------------------------------------------------------------------
// Empty lines before the request line.

#[test]
fn leading_empty_lines_are_skipped_and_counted() {
    for skip in [0usize, 1, 2, 5, 50] {
        let mut buf = b"\r\n".repeat(skip);
        buf.extend_from_slice(b"GET /x HTTP/1.1\r\nHost: example.com\r\n\r\nNEXT");
        let (h, f) = head(&buf);
        let at = 2 * skip;
        assert_eq!(h.len, buf.len() - 4);
        assert_eq!(h.method.range(), at..at + 3);
        assert_eq!(h.target.range(), at + 4..at + 6);
        assert_eq!(h.facts.host.unwrap().slice(&buf), b"example.com");
        assert_eq!(f[0].name.offset(), at + 17);
    }
}

#[test]
fn leading_bare_lf_and_bare_cr() {
    assert_error(b"\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", K::BareLf, 0);
    assert_error(b"\r\n\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", K::BareLf, 2);
    assert_error(b"\rGET / HTTP/1.1\r\nHost: a\r\n\r\n", K::BareCr, 0);
    assert_error(b"\r\n\r\rGET / HTTP/1.1\r\nHost: a\r\n\r\n", K::BareCr, 2);
    let config = config(|c| c.allow_bare_lf = true);
    let buf = b"\n\r\n\nGET / HTTP/1.1\r\nHost: a\r\n\r\n";
    let (h, _) = head_with(buf, &config);
    assert_eq!(h.method.offset(), 4);
    assert_eq!(h.len, buf.len());
    // Only empty lines so far: wait.
    for buf in [&b""[..], b"\r", b"\r\n", b"\r\n\r\n\r"] {
        assert_eq!(
            request_with(buf, &Default::default()).0,
            Ok(Status::Partial)
        );
    }
}

// ---------------------------------------------------------------------------
// Bare CR and LF at every position of the request line.

#[test]
fn bare_cr_and_lf_at_every_position_of_the_request_line() {
    let line = b"GET /p HTTP/1.1";
    let lenient_lf = config(|c| c.allow_bare_lf = true);
    for i in 0..=line.len() {
        for ins in [&b"\r"[..], b"\n", b"\r\n", b"\rx"] {
            if ins == b"\r\n" && (i == 0 || i == line.len()) {
                continue; // a skipped empty line / the real line end
            }
            let mut l = line.to_vec();
            l.splice(i..i, ins.iter().copied());
            let buf = with_host(&l);
            let e = error(&buf);
            assert_eq!(e.offset(), i, "{}: {e}", show(&buf));
            assert_eq!(e.status(), 400, "{}: {e}", show(&buf));
            assert!(
                matches!(
                    e.kind(),
                    K::BareCr
                        | K::BareLf
                        | K::InvalidMethod
                        | K::InvalidTarget
                        | K::InvalidRequestLine
                        | K::InvalidVersion
                ),
                "{}: {e}",
                show(&buf)
            );
            // The bare-LF leniency accepts LF only as a line end, never
            // inside the request line.
            if i > 0 && i < line.len() {
                let e = error_with(&buf, &lenient_lf);
                assert_eq!(e.offset(), i, "lenient {}: {e}", show(&buf));
            }
        }
    }
}

/// A CR followed by any byte but LF ends no line, at the end of the
/// request line or of a field line, in a head short enough for the
/// small-head parser: the verdict is a bare CR, at the CR, whatever the
/// byte (control bytes too, which are also errors of their own).
#[test]
fn a_cr_before_any_byte_but_lf_ends_no_line_of_a_small_head() {
    for b in (0..=255u8).filter(|&b| b != b'\n') {
        for line in [
            &b"GET / HTTP/1.1"[..],
            b"GET / HTTP/1.1\r\nHost: a",
            b"GET / HTTP/1.1\r\nHost: a\r\nX: v",
        ] {
            let buf = [line, b"\r", &[b], b"Y: w\r\n\r\n"].concat();
            assert!(buf.len() < 64);
            let e = error(&buf);
            assert_eq!(e.offset(), line.len(), "{}: {e}", show(&buf));
            assert_eq!(e.kind(), K::BareCr, "{}: {e}", show(&buf));
        }
    }
}

#[test]
fn request_line_ending_in_bare_lf() {
    let buf = b"GET / HTTP/1.1\nHost: a\r\n\r\n";
    assert_error(buf, K::BareLf, 14);
    let (h, _) = head_with(buf, &config(|c| c.allow_bare_lf = true));
    assert_eq!(h.len, buf.len());
    assert_eq!(h.facts.host.unwrap().slice(buf), b"a");
    // A CR after the version that is not followed by LF.
    assert_error(b"GET / HTTP/1.1\rHost: a\r\n\r\n", K::BareCr, 14);
    // CR at the end of the buffer: wait for the LF.
    assert_eq!(
        request_with(b"GET / HTTP/1.1\r", &Default::default()).0,
        Ok(Status::Partial)
    );
}

// ---------------------------------------------------------------------------
// The target limit.

#[test]
fn target_limit_default() {
    let mut target = b"/".to_vec();
    target.resize(8192, b'a');
    let line = [&b"GET "[..], &target, b" HTTP/1.1"].concat();
    let buf = with_host(&line);
    assert_eq!(head(&buf).0.target.len(), 8192);
    // Without the rest: still a valid prefix.
    assert_eq!(
        request_with(&buf[..4 + 8192], &Default::default()).0,
        Ok(Status::Partial)
    );

    target.push(b'a');
    let line = [&b"GET "[..], &target, b" HTTP/1.1"].concat();
    let buf = with_host(&line);
    let e = error(&buf);
    assert_eq!(
        (e.kind(), e.offset(), e.status()),
        (K::TargetTooLong, 4, 414)
    );
    // 414 as soon as the limit is passed, before the rest arrives.
    for n in [4 + 8193, 4 + 8193 + 1, 4 + 8193 + 5] {
        let e = error(&buf[..n]);
        assert_eq!(
            (e.kind(), e.offset(), e.status()),
            (K::TargetTooLong, 4, 414)
        );
    }
}

#[test]
fn target_limit_configured() {
    let config = config(|c| c.max_target_len = 10);
    let ok = with_host(b"GET /123456789 HTTP/1.1");
    assert_eq!(head_with(&ok, &config).0.target.len(), 10);
    let too_long = with_host(b"GET /1234567890 HTTP/1.1");
    assert_error_with(&too_long, &config, K::TargetTooLong, 4);
    let e = error_with(b"GET /1234567890", &config);
    assert_eq!((e.kind(), e.offset()), (K::TargetTooLong, 4));
    // With leading empty lines the offset is still the target's.
    let e = error_with(b"\r\n\r\nGET /1234567890", &config);
    assert_eq!((e.kind(), e.offset()), (K::TargetTooLong, 8));
    // Absolute and authority forms count too.
    assert_error_with(
        &with_host(b"GET http://a.b/ HTTP/1.1"),
        &config,
        K::TargetTooLong,
        4,
    );
    assert_error_with(
        &with_host(b"CONNECT example.com:443 HTTP/1.1"),
        &config,
        K::TargetTooLong,
        8,
    );
}

/// `HeadParser` fed byte by byte: the first answer other than `Partial`, and
/// the buffer length it came at.
fn first_verdict(buf: &[u8], config: &h1_parse::Config) -> (usize, RequestResult) {
    let mut p = h1_parse::HeadParser::new(config.clone());
    let mut storage = [h1_headers::Entry::EMPTY; 8];
    for n in 0..=buf.len() {
        match p.request(&buf[..n], &mut storage) {
            Ok(Status::Partial) => {}
            r => return (n, r),
        }
    }
    (buf.len(), Ok(Status::Partial))
}

/// The target limit with `HeadParser`: 414 as soon as the target passes the
/// limit, as `parse_request` answers on that prefix, not only at the head
/// limit.
#[test]
fn head_parser_refuses_a_long_target_at_the_limit() {
    let mut buf = b"GET /".to_vec();
    buf.resize(70_000, b'a');
    let default = h1_parse::Config::default();
    // One-shot on the prefix that passes the limit.
    let e = error(&buf[..4 + 8193]);
    assert_eq!((e.kind(), e.offset()), (K::TargetTooLong, 4));
    let (n, r) = first_verdict(&buf, &default);
    let e = r.unwrap_err();
    assert_eq!((e.kind(), e.offset()), (K::TargetTooLong, 4));
    assert_eq!(n, 4 + 8193, "refused at {n} bytes");
    // A small target limit.
    let small = config(|c| c.max_target_len = 10);
    let (n, r) = first_verdict(&buf, &small);
    let e = r.unwrap_err();
    assert_eq!((e.kind(), e.offset()), (K::TargetTooLong, 4));
    assert_eq!(n, 4 + 11, "refused at {n} bytes");
}

// ---------------------------------------------------------------------------
// Spans and lengths of a valid request line.

#[test]
fn spans_and_len_leave_the_body_alone() {
    let buf = b"POST /upload?x=1 HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello";
    let (h, f) = head(buf);
    assert_eq!(h.len, buf.len() - 5);
    assert_eq!(&buf[h.len..], b"hello");
    assert_eq!(h.method.slice(buf), b"POST");
    assert_eq!(h.target.slice(buf), b"/upload?x=1");
    assert_eq!(h.field_count, 2);
    assert_eq!(f.len(), 2);
    assert!(!h.obs_fold);
    let view = h.fields(buf, &f);
    assert_eq!(view.len(), 2);
    assert_eq!(view.get(b"content-length"), Some(&b"5"[..]));
}

// ---------------------------------------------------------------------------
// Head storage reused from one head to the next.

/// Every field of a head written into storage that held another head is
/// the new head's: the parse of a plain request into storage that held a
/// request with every framing fact set (and after a partial and a refused
/// parse into it) equals its parse into fresh storage.
#[test]
fn reused_head_storage_keeps_nothing_of_the_last_head() {
    use h1_parse::{Config, Entry, HeadParser, RequestHead};
    let cfg = config(|c| c.allow_obs_fold = true);
    let full = b"OPTIONS * HTTP/1.0\r\nHost: a.example:8080\r\nContent-Length: 7\r\nConnection: close, upgrade\r\nUpgrade: h2c\r\nX: a\r\n  b\r\n\r\n";
    let plain = b"GET /p HTTP/1.1\r\nHost: b\r\n\r\n";
    let fresh = |buf: &[u8]| {
        let mut head = RequestHead::EMPTY;
        let mut f = [Entry::EMPTY; 8];
        let r = h1_parse::parse_request(buf, &mut head, &mut f, &cfg);
        assert_eq!(r, Ok(Status::Complete(buf.len())));
        head
    };
    let want = fresh(plain);
    let old = fresh(full);
    let facts = &old.facts;
    assert!(old.obs_fold && facts.upgrade && facts.connection.close());
    assert_eq!(facts.content_length, Some(7));
    assert_eq!(
        facts.host.map(|h| h.slice(full)),
        Some(&b"a.example:8080"[..])
    );
    assert_eq!(
        (old.method_kind, old.target_form),
        (Method::Options, TargetForm::Asterisk)
    );
    assert_eq!((old.version, old.field_count), (Version::Http10, 5));

    let mut head = fresh(full);
    let mut f = [Entry::EMPTY; 8];
    let r = h1_parse::parse_request(plain, &mut head, &mut f, &cfg);
    assert_eq!(r, Ok(Status::Complete(plain.len())));
    assert_eq!(head, want, "one-shot into used storage");

    // A partial and a refused parse first, then the complete one.
    let mut head = fresh(full);
    let partial = h1_parse::parse_request(&plain[..20], &mut head, &mut f, &cfg);
    assert_eq!(partial, Ok(Status::Partial));
    let refused = h1_parse::parse_request(b"GET / HTTP/1.1\r\n\r\n", &mut head, &mut f, &cfg);
    assert_eq!(refused.map_err(|e| e.kind()), Err(K::MissingHost));
    let r = h1_parse::parse_request(plain, &mut head, &mut f, &cfg);
    assert_eq!(r, Ok(Status::Complete(plain.len())));
    assert_eq!(head, want, "after a partial and a refused parse");

    // The incremental parser, fed in pieces, into used storage.
    let mut head = fresh(full);
    let mut p = HeadParser::new(Config::default());
    for n in 1..plain.len() {
        let r = p.parse_request(&plain[..n], &mut head, &mut f);
        assert_eq!(r, Ok(Status::Partial), "{n} bytes");
    }
    let r = p.parse_request(plain, &mut head, &mut f);
    assert_eq!(r, Ok(Status::Complete(plain.len())));
    assert_eq!(head, want, "incremental into used storage");
}

#[test]
fn userinfo_and_malformed_ipv6_are_refused() {
    for t in [
        &b"http://good.example\\@evil.example/"[..],
        b"http://a@b@c/",
        b"http://user@example.com/",
    ] {
        let buf = with_host(&[&b"GET "[..], t, b" HTTP/1.1"].concat());
        assert_eq!(error(&buf).kind(), K::InvalidTargetForm, "{}", show(&buf));
    }
    for host in [
        &b"[:::::::]"[..],
        b"[::1::2]",
        b"[1:2:3:4:5:6:7:8:9]",
        b"[12345::]",
        b"[::1.2.3]",
    ] {
        let buf = [&b"GET / HTTP/1.1\r\nHost: "[..], host, b"\r\n\r\n"].concat();
        assert_eq!(error(&buf).kind(), K::InvalidHost, "{}", show(&buf));
    }
    for host in [
        &b"[::1]"[..],
        b"[2001:db8::8:800:200c:417a]:443",
        b"[::ffff:192.0.2.1]",
        b"[1:2:3:4:5:6:7:8]",
    ] {
        let buf = [&b"GET / HTTP/1.1\r\nHost: "[..], host, b"\r\n\r\n"].concat();
        assert!(head(&buf).0.facts.host.is_some(), "{}", show(&buf));
    }
}
