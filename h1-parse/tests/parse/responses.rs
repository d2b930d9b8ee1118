//! Response heads through the public API: the status line (codes, reason
//! phrases with obs-text, a missing reason), field lines, framing facts of
//! responses (Transfer-Encoding other than chunked is `NotChunked`), and the
//! bodiless statuses, one-shot and with `HeadParser`.
use crate::common::HeadValue;

use crate::common::*;
use h1_headers::Entry;
use h1_parse::{ErrorKind as K, HeadParser, Status, TransferEncoding, Version};

#[test]
fn every_status_code() {
    for code in 100..=999u16 {
        let buf = format!("HTTP/1.1 {code} Reason\r\nContent-Length: 0\r\n\r\n").into_bytes();
        let (h, _) = response_head(&buf);
        assert_eq!(h.status, code);
        assert_eq!(h.reason.slice(&buf), b"Reason");
    }
    for code in 0..100u16 {
        let buf = format!("HTTP/1.1 {code:03} Low\r\n\r\n").into_bytes();
        let e = response_error(&buf);
        assert_eq!(
            (e.kind(), e.status()),
            (K::InvalidStatusLine, 400),
            "{code}"
        );
    }
}

#[test]
fn malformed_status_lines() {
    let cases: &[(&[u8], usize)] = &[
        (b"HTTP/1.1 20 OK", 11),
        (b"HTTP/1.1 2000 OK", 12),
        (b"HTTP/1.1 20a OK", 11),
        (b"HTTP/1.1 -20 OK", 9),
        (b"HTTP/1.1 +200 OK", 9),
        (b"HTTP/1.1  200 OK", 9),
        (b"HTTP/1.1\t200 OK", 8),
        (b"HTTP/1.1 200\tOK", 12),
        (b"HTTP/1.1 200 O\x01K", 14),
        (b"HTTP/1.1 200 OK\x7f", 15),
        (b"HTTP/1.1 200 OK\x00", 15),
        (b"HTTP/1.1200 OK", 8),
        (b"HTTP/1.1 OK", 9),
    ];
    for &(line, at) in cases {
        let buf = [line, b"\r\n\r\n"].concat();
        let e = response_error(&buf);
        assert_eq!(
            (e.kind(), e.offset(), e.status()),
            (K::InvalidStatusLine, at, 400),
            "{}",
            show(&buf)
        );
    }
}

#[test]
fn malformed_versions() {
    for (line, kind) in [
        (&b"HTTP/1 200 OK"[..], K::InvalidVersion),
        (b"http/1.1 200 OK", K::InvalidVersion),
        (b"HTTP/1.10 200 OK", K::InvalidStatusLine),
        (b"ICY 200 OK", K::InvalidVersion),
        (b" HTTP/1.1 200 OK", K::InvalidVersion),
        (b"HTTP/2.0 200 OK", K::UnsupportedVersion),
        (b"HTTP/0.9 200 OK", K::UnsupportedVersion),
    ] {
        let buf = [line, b"\r\n\r\n"].concat();
        let e = response_error(&buf);
        assert_eq!(e.kind(), kind, "{}: {e}", show(&buf));
    }
    let (h, _) = response_head(b"HTTP/1.0 200 OK\r\n\r\n");
    assert_eq!(h.version, Version::Http10);
    let (h, _) = response_head(b"HTTP/1.7 200 OK\r\n\r\n");
    assert_eq!(h.version, Version::Http11);
}

#[test]
fn reason_phrases() {
    let cases: &[(&[u8], &[u8])] = &[
        (b"HTTP/1.1 404 Not Found\r\n\r\n", b"Not Found"),
        (
            b"HTTP/1.1 200 \x80\xff\xc3\xa9t\xc3\xa9\r\n\r\n",
            b"\x80\xff\xc3\xa9t\xc3\xa9",
        ),
        (b"HTTP/1.1 200 with\ttab\r\n\r\n", b"with\ttab"),
        (
            b"HTTP/1.1 200 !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~\r\n\r\n",
            b"!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
        ),
        // Missing reason, with and without the SP.
        (b"HTTP/1.1 200\r\n\r\n", b""),
        (b"HTTP/1.1 200 \r\n\r\n", b""),
    ];
    for &(buf, reason) in cases {
        let (h, _) = response_head(buf);
        assert_eq!(h.reason.slice(buf), reason, "{}", show(buf));
        assert_eq!(h.status, if buf[9] == b'4' { 404 } else { 200 });
        assert_eq!(h.len, buf.len());
    }
    // Every byte in the reason: field-value bytes are kept, others refused.
    for b in 0..=255u8 {
        let buf = [&b"HTTP/1.1 200 a"[..], &[b], b"b\r\n\r\n"].concat();
        if is_value_byte(b) {
            let (h, _) = response_head(&buf);
            assert_eq!(h.reason.slice(&buf), &[b'a', b, b'b']);
            continue;
        }
        let e = response_error(&buf);
        assert_eq!(e.offset(), 14, "{b:#04x}: {e}");
        let allowed: &[K] = match b {
            b'\r' => &[K::BareCr, K::InvalidStatusLine],
            b'\n' => &[K::BareLf, K::InvalidStatusLine],
            _ => &[K::InvalidStatusLine],
        };
        assert!(allowed.contains(&e.kind()), "{b:#04x}: {e}");
    }
}

#[test]
fn line_endings_of_the_status_line() {
    let e = response_error(b"HTTP/1.1 200 OK\nServer: x\r\n\r\n");
    assert_eq!((e.kind(), e.offset()), (K::BareLf, 15));
    let e = response_error(b"HTTP/1.1 200 OK\rServer: x\r\n\r\n");
    assert_eq!((e.kind(), e.offset()), (K::BareCr, 15));
    let buf = b"HTTP/1.1 200 OK\nServer: x\n\n";
    let lf = config(|c| c.allow_bare_lf = true);
    let mut f = [Entry::EMPTY; 8];
    let h = crate::common::parse_response(buf, &mut f, &lf)
        .unwrap()
        .complete()
        .unwrap();
    assert_eq!(h.len, buf.len());
    assert_eq!(f[0].value.slice(buf), b"x");
    let buf = b"HTTP/1.1 204\nX: y\r\n\r\n";
    let h = crate::common::parse_response(buf, &mut f, &lf)
        .unwrap()
        .complete()
        .unwrap();
    assert_eq!(h.reason.slice(buf), b"");
}

/// A status line as long as `max_field_line_len` allows is taken and one
/// byte longer is refused, ended by CRLF or (when allowed) a bare LF.
#[test]
fn a_status_line_at_the_field_line_limit() {
    let line = b"HTTP/1.1 200 OK";
    for (end, bare_lf) in [(&b"\r\n"[..], false), (b"\n", true)] {
        let buf = [&line[..], end, b"\r\n"].concat();
        let limit = |max| {
            config(|c| {
                c.max_field_line_len = max;
                c.allow_bare_lf = bare_lf;
            })
        };
        let (r, _) = response_with(&buf, &limit(line.len()));
        assert_eq!(r.map(|s| s.is_complete()), Ok(true), "{}", show(&buf));
        let (r, _) = response_with(&buf, &limit(line.len() - 1));
        assert_eq!(
            r.map(|s| s.is_complete())
                .map_err(|e| (e.kind(), e.offset())),
            Err((K::FieldLineTooLong, 0)),
            "{}",
            show(&buf)
        );
    }
}

#[test]
fn bodiless_statuses_parse() {
    for buf in [
        &b"HTTP/1.1 100 Continue\r\n\r\n"[..],
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
        b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n",
        b"HTTP/1.1 204 No Content\r\n\r\n",
        b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n",
        b"HTTP/1.1 304 Not Modified\r\nContent-Length: 100\r\nETag: \"x\"\r\n\r\n",
        b"HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n",
    ] {
        let (h, _) = response_head(buf);
        assert_eq!(h.len, buf.len(), "{}", show(buf));
    }
    let buf =
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n";
    let (h, _) = response_head(buf);
    assert!(h.facts.upgrade && h.facts.connection.upgrade());
    let buf = b"HTTP/1.1 304 Not Modified\r\nContent-Length: 100\r\n\r\n";
    assert_eq!(response_head(buf).0.facts.content_length, Some(100));
    // A 1xx followed by the final response in the same buffer.
    let buf = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    let (h, _) = response_head(buf);
    assert_eq!((h.status, h.len), (100, 25));
    let (h, _) = response_head(&buf[25..]);
    assert_eq!((h.status, h.len), (200, buf.len() - 25 - 2));
}

#[test]
fn transfer_encoding_in_responses() {
    let cases: &[(&[u8], TransferEncoding)] = &[
        (b"Transfer-Encoding: chunked", TransferEncoding::Chunked),
        (
            b"Transfer-Encoding: gzip, chunked",
            TransferEncoding::Chunked,
        ),
        (b"Transfer-Encoding: gzip", TransferEncoding::NotChunked),
        (b"Transfer-Encoding: identity", TransferEncoding::NotChunked),
        (b"X: y", TransferEncoding::Absent),
        // Parameters (RFC 9110 §10.1.4): a token or a quoted-string, with
        // optional whitespace around `=` (BWS) and `;`.
        (
            b"Transfer-Encoding: x-c;a=b, chunked",
            TransferEncoding::Chunked,
        ),
        (
            b"Transfer-Encoding: x-c ; a = \"b c\" ;d=\"e\\\"f\", chunked",
            TransferEncoding::Chunked,
        ),
        (
            b"Transfer-Encoding: x-c;a=\t\"\"",
            TransferEncoding::NotChunked,
        ),
    ];
    for &(line, te) in cases {
        let buf = [&b"HTTP/1.1 200 OK\r\n"[..], line, b"\r\n\r\n"].concat();
        let (h, _) = response_head(&buf);
        assert_eq!(h.facts.transfer_encoding, te, "{}", show(line));
    }
    for lines in [
        &b"Transfer-Encoding: chunked, gzip\r\n"[..],
        b"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n",
        b"Transfer-Encoding: chunked;a=b\r\n",
        b"Transfer-Encoding:\r\n",
        // A parameter's name not a token, its value neither a token nor a
        // quoted-string, or no value.
        b"Transfer-Encoding: x-c;@=b, chunked\r\n",
        b"Transfer-Encoding: x-c;=b, chunked\r\n",
        b"Transfer-Encoding: x-c;a=\"b\"c, chunked\r\n",
        b"Transfer-Encoding: x-c;a=b\", chunked\r\n",
        b"Transfer-Encoding: x-c;a=\"b\"c\", chunked\r\n",
        b"Transfer-Encoding: x-c;a=\", chunked\r\n",
        b"Transfer-Encoding: x-c;a=\"b\\\", chunked\r\n",
        b"Transfer-Encoding: x-c;a=, chunked\r\n",
        b"Transfer-Encoding: x-c;a, chunked\r\n",
        // A quoted-string holding `,` or `;`: valid (RFC 9110 §5.6.4), but a
        // reader that splits the list without regard to quotes sees other
        // codings, so it is refused on purpose.
        b"Transfer-Encoding: x-c;a=\"b,c\", chunked\r\n",
        b"Transfer-Encoding: x-c;a=\"b;c\", chunked\r\n",
        b"Transfer-Encoding: x-c;a=\"b, chunked\"\r\n",
    ] {
        let buf = [&b"HTTP/1.1 200 OK\r\n"[..], lines, b"\r\n"].concat();
        let e = response_error(&buf);
        assert_eq!(e.kind(), K::InvalidTransferEncoding, "{}", show(&buf));
    }
    // Both: refused for responses too.
    let buf = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n";
    assert_eq!(
        response_error(buf).kind(),
        K::ContentLengthWithTransferEncoding
    );
    let buf = b"HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
    assert_eq!(response_error(buf).kind(), K::TransferEncodingInHttp10);
}

#[test]
fn response_fields_and_framing() {
    let buf = b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 5, 5\r\n\
                Host: not, checked\r\nHost: twice\r\nExpect: 100-continue\r\n\r\nhello";
    let (h, f) = response_head(buf);
    assert_eq!(h.len, buf.len() - 5);
    assert!(h.facts.connection.close());
    assert_eq!(h.facts.content_length, Some(5));
    // Host and Expect are request fields.
    assert_eq!(h.facts.host, None);
    assert_eq!(h.facts.expect, h1_parse::Expect::None);
    assert_eq!(f.len(), 5);
    let buf = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n";
    assert_eq!(response_error(buf).kind(), K::InvalidContentLength);
    // Field-line errors as in requests.
    let buf = b"HTTP/1.1 200 OK\r\nServer : x\r\n\r\n";
    assert_eq!(
        (response_error(buf).kind(), response_error(buf).offset()),
        (K::WhitespaceBeforeColon, 23)
    );
    let buf = b"HTTP/1.1 200 OK\r\n Server: x\r\n\r\n";
    assert_eq!(response_error(buf).kind(), K::ObsFold);
    let buf = b"HTTP/1.1 200 OK\r\nServer: x\r\n y\r\n\r\n";
    assert_eq!(response_error(buf).kind(), K::ObsFold);
}

#[test]
fn prefixes_are_partial_and_head_parser_agrees() {
    let bufs: Vec<Vec<u8>> = vec![
        // A typical response head, like the reference input's.
        b"HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nServer: h1\r\n\
          Content-Type: text/plain; charset=utf-8\r\nContent-Length: 13\r\n\r\n"
            .to_vec(),
        b"HTTP/1.1 204\r\n\r\n".to_vec(),
        b"HTTP/1.0 404 Not Found\r\nX: \x80\r\n\r\n".to_vec(),
    ];
    for buf in &bufs {
        let (h, f) = response_head(buf);
        for n in 0..buf.len() {
            assert_eq!(
                response_with(&buf[..n], &Default::default()).0,
                Ok(Status::Partial),
                "{}",
                show(&buf[..n])
            );
        }
        let mut p = HeadParser::new(Default::default());
        let mut storage = [Entry::EMPTY; 16];
        for n in 0..buf.len() {
            assert_eq!(p.response(&buf[..n], &mut storage), Ok(Status::Partial));
        }
        assert_eq!(p.response(buf, &mut storage), Ok(Status::Complete(h)));
        assert_eq!(&storage[..h.field_count], &f[..]);
    }
}

/// RFC 9112 §6.3 in its order: the request's method and the status come
/// before the framing fields, then chunked, another coding, the length, and
/// the close.
#[test]
fn response_body_framing_follows_the_rfc_order() {
    use h1_parse::{Framing, Method};
    let cases: [(&[u8], Method, Framing); 12] = [
        (
            b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n",
            Method::Get,
            Framing::Length(5),
        ),
        (
            b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n",
            Method::Head,
            Framing::Empty,
        ),
        (
            b"HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n",
            Method::Get,
            Framing::Empty,
        ),
        (
            b"HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n",
            Method::Get,
            Framing::Empty,
        ),
        (
            b"HTTP/1.1 103 Early Hints\r\nContent-Length: 5\r\n\r\n",
            Method::Get,
            Framing::Empty,
        ),
        (
            b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n",
            Method::Connect,
            Framing::Empty,
        ),
        (
            b"HTTP/1.1 407 Auth\r\nContent-Length: 5\r\n\r\n",
            Method::Connect,
            Framing::Length(5),
        ),
        // Only a 2xx starts a tunnel: the edges of the class.
        (
            b"HTTP/1.1 299 Tunnel\r\nContent-Length: 5\r\n\r\n",
            Method::Connect,
            Framing::Empty,
        ),
        (
            b"HTTP/1.1 300 Choices\r\nContent-Length: 5\r\n\r\n",
            Method::Connect,
            Framing::Length(5),
        ),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
            Method::Post,
            Framing::Chunked,
        ),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
            Method::Get,
            Framing::UntilClose,
        ),
        (
            b"HTTP/1.1 200 OK\r\nServer: x\r\n\r\n",
            Method::Get,
            Framing::UntilClose,
        ),
    ];
    for (buf, method, want) in cases {
        let (h, _) = response_head(buf);
        assert_eq!(h.framing(method), want, "{} to {method:?}", show(buf));
    }
}
