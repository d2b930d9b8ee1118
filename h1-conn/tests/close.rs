//! When a server connection ends: the client's `Connection: close` or
//! HTTP/1.0, the server's `close()`, a final response before the body, a
//! response delimited by the close, and the peer's EOF; and that no request
//! is read after the response that ends the connection (RFC 9112 §9.6).

mod common;

use common::{drain, head, take_out, until_driver};
use h1_conn::{Closing, Config, Error, Framing, Pause, SendState, ServerConn, ServerEvent};

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
    assert_eq!(conn.next_event(), ServerEvent::Closed);
    assert!(matches!(conn.closing(), Closing::Linger { .. }));
    conn.eof();
    assert_eq!(conn.closing(), Closing::Close);
}

#[test]
fn answering_after_the_last_body_byte_keeps_the_connection() {
    // The body is all in, only `End` is not reported yet: nothing is left
    // unread, so the response need not close (and a switch is allowed).
    let mut conn = ServerConn::default();
    conn.feed(b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabcGET /2 HTTP/1.1\r\nHost: a\r\n\r\n");
    head(&mut conn);
    assert!(matches!(conn.next_event(), ServerEvent::Data(_)));
    let sent = conn.respond(200, Framing::Empty).unwrap().finish().unwrap();
    assert!(!sent.close);
    assert_eq!(conn.next_event(), ServerEvent::End);
    assert!(matches!(conn.next_event(), ServerEvent::Request(_)));

    let mut conn = ServerConn::default();
    conn.feed(b"POST /chat HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: websocket\r\nContent-Length: 2\r\n\r\nhi\x81");
    head(&mut conn);
    assert!(matches!(conn.next_event(), ServerEvent::Data(_)));
    let mut r = conn
        .respond(101, Framing::Empty)
        .expect("the body is in: 101 allowed");
    r.field(b"Upgrade", b"websocket").unwrap();
    r.finish().unwrap();
    assert_eq!(conn.next_event(), ServerEvent::End);
    let ServerEvent::Switch(rest) = conn.next_event() else {
        panic!("switch")
    };
    assert_eq!(rest.slice(conn.received()), b"\x81");
}

#[test]
fn no_request_is_read_after_a_closing_response_head() {
    // Once a response head announcing `Connection: close` is written (its
    // body still being sent), the next pipelined request must not surface
    // (the driver would act on it, then it would be dropped unanswered).
    let mut conn = ServerConn::default();
    conn.feed(b"POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\n");
    head(&mut conn);
    // Answer before the body: the connection must close after this one.
    let sent = conn
        .respond(200, Framing::Chunked)
        .unwrap()
        .finish()
        .unwrap();
    assert!(sent.close);
    assert!(take_out(&mut conn).contains("Connection: close\r\n"));
    conn.feed(b"abcDELETE /all HTTP/1.1\r\nHost: a\r\n\r\n");
    let events = until_driver(&mut conn, 6);
    assert!(
        !events.iter().any(|e| e.starts_with("Request")),
        "a request after `Connection: close` was processed: {events:?}"
    );
}

#[test]
fn no_request_is_read_behind_a_close_delimited_response() {
    // A streamed answer to a keep-alive HTTP/1.0 request is delimited by
    // the close: the next request must not be parsed.
    let mut conn = ServerConn::default();
    conn.feed(
        b"GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n\
          GET /b HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
    );
    head(&mut conn);
    assert_eq!(conn.next_event(), ServerEvent::End);
    conn.respond(200, Framing::Chunked)
        .unwrap()
        .finish()
        .unwrap();
    assert!(take_out(&mut conn).contains("Connection: close\r\n"));
    let e = conn.next_event();
    assert!(
        !matches!(e, ServerEvent::Request(_)),
        "request read behind a close-delimited body: {e:?}"
    );
}

#[test]
fn finish_reports_a_close_delimited_response_as_closing() {
    // A response the encoder delimits by closing (streamed to HTTP/1.0)
    // carries `Connection: close`; `finish()` must say so too.
    let mut conn = ServerConn::default();
    conn.feed(b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    head(&mut conn);
    let sent = conn
        .respond(200, Framing::Chunked)
        .unwrap()
        .finish()
        .unwrap();
    let out = take_out(&mut conn);
    assert!(out.contains("Connection: close\r\n"), "{out}");
    assert!(sent.close, "finish() disagrees with the head written");
}

#[test]
fn close_reads_no_further_request() {
    // `close()`: no request after it is read, though one is buffered.
    let mut conn = ServerConn::default();
    conn.feed(b"GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: a\r\n\r\n");
    head(&mut conn);
    assert_eq!(conn.next_event(), ServerEvent::End);
    conn.close();
    let e = conn.next_event();
    assert!(
        !matches!(e, ServerEvent::Request(_)),
        "request read after close(): {e:?}"
    );
}

#[test]
fn close_from_the_server_ends_after_the_next_response() {
    let mut conn = ServerConn::default();
    conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n");
    head(&mut conn);
    assert_eq!(conn.next_event(), ServerEvent::End);
    conn.close();
    conn.respond_with(200, [("a", "b")], b"x").unwrap();
    assert!(take_out(&mut conn).contains("Connection: close\r\n"));
    assert_eq!(conn.next_event(), ServerEvent::Closed);
}

#[test]
fn close_during_a_response_body_ends_after_it() {
    let mut conn = ServerConn::default();
    conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n");
    head(&mut conn);
    assert_eq!(conn.next_event(), ServerEvent::End);
    let sent = conn
        .respond(200, Framing::Chunked)
        .unwrap()
        .finish()
        .unwrap();
    assert!(sent.body && !sent.close);
    conn.close();
    conn.send_data(b"x").unwrap();
    conn.send_end().unwrap();
    assert_eq!(conn.next_event(), ServerEvent::Closed, "/2 is never read");
    assert_eq!(conn.send_state(), SendState::Closed);
    assert!(matches!(conn.closing(), Closing::Linger { .. }));
}

#[test]
fn close_still_answers_every_request_received() {
    // `close()` is a graceful end: requests read ahead are answered, the
    // last answer says `close`.
    let mut conn = ServerConn::default();
    conn.feed(b"GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: a\r\n\r\n");
    for _ in 0..2 {
        head(&mut conn);
        assert_eq!(conn.next_event(), ServerEvent::End);
    }
    conn.close();
    conn.respond_with(200, [("a", "1")], b"").unwrap();
    assert!(!take_out(&mut conn).contains("Connection: close"));
    conn.respond_with(200, [("a", "2")], b"").unwrap();
    assert!(take_out(&mut conn).contains("Connection: close\r\n"));
    assert_eq!(conn.next_event(), ServerEvent::Closed);
}

#[test]
fn a_response_that_closes_drops_the_requests_read_after_it() {
    // RFC 9112 §9.6: a server that sends `close` must not process further
    // requests: /b and /c, read ahead, are never answered.
    let mut conn = ServerConn::default();
    conn.feed(
        b"GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: a\r\n\r\nGET /c HTTP/1.1\r\nHost: a\r\n\r\n",
    );
    for _ in 0..2 {
        head(&mut conn);
        assert_eq!(conn.next_event(), ServerEvent::End);
    }
    assert_eq!(conn.unanswered(), 2);
    conn.close_after_response();
    let sent = conn
        .respond(200, Framing::Length(1))
        .unwrap()
        .finish()
        .unwrap();
    assert!(sent.close && sent.body);
    conn.send_data(b"x").unwrap();
    conn.send_end().unwrap();
    let out = take_out(&mut conn);
    assert!(out.contains("Connection: close\r\n"), "{out}");
    assert_eq!(out.matches("HTTP/1.1").count(), 1, "{out}");
    assert_eq!(conn.unanswered(), 0);
    assert!(conn.respond_with(200, [("a", "b")], b"").is_err());
    assert_eq!(conn.next_event(), ServerEvent::Closed, "/c is never read");
    assert!(take_out(&mut conn).is_empty());
    assert!(matches!(conn.closing(), Closing::Linger { .. }));
}

#[test]
fn close_after_response_during_a_response_body_makes_it_the_last() {
    let mut conn = ServerConn::default();
    conn.feed(b"GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: a\r\n\r\n");
    for _ in 0..2 {
        head(&mut conn);
        assert_eq!(conn.next_event(), ServerEvent::End);
    }
    let sent = conn
        .respond(200, Framing::Chunked)
        .unwrap()
        .finish()
        .unwrap();
    assert!(!sent.close);
    conn.close_after_response();
    conn.send_data(b"x").unwrap();
    conn.send_end().unwrap();
    assert_eq!(conn.send_state(), SendState::Closed);
    assert_eq!(conn.unanswered(), 0, "/b is dropped");
    assert_eq!(conn.next_event(), ServerEvent::Closed);
}

#[test]
fn close_after_response_while_a_later_body_arrives_reads_no_more_of_it() {
    let mut conn = ServerConn::default();
    conn.feed(b"GET /a HTTP/1.1\r\nHost: a\r\n\r\nPOST /b HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nab");
    head(&mut conn);
    assert_eq!(conn.next_event(), ServerEvent::End);
    head(&mut conn);
    assert!(matches!(conn.next_event(), ServerEvent::Data(_)));
    assert_eq!(conn.next_event(), ServerEvent::NeedMore);
    conn.close_after_response();
    conn.respond_with(200, [("a", "b")], b"").unwrap();
    assert!(take_out(&mut conn).contains("Connection: close\r\n"));
    conn.feed(b"cdefghij");
    let events = until_driver(&mut conn, 6);
    assert!(
        !events
            .iter()
            .any(|e| e.starts_with("Data") || e.starts_with("End")),
        "the dropped request's body was read: {events:?}"
    );
    assert_eq!(conn.next_event(), ServerEvent::Closed);
}

#[test]
fn http10_keep_alive_and_close() {
    let mut conn = ServerConn::default();
    conn.feed(b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /2 HTTP/1.0\r\n\r\nGET /3 HTTP/1.0\r\n\r\n");
    let r = head(&mut conn);
    assert!(r.persistent);
    assert_eq!(conn.next_event(), ServerEvent::End);
    conn.respond_with(200, [("a", "b")], b"x").unwrap();
    let out = take_out(&mut conn);
    assert!(out.contains("Connection: keep-alive\r\n"), "{out}");
    assert!(!head(&mut conn).persistent);
    assert_eq!(conn.next_event(), ServerEvent::End);
    assert_eq!(
        conn.next_event(),
        ServerEvent::Paused(Pause::ResponsesOwed),
        "the answer is owed"
    );
    conn.respond_with(200, [("a", "b")], b"x").unwrap();
    assert!(take_out(&mut conn).contains("Connection: close\r\n"));
    assert_eq!(conn.next_event(), ServerEvent::Closed, "/3 is never read");
}

#[test]
fn eof_in_the_middle_of_a_body_is_not_answered() {
    let mut conn = ServerConn::default();
    conn.feed(b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nhello");
    head(&mut conn);
    assert!(matches!(conn.next_event(), ServerEvent::Data(_)));
    assert_eq!(conn.next_event(), ServerEvent::NeedMore);
    conn.eof();
    assert_eq!(conn.next_event(), ServerEvent::Error(Error::UnexpectedEof));
    assert_eq!(conn.next_event(), ServerEvent::Closed);
    assert!(conn.out().is_empty());
    assert_eq!(conn.closing(), Closing::Close);
}

#[test]
fn a_clean_eof_between_requests_closes() {
    let mut conn = ServerConn::default();
    conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n");
    head(&mut conn);
    assert_eq!(conn.next_event(), ServerEvent::End);
    conn.respond_with(204, [("a", "b")], b"").unwrap();
    conn.eof();
    assert_eq!(conn.next_event(), ServerEvent::Closed);
    assert_eq!(conn.closing(), Closing::Close);
}

#[test]
fn a_head_that_times_out_half_sent_is_answered_408_and_closes() {
    let mut conn = ServerConn::default();
    conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\nUser-Ag");
    assert_eq!(conn.next_event(), ServerEvent::NeedMore);
    conn.time_out();
    let out = take_out(&mut conn);
    assert!(out.starts_with("HTTP/1.1 408 Request Timeout\r\n"), "{out}");
    assert!(out.contains("\r\nConnection: close\r\n"), "{out}");
    assert_eq!(conn.next_event(), ServerEvent::Closed);
}

#[test]
fn an_idle_connection_that_times_out_closes_without_an_answer() {
    let mut conn = ServerConn::default();
    conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n");
    head(&mut conn);
    assert_eq!(conn.next_event(), ServerEvent::End);
    conn.respond(204, Framing::Empty).unwrap().finish().unwrap();
    take_out(&mut conn);
    assert_eq!(conn.next_event(), ServerEvent::NeedMore);
    conn.time_out();
    assert_eq!(take_out(&mut conn), "", "nothing to answer");
    assert_eq!(conn.next_event(), ServerEvent::Closed);
}

#[test]
fn a_body_that_times_out_before_its_response_is_answered_408_after_those_owed() {
    // The first request waits for its response; the second's body stalls.
    let mut conn = ServerConn::default();
    conn.feed(b"GET /1 HTTP/1.1\r\nHost: a\r\n\r\nPOST /2 HTTP/1.1\r\nHost: a\r\nContent-Length: 9\r\n\r\nabc");
    head(&mut conn);
    assert_eq!(conn.next_event(), ServerEvent::End);
    head(&mut conn);
    assert!(matches!(conn.next_event(), ServerEvent::Data(_)));
    assert_eq!(conn.next_event(), ServerEvent::NeedMore);
    conn.time_out();
    assert_eq!(take_out(&mut conn), "", "the first response goes first");
    assert_eq!(conn.unanswered(), 2);
    conn.respond(200, Framing::Length(0))
        .unwrap()
        .finish()
        .unwrap();
    // The next event writes the answer that is now due.
    assert_eq!(conn.next_event(), ServerEvent::Closed);
    let out = take_out(&mut conn);
    assert!(out.starts_with("HTTP/1.1 200 OK\r\n"), "{out}");
    let answer = out.split_inclusive("\r\n\r\n").nth(1).unwrap_or_default();
    assert!(
        answer.starts_with("HTTP/1.1 408 Request Timeout\r\n"),
        "{out}"
    );
}

#[test]
fn a_body_that_times_out_after_its_response_started_ends_the_connection_unanswered() {
    let mut conn = ServerConn::default();
    conn.feed(b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 9\r\n\r\nabc");
    head(&mut conn);
    assert!(matches!(conn.next_event(), ServerEvent::Data(_)));
    conn.respond(200, Framing::Length(2))
        .unwrap()
        .finish()
        .unwrap();
    conn.time_out();
    conn.send_data(b"ok").unwrap();
    conn.send_end().unwrap();
    let out = take_out(&mut conn);
    assert!(
        out.starts_with("HTTP/1.1 200 OK\r\n") && out.ends_with("ok"),
        "{out}"
    );
    assert!(!out.contains("408"), "{out}");
    assert_eq!(conn.next_event(), ServerEvent::Closed);
}

/// A body that fails while its own response is under way gets no answer of
/// the connection's (the response already began, RFC 9112 §9.6: the
/// connection closes after it); a body that fails while an earlier
/// request's response is under way is answered with its status after that
/// response.
#[test]
fn a_failed_body_is_answered_unless_its_own_response_began() {
    let mut config = Config::default();
    config.max_body_len = 4;
    let mut conn = ServerConn::new(config.clone());
    conn.feed(b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n");
    head(&mut conn);
    assert_eq!(conn.next_event(), ServerEvent::NeedMore);
    conn.respond(200, Framing::Length(2))
        .unwrap()
        .finish()
        .unwrap();
    conn.feed(b"5\r\nhello\r\n");
    assert_eq!(drain(&mut conn), ServerEvent::Error(Error::BodyTooLarge));
    conn.send_data(b"ok").unwrap();
    conn.send_end().unwrap();
    assert_eq!(conn.next_event(), ServerEvent::Closed);
    let out = take_out(&mut conn);
    assert!(
        out.starts_with("HTTP/1.1 200 OK\r\n") && out.ends_with("ok"),
        "{out}"
    );
    assert!(!out.contains("413"), "{out}");

    let mut conn = ServerConn::new(config);
    conn.feed(b"GET /1 HTTP/1.1\r\nHost: a\r\n\r\n");
    head(&mut conn);
    assert_eq!(conn.next_event(), ServerEvent::End);
    conn.respond(200, Framing::Length(2))
        .unwrap()
        .finish()
        .unwrap();
    conn.feed(b"POST /2 HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
    head(&mut conn);
    assert_eq!(drain(&mut conn), ServerEvent::Error(Error::BodyTooLarge));
    conn.send_data(b"ok").unwrap();
    conn.send_end().unwrap();
    assert_eq!(conn.next_event(), ServerEvent::Closed);
    let out = take_out(&mut conn);
    let answer = out.split_inclusive("\r\n\r\nok").nth(1).unwrap_or_default();
    assert!(
        answer.starts_with("HTTP/1.1 413 Content Too Large\r\n"),
        "{out}"
    );
}
