//! What a request costs in allocations on the `http` path, once a
//! connection is warm, counted by the counting allocator (the client and
//! the server share the test's thread, so every allocation is seen).
//!
//! The numbers are the ones `serve_connection`'s documentation states:
//! h1-tokio itself allocates nothing a request (the head is copied into a
//! reused block, field names are kept, the service's future and the
//! response body live in reused slots); the `http` types need a field map
//! for the request, which is the previous response's map when that has
//! room (two allocations, its index table and its entries, when it has
//! not); a request body's channel to the service is reused once the
//! service has dropped the body before.

use std::convert::Infallible;

use bytes::Bytes;
use counting_alloc::{allocations, Counting};
use h1_tokio::{serve_connection, service_fn, Body, Config};
use http::header::{HeaderValue, CONTENT_TYPE};
use http::{Request, Response};
use http_body_util::{BodyExt, Full};
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};
use tokio::runtime::Runtime;

#[global_allocator]
static GLOBAL: Counting = Counting;

const GET: &[u8] = b"GET /plaintext HTTP/1.1\r\nHost: a\r\nUser-Agent: t\r\n\r\n";
const POST: &[u8] = b"POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello";

/// Answers with a static body; with `typed`, with a `Content-Type` too
/// (a field map of the service's own, which the connection then keeps
/// for a request to come).
async fn answer(req: Request<Body>, typed: bool) -> Result<Response<Full<Bytes>>, Infallible> {
    // Read the body, if any, to its end (frame by frame: `collect` would
    // allocate a list of its own).
    let mut body = req.into_body();
    while let Some(frame) = body.frame().await {
        drop(frame);
    }
    let mut res = Response::new(Full::new(Bytes::from_static(b"hi")));
    if typed {
        res.headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static("text/plain"));
    }
    Ok(res)
}

/// Sends `batch` (`count` requests) and reads until `count` answers came.
async fn round(client: &mut DuplexStream, batch: &[u8], count: usize, buf: &mut [u8]) {
    client.write_all(batch).await.unwrap();
    let mut seen = 0;
    while seen < count {
        let n = client.read(buf).await.unwrap();
        assert!(n > 0, "closed");
        seen += buf[..n].windows(9).filter(|w| *w == b"HTTP/1.1 ").count();
    }
}

/// Allocations a request over `rounds` rounds of `count` pipelined
/// `request`s, after as many rounds to warm up.
fn per_request(request: &[u8], count: usize, typed: bool) -> f64 {
    let rt = Runtime::new_current_thread();
    let (mut client, served) = rt.block_on(async {
        let (client, server) = tokio::io::duplex(64 * 1024);
        let service = service_fn(move |req| answer(req, typed));
        (
            client,
            tokio::spawn(serve_connection(server, service, Config::default())),
        )
    });
    let batch = request.repeat(count);
    let mut buf = vec![0u8; 64 * 1024];
    let rounds = 100;
    for _ in 0..rounds {
        rt.block_on(round(&mut client, &batch, count, &mut buf));
    }
    let ((), n) = allocations(|| {
        for _ in 0..rounds {
            rt.block_on(round(&mut client, &batch, count, &mut buf));
        }
    });
    drop(client);
    rt.block_on(served).unwrap().expect("served");
    n as f64 / (rounds * count) as f64
}

trait CurrentThread {
    fn new_current_thread() -> Runtime;
}

impl CurrentThread for Runtime {
    fn new_current_thread() -> Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }
}

#[test]
fn a_get_whose_answers_have_no_fields_costs_its_field_map() {
    // The responses' maps never allocated: each request's map is made
    // (two allocations).
    assert_eq!(per_request(GET, 1, false), 2.0, "one at a time");
    assert_eq!(per_request(GET, 16, false), 2.0, "pipelined");
}

#[test]
fn a_get_takes_the_field_map_of_the_answer_before_and_costs_nothing_more() {
    // The service makes each response's map (two allocations, its own);
    // the connection gives it to the next request, which costs nothing.
    assert_eq!(per_request(GET, 1, true), 2.0, "one at a time");
    assert_eq!(per_request(GET, 16, true), 2.0, "pipelined");
}

#[test]
fn a_request_body_costs_nothing_more() {
    assert_eq!(per_request(POST, 1, true), 2.0, "one at a time");
    assert_eq!(per_request(POST, 16, true), 2.0, "pipelined");
}
