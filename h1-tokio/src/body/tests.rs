use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::Wake;

use http_body::Body as _;
use http_body_util::BodyExt;

use super::*;

/// A waker that counts its wake-ups.
#[derive(Default)]
struct Count(AtomicUsize);

impl Wake for Count {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

fn waker() -> (Arc<Count>, Waker) {
    let count = Arc::new(Count::default());
    (Arc::clone(&count), Waker::from(Arc::clone(&count)))
}

fn woken(c: &Count) -> usize {
    c.0.load(Ordering::SeqCst)
}

/// One poll of the body: `Some(Ok(data or trailers))`, `Some(Err)`,
/// `None` at the end, or `Pending` as `Err(())`.
type Polled = Poll<Option<Result<Frame<Bytes>, BodyError>>>;

fn poll(body: &mut Body, w: &Waker) -> Polled {
    Pin::new(body).poll_frame(&mut Context::from_waker(w))
}

fn data(p: Polled) -> Bytes {
    match p {
        Poll::Ready(Some(Ok(f))) => f.into_data().expect("a data frame"),
        other => panic!("expected data, got {other:?}"),
    }
}

fn ready(s: &mut Sender, w: &Waker) -> Poll<Result<(), Dropped>> {
    s.poll_ready(&mut Context::from_waker(w))
}

#[test]
fn chunks_arrive_in_order_and_the_body_then_ends() {
    let (cw, w) = waker();
    let (mut tx, mut body) = Body::channel(None);
    assert!(poll(&mut body, &w).is_pending());
    tx.send(Bytes::from_static(b"ab"));
    assert_eq!(woken(&cw), 1, "the waiting reader is woken");
    assert_eq!(data(poll(&mut body, &w)), "ab");
    assert_eq!(ready(&mut tx, &w), Poll::Ready(Ok(())));
    tx.send(Bytes::from_static(b"c"));
    tx.finish(None);
    assert!(!body.is_end_stream(), "a chunk is still to be read");
    assert_eq!(data(poll(&mut body, &w)), "c");
    assert!(body.is_end_stream());
    assert!(matches!(poll(&mut body, &w), Poll::Ready(None)));
}

#[test]
fn the_connection_waits_until_the_chunk_before_is_taken() {
    let (cw, w) = waker();
    let (mut tx, mut body) = Body::channel(None);
    tx.send(Bytes::from_static(b"first"));
    assert!(
        ready(&mut tx, &w).is_pending(),
        "one chunk in flight at most"
    );
    assert_eq!(woken(&cw), 0);
    assert_eq!(data(poll(&mut body, &w)), "first");
    assert_eq!(woken(&cw), 1, "taking the chunk wakes the connection");
    assert_eq!(ready(&mut tx, &w), Poll::Ready(Ok(())));
}

#[test]
fn trailers_come_after_the_last_chunk() {
    let (_, w) = waker();
    let (mut tx, mut body) = Body::channel(None);
    tx.send(Bytes::from_static(b"x"));
    let mut t = HeaderMap::new();
    t.insert("digest", http::HeaderValue::from_static("sha-256=abc"));
    tx.finish(Some(t.clone()));
    assert_eq!(data(poll(&mut body, &w)), "x");
    match poll(&mut body, &w) {
        Poll::Ready(Some(Ok(f))) => assert_eq!(f.into_trailers().expect("trailers"), t),
        other => panic!("expected trailers, got {other:?}"),
    }
    assert!(matches!(poll(&mut body, &w), Poll::Ready(None)));
}

#[test]
fn empty_trailers_are_no_frame() {
    let (_, w) = waker();
    let (tx, mut body) = Body::channel(None);
    tx.finish(Some(HeaderMap::new()));
    assert!(body.is_end_stream());
    assert!(matches!(poll(&mut body, &w), Poll::Ready(None)));
}

#[test]
fn the_first_poll_tells_the_connection_the_body_is_wanted() {
    let (cw, w) = waker();
    let (mut tx, mut body) = Body::channel(Some(3));
    let mut cx = Context::from_waker(&w);
    assert!(tx.poll_wanted(&mut cx).is_pending());
    assert!(poll(&mut body, &w).is_pending());
    assert_eq!(woken(&cw), 1, "the first poll wakes the connection");
    assert_eq!(tx.poll_wanted(&mut cx), Poll::Ready(true));
    assert!(poll(&mut body, &w).is_pending());
    assert_eq!(woken(&cw), 1, "later polls do not");
}

#[test]
fn a_body_dropped_unread_is_not_wanted_and_takes_nothing() {
    let (cw, w) = waker();
    let (mut tx, body) = Body::channel(Some(10));
    let mut cx = Context::from_waker(&w);
    assert!(tx.poll_wanted(&mut cx).is_pending());
    drop(body);
    assert_eq!(woken(&cw), 1, "the drop wakes the connection");
    assert_eq!(tx.poll_wanted(&mut cx), Poll::Ready(false));
    assert_eq!(ready(&mut tx, &w), Poll::Ready(Err(Dropped)));
    tx.send(Bytes::from_static(b"discarded"));
}

#[test]
fn dropping_the_body_with_a_chunk_in_flight_frees_the_slot() {
    let (cw, w) = waker();
    let (mut tx, body) = Body::channel(None);
    tx.send(Bytes::from_static(b"a"));
    assert!(ready(&mut tx, &w).is_pending());
    drop(body);
    assert_eq!(woken(&cw), 1);
    assert_eq!(ready(&mut tx, &w), Poll::Ready(Err(Dropped)));
}

#[test]
fn a_sender_dropped_before_the_end_is_an_error_to_the_reader() {
    let (cw, w) = waker();
    let (mut tx, mut body) = Body::channel(Some(5));
    tx.send(Bytes::from_static(b"ab"));
    assert_eq!(data(poll(&mut body, &w)), "ab");
    assert!(poll(&mut body, &w).is_pending());
    drop(tx);
    assert_eq!(woken(&cw), 1, "the waiting reader is woken");
    match poll(&mut body, &w) {
        Poll::Ready(Some(Err(e))) => {
            assert_eq!(e, BodyError::closed());
            assert!(!e.is_malformed());
        }
        other => panic!("expected an error, got {other:?}"),
    }
    assert!(matches!(poll(&mut body, &w), Poll::Ready(None)));
}

#[test]
fn a_failed_body_delivers_the_chunk_it_had_then_the_error() {
    let (_, w) = waker();
    let (mut tx, mut body) = Body::channel(None);
    tx.send(Bytes::from_static(b"ok"));
    tx.fail(BodyError::malformed("chunk size too long"));
    assert!(!body.is_end_stream());
    assert_eq!(data(poll(&mut body, &w)), "ok");
    match poll(&mut body, &w) {
        Poll::Ready(Some(Err(e))) => {
            assert!(e.is_malformed());
            assert_eq!(e.to_string(), "malformed request body: chunk size too long");
        }
        other => panic!("expected an error, got {other:?}"),
    }
}

#[test]
fn a_known_length_counts_down_as_chunks_are_read() {
    let (_, w) = waker();
    let (mut tx, mut body) = Body::channel(Some(5));
    assert_eq!(body.size_hint().exact(), Some(5));
    tx.send(Bytes::from_static(b"abc"));
    data(poll(&mut body, &w));
    assert_eq!(body.size_hint().exact(), Some(2));
    let (_, chunked) = Body::channel(None);
    assert_eq!(chunked.size_hint().exact(), None);
    assert_eq!(chunked.size_hint().lower(), 0);
}

#[test]
fn the_empty_body_ends_at_once() {
    let (_, w) = waker();
    let mut body = Body::default();
    assert!(body.is_end_stream());
    assert!(matches!(poll(&mut body, &w), Poll::Ready(None)));
}

#[tokio::test]
async fn a_reader_on_another_task_gets_every_byte_with_one_chunk_in_flight() {
    let (mut tx, body) = Body::channel(None);
    let reader = tokio::spawn(async move { body.collect().await.map(|c| c.to_bytes()) });
    let mut sent = Vec::new();
    for i in 0..200u32 {
        let chunk = Bytes::from(format!("{i},"));
        std::future::poll_fn(|cx| tx.poll_ready(cx))
            .await
            .expect("the body is being read");
        sent.extend_from_slice(&chunk);
        tx.send(chunk);
    }
    tx.finish(None);
    let got = reader
        .await
        .expect("the reader task")
        .expect("no body error");
    assert_eq!(got, sent);
}

#[test]
fn a_body_polled_then_dropped_is_no_longer_wanted() {
    let (_, w) = waker();
    let (mut tx, mut body) = Body::channel(Some(4));
    assert!(poll(&mut body, &w).is_pending());
    drop(body);
    let mut cx = Context::from_waker(&w);
    assert_eq!(
        tx.poll_wanted(&mut cx),
        Poll::Ready(false),
        "nobody reads it now"
    );
}

#[tokio::test]
async fn a_channel_whose_ends_are_gone_is_reused_clean() {
    let mut channels = Channels::default();
    let (mut tx, mut body) = Body::channel_in(&mut channels, Some(5));
    tx.send(Bytes::from_static(b"hello"));
    tx.finish(None);
    let got = body.frame().await.unwrap().unwrap().into_data().unwrap();
    assert_eq!(got, "hello");
    let first = Arc::as_ptr(body.shared.as_ref().unwrap());
    // The body is still held: a new channel is needed.
    let (tx2, body2) = Body::channel_in(&mut channels, None);
    assert_ne!(Arc::as_ptr(body2.shared.as_ref().unwrap()), first);
    drop((body, tx2, body2));
    // Both ends of the first are gone: it serves again, with nothing of
    // its last body left in it.
    let (mut tx3, mut body3) = Body::channel_in(&mut channels, None);
    let third = Arc::as_ptr(body3.shared.as_ref().unwrap());
    assert_eq!(third, first, "the first kept one is reused");
    assert!(!body3.is_end_stream(), "not complete");
    tx3.send(Bytes::from_static(b"new"));
    drop(tx3);
    let got = body3.frame().await.unwrap().unwrap().into_data().unwrap();
    assert_eq!(got, "new");
    assert!(
        body3.frame().await.unwrap().is_err(),
        "the sender's drop ends it"
    );
}
