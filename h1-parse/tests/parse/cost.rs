//! What `HeadParser` looks at (`examined`): a head fed one byte at a time
//! has each byte searched for a line end once, as it arrives, and walked
//! once, when its line is complete; a request line longer than the target
//! limit has its target searched once more; a call with no new bytes looks
//! at nothing. Exact figures, so a parser that walks a line again, or
//! forgets to count, fails.

use crate::common::*;
use h1_headers::Entry;
use h1_parse::{Config, HeadParser, Status};

/// Feeds `head` to `p` one byte at a time, as a request or a response;
/// panics unless it completes exactly at its last byte.
fn feed_bytes(p: &mut HeadParser, head: &[u8], request: bool) {
    feed_prefix(p, &head[..head.len() - 1], request);
    assert_eq!(
        call(p, head, request),
        Ok(true),
        "at the end of {}",
        show(head)
    );
}

/// One call of `p` on `buf`: whether the head is complete.
fn call(p: &mut HeadParser, buf: &[u8], request: bool) -> Result<bool, h1_parse::Error> {
    let mut storage = [Entry::EMPTY; 16];
    if request {
        p.request(buf, &mut storage).map(|s| s.is_complete())
    } else {
        p.response(buf, &mut storage).map(|s| s.is_complete())
    }
}

#[test]
fn fed_a_byte_at_a_time_each_byte_is_searched_once_and_walked_once() {
    let small_target = config(|c| c.max_target_len = 8);
    let small_line = config(|c| c.max_field_line_len = 16);
    let spaces = config(|c| c.allow_multiple_spaces_in_request_line = true);
    let spaces_small_target = config(|c| {
        c.allow_multiple_spaces_in_request_line = true;
        c.max_target_len = 8;
    });
    // (config, request?, head, the bytes searched for the target's end:
    // the request line up to the byte that ends the target, when the line
    // grows longer than the target limit before its end).
    let cases: [(&Config, bool, &[u8], usize); 8] = [
        (
            &Config::DEFAULT,
            true,
            b"GET /index.html HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n\r\n",
            0,
        ),
        // The walk of the request line starts after the empty line.
        (
            &Config::DEFAULT,
            true,
            b"\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n",
            0,
        ),
        (
            &Config::DEFAULT,
            false,
            b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
            0,
        ),
        // A target exactly at its limit: "GET /abcdefg ".
        (
            &small_target,
            true,
            b"GET /abcdefg HTTP/1.1\r\nHost: a\r\n\r\n",
            13,
        ),
        // A field line exactly at its limit.
        (
            &small_line,
            true,
            b"GET / HTTP/1.1\r\nHost: a\r\nX: 0123456789abc\r\n\r\n",
            0,
        ),
        // A status line is not held to the target limit.
        (
            &config(|c| c.max_target_len = 2),
            false,
            b"HTTP/1.1 200 OK\r\n\r\n",
            0,
        ),
        // Leniently an HTAB may end the method: it is not taken for a byte
        // no method holds.
        (&spaces, true, b"GET\t/abc HTTP/1.1\r\nHost: a\r\n\r\n", 0),
        // "GET   \t /abc ".
        (
            &spaces_small_target,
            true,
            b"GET   \t /abc  HTTP/1.1\r\nHost: a\r\n\r\n",
            13,
        ),
    ];
    for (config, request, head, target) in cases {
        let mut p = HeadParser::new(config.clone());
        feed_bytes(&mut p, head, request);
        assert_eq!(p.examined(), 2 * head.len() + target, "{}", show(head));
    }
}

#[test]
fn a_head_that_arrives_whole_is_walked_once() {
    let head = b"GET / HTTP/1.1\r\nHost: a\r\n\r\n";
    let mut p = HeadParser::new(Config::DEFAULT);
    let mut storage = [Entry::EMPTY; 4];
    assert!(p.request(head, &mut storage).unwrap().is_complete());
    assert_eq!(p.examined(), head.len());
    let response = b"HTTP/1.1 204 No Content\r\n\r\n";
    assert!(p.response(response, &mut storage).unwrap().is_complete());
    assert_eq!(p.examined(), head.len() + response.len());
    p.reset();
    assert_eq!(p.examined(), 0);
}

#[test]
fn a_call_with_no_new_bytes_looks_at_nothing() {
    let buf = b"GET / HTTP/1.1\r\nHost: a\r\nAcc";
    let mut p = HeadParser::new(Config::DEFAULT);
    let mut storage = [Entry::EMPTY; 4];
    assert_eq!(p.request(buf, &mut storage), Ok(Status::Partial));
    let examined = p.examined();
    for _ in 0..3 {
        assert_eq!(p.request(buf, &mut storage), Ok(Status::Partial));
        assert_eq!(p.examined(), examined);
    }
    let rest = b"GET / HTTP/1.1\r\nHost: a\r\nAccept: */*\r\n\r\n";
    let h = p.request(rest, &mut storage).unwrap().complete().unwrap();
    assert_eq!((h.len, h.field_count), (rest.len(), 2));
}

#[test]
fn at_eof_the_unfinished_line_is_walked_once_more() {
    // "GET / HTTP/1.1\r\n" (16 bytes) was walked when its LF came; at EOF
    // the walk goes over the bytes after it.
    let sent = b"GET / HTTP/1.1\r\nHost: a";
    let mut p = HeadParser::new(Config::DEFAULT);
    feed_prefix(&mut p, sent, true);
    assert_eq!(p.examined(), sent.len() + 16);
    let mut head = h1_parse::RequestHead::EMPTY;
    let mut storage = [Entry::EMPTY; 4];
    let at_eof = b"GET / HTTP/1.1\r\nHost: a\r\n";
    let r = p.parse_request_at_eof(at_eof, &mut head, &mut storage);
    assert_eq!(r, Ok(Status::Partial));
    assert_eq!(p.examined(), sent.len() + 16 + (at_eof.len() - 16));

    let sent = b"HTTP/1.1 200 OK\r\nA: b\r\n";
    let mut p = HeadParser::new(Config::DEFAULT);
    feed_prefix(&mut p, sent, false);
    assert_eq!(p.examined(), 2 * sent.len());
    let mut head = h1_parse::ResponseHead::EMPTY;
    let at_eof = b"HTTP/1.1 200 OK\r\nA: b\r\n\r\n";
    let r = p.parse_response_at_eof(at_eof, &mut head, &mut storage);
    assert_eq!(r, Ok(Status::Complete(at_eof.len())));
    assert_eq!(p.examined(), 2 * sent.len() + 2);
}

/// Feeds `buf`, an unfinished head, one byte at a time.
fn feed_prefix(p: &mut HeadParser, buf: &[u8], request: bool) {
    for n in 1..=buf.len() {
        let r = call(p, &buf[..n], request);
        assert_eq!(r, Ok(false), "at {n} of {}", show(buf));
    }
}

#[test]
fn a_long_separator_is_searched_once() {
    // Leniently, any run of SP and HTAB may come between the method and the
    // target: searched for the target's start once, not again at each call.
    let spaces = config(|c| {
        c.allow_multiple_spaces_in_request_line = true;
        c.max_target_len = 16;
    });
    let mut line = b"GET".to_vec();
    line.resize(20_000, b' ');
    let mut p = HeadParser::new(spaces);
    feed_prefix(&mut p, &line, true);
    // Each byte as it arrives; the line once at the line limit; the line
    // once in search of the target.
    assert_eq!(
        p.examined(),
        line.len() + (Config::DEFAULT.max_field_line_len + 1) + line.len()
    );
}

#[test]
fn the_target_search_starts_again_after_an_empty_line() {
    // With no target allowed, the second empty line's CR is searched for
    // the target before its LF arrives; the search then starts again at the
    // request line, which is refused at the target's first byte.
    let no_target = config(|c| c.max_target_len = 0);
    let buf = b"\r\n\r\nGET /";
    let mut p = HeadParser::new(no_target);
    feed_prefix(&mut p, &buf[..buf.len() - 1], true);
    let mut storage = [Entry::EMPTY; 4];
    let e = p.request(buf, &mut storage).unwrap_err();
    assert_eq!(e.kind(), h1_parse::ErrorKind::TargetTooLong);
    // Each byte searched for a line end (9); the walks at each empty
    // line's LF (2 + 2) and at the refusal (5); the target search: "\r",
    // then "GET /" (6).
    assert_eq!(p.examined(), 9 + (2 + 2 + 5) + 6);
}
