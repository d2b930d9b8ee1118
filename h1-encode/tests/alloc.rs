//! Zero heap allocations per encoded message once the output buffer has
//! grown (DESIGN.md principles 2 and 9): a counting global allocator
//! watches a server loop that encodes responses (plaintext, JSON with ten
//! fields, chunked with trailers, a blob, a custom reason, a cached Date)
//! and requests into one reused `Vec`. The counter counts only on the
//! thread that asked and is itself tested.
//!
//! The allocator is `counting-alloc`, shared by the workspace's allocation
//! tests.
// `DateCache` (feature `std`) is part of what it measures.
#![cfg(feature = "std")]

use std::hint::black_box;

use counting_alloc::{allocations, Counting};

use h1_encode::{DateCache, Exchange, Framing, PreEncoded, RequestWriter, ResponseWriter, Version};
use h1_headers::HeaderBlob;

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn the_counter_counts() {
    let ((), n) = allocations(|| {
        black_box(vec![1u8; 100]);
    });
    assert_eq!(n, 1);
    let ((), n) = allocations(|| {
        let mut v: Vec<u8> = Vec::with_capacity(4);
        v.extend_from_slice(black_box(&[0u8; 64]));
        black_box(v);
    });
    assert_eq!(n, 2);
}

/// One round of a server's work: every kind of message into `buf`.
fn round(
    buf: &mut Vec<u8>,
    cache: &mut DateCache,
    server: &PreEncoded,
    blob: &HeaderBlob,
    now: u64,
) -> usize {
    let ex = Exchange::new(Version::Http11);
    let date = *cache.line_at_unix(now);

    // Plaintext.
    let mut w = ResponseWriter::start(&mut *buf, 200, &ex, Framing::Length(13)).unwrap();
    w.date(&date).pre_encoded(server);
    w.field(b"Content-Type", b"text/plain").unwrap();
    let mut head = w.finish().unwrap();
    head.body.write(&mut *buf, b"Hello, World!").unwrap();
    head.body.finish(&mut *buf).unwrap();

    // JSON with ten fields, through the iterator form.
    let fields = [
        ("Content-Type", "application/json"),
        ("Cache-Control", "no-store"),
        ("X-Request-Id", "4bf92f3577b34da6a3ce929d0e0e4736"),
        ("Vary", "Accept-Encoding"),
        ("X-Content-Type-Options", "nosniff"),
        ("Strict-Transport-Security", "max-age=63072000"),
        ("Access-Control-Allow-Origin", "*"),
        ("ETag", "\"33a64df551425fcc55e4d42a148795d9f25f89d4\""),
        ("Last-Modified", "Wed, 21 Oct 2015 07:28:00 GMT"),
        ("X-Frame-Options", "DENY"),
    ];
    let body = br#"{"message":"Hello, World!"}"#;
    let mut w =
        ResponseWriter::start(&mut *buf, 200, &ex, Framing::Length(body.len() as u64)).unwrap();
    w.date(&date).fields(fields).unwrap();
    let mut head = w.finish().unwrap();
    let [h, b] = head.with_body(buf, body).unwrap();
    black_box((h, b));
    buf.extend_from_slice(body);

    // Chunked with trailers, to a HEAD-less 1.1 request, with a blob.
    let mut w =
        ResponseWriter::start_with_reason(&mut *buf, 200, b"Fine", &ex, Framing::Chunked).unwrap();
    w.date(&date).blob(blob).unwrap();
    let mut head = w.finish().unwrap();
    head.body.write(&mut *buf, &[b'x'; 1000]).unwrap();
    let frame = head.body.frame(b"abc").unwrap();
    black_box(frame.io_slices());
    head.body
        .finish_with_trailers(&mut *buf, [("Digest", "sha-256=abc")])
        .unwrap();

    // A refused field and a dropped writer: still nothing allocated.
    let mut w = ResponseWriter::start(&mut *buf, 404, &ex, Framing::Empty).unwrap();
    assert!(w.field(b"Content-Length", b"0").is_err());
    drop(w);

    // HTTP/1.0 keep-alive, and a request.
    let ex10 = Exchange::new(Version::Http10).close(false);
    let mut w = ResponseWriter::start(&mut *buf, 200, &ex10, Framing::Chunked).unwrap();
    w.date(&date);
    let mut head = w.finish().unwrap();
    head.body.write(&mut *buf, b"until close").unwrap();
    let mut w = RequestWriter::start(
        &mut *buf,
        b"POST",
        b"/submit?x=1",
        Some(b"example.com"),
        &ex,
        Framing::Chunked,
    )
    .unwrap();
    w.field(b"Accept", b"*/*").unwrap();
    let mut head = w.finish().unwrap();
    head.body.write(&mut *buf, b"part").unwrap();
    head.body.finish(&mut *buf).unwrap();
    buf.len()
}

#[test]
fn zero_allocations_once_the_buffer_has_grown() {
    let mut cache = DateCache::new();
    let server = PreEncoded::new([("Server", "h1")]).unwrap();
    let mut blob = HeaderBlob::new();
    blob.append(b"Content-Type", b"text/event-stream").unwrap();
    blob.append(b"Cache-Control", b"no-cache").unwrap();
    let mut buf = Vec::new();
    // Warm-up: the buffer grows to what a round needs.
    let len = round(&mut buf, &mut cache, &server, &blob, 1_700_000_000);
    assert!(len > 1500);
    let (total, n) = allocations(|| {
        let mut total = 0;
        for i in 0..1000u64 {
            buf.clear();
            // A new second every 100 rounds: the Date is re-formatted then.
            total += round(
                &mut buf,
                &mut cache,
                &server,
                &blob,
                1_700_000_000 + i / 100,
            );
        }
        total
    });
    assert_eq!(total, len * 1000);
    assert_eq!(n, 0, "{n} allocations in 1000 rounds");
    assert_eq!(cache.formatted(), 10);
}
