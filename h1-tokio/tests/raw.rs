//! `raw::serve`: a handler without the `http` types, over an in-memory
//! socket; and its promise of no allocation per request.

use std::time::Duration;

use counting_alloc::{allocations, Counting};
use h1_tokio::raw::{self, Framing, Handler, HeadersView, Method, Request, Responder, SendError};
use h1_tokio::Config;
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Answers `GET /plaintext`, echoes a body with its length, counts what
/// it saw; answers nothing for `/forget`.
#[derive(Default)]
struct Echo {
    route: Route,
    body: Vec<u8>,
    /// The `Digest` trailer (empty without one); kept, so the handler
    /// itself allocates nothing once warm.
    digest: Vec<u8>,
}

#[derive(Clone, Copy, Default, PartialEq)]
enum Route {
    #[default]
    Plaintext,
    Echo,
    Forget,
    Stream,
    Last,
}

impl Handler for Echo {
    fn head(&mut self, req: &Request<'_>) {
        self.body.clear();
        self.digest.clear();
        self.route = match (req.method(), req.target()) {
            (Method::Get, b"/plaintext") => Route::Plaintext,
            (_, b"/forget") => Route::Forget,
            (_, b"/stream") => Route::Stream,
            (_, b"/last") => Route::Last,
            _ => Route::Echo,
        };
    }

    fn data(&mut self, data: &[u8]) {
        self.body.extend_from_slice(data);
    }

    fn trailers(&mut self, trailers: HeadersView<'_>) {
        self.digest
            .extend_from_slice(trailers.get(b"digest").unwrap_or_default());
    }

    fn end(&mut self, res: &mut Responder<'_>) -> Result<(), SendError> {
        match self.route {
            Route::Plaintext => {
                res.respond_with(200, [("Content-Type", "text/plain")], b"Hello, World!")
            }
            Route::Echo => {
                res.respond_with(200, [(&b"X-Digest"[..], &self.digest[..])], &self.body)
            }
            Route::Forget => Ok(()),
            Route::Last => {
                res.close_after_response();
                res.respond_with(200, [("Content-Type", "text/plain")], b"last")
            }
            Route::Stream => {
                // A streamed body left without its end.
                res.respond(200, Framing::Chunked)?.finish()?;
                res.send_data(b"part")
            }
        }
    }
}

fn connect(
    capacity: usize,
) -> (
    DuplexStream,
    tokio::task::JoinHandle<Result<(), h1_tokio::Error>>,
) {
    let (client, server) = tokio::io::duplex(capacity);
    (
        client,
        tokio::spawn(raw::serve(server, Echo::default(), Config::default())),
    )
}

async fn read_all(client: &mut DuplexStream) -> String {
    client.shutdown().await.unwrap();
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), client.read_to_end(&mut out))
        .await
        .expect("closed in time")
        .unwrap();
    String::from_utf8_lossy(&out).into_owned()
}

#[tokio::test]
async fn pipelined_requests_are_answered_in_order_with_their_bodies() {
    let (mut client, served) = connect(4096);
    client
        .write_all(
            b"GET /plaintext HTTP/1.1\r\nHost: a\r\n\r\n\
              POST /e HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello\
              PUT /e HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nDigest: d1\r\n\r\n",
        )
        .await
        .unwrap();
    let got = read_all(&mut client).await;
    let answers: Vec<&str> = got.split("HTTP/1.1 ").skip(1).collect();
    assert_eq!(answers.len(), 3, "{got}");
    assert!(
        answers[0].starts_with("200 OK\r\n") && answers[0].ends_with("\r\n\r\nHello, World!"),
        "{got}"
    );
    assert!(answers[1].ends_with("\r\n\r\nhello"), "{got}");
    assert!(
        answers[2].contains("X-Digest: d1\r\n") && answers[2].ends_with("\r\n\r\nabc"),
        "{got}"
    );
    served.await.unwrap().expect("served");
}

#[tokio::test]
async fn a_waiting_client_is_invited_when_its_body_is_read() {
    let (mut client, served) = connect(4096);
    client
        .write_all(
            b"PUT /e HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n",
        )
        .await
        .unwrap();
    let mut buf = [0u8; 64];
    let n = client.read(&mut buf).await.unwrap();
    assert_eq!(&buf[..n], b"HTTP/1.1 100 Continue\r\n\r\n");
    client.write_all(b"ok").await.unwrap();
    let got = read_all(&mut client).await;
    assert!(
        got.starts_with("HTTP/1.1 200 OK\r\n") && got.ends_with("\r\n\r\nok"),
        "{got}"
    );
    served.await.unwrap().expect("served");
}

#[tokio::test]
async fn a_request_left_unanswered_gets_500_and_the_connection_closes() {
    let (mut client, served) = connect(4096);
    client
        .write_all(
            b"GET /forget HTTP/1.1\r\nHost: a\r\n\r\nGET /plaintext HTTP/1.1\r\nHost: a\r\n\r\n",
        )
        .await
        .unwrap();
    let got = read_all(&mut client).await;
    assert!(
        got.starts_with("HTTP/1.1 500 Internal Server Error\r\n"),
        "{got}"
    );
    assert!(got.contains("Connection: close\r\n"), "{got}");
    assert_eq!(got.matches("HTTP/1.1").count(), 1, "{got}");
    served.await.unwrap().expect("served");
}

#[tokio::test]
async fn a_body_left_unfinished_ends_the_connection_after_what_was_sent() {
    let (mut client, served) = connect(4096);
    client
        .write_all(
            b"GET /stream HTTP/1.1\r\nHost: a\r\n\r\nGET /plaintext HTTP/1.1\r\nHost: a\r\n\r\n",
        )
        .await
        .unwrap();
    let got = read_all(&mut client).await;
    assert!(got.starts_with("HTTP/1.1 200 OK\r\n"), "{got}");
    assert!(
        got.ends_with("\r\n\r\n4\r\npart\r\n"),
        "cut short, no last chunk: {got}"
    );
    served.await.unwrap().expect("served");
}

/// Three pipelined requests, then all three answers.
async fn round(client: &mut DuplexStream, batch: &[u8], buf: &mut [u8]) {
    client.write_all(batch).await.unwrap();
    let mut seen = 0;
    while seen < 3 {
        let n = client.read(buf).await.unwrap();
        assert!(n > 0, "closed");
        seen += buf[..n].windows(9).filter(|w| *w == b"HTTP/1.1 ").count();
    }
}

#[test]
fn no_allocation_per_request_once_warm() {
    // The client and the server share one thread: the runtime's, which
    // runs the server's task while `block_on` drives the client.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (mut client, served) = rt.block_on(async { connect(64 * 1024) });
    let batch = [
        &b"GET /plaintext HTTP/1.1\r\nHost: a\r\n\r\n"[..],
        b"POST /e HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello",
        b"PUT /e HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nDigest: d1\r\n\r\n",
    ]
    .concat();
    let mut buf = vec![0u8; 64 * 1024];
    for _ in 0..50 {
        rt.block_on(round(&mut client, &batch, &mut buf));
    }
    let ((), n) = allocations(|| {
        for _ in 0..100 {
            rt.block_on(round(&mut client, &batch, &mut buf));
        }
    });
    assert_eq!(n, 0, "allocations in 300 requests");
    drop(client);
    rt.block_on(served).unwrap().expect("served");
}

/// Answers every request with 600 bytes.
struct Big;

impl Handler for Big {
    fn head(&mut self, _req: &Request<'_>) {}
    fn end(&mut self, res: &mut Responder<'_>) -> Result<(), SendError> {
        res.respond_with(200, [("Content-Type", "text/plain")], &[b'x'; 600])
    }
}

#[tokio::test]
async fn answers_past_the_output_limit_go_on_once_the_output_is_written() {
    let mut config = Config::default();
    config.conn.max_buffered_output = 1024;
    let (mut client, server) = tokio::io::duplex(4096);
    let served = tokio::spawn(raw::serve(server, Big, config));
    let mut reqs = Vec::new();
    for i in 0..40 {
        let close = if i == 39 { "Connection: close\r\n" } else { "" };
        reqs.extend_from_slice(format!("GET /{i} HTTP/1.1\r\nHost: a\r\n{close}\r\n").as_bytes());
    }
    client.write_all(&reqs).await.unwrap();
    let got = read_all(&mut client).await;
    assert_eq!(got.matches("HTTP/1.1 200 OK").count(), 40);
    served.await.unwrap().expect("served");
}

#[tokio::test]
async fn a_handler_can_make_its_response_the_last() {
    let (mut client, served) = connect(4096);
    client
        .write_all(
            b"GET /last HTTP/1.1\r\nHost: a\r\n\r\nGET /plaintext HTTP/1.1\r\nHost: a\r\n\r\n",
        )
        .await
        .unwrap();
    let got = read_all(&mut client).await;
    assert_eq!(got.matches("HTTP/1.1 ").count(), 1, "{got}");
    assert!(got.contains("Connection: close\r\n"), "{got}");
    assert!(got.ends_with("last"), "{got}");
    served.await.unwrap().expect("served");
}
