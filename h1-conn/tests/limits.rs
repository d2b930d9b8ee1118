//! Limits and configuration extremes: the body limit (413), chunk
//! extensions, the output buffer, the pipelining depth, and calls past the
//! buffers' ends.

mod common;

use common::{drain, head, take_out};
use h1_conn::{ClientConn, Config, Error, Pause, ServerConn, ServerEvent};

#[test]
fn bodies_over_the_limit_get_413() {
    let mut config = Config::default();
    config.max_body_len = 10;
    let mut conn = ServerConn::new(config.clone());
    conn.feed(b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\n");
    assert_eq!(conn.next_event(), ServerEvent::Error(Error::BodyTooLarge));
    assert!(take_out(&mut conn).starts_with("HTTP/1.1 413 "));

    let mut conn = ServerConn::new(config);
    conn.feed(
        b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n",
    );
    head(&mut conn);
    assert_eq!(drain(&mut conn), ServerEvent::Error(Error::BodyTooLarge));
    assert!(take_out(&mut conn).starts_with("HTTP/1.1 413 "));
}

/// A request `Content-Length` of exactly `max_body_len` is within the
/// limit: the request and its whole body are read.
#[test]
fn a_content_length_at_the_limit_is_read() {
    let mut config = Config::default();
    config.max_body_len = 10;
    let mut conn = ServerConn::new(config);
    conn.feed(b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n0123456789");
    head(&mut conn);
    let ServerEvent::Data(body) = conn.next_event() else {
        panic!("data")
    };
    assert_eq!(body.slice(conn.received()), b"0123456789");
    assert_eq!(conn.next_event(), ServerEvent::End);
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
        ServerEvent::Error(Error::ChunkExtensionsTooLong)
    );
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
            ServerEvent::Request(_) | ServerEvent::Data(_) => {}
            ServerEvent::End => {
                conn.respond_with(200, [("x", "y".repeat(40))], b"")
                    .unwrap();
                answered += 1;
            }
            ServerEvent::Paused(Pause::OutputFull) => break,
            other => panic!("{other:?}"),
        }
    }
    assert!(answered < 4, "paused before answering all: {answered}");
    take_out(&mut conn);
    assert!(matches!(conn.next_event(), ServerEvent::Request(_)));
}

#[test]
fn an_output_limit_of_zero_never_pauses_an_empty_buffer() {
    // `max_buffered_output = 0` must not pause parsing with nothing
    // buffered and nothing owed (it would never resume).
    let mut config = Config::default();
    config.max_buffered_output = 0;
    let mut conn = ServerConn::new(config);
    conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n");
    assert!(conn.out().is_empty());
    assert_eq!(conn.unanswered(), 0);
    let e = conn.next_event();
    assert!(matches!(e, ServerEvent::Request(_)), "{e:?}");
}

#[test]
fn an_unbounded_pipelining_depth_does_not_panic() {
    // A `max_unanswered` of `usize::MAX` ("no limit") must not overflow in
    // the constructors (arithmetic or capacity).
    let mut config = Config::default();
    config.max_unanswered = usize::MAX;
    let server = std::panic::catch_unwind(|| drop(ServerConn::new(config.clone())));
    let client = std::panic::catch_unwind(|| drop(ClientConn::new(config.clone())));
    assert!(server.is_ok() && client.is_ok(), "constructor panicked");
}

#[test]
fn filled_past_the_buffer_is_clamped() {
    // `filled(n)` with an `n` past the buffer is clamped, like
    // `written(n)`, instead of overflowing (a panic in debug).
    let r = std::panic::catch_unwind(|| {
        let mut conn = ServerConn::default();
        conn.feed(b"G");
        let _ = conn.read_buf();
        conn.filled(usize::MAX);
        let _ = conn.next_event();
    });
    assert!(r.is_ok(), "filled(usize::MAX) panicked");
}
