//! The server role's behaviours one by one: expectations, switching,
//! errors in a pipeline, limits, pausing, closing.

mod common;

use common::{head, take_out};
use h1_conn::state::{RecvState, SendState};
use h1_conn::{Closing, Config, Error, Event, Framing, SendError, ServerConn};
use h1_parse::ErrorKind;

/// Drains events until one that is not Data/Trailers/End.
fn drain(conn: &mut ServerConn) -> Event<h1_conn::Request> {
    loop {
        match conn.next_event() {
            Event::Data(_) | Event::Trailers(_) | Event::End => {}
            e => return e,
        }
    }
}

#[test]
fn continue_is_sent_on_request_and_only_once() {
    let mut conn = ServerConn::default();
    conn.feed(b"POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n");
    let req = head(&mut conn);
    assert!(req.expect_continue);
    assert_eq!(conn.next_event(), Event::NeedMore);
    conn.send_continue().unwrap();
    assert_eq!(take_out(&mut conn), "HTTP/1.1 100 Continue\r\n\r\n");
    assert_eq!(conn.send_continue(), Err(SendError::NotExpected));
    conn.feed(b"abc");
    assert!(matches!(conn.next_event(), Event::Data(_)));
    assert_eq!(conn.next_event(), Event::End);
    conn.respond_with(200, [("a", "b")], b"ok").unwrap();
    assert!(take_out(&mut conn).starts_with("HTTP/1.1 200 OK\r\n"));
    assert_eq!(conn.closing(), Closing::Open);
}

#[test]
fn expect_is_ignored_in_http10() {
    let mut conn = ServerConn::default();
    conn.feed(b"POST / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\n");
    let req = head(&mut conn);
    assert!(!req.expect_continue);
    assert_eq!(conn.send_continue(), Err(SendError::NotExpected));
}

#[test]
fn a_final_status_before_the_body_closes_the_connection() {
    // RFC 9110 §10.1.1: the server may answer without reading the body;
    // the unread body then forbids reusing the connection.
    let mut conn = ServerConn::default();
    conn.feed(
        b"PUT /big HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 100000\r\n\r\n",
    );
    head(&mut conn);
    let sent = conn.respond(413, Framing::Empty).unwrap().finish().unwrap();
    assert!(sent.close && !sent.body);
    let out = take_out(&mut conn);
    assert!(out.contains("Connection: close\r\n"), "{out}");
    assert_eq!(conn.next_event(), Event::Closed);
    assert!(matches!(conn.closing(), Closing::Linger { .. }));
    conn.eof();
    assert_eq!(conn.closing(), Closing::Close);
}

#[test]
fn upgrade_hands_off_the_bytes_after_the_head() {
    let mut conn = ServerConn::default();
    conn.feed(b"GET /chat HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n\x81\x05hello");
    let req = head(&mut conn);
    assert!(req.upgrade);
    assert_eq!(conn.next_event(), Event::End);
    assert_eq!(
        conn.next_event(),
        Event::Paused,
        "nothing parsed until the answer"
    );
    let mut r = conn.respond(101, Framing::Empty).unwrap();
    r.field(b"Upgrade", b"websocket").unwrap();
    r.field(b"Connection", b"Upgrade").unwrap();
    r.finish().unwrap();
    let Event::Switch(rest) = conn.next_event() else {
        panic!("switch")
    };
    assert_eq!(rest.slice(conn.received()), b"\x81\x05hello");
    assert_eq!(conn.recv_state(), RecvState::Switched);
    assert_eq!(conn.send_state(), SendState::Switched);
    assert!(take_out(&mut conn).starts_with("HTTP/1.1 101 Switching Protocols\r\n"));
    assert_eq!(
        conn.respond(200, Framing::Empty).err(),
        Some(SendError::Closed)
    );
}

#[test]
fn a_declined_upgrade_continues_with_http() {
    let mut conn = ServerConn::default();
    conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: h2c\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n");
    assert!(head(&mut conn).upgrade);
    assert_eq!(conn.next_event(), Event::End);
    conn.respond_with(200, [("a", "b")], b"").unwrap();
    let next = head(&mut conn);
    assert_eq!(next.head.target.slice(conn.received()), b"/2");
}

#[test]
fn upgrade_needs_connection_upgrade_and_http11() {
    for raw in [
        &b"GET / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\n\r\n"[..],
        b"GET / HTTP/1.0\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n",
    ] {
        let mut conn = ServerConn::default();
        conn.feed(raw);
        assert!(!head(&mut conn).upgrade);
        assert_eq!(conn.next_event(), Event::End);
        assert_eq!(
            conn.respond(101, Framing::Empty).err(),
            Some(SendError::NotUpgradable)
        );
    }
}

#[test]
fn a_2xx_to_connect_is_a_tunnel_and_a_4xx_is_not() {
    let mut conn = ServerConn::default();
    conn.feed(b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n\x16\x03\x01");
    head(&mut conn);
    assert_eq!(conn.next_event(), Event::End);
    conn.respond(200, Framing::Empty).unwrap().finish().unwrap();
    let out = take_out(&mut conn);
    assert!(!out.contains("Content-Length"), "{out}");
    let Event::Switch(rest) = conn.next_event() else {
        panic!()
    };
    assert_eq!(rest.slice(conn.received()), b"\x16\x03\x01");

    let mut conn = ServerConn::default();
    conn.feed(b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n");
    head(&mut conn);
    assert_eq!(conn.next_event(), Event::End);
    conn.respond_with(403, [("a", "b")], b"no").unwrap();
    assert!(matches!(conn.next_event(), Event::Head(_)));
}

#[test]
fn an_error_is_answered_after_the_responses_owed_before_it() {
    let mut conn = ServerConn::default();
    conn.feed(b"GET /1 HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\nGET /3 HTTP/1.1\r\nHost a\r\n\r\nGET /4 HTTP/1.1\r\nHost: a\r\n\r\n");
    // Parse ahead: two requests, then the broken third.
    head(&mut conn);
    assert_eq!(conn.next_event(), Event::End);
    head(&mut conn);
    assert_eq!(conn.next_event(), Event::End);
    let Event::Error(e) = conn.next_event() else {
        panic!()
    };
    assert_eq!(
        e,
        Error::Parse(h1_parse::Error::new(ErrorKind::InvalidFieldName, 21))
    );
    assert_eq!(conn.next_event(), Event::Paused, "two responses are owed");
    assert_eq!(conn.unanswered(), 3);
    conn.respond_with(200, [("n", "1")], b"1").unwrap();
    conn.respond_with(200, [("n", "2")], b"2").unwrap();
    assert_eq!(conn.next_event(), Event::Closed);
    let out = take_out(&mut conn);
    let statuses: Vec<&str> = out.matches("HTTP/1.1 ").map(|_| "").collect();
    assert_eq!(statuses.len(), 3, "{out}");
    let one = out.find("n: 1").unwrap();
    let two = out.find("n: 2").unwrap();
    let bad = out.find("HTTP/1.1 400 Bad Request\r\n").unwrap();
    assert!(one < two && two < bad, "{out}");
    assert!(out[bad..].contains("Connection: close\r\n"));
    assert!(!out.contains("/4"));
    assert!(matches!(conn.closing(), Closing::Linger { .. }));
    assert_eq!(
        conn.respond(200, Framing::Empty).err(),
        Some(SendError::Closed)
    );
}

#[test]
fn a_body_error_after_the_head_is_answered_with_its_status() {
    let mut conn = ServerConn::default();
    conn.feed(b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX");
    head(&mut conn);
    let e = drain(&mut conn);
    assert_eq!(
        e,
        Event::Error(Error::Parse(h1_parse::Error::new(
            ErrorKind::InvalidChunkDataEnd,
            0
        )))
    );
    assert_eq!(
        conn.respond(200, Framing::Empty).err(),
        Some(SendError::Closed)
    );
    assert_eq!(conn.next_event(), Event::Closed);
    assert!(take_out(&mut conn).starts_with("HTTP/1.1 400 Bad Request\r\n"));
}

#[test]
fn bodies_over_the_limit_get_413() {
    let mut config = Config::default();
    config.max_body_len = 10;
    let mut conn = ServerConn::new(config.clone());
    conn.feed(b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\n");
    assert_eq!(conn.next_event(), Event::Error(Error::BodyTooLarge));
    assert!(take_out(&mut conn).starts_with("HTTP/1.1 413 "));

    let mut conn = ServerConn::new(config);
    conn.feed(
        b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n",
    );
    head(&mut conn);
    assert_eq!(drain(&mut conn), Event::Error(Error::BodyTooLarge));
    assert!(take_out(&mut conn).starts_with("HTTP/1.1 413 "));
}

#[test]
fn chunk_extensions_are_bounded_per_body() {
    let mut config = Config::default();
    config.max_chunk_ext_len = 100;
    let mut conn = ServerConn::new(config);
    let mut raw = b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    for _ in 0..20 {
        raw.extend_from_slice(b"1;ext=0123456789\r\nx\r\n");
    }
    conn.feed(&raw);
    head(&mut conn);
    assert_eq!(
        drain(&mut conn),
        Event::Error(Error::ChunkExtensionsTooLong)
    );
}

#[test]
fn eof_in_the_middle_of_a_body_is_not_answered() {
    let mut conn = ServerConn::default();
    conn.feed(b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nhello");
    head(&mut conn);
    assert!(matches!(conn.next_event(), Event::Data(_)));
    assert_eq!(conn.next_event(), Event::NeedMore);
    conn.eof();
    assert_eq!(conn.next_event(), Event::Error(Error::UnexpectedEof));
    assert_eq!(conn.next_event(), Event::Closed);
    assert!(conn.out().is_empty());
    assert_eq!(conn.closing(), Closing::Close);
}

#[test]
fn a_clean_eof_between_requests_closes() {
    let mut conn = ServerConn::default();
    conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n");
    head(&mut conn);
    assert_eq!(conn.next_event(), Event::End);
    conn.respond_with(204, [("a", "b")], b"").unwrap();
    conn.eof();
    assert_eq!(conn.next_event(), Event::Closed);
    assert_eq!(conn.closing(), Closing::Close);
}

#[test]
fn the_pipelining_depth_pauses_parsing() {
    let mut config = Config::default();
    config.max_unanswered = 2;
    let mut conn = ServerConn::new(config);
    for _ in 0..3 {
        conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n");
    }
    head(&mut conn);
    assert_eq!(conn.next_event(), Event::End);
    head(&mut conn);
    assert_eq!(conn.next_event(), Event::End);
    assert_eq!(conn.next_event(), Event::Paused);
    conn.respond_with(200, [("a", "b")], b"").unwrap();
    head(&mut conn);
}

#[test]
fn answering_one_at_a_time() {
    let mut config = Config::default();
    config.max_unanswered = 1;
    let mut conn = ServerConn::new(config);
    conn.feed(b"GET /1 HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n");
    head(&mut conn);
    assert_eq!(conn.next_event(), Event::End);
    assert_eq!(conn.next_event(), Event::Paused);
    conn.respond_with(200, [("a", "b")], b"").unwrap();
    assert!(matches!(conn.next_event(), Event::Head(_)));
}

#[test]
fn head_204_and_304_responses_have_no_body() {
    let mut conn = ServerConn::default();
    conn.feed(b"HEAD / HTTP/1.1\r\nHost: a\r\n\r\n");
    head(&mut conn);
    assert_eq!(conn.next_event(), Event::End);
    conn.respond_with(200, [("a", "b")], b"hello").unwrap();
    let out = take_out(&mut conn);
    assert!(out.ends_with("Content-Length: 5\r\n\r\n"), "{out:?}");
    assert_eq!(conn.send_state(), SendState::Idle);

    for status in [204, 304] {
        conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n");
        head(&mut conn);
        assert_eq!(conn.next_event(), Event::End);
        conn.respond_with(status, [("a", "b")], b"").unwrap();
        let out = take_out(&mut conn);
        assert!(!out.contains("Content-Length"), "{out:?}");
        assert!(out.ends_with("\r\n\r\n"));
    }
}

#[test]
fn http10_keep_alive_and_close() {
    let mut conn = ServerConn::default();
    conn.feed(b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /2 HTTP/1.0\r\n\r\nGET /3 HTTP/1.0\r\n\r\n");
    let r = head(&mut conn);
    assert!(r.persistent);
    assert_eq!(conn.next_event(), Event::End);
    conn.respond_with(200, [("a", "b")], b"x").unwrap();
    let out = take_out(&mut conn);
    assert!(out.contains("Connection: keep-alive\r\n"), "{out}");
    assert!(!head(&mut conn).persistent);
    assert_eq!(conn.next_event(), Event::End);
    assert_eq!(conn.next_event(), Event::Paused, "the answer is owed");
    conn.respond_with(200, [("a", "b")], b"x").unwrap();
    assert!(take_out(&mut conn).contains("Connection: close\r\n"));
    assert_eq!(conn.next_event(), Event::Closed, "/3 is never read");
}

#[test]
fn close_from_the_server_ends_after_the_next_response() {
    let mut conn = ServerConn::default();
    conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n");
    head(&mut conn);
    assert_eq!(conn.next_event(), Event::End);
    conn.close();
    conn.respond_with(200, [("a", "b")], b"x").unwrap();
    assert!(take_out(&mut conn).contains("Connection: close\r\n"));
    assert_eq!(conn.next_event(), Event::Closed);
}

#[test]
fn streamed_responses_are_chunked_with_trailers() {
    let mut conn = ServerConn::default();
    conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n");
    head(&mut conn);
    assert_eq!(conn.next_event(), Event::End);
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
fn no_response_without_a_request() {
    let mut conn = ServerConn::default();
    assert_eq!(
        conn.respond(200, Framing::Empty).err(),
        Some(SendError::NoRequest)
    );
    assert_eq!(conn.send_continue(), Err(SendError::NoRequest));
    assert_eq!(conn.next_event(), Event::NeedMore);
}

#[test]
fn the_output_limit_pauses_parsing() {
    let mut config = Config::default();
    config.max_buffered_output = 100;
    let mut conn = ServerConn::new(config);
    for _ in 0..4 {
        conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n");
    }
    let mut answered = 0;
    loop {
        match conn.next_event() {
            Event::Head(_) | Event::Data(_) => {}
            Event::End => {
                conn.respond_with(200, [("x", "y".repeat(40))], b"")
                    .unwrap();
                answered += 1;
            }
            Event::Paused => break,
            other => panic!("{other:?}"),
        }
    }
    assert!(answered < 4, "paused before answering all: {answered}");
    take_out(&mut conn);
    assert!(matches!(conn.next_event(), Event::Head(_)));
}

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
        assert_eq!(head(&mut conn).body, want);
    }
}

#[test]
fn connect_with_content_is_refused() {
    // RFC 9110 §9.3.6: CONNECT has no content; a body would put the tunnel's
    // start somewhere else for this server than for a peer that follows it.
    for raw in [
        &b"CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\nContent-Length: 5\r\n\r\nhello"[..],
        b"CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    ] {
        let mut conn = ServerConn::default();
        conn.feed(raw);
        assert_eq!(conn.next_event(), Event::Error(Error::ContentInConnect));
        assert!(take_out(&mut conn).starts_with("HTTP/1.1 400 "));
    }
    let mut conn = ServerConn::default();
    conn.feed(b"CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\nContent-Length: 0\r\n\r\n");
    head(&mut conn);
}

#[test]
fn close_during_a_response_body_ends_after_it() {
    let mut conn = ServerConn::default();
    conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n");
    head(&mut conn);
    assert_eq!(conn.next_event(), Event::End);
    let sent = conn
        .respond(200, Framing::Chunked)
        .unwrap()
        .finish()
        .unwrap();
    assert!(sent.body && !sent.close);
    conn.close();
    conn.send_data(b"x").unwrap();
    conn.send_end().unwrap();
    assert_eq!(conn.next_event(), Event::Closed, "/2 is never read");
    assert_eq!(conn.send_state(), SendState::Closed);
    assert!(matches!(conn.closing(), Closing::Linger { .. }));
}

#[test]
fn answering_after_the_last_body_byte_keeps_the_connection() {
    // The body is all in, only `End` is not reported yet: nothing is left
    // unread, so the response need not close (and a switch is allowed).
    let mut conn = ServerConn::default();
    conn.feed(b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabcGET /2 HTTP/1.1\r\nHost: a\r\n\r\n");
    head(&mut conn);
    assert!(matches!(conn.next_event(), Event::Data(_)));
    let sent = conn.respond(200, Framing::Empty).unwrap().finish().unwrap();
    assert!(!sent.close);
    assert_eq!(conn.next_event(), Event::End);
    assert!(matches!(conn.next_event(), Event::Head(_)));

    let mut conn = ServerConn::default();
    conn.feed(b"POST /chat HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: websocket\r\nContent-Length: 2\r\n\r\nhi\x81");
    head(&mut conn);
    assert!(matches!(conn.next_event(), Event::Data(_)));
    let mut r = conn
        .respond(101, Framing::Empty)
        .expect("the body is in: 101 allowed");
    r.field(b"Upgrade", b"websocket").unwrap();
    r.finish().unwrap();
    assert_eq!(conn.next_event(), Event::End);
    let Event::Switch(rest) = conn.next_event() else {
        panic!("switch")
    };
    assert_eq!(rest.slice(conn.received()), b"\x81");
}

#[test]
fn trailers_belong_to_their_request() {
    let mut conn = ServerConn::default();
    conn.feed(b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-Sig: 1\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n");
    head(&mut conn);
    assert_eq!(conn.next_event(), Event::Trailers(1));
    assert!(conn.trailers().is_some());
    assert_eq!(conn.next_event(), Event::End);
    conn.respond_with(200, [("a", "b")], b"").unwrap();
    head(&mut conn);
    assert!(conn.trailers().is_none(), "the first request's trailers");
}

#[test]
fn at_eof_an_unfinished_head_gets_the_verdict_of_its_bytes() {
    // Found by fuzzing: the incremental parser checks an unfinished line at
    // its limit only, so a defect that arrives later in the line went
    // unseen and EOF said "incomplete" for one split, "invalid" for another.
    let mut config = Config::default();
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
            Event::Error(e) => Some(*e),
            _ => None,
        });
        assert_eq!(err.map(|e| e.status()), Some(400), "cut {cut}: {events:?}");
        assert_ne!(err, Some(Error::UnexpectedEof), "cut {cut}");
    }
}
