//! One test per requirement RFC 9110 and RFC 9112 place on what a sender may
//! put in a message, as the encoder enforces them:
//!
//! | requirement | section | test |
//! |---|---|---|
//! | no content in 1xx; no `Content-Length` in 1xx | 9110 §15.2, §8.6 | `informational_has_no_content_or_length` |
//! | no `Transfer-Encoding` in 1xx or 204 | 9112 §6.1 | `informational_has_no_content_or_length`, `no_content_204` |
//! | no 1xx to an HTTP/1.0 client | 9110 §15.2 | `no_informational_to_http10` |
//! | no content and no `Content-Length` in 204 | 9110 §15.3.5, §8.6 | `no_content_204` |
//! | no content in 205 | 9110 §15.3.6 | `reset_content_205_has_none` |
//! | no content in 304; `Content-Length` only as the 200's length | 9110 §15.4.5, §8.6 | `not_modified_304` |
//! | no body in a response to HEAD, same framing fields as GET | 9110 §9.3.2 | `head_response_has_fields_but_no_body` |
//! | no `Content-Length` / `Transfer-Encoding` in a 2xx to CONNECT | 9110 §8.6, 9112 §6.1 | `connect_2xx_has_no_length_fields` |
//! | `Transfer-Encoding` only to HTTP/1.1 clients | 9112 §6.1 | `chunked_only_to_http11` |
//! | no `Content-Length` together with `Transfer-Encoding` | 9112 §6.2 | `one_framing_only` |
//! | a close-delimited body ends the connection; `close` sent | 9112 §6.3, §9.6 | `chunked_only_to_http11` |
//! | `Connection: close` on the last response; HTTP/1.0 persistence needs `keep-alive` | 9112 §9.3, §9.6, §C.2.2 | `connection_fate` |
//! | `Date` in 2xx, 3xx, 4xx from a server with a clock | 9110 §6.6.1 | `date_when_a_clock_exists` |
//! | field names are tokens; values without CR, LF, NUL | 9110 §5.1, §5.5 | `fields_are_valid` |
//! | reason phrase: HTAB, SP, VCHAR, obs-text | 9112 §4 | `reason_phrase_bytes` |
//! | the body matches its `Content-Length` | 9112 §6.2, §8 | `body_matches_content_length` |
//! | chunked: no zero-size chunk before the last; trailers only fields allowed there | 9112 §7.1, 9110 §6.5.1 | `chunk_framing` |
//! | `Host` in every HTTP/1.1 request | 9112 §3.2 | `request_host_and_framing` |
//! | trailers only hold fields whose definitions allow them there | 9110 §6.5.1 | `trailers_only_hold_fields_allowed_there` |
//! | a client sends `Transfer-Encoding` only to HTTP/1.1 | 9112 §6.1 | `request_host_and_framing` |
//! | no second `Date` field line (not a list), from any source | 9110 §5.3 | `date_only_once` |
//! | no content in a TRACE request | 9110 §9.3.8 | `trace_has_no_content` |
//! | `Expect: 100-continue` only on a request with content | 9110 §10.1.1 | `expect_continue_needs_content` |
//! | a 101 response has `Upgrade` | 9110 §15.2.2 | `switching_protocols_has_upgrade` |
//! | no userinfo in a generated URI / `Host`; CONNECT target is `host:port` | 9110 §4.2.4, 9112 §3.2.3 | `request_parts_userinfo_and_connect` |

use h1_encode::{DateLine, Error, Exchange, Framing, Head, RequestWriter, ResponseWriter, Version};

const H10: Version = Version::Http10;
const H11: Version = Version::Http11;

fn date() -> DateLine {
    DateLine::new(b"Sun, 06 Nov 1994 08:49:37 GMT").unwrap()
}

/// Encodes a response with a Date and one caller field; returns the bytes
/// and the head, or the error (after checking the buffer was left empty).
fn respond(status: u16, ex: Exchange, body: Framing) -> Result<(Vec<u8>, Head), Error> {
    let mut buf = Vec::new();
    let r = (|| {
        let mut w = ResponseWriter::start(&mut buf, status, &ex, body)?;
        w.date(&date()).field(b"X-Test", b"1")?;
        if status == 101 {
            w.field(b"Upgrade", b"websocket")?;
        }
        w.finish()
    })();
    match r {
        Ok(head) => Ok((buf, head)),
        Err(e) => {
            assert!(buf.is_empty(), "a refused head left bytes behind");
            Err(e)
        }
    }
}

fn has(buf: &[u8], name: &str) -> bool {
    let text = String::from_utf8_lossy(buf).to_ascii_lowercase();
    text.contains(&format!("\r\n{}:", name.to_ascii_lowercase()))
}

fn ok(r: Result<(Vec<u8>, Head), Error>) -> (Vec<u8>, Head) {
    r.unwrap()
}

#[test]
fn informational_has_no_content_or_length() {
    for status in [100, 101, 103, 199] {
        let (buf, mut head) = ok(respond(status, Exchange::new(H11), Framing::Empty));
        assert!(!has(&buf, "content-length") && !has(&buf, "transfer-encoding"));
        assert!(
            !has(&buf, "connection"),
            "a 1xx does not decide the connection"
        );
        assert_eq!(head.framing, Framing::Empty);
        assert_eq!(
            head.body.write(&mut Vec::new(), b"x"),
            Err(Error::BodyNotAllowed)
        );
        // Even when the final response will close.
        let (buf, _) = ok(respond(
            status,
            Exchange::new(H11).close(true),
            Framing::Empty,
        ));
        assert!(!has(&buf, "connection"));
        for body in [Framing::Length(0), Framing::Length(5), Framing::Chunked] {
            assert_eq!(
                respond(status, Exchange::new(H11), body).unwrap_err(),
                Error::BodyNotAllowed
            );
        }
    }
}

#[test]
fn no_informational_to_http10() {
    for status in [100, 101, 103] {
        assert_eq!(
            respond(status, Exchange::new(H10), Framing::Empty).unwrap_err(),
            Error::InformationalToHttp10
        );
        assert_eq!(
            respond(status, Exchange::new(H10).close(false), Framing::Empty).unwrap_err(),
            Error::InformationalToHttp10
        );
    }
}

#[test]
fn no_content_204() {
    let (buf, head) = ok(respond(204, Exchange::new(H11), Framing::Empty));
    assert!(!has(&buf, "content-length") && !has(&buf, "transfer-encoding"));
    assert_eq!(head.framing, Framing::Empty);
    for body in [Framing::Length(0), Framing::Length(1), Framing::Chunked] {
        assert_eq!(
            respond(204, Exchange::new(H11), body).unwrap_err(),
            Error::BodyNotAllowed
        );
    }
    // HEAD or not, 1.0 or 1.1.
    let (buf, _) = ok(respond(204, Exchange::new(H10).head(true), Framing::Empty));
    assert!(!has(&buf, "content-length"));
}

#[test]
fn reset_content_205_has_none() {
    for body in [Framing::Empty, Framing::Length(0)] {
        let (buf, mut head) = ok(respond(205, Exchange::new(H11), body));
        assert!(has(&buf, "content-length"));
        assert!(buf.ends_with(b"Content-Length: 0\r\n\r\n"));
        assert_eq!(
            head.body.write(&mut Vec::new(), b"x"),
            Err(Error::BodyTooLong)
        );
    }
    for body in [Framing::Length(3), Framing::Chunked] {
        assert_eq!(
            respond(205, Exchange::new(H11), body).unwrap_err(),
            Error::BodyNotAllowed
        );
    }
}

#[test]
fn not_modified_304() {
    let (buf, head) = ok(respond(304, Exchange::new(H11), Framing::Empty));
    assert!(!has(&buf, "content-length") && !has(&buf, "transfer-encoding"));
    assert_eq!(head.framing, Framing::Empty);
    // The length the 200 would have had, and no body.
    let (buf, mut head) = ok(respond(304, Exchange::new(H11), Framing::Length(1234)));
    assert!(buf.ends_with(b"Content-Length: 1234\r\n\r\n"));
    assert_eq!(
        head.body.write(&mut Vec::new(), b"x"),
        Err(Error::BodyNotAllowed)
    );
    head.body.finish(&mut Vec::new()).unwrap();
    assert_eq!(
        respond(304, Exchange::new(H11), Framing::Chunked).unwrap_err(),
        Error::BodyNotAllowed
    );
}

#[test]
fn head_response_has_fields_but_no_body() {
    let head_req = Exchange::new(H11).head(true);
    let (buf, mut head) = ok(respond(200, head_req, Framing::Length(13)));
    assert!(buf.ends_with(b"Content-Length: 13\r\n\r\n"));
    assert_eq!(
        head.body.write(&mut Vec::new(), b"Hello"),
        Err(Error::BodyNotAllowed)
    );
    let mut out = Vec::new();
    head.body.finish(&mut out).unwrap();
    assert!(out.is_empty());
    // The whole-body helper takes the empty body.
    let (buf, mut head) = ok(respond(200, head_req, Framing::Length(13)));
    assert_eq!(head.with_body(&buf, b"").unwrap()[1], b"");

    // No content stated: `Content-Length: 0` as for a GET, where the body
    // is an empty counted one; to HEAD there is no body at all.
    let (buf, mut head) = ok(respond(200, Exchange::new(H11), Framing::Empty));
    assert!(buf.ends_with(b"Content-Length: 0\r\n\r\n"));
    assert_eq!(head.framing, Framing::Length(0));
    assert_eq!(head.body.remaining(), Some(0));
    assert_eq!(
        head.body.write(&mut Vec::new(), b"x"),
        Err(Error::BodyTooLong)
    );
    let (buf, mut head) = ok(respond(200, head_req, Framing::Empty));
    assert!(buf.ends_with(b"Content-Length: 0\r\n\r\n"));
    assert_eq!(head.framing, Framing::Empty);
    assert_eq!(head.body.remaining(), None);
    assert_eq!(
        head.body.write(&mut Vec::new(), b"x"),
        Err(Error::BodyNotAllowed)
    );

    // Streamed: the same Transfer-Encoding a GET would get, no chunks.
    let (buf, mut head) = ok(respond(200, head_req, Framing::Chunked));
    assert!(buf.ends_with(b"Transfer-Encoding: chunked\r\n\r\n"));
    assert_eq!(
        head.body.write(&mut Vec::new(), b"x"),
        Err(Error::BodyNotAllowed)
    );
    let mut out = Vec::new();
    head.body.finish(&mut out).unwrap();
    assert!(out.is_empty(), "no last chunk for a body that is not there");
    // To HTTP/1.0 a HEAD response with an unknown length needs no close.
    let (buf, head) = ok(respond(
        200,
        Exchange::new(H10).head(true).close(false),
        Framing::Chunked,
    ));
    assert!(buf.ends_with(b"Connection: keep-alive\r\n\r\n"));
    assert!(!head.close);
}

#[test]
fn connect_2xx_has_no_length_fields() {
    let connect = Exchange::new(H11).connect(true);
    for status in [200, 204, 299] {
        let (buf, head) = ok(respond(status, connect, Framing::Empty));
        assert!(!has(&buf, "content-length") && !has(&buf, "transfer-encoding"));
        assert_eq!(head.framing, Framing::Empty);
        for body in [Framing::Length(0), Framing::Chunked] {
            assert_eq!(
                respond(status, connect, body).unwrap_err(),
                Error::BodyNotAllowed
            );
        }
    }
    // A refused CONNECT has an ordinary body, from 300 on.
    for status in [300, 407] {
        let (buf, head) = ok(respond(status, connect, Framing::Length(2)));
        assert!(buf.ends_with(b"Content-Length: 2\r\n\r\n"));
        assert_eq!(head.framing, Framing::Length(2));
    }
}

#[test]
fn a_close_delimited_response_says_close_to_either_version() {
    for ex in [Exchange::new(H11), Exchange::new(H10).close(false)] {
        let (buf, mut head) = ok(respond(200, ex, Framing::UntilClose));
        assert!(!has(&buf, "transfer-encoding") && !has(&buf, "content-length"));
        assert!(buf.ends_with(b"Connection: close\r\n\r\n"));
        assert!(head.close);
        assert_eq!(head.framing, Framing::UntilClose);
        let mut out = Vec::new();
        head.body.write(&mut out, b"raw").unwrap();
        assert_eq!(out, b"raw");
    }
    // Not where no content is allowed; a response to HEAD has no body.
    assert_eq!(
        respond(204, Exchange::new(H11), Framing::UntilClose).err(),
        Some(Error::BodyNotAllowed)
    );
    let (buf, head) = ok(respond(
        200,
        Exchange::new(H11).head(true),
        Framing::UntilClose,
    ));
    assert_eq!(head.framing, Framing::Empty);
    // Nor does it need the close: no length field, and the connection
    // goes on.
    assert!(!has(&buf, "content-length") && !has(&buf, "transfer-encoding"));
    assert!(
        !has(&buf, "connection"),
        "{}",
        String::from_utf8_lossy(&buf)
    );
    assert!(!head.close);
}

#[test]
fn chunked_only_to_http11() {
    let (buf, head) = ok(respond(200, Exchange::new(H11), Framing::Chunked));
    assert!(buf.ends_with(b"Transfer-Encoding: chunked\r\n\r\n"));
    assert_eq!(head.framing, Framing::Chunked);
    assert!(!head.close);
    for ex in [Exchange::new(H10), Exchange::new(H10).close(false)] {
        let (buf, mut head) = ok(respond(200, ex, Framing::Chunked));
        assert!(!has(&buf, "transfer-encoding") && !has(&buf, "content-length"));
        assert!(buf.ends_with(b"Connection: close\r\n\r\n"));
        assert!(head.close, "a close-delimited body ends the connection");
        assert_eq!(head.framing, Framing::UntilClose);
        let mut out = Vec::new();
        head.body.write(&mut out, b"raw").unwrap();
        assert_eq!(out, b"raw", "no chunk framing");
        assert_eq!(
            head.body.finish_with_trailers(&mut out, [("a", "b")]),
            Err(Error::TrailersNotAllowed)
        );
    }
}

#[test]
fn one_framing_only() {
    let ex = Exchange::new(H11);
    for (name, value) in [
        ("Content-Length", "5"),
        ("content-length", "0"),
        ("Transfer-Encoding", "chunked"),
        ("TRANSFER-ENCODING", "gzip"),
        ("Connection", "close"),
        ("Connection", "Keep-Alive"),
        ("Connection", "upgrade, close"),
    ] {
        for body in [Framing::Empty, Framing::Length(5), Framing::Chunked] {
            let mut buf = Vec::new();
            let mut w = ResponseWriter::start(&mut buf, 200, &ex, body).unwrap();
            assert_eq!(
                w.field(name.as_bytes(), value.as_bytes()).err(),
                Some(Error::FramingField),
                "{name}: {value}"
            );
            assert_eq!(
                w.fields([(name, value)]).err(),
                Some(Error::FramingField),
                "{name}: {value}"
            );
            let mut blob = h1_headers::HeaderBlob::new();
            blob.append(name.as_bytes(), value.as_bytes()).unwrap();
            assert_eq!(w.blob(&blob).err(), Some(Error::FramingField));
            w.date(&date());
            let head = w.finish().unwrap();
            let text = String::from_utf8_lossy(head.bytes(&buf)).to_ascii_lowercase();
            assert!(
                text.matches("content-length").count() + text.matches("transfer-encoding").count()
                    <= 1
            );
        }
    }
    assert!(h1_encode::PreEncoded::new([("Content-Length", "1")]).is_err());
    // Connection with other options is the caller's.
    let mut buf = Vec::new();
    let mut w = ResponseWriter::start(&mut buf, 101, &ex, Framing::Empty).unwrap();
    w.field(b"Connection", b"upgrade")
        .unwrap()
        .field(b"Upgrade", b"websocket")
        .unwrap();
    let _head = w.finish().unwrap();
    assert_eq!(
        buf,
        b"HTTP/1.1 101 Switching Protocols\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n"
    );
}

#[test]
fn connection_fate() {
    // 1.1: persistent by default, nothing written; closing writes close.
    let (buf, head) = ok(respond(200, Exchange::new(H11), Framing::Length(0)));
    assert!(!has(&buf, "connection") && !head.close);
    let (buf, head) = ok(respond(
        200,
        Exchange::new(H11).close(true),
        Framing::Length(0),
    ));
    assert!(buf.ends_with(b"Connection: close\r\n\r\n") && head.close);
    // 1.0: closes by default (close written); keep-alive when it stays.
    let (buf, head) = ok(respond(200, Exchange::new(H10), Framing::Length(0)));
    assert!(buf.ends_with(b"Connection: close\r\n\r\n") && head.close);
    let (buf, head) = ok(respond(
        404,
        Exchange::new(H10).close(false),
        Framing::Length(0),
    ));
    assert!(buf.ends_with(b"Connection: keep-alive\r\n\r\n") && !head.close);
    // The status line is HTTP/1.1 either way (RFC 9112 §2.3).
    assert!(buf.starts_with(b"HTTP/1.1 404 Not Found\r\n"));
}

#[test]
fn date_when_a_clock_exists() {
    for status in [200, 204, 301, 304, 404, 499] {
        let mut buf = Vec::new();
        let w =
            ResponseWriter::start(&mut buf, status, &Exchange::new(H11), Framing::Empty).unwrap();
        assert_eq!(w.finish().err(), Some(Error::MissingDate), "{status}");
        assert!(buf.is_empty());
        // Without a clock, none is required.
        let ex = Exchange::new(H11).clock(false);
        let w = ResponseWriter::start(&mut buf, status, &ex, Framing::Empty).unwrap();
        let _head = w.finish().unwrap();
        assert!(!has(&buf, "date"));
        // A caller's own Date field counts.
        buf.clear();
        let mut w =
            ResponseWriter::start(&mut buf, status, &Exchange::new(H11), Framing::Empty).unwrap();
        w.field(b"date", b"Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
        let _head = w.finish().unwrap();
    }
    // 1xx and 5xx may go without.
    for status in [100, 500, 503] {
        let mut buf = Vec::new();
        let w =
            ResponseWriter::start(&mut buf, status, &Exchange::new(H11), Framing::Empty).unwrap();
        let _head = w.finish().unwrap();
    }
    #[cfg(feature = "std")]
    {
        let mut cache = h1_encode::DateCache::new();
        let mut buf = Vec::new();
        let mut w =
            ResponseWriter::start(&mut buf, 200, &Exchange::new(H11), Framing::Empty).unwrap();
        w.date(cache.line());
        let _head = w.finish().unwrap();
        let text = String::from_utf8(buf).unwrap();
        let line = text.lines().find(|l| l.starts_with("Date: ")).unwrap();
        let when = httpdate_parse(&line[6..]);
        let now = std::time::SystemTime::now();
        let skew = now.duration_since(when).unwrap();
        assert!(skew.as_secs() < 5, "{line}");
    }
}

#[cfg(feature = "std")]
fn httpdate_parse(s: &str) -> std::time::SystemTime {
    // IMF-fixdate to seconds, by hand (the test does not trust the
    // formatter it checks).
    let months = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let day: i64 = s[5..7].parse().unwrap();
    let month = months.iter().position(|m| *m == &s[8..11]).unwrap() as i64 + 1;
    let year: i64 = s[12..16].parse().unwrap();
    let h: i64 = s[17..19].parse().unwrap();
    let m: i64 = s[20..22].parse().unwrap();
    let sec: i64 = s[23..25].parse().unwrap();
    // Days from civil (Howard Hinnant).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + h * 3600 + m * 60 + sec;
    std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs as u64)
}

#[test]
fn fields_are_valid() {
    let mut buf = Vec::new();
    let ex = Exchange::new(H11).clock(false);
    let mut w = ResponseWriter::start(&mut buf, 200, &ex, Framing::Empty).unwrap();
    for name in [&b""[..], b"a b", b"a:", b"\xe9", b"a\r\n", b"(x)"] {
        assert_eq!(w.field(name, b"v").err(), Some(Error::InvalidFieldName));
    }
    for value in [
        &b"a\r\nSet-Cookie: x"[..],
        b"a\nb",
        b"a\rb",
        b"\0",
        b"\x01",
        b"\x7f",
        b" lead",
        b"trail\t",
    ] {
        assert_eq!(w.field(b"X", value).err(), Some(Error::InvalidFieldValue));
    }
    // A refused field in a batch removes the batch's fields.
    assert_eq!(
        w.fields([("A", "1"), ("B", "2\n")]).err(),
        Some(Error::InvalidFieldValue)
    );
    w.field(b"X", b"caf\xe9 \t ok").unwrap();
    let _head = w.finish().unwrap();
    assert_eq!(
        buf,
        b"HTTP/1.1 200 OK\r\nX: caf\xe9 \t ok\r\nContent-Length: 0\r\n\r\n"
    );
    assert!(h1_encode::PreEncoded::new([("Server", "a\r\nb")]).is_err());
}

#[test]
fn reason_phrase_bytes() {
    let ex = Exchange::new(H11).clock(false);
    let mut buf = Vec::new();
    for reason in [&b"a\r\nX: y"[..], b"\n", b"\0", b"\x7f"] {
        assert_eq!(
            ResponseWriter::start_with_reason(&mut buf, 200, reason, &ex, Framing::Empty).err(),
            Some(Error::InvalidReason)
        );
    }
    let w = ResponseWriter::start_with_reason(&mut buf, 299, b"Fine \t\xe9", &ex, Framing::Empty)
        .unwrap();
    let _head = w.finish().unwrap();
    assert!(buf.starts_with(b"HTTP/1.1 299 Fine \t\xe9\r\n"));
    buf.clear();
    // Unregistered codes without a reason keep the SP before the empty phrase.
    let w = ResponseWriter::start(&mut buf, 299, &ex, Framing::Empty).unwrap();
    let _head = w.finish().unwrap();
    assert!(buf.starts_with(b"HTTP/1.1 299 \r\n"));
    for status in [0, 99, 600, 1000, u16::MAX] {
        assert_eq!(
            ResponseWriter::start(&mut buf, status, &ex, Framing::Empty).err(),
            Some(Error::InvalidStatus)
        );
    }
}

#[test]
fn body_matches_content_length() {
    let ex = Exchange::new(H11).clock(false);
    let mut buf = Vec::new();
    let mut head = ResponseWriter::start(&mut buf, 200, &ex, Framing::Length(10))
        .unwrap()
        .finish()
        .unwrap();
    let head_len = buf.len();
    head.body.write(&mut buf, b"12345").unwrap();
    assert_eq!(
        head.body.write(&mut buf, b"123456"),
        Err(Error::BodyTooLong)
    );
    assert_eq!(buf.len(), head_len + 5, "a refused piece writes nothing");
    assert_eq!(head.body.finish(&mut buf), Err(Error::BodyTooShort));
    head.body.write(&mut buf, b"67890").unwrap();
    head.body.finish(&mut buf).unwrap();
    assert_eq!(&buf[head_len..], b"1234567890");
    assert_eq!(head.body.write(&mut buf, b"x"), Err(Error::BodyFinished));

    // The vectored form: head and body as two slices, body not copied.
    buf.clear();
    let mut head = ResponseWriter::start(&mut buf, 200, &ex, Framing::Length(3))
        .unwrap()
        .finish()
        .unwrap();
    assert_eq!(head.with_body(&buf, b"ab").err(), Some(Error::BodyTooShort));
    assert_eq!(
        head.with_body(&buf, b"abcd").err(),
        Some(Error::BodyTooLong)
    );
    let [h, b] = head.with_body(&buf, b"abc").unwrap();
    assert_eq!((h, b), (&buf[..], &b"abc"[..]));
    #[cfg(feature = "std")]
    {
        let mut buf = Vec::new();
        let mut head = ResponseWriter::start(&mut buf, 200, &ex, Framing::Length(3))
            .unwrap()
            .finish()
            .unwrap();
        let slices = head.io_slices(&buf, b"abc").unwrap();
        let mut out = Vec::new();
        std::io::Write::write_vectored(&mut out, &slices).unwrap();
        assert!(out.ends_with(b"Content-Length: 3\r\n\r\nabc"));
    }
}

#[test]
fn chunk_framing() {
    let ex = Exchange::new(H11).clock(false);
    let mut buf = Vec::new();
    let mut head = ResponseWriter::start(&mut buf, 200, &ex, Framing::Chunked)
        .unwrap()
        .finish()
        .unwrap();
    let start = buf.len();
    head.body.write(&mut buf, b"").unwrap();
    assert_eq!(buf.len(), start, "an empty piece would be the last chunk");
    head.body.write(&mut buf, b"abc").unwrap();
    for forbidden in [
        "Content-Length",
        "Transfer-Encoding",
        "Host",
        "Trailer",
        "Connection",
    ] {
        assert_eq!(
            head.body.finish_with_trailers(&mut buf, [(forbidden, "x")]),
            Err(Error::ForbiddenTrailer)
        );
    }
    assert_eq!(
        head.body
            .finish_with_trailers(&mut buf, [("Ok", "1"), ("Bad", "\r\n")]),
        Err(Error::InvalidFieldValue)
    );
    head.body
        .finish_with_trailers(&mut buf, [("Digest", "sha-256=x")])
        .unwrap();
    assert_eq!(&buf[start..], b"3\r\nabc\r\n0\r\nDigest: sha-256=x\r\n\r\n");
}

#[test]
fn request_host_and_framing() {
    let mut buf = Vec::new();
    let h11 = Exchange::new(H11);
    assert_eq!(
        RequestWriter::start(&mut buf, b"GET", b"/", None, &h11, Framing::Empty).err(),
        Some(Error::MissingHost)
    );
    // HTTP/1.0 may go without Host.
    let w = RequestWriter::start(
        &mut buf,
        b"GET",
        b"/",
        None,
        &Exchange::new(H10),
        Framing::Empty,
    )
    .unwrap();
    let _head = w.finish().unwrap();
    assert_eq!(buf, b"GET / HTTP/1.0\r\nConnection: close\r\n\r\n");
    buf.clear();
    // Streamed only to 1.1.
    assert_eq!(
        RequestWriter::start(
            &mut buf,
            b"POST",
            b"/",
            Some(b"a"),
            &Exchange::new(H10),
            Framing::Chunked
        )
        .err(),
        Some(Error::StreamedBodyToHttp10)
    );
    // RFC 9112 §6.3: closing never delimits a request body.
    assert_eq!(
        RequestWriter::start(
            &mut buf,
            b"POST",
            b"/",
            Some(b"a"),
            &h11,
            Framing::UntilClose
        )
        .err(),
        Some(Error::UntilCloseRequest)
    );
    // A request without content gets no Content-Length; with, it does.
    let w = RequestWriter::start(&mut buf, b"GET", b"/", Some(b"a"), &h11, Framing::Empty).unwrap();
    let _head = w.finish().unwrap();
    assert_eq!(buf, b"GET / HTTP/1.1\r\nHost: a\r\n\r\n");
    buf.clear();
    let w = RequestWriter::start(
        &mut buf,
        b"POST",
        b"/",
        Some(b"a"),
        &h11,
        Framing::Length(0),
    )
    .unwrap();
    let _head = w.finish().unwrap();
    assert_eq!(
        buf,
        b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n"
    );
    buf.clear();
    // Validation of the request line and the owned names.
    for method in [&b""[..], b"G T", b"GET\r\n"] {
        assert_eq!(
            RequestWriter::start(&mut buf, method, b"/", Some(b"a"), &h11, Framing::Empty).err(),
            Some(Error::InvalidMethod)
        );
    }
    for target in [&b""[..], b"/a b", b"/a#b", b"/\r\n", b"/\x7f", b"/\xe9"] {
        assert_eq!(
            RequestWriter::start(&mut buf, b"GET", target, Some(b"a"), &h11, Framing::Empty).err(),
            Some(Error::InvalidTarget)
        );
    }
    assert_eq!(
        RequestWriter::start(
            &mut buf,
            b"GET",
            b"/",
            Some(b"a\r\nb"),
            &h11,
            Framing::Empty
        )
        .err(),
        Some(Error::InvalidFieldValue)
    );
    let mut w =
        RequestWriter::start(&mut buf, b"GET", b"/", Some(b"a"), &h11, Framing::Empty).unwrap();
    assert_eq!(w.field(b"Host", b"b").err(), Some(Error::FramingField));
    assert_eq!(
        w.field(b"Content-Length", b"0").err(),
        Some(Error::FramingField)
    );
    drop(w);
    assert!(buf.is_empty(), "an unfinished head is removed");
}

#[test]
fn date_only_once() {
    let ex = Exchange::new(H11);
    let pre = h1_encode::PreEncoded::new([("Date", "Mon, 07 Nov 1994 08:49:37 GMT")]).unwrap();
    let mut blob = h1_headers::HeaderBlob::new();
    blob.append(b"date", b"Mon, 07 Nov 1994 08:49:37 GMT")
        .unwrap();
    type Step = fn(
        &mut ResponseWriter<'_, Vec<u8>>,
        &h1_encode::PreEncoded,
        &h1_headers::HeaderBlob,
    ) -> Result<(), Error>;
    let sources: [Step; 5] = [
        |w, _, _| {
            w.date(&date());
            Ok(())
        },
        |w, pre, _| {
            w.pre_encoded(pre);
            Ok(())
        },
        |w, _, _| w.field(b"date", b"Mon, 07 Nov 1994 08:49:37 GMT").map(drop),
        |w, _, _| {
            w.fields([("DATE", "Mon, 07 Nov 1994 08:49:37 GMT")])
                .map(drop)
        },
        |w, _, blob| w.blob(blob).map(drop),
    ];
    for (i, first) in sources.iter().enumerate() {
        for (j, second) in sources.iter().enumerate() {
            let mut buf = Vec::new();
            let mut w = ResponseWriter::start(&mut buf, 200, &ex, Framing::Empty).unwrap();
            assert!(!w.has_date());
            first(&mut w, &pre, &blob).unwrap();
            assert!(w.has_date(), "source {i}");
            let r = second(&mut w, &pre, &blob).and_then(|()| w.finish().map(drop));
            assert_eq!(r, Err(Error::DuplicateDate), "sources {i} then {j}");
            assert!(buf.is_empty(), "sources {i} then {j}");
        }
    }
    // Two in one call are refused too, and that call writes nothing.
    let mut buf = Vec::new();
    let mut w = ResponseWriter::start(&mut buf, 200, &ex.clock(false), Framing::Empty).unwrap();
    assert_eq!(
        w.fields([("Date", "a"), ("date", "b")]).map(drop),
        Err(Error::DuplicateDate)
    );
    w.field(b"X", b"1").unwrap();
    let head = w.finish().unwrap();
    assert!(!has(head.bytes(&buf), "date"));
    // In requests as well.
    let mut buf = Vec::new();
    let mut w =
        RequestWriter::start(&mut buf, b"GET", b"/", Some(b"a"), &ex, Framing::Empty).unwrap();
    w.field(b"Date", b"x").unwrap();
    assert_eq!(w.field(b"Date", b"y").map(drop), Err(Error::DuplicateDate));
    assert!(w.finish().is_ok());
    // Two in one set of pre-encoded lines are refused when built.
    assert_eq!(
        h1_encode::PreEncoded::new([("Date", "a"), ("Date", "b")]),
        Err(Error::DuplicateDate)
    );
}

#[test]
fn trace_has_no_content() {
    let ex = Exchange::new(H11);
    for body in [Framing::Length(3), Framing::Length(0), Framing::Chunked] {
        let mut buf = Vec::new();
        let r = RequestWriter::start(&mut buf, b"TRACE", b"/", Some(b"a"), &ex, body).map(drop);
        assert_eq!(r, Err(Error::TraceWithContent), "{body:?}");
        assert!(buf.is_empty());
    }
    let mut buf = Vec::new();
    let w =
        RequestWriter::start(&mut buf, b"TRACE", b"/", Some(b"a"), &ex, Framing::Empty).unwrap();
    let _head = w.finish().unwrap();
    assert_eq!(buf, b"TRACE / HTTP/1.1\r\nHost: a\r\n\r\n");
}

#[test]
fn expect_continue_needs_content() {
    let ex = Exchange::new(H11);
    for body in [Framing::Empty, Framing::Length(0)] {
        for value in ["100-continue", "100-Continue", "foo, 100-continue"] {
            let mut buf = Vec::new();
            let mut w =
                RequestWriter::start(&mut buf, b"GET", b"/", Some(b"a"), &ex, body).unwrap();
            w.field(b"Expect", value.as_bytes()).unwrap();
            assert_eq!(w.finish().map(drop), Err(Error::ExpectWithoutContent));
            assert!(buf.is_empty());
            let pre = h1_encode::PreEncoded::new([("expect", value)]).unwrap();
            let mut w =
                RequestWriter::start(&mut buf, b"GET", b"/", Some(b"a"), &ex, body).unwrap();
            w.pre_encoded(&pre);
            assert_eq!(w.finish().map(drop), Err(Error::ExpectWithoutContent));
            assert!(buf.is_empty());
        }
    }
    // An `Expect` without `100-continue` needs no content.
    let mut buf = Vec::new();
    let mut w =
        RequestWriter::start(&mut buf, b"GET", b"/", Some(b"a"), &ex, Framing::Empty).unwrap();
    w.field(b"Expect", b"something-else").unwrap();
    let _head = w.finish().unwrap();
    assert!(has(&buf, "expect"));
    for body in [Framing::Length(1), Framing::Chunked] {
        let mut buf = Vec::new();
        let mut w = RequestWriter::start(&mut buf, b"PUT", b"/", Some(b"a"), &ex, body).unwrap();
        w.field(b"Expect", b"100-continue").unwrap();
        let _head = w.finish().unwrap();
        assert!(has(&buf, "expect"));
    }
}

#[test]
fn switching_protocols_has_upgrade() {
    let ex = Exchange::new(H11);
    let mut buf = Vec::new();
    let w = ResponseWriter::start(&mut buf, 101, &ex, Framing::Empty).unwrap();
    assert_eq!(w.finish().map(drop), Err(Error::MissingUpgrade));
    assert!(buf.is_empty());
    let mut w = ResponseWriter::start(&mut buf, 101, &ex, Framing::Empty).unwrap();
    w.field(b"X", b"1").unwrap();
    assert_eq!(w.finish().map(drop), Err(Error::MissingUpgrade));
    // Another seven-letter name is not `Upgrade`.
    let mut w = ResponseWriter::start(&mut buf, 101, &ex, Framing::Empty).unwrap();
    w.field(b"Warning", b"1").unwrap();
    assert_eq!(w.finish().map(drop), Err(Error::MissingUpgrade));
    assert!(buf.is_empty());
    // `Upgrade` in pre-encoded lines counts.
    let pre = h1_encode::PreEncoded::new([("Upgrade", "websocket")]).unwrap();
    let mut w = ResponseWriter::start(&mut buf, 101, &ex, Framing::Empty).unwrap();
    w.pre_encoded(&pre);
    let _head = w.finish().unwrap();
    assert!(has(&buf, "upgrade"));
    buf.clear();
    let mut w = ResponseWriter::start(&mut buf, 101, &ex, Framing::Empty).unwrap();
    w.fields([("connection", "upgrade"), ("upgrade", "websocket")])
        .unwrap();
    let _head = w.finish().unwrap();
    assert!(has(&buf, "upgrade"));
    // Other 1xx need none.
    let mut buf = Vec::new();
    let w = ResponseWriter::start(&mut buf, 100, &ex, Framing::Empty).unwrap();
    let _head = w.finish().unwrap();
}

#[cfg(feature = "http")]
#[test]
fn request_parts_userinfo_and_connect() {
    use h1_encode::encode_request_parts;
    let enc = |req: http::Request<()>| {
        let mut buf = Vec::new();
        let (parts, ()) = req.into_parts();
        let r = encode_request_parts(&mut buf, &parts, Framing::Empty, false).map(drop);
        if r.is_err() {
            assert!(buf.is_empty());
        }
        (r, buf)
    };
    let (r, _) = enc(http::Request::get("http://user:secret@example.com/x")
        .body(())
        .unwrap());
    assert_eq!(r, Err(Error::UserinfoInUri));
    let (r, _) = enc(http::Request::connect("user:secret@proxy.example:443")
        .body(())
        .unwrap());
    assert_eq!(r, Err(Error::UserinfoInUri));
    let (r, _) = enc(http::Request::connect("proxy.example").body(()).unwrap());
    assert_eq!(r, Err(Error::InvalidConnectTarget));
    let (r, buf) = enc(http::Request::connect("proxy.example:443")
        .body(())
        .unwrap());
    assert_eq!(r, Ok(()));
    assert_eq!(
        buf,
        b"CONNECT proxy.example:443 HTTP/1.1\r\nHost: proxy.example:443\r\n\r\n"
    );
}

/// RFC 9110 §6.5.1: a sender MUST NOT generate a trailer field unless the
/// field's definition allows it in trailers.
#[test]
fn trailers_only_hold_fields_allowed_there() {
    for name in [
        "Content-Type",
        "Content-Encoding",
        "Authorization",
        "Set-Cookie",
        "Cache-Control",
        "Date",
        "Location",
        "TE",
        "Expect",
        "Max-Forwards",
    ] {
        let mut buf = Vec::new();
        let ex = Exchange::new(H11);
        let mut w = ResponseWriter::start(&mut buf, 200, &ex, Framing::Chunked).unwrap();
        w.date(&date());
        let mut head = w.finish().unwrap();
        head.body.write(&mut buf, b"x").unwrap();
        assert_eq!(
            head.body.finish_with_trailers(&mut buf, [(name, "v")]),
            Err(Error::ForbiddenTrailer),
            "{name}"
        );
    }
    let mut buf = Vec::new();
    let ex = Exchange::new(H11);
    let mut w = ResponseWriter::start(&mut buf, 200, &ex, Framing::Chunked).unwrap();
    w.date(&date());
    let mut head = w.finish().unwrap();
    head.body.write(&mut buf, b"x").unwrap();
    head.body
        .finish_with_trailers(&mut buf, [("Server-Timing", "db;dur=53"), ("Digest", "x")])
        .unwrap();
}

/// `finish_with_body` writes what `finish`, `write` and `finish` on the
/// body writer write, for every framing; nothing when the body does not fit
/// the declared length.
#[test]
fn a_whole_body_at_once_is_framed_like_one_written_piecewise() {
    let cases: [(u16, Exchange, Framing, &[u8]); 6] = [
        (
            200,
            Exchange::new(Version::Http11),
            Framing::Length(5),
            b"hello",
        ),
        (
            200,
            Exchange::new(Version::Http11),
            Framing::Chunked,
            b"hello",
        ),
        (200, Exchange::new(Version::Http11), Framing::Chunked, b""),
        (
            200,
            Exchange::new(Version::Http10),
            Framing::Chunked,
            b"hello",
        ),
        (
            200,
            Exchange::new(Version::Http11).head(true),
            Framing::Length(5),
            b"hello",
        ),
        (204, Exchange::new(Version::Http11), Framing::Empty, b""),
    ];
    for (status, ex, framing, body) in cases {
        let ex = ex.clock(false);
        let mut piecewise = Vec::new();
        let mut head = ResponseWriter::start(&mut piecewise, status, &ex, framing)
            .unwrap()
            .finish()
            .unwrap();
        if head.body.wants_data() {
            head.body.write(&mut piecewise, body).unwrap();
        }
        head.body.finish(&mut piecewise).unwrap();
        let mut whole = Vec::new();
        let head = ResponseWriter::start(&mut whole, status, &ex, framing)
            .unwrap()
            .finish_with_body(body)
            .unwrap();
        assert!(head.body.is_finished());
        assert_eq!(
            String::from_utf8_lossy(&whole),
            String::from_utf8_lossy(&piecewise),
            "{status} {framing:?}"
        );
    }
    let ex = Exchange::new(Version::Http11).clock(false);
    for (body, error) in [
        (&b"hell"[..], Error::BodyTooShort),
        (b"hello!", Error::BodyTooLong),
    ] {
        let mut out = b"before".to_vec();
        let r = ResponseWriter::start(&mut out, 200, &ex, Framing::Length(5))
            .unwrap()
            .finish_with_body(body);
        assert_eq!(r.map(|_| ()), Err(error));
        assert_eq!(out, b"before", "nothing written");
    }
}
