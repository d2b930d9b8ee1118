//! Pipelining, server role: requests parsed ahead up to the configured
//! depth, answered in order, with the answer to a failed request after the
//! responses owed before it.

mod common;

use common::{head, take_out};
use h1_conn::{Closing, Config, Error, Framing, Pause, SendError, ServerConn, ServerEvent};
use h1_parse::ErrorKind;

#[test]
fn an_error_is_answered_after_the_responses_owed_before_it() {
    let mut conn = ServerConn::default();
    conn.feed(b"GET /1 HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\nGET /3 HTTP/1.1\r\nHost a\r\n\r\nGET /4 HTTP/1.1\r\nHost: a\r\n\r\n");
    // Parse ahead: two requests, then the broken third.
    head(&mut conn);
    assert_eq!(conn.next_event(), ServerEvent::End);
    head(&mut conn);
    assert_eq!(conn.next_event(), ServerEvent::End);
    let ServerEvent::Error(e) = conn.next_event() else {
        panic!()
    };
    assert_eq!(
        e,
        Error::Parse(h1_parse::Error::new(ErrorKind::InvalidFieldName, 21))
    );
    assert_eq!(
        conn.next_event(),
        ServerEvent::Paused(Pause::ResponsesOwed),
        "two responses are owed"
    );
    assert_eq!(conn.unanswered(), 3);
    conn.respond_with(200, [("n", "1")], b"1").unwrap();
    conn.respond_with(200, [("n", "2")], b"2").unwrap();
    assert_eq!(conn.next_event(), ServerEvent::Closed);
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
fn the_pipelining_depth_pauses_parsing() {
    let mut config = Config::default();
    config.max_unanswered = 2;
    let mut conn = ServerConn::new(config);
    for _ in 0..3 {
        conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n");
    }
    head(&mut conn);
    assert_eq!(conn.next_event(), ServerEvent::End);
    head(&mut conn);
    assert_eq!(conn.next_event(), ServerEvent::End);
    assert_eq!(conn.next_event(), ServerEvent::Paused(Pause::Unanswered));
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
    assert_eq!(conn.next_event(), ServerEvent::End);
    assert_eq!(conn.next_event(), ServerEvent::Paused(Pause::Unanswered));
    conn.respond_with(200, [("a", "b")], b"").unwrap();
    assert!(matches!(conn.next_event(), ServerEvent::Request(_)));
}
