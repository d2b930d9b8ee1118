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
/// `read_buf` lends what is left of the allocation, never less than a
/// quarter of `read_buf_len`.
#[test]
fn freeze_keeps_the_unconsumed_bytes_and_room_to_read() {
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
    assert_eq!(
        conn.read_buf().len(),
        64 - first.len() - 6,
        "the allocation's rest"
    );
    let origin = conn.received().as_ptr();
    // The buffer is short of room, and the frozen bytes are still held:
    // it gets its length back in a new allocation, with the bytes kept.
    conn.filled(20);
    assert_eq!(conn.read_buf().len(), 64 - 26);
    assert_ne!(conn.received().as_ptr(), origin);
    assert!(conn.received().starts_with(b"GET /b"));
    drop(frozen);
}

/// A request whose head is frozen and dropped before the buffer runs
/// short costs no allocation: the buffer gets its room back in place.
#[test]
fn frozen_bytes_dropped_in_time_give_their_room_back_in_place() {
    let mut config = Config::default();
    config.read_buf_len = 256;
    let mut conn = ServerConn::new(config);
    let request = b"GET /a HTTP/1.1\r\nHost: one\r\n\r\n";
    conn.feed(request);
    let base = conn.received().as_ptr();
    for _ in 0..100 {
        let room = conn.read_buf();
        assert!(room.len() >= 256 / 4, "{}", room.len());
        room[..request.len()].copy_from_slice(request);
        conn.filled(request.len());
        assert!(matches!(conn.next_event(), ServerEvent::Request(_)));
        assert_eq!(conn.next_event(), ServerEvent::End);
        conn.respond_with(200, [("x", "y")], b"").unwrap();
        let out = conn.out().len();
        conn.written(out);
        let frozen = conn.freeze();
        assert_eq!(&frozen[..request.len()], request);
        drop(frozen);
        let start = conn.received().as_ptr() as usize;
        assert!(
            (base as usize..base as usize + 256).contains(&start),
            "the same allocation"
        );
    }
}

/// A body whose every read fills the room lent, each piece frozen out as
/// it is reported (as h1-tokio hands body chunks over): every byte
/// arrives once, and the reads are lent more and more room, up to the
/// buffer's limit.
#[test]
fn a_body_sent_faster_than_it_is_read_gets_larger_reads() {
    let mut conn = ServerConn::default();
    let len = 4usize << 20;
    let head = format!("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: {len}\r\n\r\n");
    conn.feed(head.as_bytes());
    let (mut got, mut sent, mut largest) = (0usize, 0usize, 0usize);
    loop {
        match conn.next_event() {
            ServerEvent::Request(_) => {}
            ServerEvent::Data(span) => {
                let frozen = conn.freeze();
                assert!(frozen[span.range()].iter().all(|&b| b == b'x'));
                got += span.len();
            }
            ServerEvent::End => break,
            ServerEvent::NeedMore => {
                let room = conn.read_buf();
                let n = room.len().min(len - sent);
                assert!(n > 0, "no room after {sent} bytes");
                largest = largest.max(room.len());
                room[..n].fill(b'x');
                conn.filled(n);
                sent += n;
            }
            other => panic!("{other:?} after {sent} bytes"),
        }
    }
    assert_eq!(got, len);
    let config = Config::default();
    let limit = config.parse.max_head_len + 4 + config.read_buf_len;
    assert!(largest > 4 * config.read_buf_len, "largest read {largest}");
    assert!(largest <= limit, "largest read {largest}, limit {limit}");
}
