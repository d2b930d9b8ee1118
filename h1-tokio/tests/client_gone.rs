//! A client that ends its side of the connection while its answer is
//! still being made: by default it has left (as hyper, nginx and Go take
//! it), so the service's work for it is dropped; with
//! `Config::half_close` it still gets its answer.

use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use h1_tokio::{serve_connection, service_fn, Body, Config};
use http::{Request, Response};
use http_body_util::Full;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Counts its futures alive; each answers after 200 ms.
fn slow(
    alive: Arc<AtomicUsize>,
) -> impl tower_service::Service<
    Request<Body>,
    Response = Response<Full<Bytes>>,
    Error = Infallible,
    Future = impl Send,
> + Send
       + 'static {
    service_fn(move |_req: Request<Body>| {
        let alive = Arc::clone(&alive);
        async move {
            alive.fetch_add(1, Ordering::SeqCst);
            struct Leaving(Arc<AtomicUsize>);
            impl Drop for Leaving {
                fn drop(&mut self) {
                    self.0.fetch_sub(1, Ordering::SeqCst);
                }
            }
            let _guard = Leaving(alive);
            tokio::time::sleep(Duration::from_millis(200)).await;
            Ok::<_, Infallible>(Response::new(Full::new(Bytes::from_static(b"late"))))
        }
    })
}

/// Sends one request, ends the client's sending side, and reads what
/// comes back until the server closes.
async fn request_then_end(config: Config, alive: Arc<AtomicUsize>) -> (String, usize) {
    let (mut client, server) = tokio::io::duplex(4096);
    let served = tokio::spawn(serve_connection(server, slow(Arc::clone(&alive)), config));
    client
        .write_all(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        .await
        .unwrap();
    // Wait until the service works on it, then leave.
    while alive.load(Ordering::SeqCst) == 0 {
        tokio::task::yield_now().await;
    }
    client.shutdown().await.unwrap();
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), client.read_to_end(&mut out))
        .await
        .expect("the server closes in time")
        .unwrap();
    served.await.unwrap().expect("no server error");
    (
        String::from_utf8_lossy(&out).into_owned(),
        alive.load(Ordering::SeqCst),
    )
}

#[tokio::test]
async fn a_client_that_ends_its_side_has_left_and_its_call_is_dropped() {
    let alive = Arc::new(AtomicUsize::new(0));
    let (got, left) = request_then_end(Config::default(), alive).await;
    assert_eq!(got, "", "nothing is written to a client that left");
    assert_eq!(left, 0, "the service's future was dropped");
}

#[tokio::test]
async fn with_half_close_a_client_that_ends_its_side_still_gets_its_answer() {
    let mut config = Config::default();
    config.half_close = true;
    let alive = Arc::new(AtomicUsize::new(0));
    let (got, left) = request_then_end(config, alive).await;
    assert!(got.starts_with("HTTP/1.1 200 OK\r\n"), "{got}");
    assert!(got.ends_with("\r\n\r\nlate"), "{got}");
    assert_eq!(left, 0);
}
