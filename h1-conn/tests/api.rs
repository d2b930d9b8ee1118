//! The small parts of the API the other files use only in passing: the
//! documented defaults, the accessors of `Conn`, and its `Debug` output.

use h1_conn::{Config, Error, Framing, SendError, ServerConn, ServerEvent};
use std::time::Duration;

/// `Config::default()` is what `Config`'s docs promise, field by field.
#[test]
fn the_defaults_are_the_documented_ones() {
    let c = Config::default();
    assert_eq!(c.max_body_len, 8 << 20, "8 MiB");
    assert_eq!(c.max_chunk_ext_len, 16 << 10, "16 KiB");
    assert_eq!(c.max_unanswered, 16);
    assert_eq!(c.max_buffered_output, 256 << 10, "256 KiB");
    assert_eq!(c.read_buf_len, 8 << 10, "8 KiB");
    assert_eq!(c.linger_bytes, 1 << 20, "1 MiB");
    assert_eq!(c.linger_time, Duration::from_secs(2));
    assert!(c.send_date && c.auto_continue && c.refuse_unknown_expect);
}

/// Bytes read into `read_buf` count once `filled` says so.
#[test]
fn bytes_read_into_read_buf_count_once_filled() {
    let req = b"GET / HTTP/1.1\r\nHost: a\r\n\r\n";
    let mut conn = ServerConn::default();
    conn.read_buf()[..req.len()].copy_from_slice(req);
    assert_eq!(conn.buffered(), 0);
    assert_eq!(conn.next_event(), ServerEvent::NeedMore);
    conn.filled(req.len());
    assert_eq!(conn.buffered(), req.len());
    assert!(matches!(conn.next_event(), ServerEvent::Request(_)));
}

/// `buffered` is what is not consumed yet: after a head, the bytes of the
/// next message.
#[test]
fn buffered_counts_the_unconsumed_bytes() {
    let mut conn = ServerConn::default();
    conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\n\r\nGET /2");
    assert_eq!(conn.buffered(), 33);
    assert!(matches!(conn.next_event(), ServerEvent::Request(_)));
    assert_eq!(conn.buffered(), 6);
    assert_eq!(conn.received().len(), 33);
}

#[test]
fn is_eof_tells_whether_eof_was_called() {
    let mut conn = ServerConn::default();
    assert!(!conn.is_eof());
    conn.eof();
    assert!(conn.is_eof());
}

/// `Debug` names the states and the sizes, and nothing of the bytes.
#[test]
fn debug_shows_the_states_and_sizes() {
    let mut conn = ServerConn::default();
    conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\n\r\nGET /2");
    let _ = conn.next_event();
    let s = format!("{conn:?}");
    assert!(s.starts_with("Conn {"), "{s}");
    for part in [
        "recv: ",
        "send: ",
        "in_flight: 1",
        "buffered: 6",
        "out: 0",
        "..",
    ] {
        assert!(s.contains(part), "{part} in {s}");
    }
}

/// The errors say what went wrong, in words; a parse error is the
/// parser's own message.
#[test]
fn errors_display_their_message() {
    assert_eq!(
        Error::BodyTooLarge.to_string(),
        "body larger than the configured limit"
    );
    assert_eq!(SendError::NoMessage.to_string(), "no message is being sent");
    let mut conn = ServerConn::default();
    conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: x\r\n\r\n");
    let ServerEvent::Error(e @ Error::Parse(p)) = conn.next_event() else {
        panic!()
    };
    assert_eq!(e.to_string(), p.to_string());
    assert!(!e.to_string().is_empty());
}

/// An outgoing message's `Debug` shows its plan.
#[test]
fn an_outgoing_message_debugs_as_its_plan() {
    let mut conn = ServerConn::default();
    conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n");
    assert!(matches!(conn.next_event(), ServerEvent::Request(_)));
    let r = conn.respond(200, Framing::Length(2)).unwrap();
    let s = format!("{r:?}");
    assert!(s.starts_with("Outgoing { plan: "), "{s}");
    assert!(s.ends_with(".. }"), "{s}");
}

/// `read_buf` lends `read_buf_len` bytes at first, grows only once they
/// are filled, and so takes in a head longer than that.
#[test]
fn read_buf_grows_only_when_full() {
    let mut config = Config::default();
    config.read_buf_len = 16;
    let mut conn = ServerConn::new(config);
    assert_eq!(conn.read_buf().len(), 16);
    let req = b"GET /a-rather-long-target HTTP/1.1\r\nHost: a\r\n\r\n";
    conn.read_buf()[..4].copy_from_slice(&req[..4]);
    conn.filled(4);
    assert_eq!(conn.read_buf().len(), 12, "room is left: no growth");
    let mut fed = 4;
    while fed < req.len() {
        assert_eq!(conn.next_event(), ServerEvent::NeedMore);
        let buf = conn.read_buf();
        assert!(!buf.is_empty(), "full at {fed}: the buffer grows");
        let n = buf.len().min(req.len() - fed);
        buf[..n].copy_from_slice(&req[fed..fed + n]);
        conn.filled(n);
        fed += n;
    }
    assert!(matches!(conn.next_event(), ServerEvent::Request(_)));
}

/// Feeding no bytes moves nothing: the fields of the head just read stay
/// valid.
#[test]
fn feeding_nothing_moves_nothing() {
    let mut conn = ServerConn::default();
    conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n");
    assert!(matches!(conn.next_event(), ServerEvent::Request(_)));
    assert_eq!(conn.feed(b""), 0);
    assert_eq!(conn.fields().unwrap().get(b"host"), Some(&b"a"[..]));
}
