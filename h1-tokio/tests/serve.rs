//! `serve_connection` over an in-memory socket: what a client sends, what
//! it gets back, and what the service sees.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use h1_tokio::{serve_connection, service_fn, Body, Config};
use http::{HeaderMap, Request, Response};
use http_body::Frame;
use http_body_util::{BodyExt, Full};
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};
use tokio::task::JoinHandle;

type Served = JoinHandle<Result<(), h1_tokio::Error>>;

/// A connection served by `service` on one end of a duplex pipe of
/// `capacity` bytes; the other end is the client's.
fn connect<S, B>(service: S, capacity: usize) -> (DuplexStream, Served)
where
    S: tower_service::Service<Request<Body>, Response = Response<B>> + Send + 'static,
    S::Future: Send,
    S::Error: Into<h1_tokio::BoxError>,
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<h1_tokio::BoxError>,
{
    let (client, server) = tokio::io::duplex(capacity);
    // These clients end their sending side once they have sent all (see
    // `read_all`) and then read: not clients that left (tests/client_gone.rs).
    let mut config = Config::default();
    config.half_close = true;
    let served = tokio::spawn(serve_connection(server, service, config));
    (client, served)
}

/// Everything the server sends until it closes, the client having sent
/// all it had (its write side shut down, so the server's linger on close
/// ends at once).
async fn read_all(client: &mut DuplexStream) -> String {
    client.shutdown().await.expect("shutdown");
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), client.read_to_end(&mut out))
        .await
        .expect("the server closes in time")
        .expect("read");
    String::from_utf8_lossy(&out).into_owned()
}

/// Reads until `out` ends with a response whose text contains `until`.
async fn read_until(client: &mut DuplexStream, until: &str) -> String {
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&out).contains(until) {
        let n = tokio::time::timeout(Duration::from_secs(10), client.read(&mut buf))
            .await
            .expect("an answer in time")
            .expect("read");
        assert!(
            n > 0,
            "closed before {until:?}: {}",
            String::from_utf8_lossy(&out)
        );
        out.extend_from_slice(&buf[..n]);
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn ok(text: &'static str) -> Result<Response<Full<Bytes>>, Infallible> {
    Ok(Response::new(Full::new(Bytes::from_static(
        text.as_bytes(),
    ))))
}

#[tokio::test]
async fn a_request_gets_the_services_response_with_its_length_and_date() {
    let service = service_fn(|req: Request<Body>| async move {
        assert_eq!(req.uri().path(), "/hello");
        assert_eq!(req.headers()["host"], "a");
        ok("Hello, World!")
    });
    let (mut client, served) = connect(service, 4096);
    client
        .write_all(b"GET /hello HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let got = read_all(&mut client).await;
    assert!(got.starts_with("HTTP/1.1 200 OK\r\n"), "{got}");
    assert!(
        got.contains("\r\ncontent-length: 13\r\n") || got.contains("\r\nContent-Length: 13\r\n"),
        "{got}"
    );
    assert!(
        got.contains("\r\nDate: ") || got.contains("\r\ndate: "),
        "{got}"
    );
    assert!(got.ends_with("\r\n\r\nHello, World!"), "{got}");
    served.await.unwrap().expect("served without error");
}

#[tokio::test]
async fn pipelined_requests_are_answered_in_order_whatever_order_they_finish_in() {
    // The first request's answer takes longest.
    let service = service_fn(|req: Request<Body>| async move {
        let path = req.uri().path().to_owned();
        let wait = match path.as_str() {
            "/1" => 60,
            "/2" => 30,
            _ => 0,
        };
        tokio::time::sleep(Duration::from_millis(wait)).await;
        Ok::<_, Infallible>(Response::new(Full::new(Bytes::from(path))))
    });
    let (mut client, served) = connect(service, 4096);
    client
        .write_all(
            b"GET /1 HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n\
              GET /3 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
        )
        .await
        .unwrap();
    let got = read_all(&mut client).await;
    let bodies: Vec<&str> = got.split("\r\n\r\n").skip(1).map(|s| &s[..2]).collect();
    assert_eq!(bodies, ["/1", "/2", "/3"], "{got}");
    served.await.unwrap().expect("served");
}

#[tokio::test]
async fn a_request_body_streams_to_the_service_and_back() {
    let service = service_fn(|req: Request<Body>| async move {
        let body = req
            .into_body()
            .collect()
            .await
            .expect("whole body")
            .to_bytes();
        Ok::<_, Infallible>(Response::new(Full::new(body)))
    });
    let (mut client, served) = connect(service, 4096);
    let payload: Vec<u8> = (0..100_000u32).map(|i| b'a' + (i % 26) as u8).collect();
    let head = format!(
        "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        payload.len()
    );
    let writer = {
        let (mut r, mut w) = tokio::io::split(client);
        let payload = payload.clone();
        let write = tokio::spawn(async move {
            w.write_all(head.as_bytes()).await.unwrap();
            w.write_all(&payload).await.unwrap();
            w
        });
        let mut out = Vec::new();
        r.read_to_end(&mut out).await.unwrap();
        let w = write.await.unwrap();
        client = r.unsplit(w);
        out
    };
    let text = String::from_utf8_lossy(&writer);
    assert!(text.starts_with("HTTP/1.1 200 OK\r\n"), "{}", &text[..100]);
    assert!(writer.ends_with(&payload), "the body comes back whole");
    drop(client);
    served.await.unwrap().expect("served");
}

#[tokio::test]
async fn a_chunked_request_body_brings_its_trailers() {
    let seen: Arc<Mutex<Option<HeaderMap>>> = Arc::default();
    let keep = Arc::clone(&seen);
    let service = service_fn(move |req: Request<Body>| {
        let keep = Arc::clone(&keep);
        async move {
            let collected = req.into_body().collect().await.expect("whole body");
            *keep.lock().unwrap() = collected.trailers().cloned();
            let body = collected.to_bytes();
            Ok::<_, Infallible>(Response::new(Full::new(body)))
        }
    });
    let (mut client, served) = connect(service, 4096);
    client
        .write_all(
            b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n\
              3\r\nabc\r\n2\r\nde\r\n0\r\nDigest: x\r\n\r\n",
        )
        .await
        .unwrap();
    let got = read_all(&mut client).await;
    assert!(got.ends_with("\r\n\r\nabcde"), "{got}");
    let trailers = seen.lock().unwrap().clone().expect("trailers");
    assert_eq!(trailers["digest"], "x");
    served.await.unwrap().expect("served");
}

#[tokio::test]
async fn continue_is_sent_when_the_service_first_reads_the_body() {
    let (go, wait) = tokio::sync::oneshot::channel::<()>();
    let wait = Arc::new(Mutex::new(Some(wait)));
    let service = service_fn(move |req: Request<Body>| {
        let wait = wait.lock().unwrap().take();
        async move {
            // Not reading the body until told to.
            if let Some(w) = wait {
                w.await.unwrap();
            }
            let body = req.into_body().collect().await.expect("body").to_bytes();
            Ok::<_, Infallible>(Response::new(Full::new(body)))
        }
    });
    let (mut client, served) = connect(service, 4096);
    client
        .write_all(b"PUT / HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut buf = [0u8; 64];
    let early = tokio::time::timeout(Duration::from_millis(100), client.read(&mut buf)).await;
    assert!(early.is_err(), "nothing is sent before the body is read");
    go.send(()).unwrap();
    let interim = read_until(&mut client, "\r\n\r\n").await;
    assert_eq!(interim, "HTTP/1.1 100 Continue\r\n\r\n");
    client.write_all(b"hi").await.unwrap();
    let got = read_all(&mut client).await;
    assert!(
        got.starts_with("HTTP/1.1 200 OK\r\n") && got.ends_with("\r\n\r\nhi"),
        "{got}"
    );
    served.await.unwrap().expect("served");
}

#[tokio::test]
async fn continue_is_sent_when_the_service_reads_the_body_at_once() {
    // The call reads the body on its first poll, which the connection
    // makes as soon as it calls the service.
    let service = service_fn(|req: Request<Body>| async move {
        let body = req.into_body().collect().await.expect("body").to_bytes();
        Ok::<_, Infallible>(Response::new(Full::new(body)))
    });
    let (mut client, served) = connect(service, 4096);
    client
        .write_all(b"PUT / HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let interim = read_until(&mut client, "\r\n\r\n").await;
    assert_eq!(interim, "HTTP/1.1 100 Continue\r\n\r\n");
    client.write_all(b"hi").await.unwrap();
    let got = read_all(&mut client).await;
    assert!(
        got.starts_with("HTTP/1.1 200 OK\r\n") && got.ends_with("\r\n\r\nhi"),
        "{got}"
    );
    served.await.unwrap().expect("served");
}

#[tokio::test]
async fn a_service_that_never_reads_the_body_sends_no_continue() {
    let service = service_fn(|_req: Request<Body>| async { ok("no thanks") });
    let (mut client, served) = connect(service, 4096);
    client
        .write_all(
            b"PUT / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n",
        )
        .await
        .unwrap();
    let got = read_until(&mut client, "no thanks").await;
    assert!(got.starts_with("HTTP/1.1 200 OK\r\n"), "{got}");
    assert!(!got.contains("100 Continue"), "{got}");
    assert!(
        got.to_ascii_lowercase().contains("connection: close"),
        "the unread body ends the connection: {got}"
    );
    drop(client);
    served.await.unwrap().expect("served");
}

#[tokio::test]
async fn a_slow_reader_holds_the_client_back_instead_of_filling_memory() {
    let (go, wait) = tokio::sync::oneshot::channel::<()>();
    let wait = Arc::new(Mutex::new(Some(wait)));
    let service = service_fn(move |req: Request<Body>| {
        let wait = wait.lock().unwrap().take();
        async move {
            let mut body = req.into_body();
            let first = body.frame().await.expect("a frame").expect("data");
            let mut n = first.into_data().map(|d| d.len()).unwrap_or(0);
            if let Some(w) = wait {
                w.await.unwrap();
            }
            while let Some(frame) = body.frame().await {
                n += frame
                    .expect("data")
                    .into_data()
                    .map(|d| d.len())
                    .unwrap_or(0);
            }
            Ok::<_, Infallible>(Response::new(n.to_string()))
        }
    });
    let (client, served) = connect(service, 8192);
    let (mut r, mut w) = tokio::io::split(client);
    let total = 1024 * 1024;
    let head = format!(
        "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: {total}\r\nConnection: close\r\n\r\n"
    );
    w.write_all(head.as_bytes()).await.unwrap();
    let body = vec![b'x'; total];
    let mut written = 0;
    // With the service not reading, the pipe and the connection's buffer
    // fill and the client cannot write the body.
    let stalled = tokio::time::timeout(Duration::from_millis(300), async {
        while written < total {
            let n = w.write(&body[written..]).await.unwrap();
            written += n;
        }
    })
    .await;
    assert!(
        stalled.is_err(),
        "the whole body was taken while nobody read it"
    );
    assert!(
        written < 256 * 1024,
        "{written} bytes taken while nobody read them"
    );
    go.send(()).unwrap();
    w.write_all(&body[written..]).await.unwrap();
    w.shutdown().await.unwrap();
    let mut out = Vec::new();
    r.read_to_end(&mut out).await.unwrap();
    let text = String::from_utf8_lossy(&out);
    assert!(text.ends_with(&format!("\r\n\r\n{total}")), "{text}");
    served.await.unwrap().expect("served");
}

#[tokio::test]
async fn a_malformed_request_is_answered_by_the_connection_which_then_closes() {
    let service = service_fn(|_req: Request<Body>| async { ok("never") });
    let (mut client, served) = connect(service, 4096);
    client
        .write_all(b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n")
        .await
        .unwrap();
    let got = read_all(&mut client).await;
    assert!(got.starts_with("HTTP/1.1 400 "), "{got}");
    assert!(!got.contains("never"), "{got}");
    served
        .await
        .unwrap()
        .expect("a client's mistake is no error of the server");
}

#[tokio::test]
async fn a_failed_service_call_is_answered_500_and_the_connection_closes_after_the_requests_received(
) {
    // It fails after a while, so the request pipelined behind the first
    // has been received (read ahead) by then.
    let service = service_fn(|_req: Request<Body>| async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        Err::<Response<String>, _>("broken")
    });
    let (mut client, served) = connect(service, 4096);
    client
        .write_all(b"GET / HTTP/1.1\r\nHost: a\r\n\r\nGET /next HTTP/1.1\r\nHost: a\r\n\r\n")
        .await
        .unwrap();
    let got = read_all(&mut client).await;
    // The requests already received are answered; the last answer says
    // the connection closes, and nothing is read after them.
    let answers: Vec<&str> = got.split_inclusive("\r\n\r\n").collect();
    assert_eq!(answers.len(), 2, "{got}");
    assert!(
        answers.iter().all(|a| a.starts_with("HTTP/1.1 500 ")),
        "{got}"
    );
    assert!(!answers[0].contains("Connection: close"), "{got}");
    assert!(answers[1].contains("\r\nConnection: close\r\n"), "{got}");
    served.await.unwrap().expect("served");
}

/// A response body of given frames, its size unknown.
struct Frames(VecDeque<Frame<Bytes>>);

impl http_body::Body for Frames {
    type Data = Bytes;
    type Error = Infallible;
    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Poll::Ready(self.0.pop_front().map(Ok))
    }
}

#[tokio::test]
async fn a_body_of_unknown_size_is_chunked_with_its_trailers() {
    let service = service_fn(|_req: Request<Body>| async {
        let mut trailers = HeaderMap::new();
        trailers.insert("digest", http::HeaderValue::from_static("y"));
        let frames = VecDeque::from([
            Frame::data(Bytes::from_static(b"Hello, ")),
            Frame::data(Bytes::from_static(b"World!")),
            Frame::trailers(trailers),
        ]);
        Ok::<_, Infallible>(Response::new(Frames(frames)))
    });
    let (mut client, served) = connect(service, 4096);
    client
        .write_all(b"GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let got = read_all(&mut client).await;
    assert!(
        got.to_ascii_lowercase()
            .contains("\r\ntransfer-encoding: chunked\r\n"),
        "{got}"
    );
    assert!(
        got.ends_with("\r\n\r\n7\r\nHello, \r\n6\r\nWorld!\r\n0\r\ndigest: y\r\n\r\n"),
        "{got}"
    );
    served.await.unwrap().expect("served");
}

#[tokio::test]
async fn an_http_1_0_client_gets_its_answer_and_the_close() {
    let service = service_fn(|_req: Request<Body>| async { ok("old") });
    let (mut client, served) = connect(service, 4096);
    client.write_all(b"GET / HTTP/1.0\r\n\r\n").await.unwrap();
    let got = read_all(&mut client).await;
    assert!(
        got.starts_with("HTTP/1.1 200 OK\r\n") && got.ends_with("\r\n\r\nold"),
        "{got}"
    );
    served.await.unwrap().expect("served");
}

/// Pipelined `GET /0` .. `GET /{n-1}`, the last with `Connection: close`.
fn pipelined(n: usize) -> Vec<u8> {
    let mut reqs = Vec::new();
    for i in 0..n {
        let close = if i + 1 == n {
            "Connection: close\r\n"
        } else {
            ""
        };
        reqs.extend_from_slice(format!("GET /{i} HTTP/1.1\r\nHost: a\r\n{close}\r\n").as_bytes());
    }
    reqs
}

#[tokio::test]
async fn answers_past_the_output_limit_go_on_once_the_output_is_written() {
    // Each round fills the output to its limit; writing it all must let
    // the connection go on (nothing else would wake it).
    let mut config = Config::default();
    config.conn.max_buffered_output = 1024;
    let service = service_fn(|_req: Request<Body>| async {
        Ok::<_, Infallible>(Response::new(Full::new(Bytes::from(vec![b'x'; 600]))))
    });
    let (mut client, server) = tokio::io::duplex(4096);
    let served = tokio::spawn(serve_connection(server, service, config));
    client.write_all(&pipelined(40)).await.unwrap();
    let got = read_all(&mut client).await;
    assert_eq!(got.matches("HTTP/1.1 200 OK").count(), 40);
    served.await.unwrap().expect("served");
}

#[tokio::test]
async fn an_interim_status_from_the_service_is_answered_500_not_taken_as_the_answer() {
    // A 103 would leave its request unanswered while the next request's
    // answer took its place.
    let service = service_fn(|req: Request<Body>| async move {
        let mut res = Response::new(Full::new(Bytes::from(req.uri().path().to_owned())));
        if req.uri().path() == "/1" {
            *res.status_mut() = http::StatusCode::EARLY_HINTS;
        }
        Ok::<_, Infallible>(res)
    });
    let (mut client, served) = connect(service, 4096);
    client.write_all(&pipelined(2)).await.unwrap();
    let got = read_all(&mut client).await;
    // Each request its own final answer, in order: the first its 200,
    // the 103's request a 500 (which closes the connection), never the
    // 103 itself.
    let finals: Vec<&str> = got.split("HTTP/1.1 ").skip(1).map(|a| &a[..3]).collect();
    assert_eq!(finals, ["200", "500"], "{got}");
    assert!(got.contains("\r\n\r\n/0HTTP/1.1 500 "), "{got}");
    served.await.unwrap().expect("served");
}

#[tokio::test]
async fn a_content_length_the_body_does_not_fill_ends_the_connection() {
    let service = service_fn(|_req: Request<Body>| async {
        Response::builder()
            .header("content-length", "10")
            .body(Full::new(Bytes::new()))
    });
    let (mut client, served) = connect(service, 4096);
    client
        .write_all(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        .await
        .unwrap();
    let got = read_all(&mut client).await;
    assert!(
        got.starts_with("HTTP/1.1 200 OK\r\n") && got.ends_with("Content-Length: 10\r\n\r\n"),
        "{got}"
    );
    assert!(
        served.await.unwrap().is_err(),
        "a broken response body is the server's error"
    );
}

/// A body that gives one chunk, then fails.
struct Failing(bool);

impl http_body::Body for Failing {
    type Data = Bytes;
    type Error = std::io::Error;
    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
        if self.0 {
            return Poll::Ready(Some(Err(std::io::Error::other("boom"))));
        }
        self.0 = true;
        Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(b"partial")))))
    }
}

#[tokio::test]
async fn a_failing_body_ends_the_connection_after_the_answers_before_it() {
    let service = service_fn(|req: Request<Body>| async move {
        let body = if req.uri().path() == "/1" {
            http_body_util::Either::Right(Failing(false))
        } else {
            http_body_util::Either::Left(Full::new(Bytes::from_static(b"first")))
        };
        Ok::<_, Infallible>(Response::new(body))
    });
    let (mut client, served) = connect(service, 4096);
    client.write_all(&pipelined(3)).await.unwrap();
    let got = read_all(&mut client).await;
    assert!(
        got.contains("\r\n\r\nfirst"),
        "the complete answer before it: {got:?}"
    );
    assert!(
        got.ends_with("\r\n7\r\npartial\r\n"),
        "cut short, no last chunk: {got:?}"
    );
    assert_eq!(
        got.matches("HTTP/1.1 ").count(),
        2,
        "nothing after it: {got:?}"
    );
    assert!(served.await.unwrap().is_err());
}

/// Ready for one request, then failing its readiness.
#[derive(Clone)]
struct OnceReady(bool);

impl tower_service::Service<Request<Body>> for OnceReady {
    type Response = Response<Full<Bytes>>;
    type Error = std::io::Error;
    type Future = std::future::Ready<Result<Self::Response, Self::Error>>;
    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        if self.0 {
            Poll::Ready(Err(std::io::Error::other("overloaded")))
        } else {
            Poll::Ready(Ok(()))
        }
    }
    fn call(&mut self, _req: Request<Body>) -> Self::Future {
        self.0 = true;
        std::future::ready(Ok(Response::new(Full::new(Bytes::from_static(b"ok")))))
    }
}

#[tokio::test]
async fn a_request_taken_before_the_service_fails_its_readiness_is_answered() {
    let (mut client, served) = connect(OnceReady(false), 4096);
    client
        .write_all(b"GET / HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n")
        .await
        .unwrap();
    let got = read_all(&mut client).await;
    assert!(
        got.starts_with("HTTP/1.1 200 OK\r\n") && got.ends_with("\r\n\r\nok"),
        "{got}"
    );
    assert_eq!(
        got.matches("HTTP/1.1 ").count(),
        1,
        "no request is read after the failure: {got}"
    );
    let e = served
        .await
        .unwrap()
        .expect_err("the service's failure ends the connection");
    assert!(e.to_string().contains("overloaded"), "{e}");
}

#[tokio::test]
async fn a_body_kept_unread_does_not_hold_a_closed_connection_open() {
    // The service answers without reading the body but keeps it: the
    // connection, closing after that answer, must still end.
    let service = service_fn(|req: Request<Body>| async move {
        let body = req.into_body();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(30)).await;
            drop(body);
        });
        ok("early answer")
    });
    let (mut client, served) = connect(service, 4096);
    client
        .write_all(b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1000\r\n\r\nsome of it")
        .await
        .unwrap();
    let got = read_all(&mut client).await;
    assert!(got.ends_with("\r\n\r\nearly answer"), "{got}");
    tokio::time::timeout(Duration::from_secs(5), served)
        .await
        .expect("the connection ends")
        .unwrap()
        .expect("served");
}

#[tokio::test]
async fn a_response_saying_close_is_the_last_and_requests_read_after_it_go_unanswered() {
    // RFC 9112 §9.6: a server that sends `close` must not process further
    // requests. /b and /c are pipelined behind /a and read ahead; /a's
    // response says close, so neither is answered.
    let service = service_fn(|req: Request<Body>| async move {
        let mut res = ok("bye").expect("infallible");
        if req.uri().path() == "/a" {
            res.headers_mut()
                .insert(http::header::CONNECTION, "close".parse().unwrap());
        }
        Ok::<_, Infallible>(res)
    });
    let (mut client, served) = connect(service, 1 << 16);
    client
        .write_all(
            b"GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: a\r\n\r\n\
              GET /c HTTP/1.1\r\nHost: a\r\n\r\n",
        )
        .await
        .unwrap();
    let got = read_all(&mut client).await;
    assert_eq!(got.matches("HTTP/1.1 ").count(), 1, "{got}");
    assert!(
        got.contains("connection: close\r\n") || got.contains("Connection: close\r\n"),
        "{got}"
    );
    assert!(got.ends_with("bye"), "{got}");
    served.await.unwrap().expect("served");
}

/// 40 KB of a repeating pattern, in static memory the test can recognise.
static BIG: [u8; 40_000] = {
    let mut b = [0u8; 40_000];
    let mut i = 0;
    while i < b.len() {
        b[i] = b'a' + (i % 26) as u8;
        i += 1;
    }
    b
};

/// A socket end that writes at most `max` bytes a call and notes whether
/// any write was handed bytes of [`BIG`] in place.
struct Narrow {
    inner: DuplexStream,
    max: usize,
    wrote_in_place: Arc<Mutex<bool>>,
}

impl Narrow {
    fn note(&self, buf: &[u8]) {
        let range = BIG.as_ptr_range();
        if range.contains(&buf.as_ptr()) {
            *self.wrote_in_place.lock().unwrap() = true;
        }
    }
}

impl tokio::io::AsyncRead for Narrow {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl tokio::io::AsyncWrite for Narrow {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        self.note(buf);
        let n = buf.len().min(self.max);
        Pin::new(&mut self.inner).poll_write(cx, &buf[..n])
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let first = bufs
            .iter()
            .find(|b| !b.is_empty())
            .map_or(&[][..], |b| &b[..]);
        self.poll_write(cx, first)
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Decodes a chunked body: its data, and how many bytes it took up to
/// the line of the last chunk (the trailer section follows).
fn dechunk(body: &[u8]) -> (Vec<u8>, usize) {
    let mut data = Vec::new();
    let mut at = 0;
    loop {
        let line = body[at..]
            .windows(2)
            .position(|w| w == b"\r\n")
            .expect("size line");
        let size = std::str::from_utf8(&body[at..at + line]).unwrap();
        let size = usize::from_str_radix(size, 16).unwrap();
        at += line + 2;
        if size == 0 {
            return (data, at);
        }
        data.extend_from_slice(&body[at..at + size]);
        assert_eq!(
            &body[at + size..at + size + 2],
            b"\r\n",
            "chunk data ends with CRLF"
        );
        at += size + 2;
    }
}

#[tokio::test]
async fn large_body_pieces_go_out_in_place_and_in_order_through_a_narrow_socket() {
    let service = service_fn(|req: Request<Body>| async move {
        let mut trailers = HeaderMap::new();
        trailers.insert("digest", http::HeaderValue::from_static("y"));
        let frames = VecDeque::from([
            Frame::data(Bytes::from_static(b"small, ")),
            Frame::data(Bytes::from_static(&BIG)),
            Frame::data(Bytes::from_static(b", small again")),
            Frame::data(Bytes::from_static(&BIG[..9_000])),
            Frame::trailers(trailers),
        ]);
        let mut res = Response::new(Frames(frames));
        res.headers_mut().insert(
            "x-path",
            http::HeaderValue::from_str(req.uri().path()).unwrap(),
        );
        Ok::<_, Infallible>(res)
    });
    let (client, server) = tokio::io::duplex(1000);
    let wrote_in_place = Arc::new(Mutex::new(false));
    let io = Narrow {
        inner: server,
        max: 777,
        wrote_in_place: wrote_in_place.clone(),
    };
    let served = tokio::spawn(serve_connection(io, service, Config::default()));
    let mut client = client;
    client
        .write_all(b"GET /1 HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let got = read_all(&mut client).await;
    let mut want = b"small, ".to_vec();
    want.extend_from_slice(&BIG);
    want.extend_from_slice(b", small again");
    want.extend_from_slice(&BIG[..9_000]);
    let mut rest = got.as_bytes();
    for path in ["/1", "/2"] {
        let end = rest
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("a head")
            + 4;
        let head = String::from_utf8_lossy(&rest[..end]).to_ascii_lowercase();
        assert!(head.starts_with("http/1.1 200 ok\r\n"), "{head}");
        assert!(head.contains(&format!("x-path: {path}\r\n")), "{head}");
        assert!(head.contains("transfer-encoding: chunked\r\n"), "{head}");
        let (data, taken) = dechunk(&rest[end..]);
        assert!(data == want, "the body of {path} differs");
        let after = &rest[end + taken..];
        let trailer = b"digest: y\r\n\r\n";
        assert!(
            after.starts_with(trailer),
            "{:?}",
            String::from_utf8_lossy(&after[..40.min(after.len())])
        );
        rest = &after[trailer.len()..];
    }
    assert!(
        rest.is_empty(),
        "{} bytes after the last response",
        rest.len()
    );
    assert!(
        *wrote_in_place.lock().unwrap(),
        "the large pieces were copied"
    );
    served.await.unwrap().expect("served");
}

#[tokio::test]
async fn a_large_body_of_known_length_goes_out_in_place_after_its_head() {
    let service = service_fn(|_req: Request<Body>| async {
        Ok::<_, Infallible>(Response::new(Full::new(Bytes::from_static(&BIG))))
    });
    let (mut client, server) = tokio::io::duplex(1000);
    let wrote_in_place = Arc::new(Mutex::new(false));
    let io = Narrow {
        inner: server,
        max: 333,
        wrote_in_place: wrote_in_place.clone(),
    };
    let served = tokio::spawn(serve_connection(io, service, Config::default()));
    client
        .write_all(b"GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let got = read_all(&mut client).await;
    let end = got.find("\r\n\r\n").expect("a head") + 4;
    assert!(
        got[..end]
            .to_ascii_lowercase()
            .contains("content-length: 40000\r\n"),
        "{}",
        &got[..end]
    );
    assert!(got.as_bytes()[end..] == BIG[..], "the body differs");
    assert!(*wrote_in_place.lock().unwrap(), "the body was copied");
    served.await.unwrap().expect("served");
}

#[tokio::test]
async fn a_head_answered_with_an_empty_body_states_no_length_and_keeps_the_connection() {
    // RFC 9110 §9.3.2: the answer to HEAD carries the fields GET would;
    // a service that left the body out (as routers do for HEAD) does not
    // know GET's length, which is not 0. A length it does state stays.
    let service = service_fn(|req: Request<Body>| async move {
        let body = match req.uri().path() {
            "/stated" => Full::new(Bytes::from_static(b"Hello, World!")),
            _ => Full::new(Bytes::new()),
        };
        Ok::<_, Infallible>(Response::new(body))
    });
    let (mut client, served) = connect(service, 4096);
    client
        .write_all(
            b"HEAD /stripped HTTP/1.1\r\nHost: a\r\n\r\nHEAD /stated HTTP/1.1\r\nHost: a\r\n\r\n\
              GET /stripped HTTP/1.1\r\nHost: a\r\n\r\n",
        )
        .await
        .unwrap();
    let got = read_all(&mut client).await;
    let answers: Vec<&str> = got.split("HTTP/1.1 ").skip(1).collect();
    assert_eq!(answers.len(), 3, "{got}");
    let stripped = answers[0].to_ascii_lowercase();
    assert!(!stripped.contains("content-length"), "{got}");
    assert!(!stripped.contains("transfer-encoding"), "{got}");
    assert!(!stripped.contains("connection: close"), "{got}");
    assert!(
        answers[1]
            .to_ascii_lowercase()
            .contains("content-length: 13\r\n"),
        "{got}"
    );
    assert!(!answers[1].contains("Hello"), "no body to HEAD: {got}");
    assert!(
        answers[2]
            .to_ascii_lowercase()
            .contains("content-length: 0\r\n"),
        "{got}"
    );
    served.await.unwrap().expect("served");
}

#[tokio::test]
async fn requests_read_ahead_of_a_response_delimited_by_the_close_are_dropped_not_waited_for() {
    // HTTP/1.0 with keep-alive, two requests pipelined; the first answer's
    // length is unknown, so to HTTP/1.0 the close delimits it: the second
    // request is never answered, and the connection must still end.
    let service = service_fn(|_req: Request<Body>| async {
        let frames = VecDeque::from([Frame::data(Bytes::from_static(b"streamed"))]);
        Ok::<_, Infallible>(Response::new(Frames(frames)))
    });
    let (mut client, served) = connect(service, 4096);
    client
        .write_all(
            b"GET /1 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n\
              GET /2 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
        )
        .await
        .unwrap();
    let got = read_all(&mut client).await;
    assert_eq!(got.matches("HTTP/1.1 ").count(), 1, "{got}");
    assert!(got.ends_with("\r\n\r\nstreamed"), "{got}");
    served.await.unwrap().expect("served");
}

#[tokio::test(start_paused = true)]
async fn a_response_delimited_by_the_close_is_not_held_open_by_requests_read_after_it() {
    // HTTP/1.0 with keep-alive: /a's body, of unknown length, can only be
    // delimited by closing (RFC 9112 §6.3 item 8), so /a's response is the
    // last (§9.6: no further request is processed). /b, pipelined and read
    // ahead, must not keep the connection, and so /a's body, open.
    let service = service_fn(|req: Request<Body>| async move {
        if req.uri().path() == "/b" {
            std::future::pending::<()>().await;
        }
        Ok::<_, Infallible>(Response::new(Frames(VecDeque::from([Frame::data(
            Bytes::from_static(b"streamed"),
        )]))))
    });
    let (mut client, served) = connect(service, 1 << 16);
    client
        .write_all(
            b"GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n\
              GET /b HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
        )
        .await
        .unwrap();
    let got = read_all(&mut client).await;
    assert!(got.starts_with("HTTP/1.1 200 OK\r\n"), "{got}");
    assert!(got.contains("Connection: close\r\n"), "{got}");
    assert!(got.ends_with("\r\n\r\nstreamed"), "{got}");
    served.await.unwrap().expect("served");
}
