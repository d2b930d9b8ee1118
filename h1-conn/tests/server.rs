//! The server role, requests in and responses out: request framing,
//! responses framed against their request (HEAD, 204, 304, streamed and
//! chunked), the status of a failed request, and how long the spans of
//! fields and trailers stay valid. Pipelining, switches, `Expect`, closing
//! and limits have their own files.

mod common;

use common::{drain, head, take_out};
use h1_conn::{Error, Framing, SendError, SendState, ServerConn, ServerEvent};
use h1_parse::ErrorKind;

#[test]
fn body_kinds_follow_rfc9112_section_6_3() {
    let cases: [(&[u8], Framing); 4] = [
        (b"GET / HTTP/1.1\r\nHost: a\r\n\r\n", Framing::Empty),
        (
            b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 7\r\n\r\n",
            Framing::Length(7),
        ),
        (
            b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n",
            Framing::Chunked,
        ),
        (b"POST / HTTP/1.0\r\n\r\n", Framing::Empty),
    ];
    for (raw, want) in cases {
        let mut conn = ServerConn::default();
        conn.feed(raw);
        assert_eq!(head(&mut conn).framing, want);
    }
}

#[test]
fn head_204_and_304_responses_have_no_body() {
    let mut conn = ServerConn::default();
    conn.feed(b"HEAD / HTTP/1.1\r\nHost: a\r\n\r\n");
    head(&mut conn);
    assert_eq!(conn.next_event(), ServerEvent::End);
    conn.respond_with(200, [("a", "b")], b"hello").unwrap();
    let out = take_out(&mut conn);
    assert!(out.ends_with("Content-Length: 5\r\n\r\n"), "{out:?}");
    assert_eq!(conn.send_state(), SendState::Idle);

    for status in [204, 304] {
        conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n");
        head(&mut conn);
        assert_eq!(conn.next_event(), ServerEvent::End);
        conn.respond_with(status, [("a", "b")], b"").unwrap();
        let out = take_out(&mut conn);
        assert!(!out.contains("Content-Length"), "{out:?}");
        assert!(out.ends_with("\r\n\r\n"));
    }
}

/// `respond_with` states the length of the body it is given: a 404 sends
/// it, a 304 states the length of the representation it stands for and
/// sends none (RFC 9110 §15.4.5, §8.6), and a 101 (a 1xx) has no length at
/// all.
#[test]
fn respond_with_states_the_length_of_its_body() {
    let mut conn = ServerConn::default();
    for (status, body, want) in [
        (404, &b"nope"[..], "Content-Length: 4\r\n\r\nnope"),
        (304, b"abc", "Content-Length: 3\r\n\r\n"),
    ] {
        conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n");
        head(&mut conn);
        assert_eq!(conn.next_event(), ServerEvent::End);
        conn.respond_with(status, [("a", "b")], body).unwrap();
        let out = take_out(&mut conn);
        assert!(out.ends_with(want), "{status}: {out:?}");
    }

    conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: x\r\n\r\n");
    head(&mut conn);
    conn.respond_with(101, [("Upgrade", "x")], b"").unwrap();
    let out = take_out(&mut conn);
    assert!(out.starts_with("HTTP/1.1 101 "), "{out:?}");
    assert!(!out.contains("Content-Length"), "{out:?}");
}

#[test]
fn streamed_responses_are_chunked_with_trailers() {
    let mut conn = ServerConn::default();
    conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n");
    head(&mut conn);
    assert_eq!(conn.next_event(), ServerEvent::End);
    conn.respond(200, Framing::Chunked)
        .unwrap()
        .finish()
        .unwrap();
    assert_eq!(conn.send_state(), SendState::Body);
    assert_eq!(
        conn.respond(200, Framing::Empty).err(),
        Some(SendError::InProgress)
    );
    conn.send_data(b"hello").unwrap();
    conn.send_end_with_trailers([("digest", "x")]).unwrap();
    let out = take_out(&mut conn);
    assert!(
        out.ends_with("\r\n\r\n5\r\nhello\r\n0\r\ndigest: x\r\n\r\n"),
        "{out:?}"
    );
    assert_eq!(conn.send_data(b"x"), Err(SendError::NoMessage));
}

#[test]
fn body_frames_are_accounted_like_sent_data_and_not_copied() {
    let mut conn = ServerConn::default();
    conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n");
    head(&mut conn);
    conn.respond(200, Framing::Length(5))
        .unwrap()
        .finish()
        .unwrap();
    let head_len = conn.out().len();
    let frame = conn.send_data_frame(b"abc").unwrap();
    assert_eq!(
        (frame.prefix(), frame.data(), frame.suffix()),
        (&b""[..], &b"abc"[..], &b""[..])
    );
    assert!(
        conn.send_data_frame(b"def").is_err(),
        "past the Content-Length"
    );
    assert!(conn.send_end().is_err(), "2 bytes still owed");
    conn.send_data_frame(b"de").unwrap();
    conn.send_end().unwrap();
    assert_eq!(conn.out().len(), head_len, "the data stays the caller's");
    take_out(&mut conn);

    assert_eq!(conn.next_event(), ServerEvent::End);
    head(&mut conn);
    conn.respond(200, Framing::Chunked)
        .unwrap()
        .finish()
        .unwrap();
    take_out(&mut conn);
    let frame = conn.send_data_frame(&[b'x'; 26]).unwrap();
    assert_eq!(
        (frame.prefix(), frame.suffix()),
        (&b"1a\r\n"[..], &b"\r\n"[..])
    );
    assert!(conn.send_data_frame(b"").unwrap().is_empty());
    conn.send_end().unwrap();
    assert_eq!(take_out(&mut conn), "0\r\n\r\n");
    assert_eq!(conn.send_state(), SendState::Idle);
}

#[test]
fn no_response_without_a_request() {
    let mut conn = ServerConn::default();
    assert_eq!(
        conn.respond(200, Framing::Empty).err(),
        Some(SendError::NoRequest)
    );
    assert_eq!(
        conn.respond(100, Framing::Empty).err(),
        Some(SendError::NoRequest)
    );
    assert_eq!(conn.send_continue(), Ok(false));
    assert_eq!(conn.next_event(), ServerEvent::NeedMore);
    assert!(conn.out().is_empty());
}

#[test]
fn a_body_error_after_the_head_is_answered_with_its_status() {
    let mut conn = ServerConn::default();
    conn.feed(b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX");
    head(&mut conn);
    let e = drain(&mut conn);
    assert_eq!(
        e,
        ServerEvent::Error(Error::Parse(h1_parse::Error::new(
            ErrorKind::InvalidChunkDataEnd,
            0
        )))
    );
    assert_eq!(
        conn.respond(200, Framing::Empty).err(),
        Some(SendError::Closed)
    );
    assert_eq!(conn.next_event(), ServerEvent::Closed);
    assert!(take_out(&mut conn).starts_with("HTTP/1.1 400 Bad Request\r\n"));
}

#[test]
fn at_eof_an_unfinished_head_gets_the_verdict_of_its_bytes() {
    // Found by fuzzing: the incremental parser checks an unfinished line at
    // its limit only, so a defect that arrives later in the line went
    // unseen and EOF said "incomplete" for one split, "invalid" for another.
    let mut config = h1_conn::Config::default();
    config.parse.max_field_line_len = 8;
    let raw = b"GET /aaaaaaaaaaaaaaaaaa\x01";
    for cut in [raw.len(), 20] {
        let mut conn = ServerConn::new(config.clone());
        conn.feed(&raw[..cut]);
        let first = conn.next_event();
        conn.feed(&raw[cut..]);
        conn.eof();
        let events = [first, conn.next_event()];
        let err = events.iter().find_map(|e| match e {
            ServerEvent::Error(e) => Some(*e),
            _ => None,
        });
        assert_eq!(
            err.map(|e| e.status()),
            Some(Some(400)),
            "cut {cut}: {events:?}"
        );
        assert_ne!(err, Some(Error::UnexpectedEof), "cut {cut}");
    }
}

#[test]
fn trailers_belong_to_their_request() {
    let mut conn = ServerConn::default();
    conn.feed(b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-Sig: 1\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n");
    head(&mut conn);
    assert_eq!(conn.next_event(), ServerEvent::Trailers(1));
    assert!(conn.trailers().is_some());
    assert_eq!(conn.next_event(), ServerEvent::End);
    conn.respond_with(200, [("a", "b")], b"").unwrap();
    head(&mut conn);
    assert!(conn.trailers().is_none(), "the first request's trailers");
}

#[test]
fn fields_stay_invalid_after_compaction() {
    // A later `Trailers` event must not mark the request head's field
    // spans valid again once `read_buf`/`feed` compacted the buffer:
    // `fields()` would serve stale spans (wrong bytes).
    let mut conn = ServerConn::default();
    conn.feed(
        b"POST / HTTP/1.1\r\nHost: example.org\r\nX-Long-Header-Name: 0123456789\r\n\
          Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n",
    );
    head(&mut conn);
    assert!(matches!(conn.next_event(), ServerEvent::Data(_)));
    assert_eq!(conn.next_event(), ServerEvent::NeedMore);
    // The consumed head moves out of the way: its spans end here.
    conn.feed(b"0\r\nTrailer-Field: v\r\n\r\n");
    assert!(conn.fields().is_none());
    assert_eq!(conn.next_event(), ServerEvent::Trailers(1));
    assert_eq!(
        conn.trailers().and_then(|t| t.get(b"trailer-field")),
        Some(&b"v"[..])
    );
    if let Some(f) = conn.fields() {
        assert_eq!(
            f.get(b"host"),
            Some(&b"example.org"[..]),
            "fields() serves stale spans after compaction"
        );
    }
}

#[test]
fn old_trailers_are_not_served_over_new_bytes() {
    // A new head must not mark the previous request's trailer spans valid
    // again, after compaction moved other bytes under them.
    let mut conn = ServerConn::default();
    conn.feed(
        b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n\
          1\r\nx\r\n0\r\nX-Sig: good\r\n\r\n",
    );
    head(&mut conn);
    assert!(matches!(conn.next_event(), ServerEvent::Data(_)));
    assert_eq!(conn.next_event(), ServerEvent::Trailers(1));
    assert_eq!(conn.next_event(), ServerEvent::End);
    conn.respond_with(200, [("a", "b")], b"").unwrap();
    assert_eq!(conn.next_event(), ServerEvent::NeedMore);
    conn.feed(b"GET /next-request-with-a-target-long-enough-to-cover-the-old-trailer-bytes HTTP/1.1\r\nHost: a\r\n\r\n");
    head(&mut conn);
    if let Some(t) = conn.trailers() {
        let pairs: Vec<(Vec<u8>, Vec<u8>)> =
            t.iter().map(|(n, v)| (n.to_vec(), v.to_vec())).collect();
        assert!(
            pairs.is_empty() || pairs == [(b"X-Sig".to_vec(), b"good".to_vec())],
            "trailers() over bytes of the next request: {pairs:?}"
        );
    }
}

/// A response finished with its whole body is the response written in
/// pieces, whatever the request makes of its framing (HEAD, HTTP/1.0, a
/// closing request), and leaves the connection in the same state.
#[test]
fn a_response_finished_with_its_body_equals_one_written_in_pieces() {
    let requests: [&[u8]; 4] = [
        b"GET / HTTP/1.1\r\nHost: a\r\n\r\n",
        b"HEAD / HTTP/1.1\r\nHost: a\r\n\r\n",
        b"GET / HTTP/1.0\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
    ];
    for request in requests {
        for framing in [Framing::Length(5), Framing::Chunked] {
            let run = |whole: bool| {
                let mut conn = ServerConn::default();
                conn.set_date(h1_conn::DateLine::new(b"Sun, 06 Nov 1994 08:49:37 GMT").unwrap());
                conn.feed(request);
                assert!(matches!(conn.next_event(), ServerEvent::Request(_)));
                assert_eq!(conn.next_event(), ServerEvent::End);
                let mut r = conn.respond(200, framing).unwrap();
                r.field(b"X", b"y").unwrap();
                if whole {
                    assert!(!r.finish_with_body(b"hello").unwrap().body);
                } else if r.finish().unwrap().body {
                    conn.send_data(b"hello").unwrap();
                    conn.send_end().unwrap();
                }
                let after = (conn.next_event(), conn.closing(), conn.unanswered());
                (conn.out().to_vec(), format!("{after:?}"))
            };
            let (whole, piecewise) = (run(true), run(false));
            assert_eq!(
                String::from_utf8_lossy(&whole.0),
                String::from_utf8_lossy(&piecewise.0),
                "{request:?} {framing:?}"
            );
            assert_eq!(whole.1, piecewise.1, "{request:?} {framing:?}");
        }
    }
}
