//! The `bytes` feature: consumed bytes leave the receive buffer as `Bytes`
//! without a copy, and the spans of earlier events index them.

use h1_conn::{Config, ServerConn, ServerEvent, SharedHeaders};

#[test]
fn freeze_hands_out_the_received_bytes_without_a_copy() {
    let mut conn = ServerConn::default();
    conn.feed(b"POST /a HTTP/1.1\r\nHost: one\r\nContent-Length: 5\r\n\r\nhelloGET /b HTTP/1.1\r\nHost: two\r\n\r\n");
    let ServerEvent::Request(req) = conn.next_event() else {
        panic!("request")
    };
    let entries = conn.field_entries().to_vec();
    let ServerEvent::Data(body) = conn.next_event() else {
        panic!("data")
    };
    assert_eq!(conn.next_event(), ServerEvent::End);
    let origin = conn.received().as_ptr();

    let frozen = conn.freeze();
    assert_eq!(frozen.as_ptr(), origin, "the same bytes, not a copy");
    assert_eq!(req.head.target.slice(&frozen), b"/a");
    assert_eq!(&frozen[body.range()], b"hello");
    let head = SharedHeaders::from_head(frozen.clone(), &entries).unwrap();
    assert_eq!(head.get(b"host"), Some(&b"one"[..]));
    assert!(
        conn.fields().is_none(),
        "spans into the old buffer are gone"
    );

    // The next request, still in the buffer, parses from the new origin.
    conn.respond_with(200, [("x", "y")], b"").unwrap();
    let ServerEvent::Request(next) = conn.next_event() else {
        panic!("second request")
    };
    assert_eq!(next.head.target.slice(conn.received()), b"/b");
    assert_eq!(conn.fields().unwrap().get(b"host"), Some(&b"two"[..]));
    drop(frozen);
    assert_eq!(head.get(b"host"), Some(&b"one"[..]), "outlives the buffer");
}

/// After `freeze`, what is buffered is the unconsumed bytes alone, and
/// `read_buf` lends as much room as before the split.
#[test]
fn freeze_keeps_the_unconsumed_bytes_and_the_room_to_read() {
    let mut config = Config::default();
    config.read_buf_len = 64;
    let mut conn = ServerConn::new(config);
    let first = b"GET /a HTTP/1.1\r\nHost: one\r\n\r\n";
    conn.feed(first);
    conn.feed(b"GET /b");
    assert!(matches!(conn.next_event(), ServerEvent::Request(_)));
    let frozen = conn.freeze();
    assert_eq!(&frozen[..], first);
    assert_eq!(conn.buffered(), 6);
    assert_eq!(conn.received(), b"GET /b");
    assert_eq!(conn.read_buf().len(), 64 - 6);
}
