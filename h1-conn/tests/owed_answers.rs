//! The connection's own answer to a failed request, owed behind a response
//! that then closes the connection: it is dropped (nothing follows a
//! closing response, RFC 9112 §9.6), and the connection ends instead of
//! waiting for an answer it can no longer send.

mod common;

use h1_conn::{Closing, Framing, Pause, ServerConn, ServerEvent};

fn srv() -> ServerConn {
    let mut c = ServerConn::default();
    c.set_date(common::date());
    c
}

/// After `Request(A)`, `End`, `Error(400)`: the connection owes A's response
/// and then its own 400. Returns the connection there.
fn a_then_garbage(a: &[u8]) -> ServerConn {
    let mut conn = srv();
    let mut input = a.to_vec();
    input.extend_from_slice(b"BAD\x01 / HTTP/1.1\r\n\r\n");
    conn.feed(&input);
    assert!(matches!(conn.next_event(), ServerEvent::Request(_)));
    assert_eq!(conn.next_event(), ServerEvent::End);
    assert!(matches!(conn.next_event(), ServerEvent::Error(_)));
    conn
}

/// What a driver sees once A's response is done: it must be told to close,
/// not to finish responses that cannot be sent.
fn assert_ends(conn: &mut ServerConn) {
    let ev = conn.next_event();
    let closing = conn.closing();
    let respond = conn.respond(200, Framing::Empty).map(|_| ());
    assert!(
        ev == ServerEvent::Closed && closing != Closing::Open,
        "hangs: next_event = {ev:?} (nothing can be responded: {respond:?}), \
         closing() = {closing:?}, unanswered() = {}",
        conn.unanswered()
    );
}

/// Answers A with a streamed body (`framing`) whose response closes the
/// connection.
fn stream_a_closing_answer(conn: &mut ServerConn, framing: Framing) {
    let sent = conn.respond(200, framing).unwrap().finish().unwrap();
    assert!(sent.body && sent.close);
    conn.send_data(b"hi").unwrap();
    conn.send_end().unwrap();
}

/// `close()` (a graceful shutdown) with an error answer owed behind A: the
/// owed 400 is the last response and says `Connection: close`.
#[test]
fn close_with_an_error_answer_owed_does_not_hang() {
    let mut conn = a_then_garbage(b"GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
    conn.close();
    conn.respond_with(200, [("X", "y")], b"hi").unwrap();
    assert_ends(&mut conn);
}

/// A's response delimited by the close: the answer owed behind it is
/// dropped and the connection ends.
#[test]
fn close_delimited_response_with_an_error_answer_owed_does_not_hang() {
    let mut conn = a_then_garbage(b"GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
    stream_a_closing_answer(&mut conn, Framing::UntilClose);
    assert_ends(&mut conn);
}

/// What a client can bring about alone: an HTTP/1.0 keep-alive request and
/// a garbage line, to a server that streams its answers (no chunked to
/// HTTP/1.0: the close delimits the body).
#[test]
fn streamed_answer_to_http10_with_an_error_answer_owed_does_not_hang() {
    let mut conn = a_then_garbage(b"GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    stream_a_closing_answer(&mut conn, Framing::Chunked);
    assert_ends(&mut conn);
}

/// `close()` first, then the request being read fails in its body: that
/// request is dropped, A's response is the last and closes, and the
/// connection ends.
#[test]
fn close_then_a_failed_body_does_not_hang() {
    let mut conn = srv();
    conn.feed(
        b"GET /a HTTP/1.1\r\nHost: x\r\n\r\n\
          POST /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
    );
    assert!(matches!(conn.next_event(), ServerEvent::Request(_)));
    assert_eq!(conn.next_event(), ServerEvent::End);
    assert!(matches!(conn.next_event(), ServerEvent::Request(_)));
    assert_eq!(conn.next_event(), ServerEvent::NeedMore);
    conn.close();
    conn.feed(b"zz\r\n");
    assert!(matches!(conn.next_event(), ServerEvent::Error(_)));
    assert_eq!(conn.next_event(), ServerEvent::Paused(Pause::ResponsesOwed));
    conn.respond_with(200, [("X", "y")], b"hi").unwrap();
    assert_ends(&mut conn);
}
