//! `serve`: connections served on tasks of their own, at most
//! `max_connections` at once, and a graceful shutdown.

use std::convert::Infallible;
use std::future::IntoFuture;
use std::time::{Duration, Instant};

use h1_tokio::{serve, service_fn, Body, Config};
use http::{Request, Response};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

/// Answers after `/slow` waits 300 ms, never for `/never`.
async fn service(req: Request<Body>) -> Result<Response<String>, Infallible> {
    match req.uri().path() {
        "/slow" => tokio::time::sleep(Duration::from_millis(300)).await,
        "/never" => std::future::pending::<()>().await,
        _ => {}
    }
    Ok(Response::new(String::from("done")))
}

/// A server on 127.0.0.1, its address, the sender that shuts it down and
/// the task that runs it.
async fn start(
    max: usize,
    grace: Duration,
) -> (
    std::net::SocketAddr,
    oneshot::Sender<()>,
    tokio::task::JoinHandle<std::io::Result<()>>,
) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let running = tokio::spawn(
        serve(listener, service_fn(service))
            .max_connections(max)
            .grace(grace)
            .with_graceful_shutdown(async {
                let _ = stopped.await;
            })
            .into_future(),
    );
    (addr, stop, running)
}

async fn get(stream: &mut TcpStream, path: &str) {
    let req = format!("GET {path} HTTP/1.1\r\nHost: a\r\n\r\n");
    stream.write_all(req.as_bytes()).await.unwrap();
}

/// Reads until the server closes (at most 5 s).
async fn rest(stream: &mut TcpStream) -> String {
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut out))
        .await
        .expect("closed in time")
        .unwrap();
    String::from_utf8_lossy(&out).into_owned()
}

#[tokio::test]
async fn shutdown_lets_a_request_in_flight_finish_with_connection_close() {
    let (addr, stop, running) = start(100, Duration::from_secs(5)).await;
    let mut client = TcpStream::connect(addr).await.unwrap();
    get(&mut client, "/slow").await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    stop.send(()).unwrap();
    let got = rest(&mut client).await;
    assert!(got.starts_with("HTTP/1.1 200 OK\r\n"), "{got}");
    assert!(got.contains("\r\nConnection: close\r\n"), "{got}");
    assert!(got.ends_with("\r\n\r\ndone"), "{got}");
    tokio::time::timeout(Duration::from_secs(5), running)
        .await
        .expect("the server ends once its connections have")
        .unwrap()
        .unwrap();
    assert!(
        TcpStream::connect(addr).await.is_err(),
        "no longer accepting"
    );
}

#[tokio::test]
async fn shutdown_closes_an_idle_connection_at_once() {
    let (addr, stop, running) = start(100, Duration::from_secs(5)).await;
    let mut client = TcpStream::connect(addr).await.unwrap();
    get(&mut client, "/").await;
    let mut buf = [0u8; 1024];
    let n = client.read(&mut buf).await.unwrap();
    assert!(buf[..n].ends_with(b"done"));
    let began = Instant::now();
    stop.send(()).unwrap();
    assert_eq!(rest(&mut client).await, "", "closed without a word");
    assert!(
        began.elapsed() < Duration::from_secs(1),
        "{:?}",
        began.elapsed()
    );
    running.await.unwrap().unwrap();
}

#[tokio::test]
async fn the_grace_period_ends_connections_that_do_not_finish() {
    let (addr, stop, running) = start(100, Duration::from_millis(200)).await;
    let mut client = TcpStream::connect(addr).await.unwrap();
    get(&mut client, "/never").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let began = Instant::now();
    stop.send(()).unwrap();
    tokio::time::timeout(Duration::from_secs(3), running)
        .await
        .expect("the grace period bounds the shutdown")
        .unwrap()
        .unwrap();
    assert!(
        began.elapsed() >= Duration::from_millis(200),
        "{:?}",
        began.elapsed()
    );
    assert_eq!(rest(&mut client).await, "", "ended unanswered");
}

#[tokio::test]
async fn connections_beyond_the_maximum_wait_for_one_to_end() {
    let (addr, stop, running) = start(1, Duration::from_secs(5)).await;
    let mut first = TcpStream::connect(addr).await.unwrap();
    get(&mut first, "/").await;
    let mut buf = [0u8; 1024];
    assert!(first.read(&mut buf).await.unwrap() > 0);
    // The second is in the backlog, not served.
    let mut second = TcpStream::connect(addr).await.unwrap();
    get(&mut second, "/").await;
    let early = tokio::time::timeout(Duration::from_millis(300), second.read(&mut buf)).await;
    assert!(early.is_err(), "served while the first held the only place");
    drop(first);
    let n = tokio::time::timeout(Duration::from_secs(5), second.read(&mut buf))
        .await
        .expect("served once the first ended")
        .unwrap();
    assert!(
        buf[..n].ends_with(b"done"),
        "{}",
        String::from_utf8_lossy(&buf[..n])
    );
    stop.send(()).unwrap();
    running.await.unwrap().unwrap();
}

/// A connection served by `serve_connection` from an accept loop of the
/// test's own, shut down gracefully from outside when `stop` fires: the
/// client's end, and the task serving it.
async fn own_loop() -> (
    TcpStream,
    oneshot::Sender<()>,
    tokio::task::JoinHandle<Result<(), h1_tokio::Error>>,
) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let client = TcpStream::connect(listener.local_addr().unwrap())
        .await
        .unwrap();
    let (stream, _) = listener.accept().await.unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let serving = tokio::spawn(async move {
        let conn = h1_tokio::serve_connection(stream, service_fn(service), Config::default());
        tokio::pin!(conn);
        tokio::select! {
            result = conn.as_mut() => result,
            _ = stopped => {
                conn.as_mut().graceful_shutdown();
                conn.await
            }
        }
    });
    (client, stop, serving)
}

#[tokio::test]
async fn a_connection_shut_down_from_outside_finishes_its_request_in_flight() {
    let (mut client, stop, serving) = own_loop().await;
    get(&mut client, "/slow").await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    stop.send(()).unwrap();
    let got = rest(&mut client).await;
    assert!(got.starts_with("HTTP/1.1 200 OK\r\n"), "{got}");
    assert!(got.contains("\r\nConnection: close\r\n"), "{got}");
    assert!(got.ends_with("\r\n\r\ndone"), "{got}");
    serving.await.unwrap().expect("ended in order");
}

#[tokio::test]
async fn an_idle_connection_shut_down_from_outside_closes_at_once() {
    let (mut client, stop, serving) = own_loop().await;
    get(&mut client, "/").await;
    let mut buf = [0u8; 1024];
    let n = client.read(&mut buf).await.unwrap();
    assert!(buf[..n].ends_with(b"done"));
    let began = Instant::now();
    stop.send(()).unwrap();
    assert_eq!(rest(&mut client).await, "", "closed without a word");
    assert!(
        began.elapsed() < Duration::from_secs(1),
        "{:?}",
        began.elapsed()
    );
    serving.await.unwrap().expect("ended in order");
}
