//! The connection's timers: a head that takes too long, a body the client
//! stops sending, an idle connection; on tokio's paused clock (it moves on
//! whenever every task waits), and one over real sockets.

use std::convert::Infallible;
use std::time::Duration;

use bytes::Bytes;
use h1_tokio::{serve_connection, service_fn, Body, Config};
use http::{Request, Response};
use http_body_util::{BodyExt, Full};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn config(head: u64, idle: u64, body: u64) -> Config {
    let mut c = Config::default();
    c.header_read_timeout = Some(Duration::from_millis(head));
    c.idle_timeout = Some(Duration::from_millis(idle));
    c.body_read_timeout = Some(Duration::from_millis(body));
    c
}

async fn hello(_req: Request<Body>) -> Result<Response<Full<Bytes>>, Infallible> {
    Ok(Response::new(Full::new(Bytes::from_static(b"hi"))))
}

/// A connection served by `hello` under `config`: the client's end and
/// the serving task.
fn connect(
    config: Config,
) -> (
    tokio::io::DuplexStream,
    tokio::task::JoinHandle<Result<(), h1_tokio::Error>>,
) {
    let (client, server) = tokio::io::duplex(4096);
    (
        client,
        tokio::spawn(serve_connection(server, service_fn(hello), config)),
    )
}

/// What the server sent until it closed, and when it closed. (The client
/// keeps its side open: its end would be the end of a partial message.)
async fn until_closed(client: &mut tokio::io::DuplexStream) -> (String, tokio::time::Instant) {
    let mut out = Vec::new();
    client.read_to_end(&mut out).await.expect("read");
    (
        String::from_utf8_lossy(&out).into_owned(),
        tokio::time::Instant::now(),
    )
}

#[tokio::test(start_paused = true)]
async fn a_head_still_incomplete_at_the_header_timeout_is_answered_408() {
    let start = tokio::time::Instant::now();
    let (mut client, served) = connect(config(500, 10_000, 10_000));
    client
        .write_all(b"GET / HTTP/1.1\r\nHost: a\r\n")
        .await
        .unwrap();
    // More bytes do not restart the clock (a client trickling its head).
    tokio::time::sleep(Duration::from_millis(300)).await;
    client.write_all(b"User-Agent: slow\r\n").await.unwrap();
    let (got, at) = until_closed(&mut client).await;
    assert!(got.starts_with("HTTP/1.1 408 Request Timeout\r\n"), "{got}");
    assert_eq!(
        at - start,
        Duration::from_millis(500),
        "timed from the head's first byte"
    );
    served
        .await
        .unwrap()
        .expect("a slow client is no server error");
}

#[tokio::test(start_paused = true)]
async fn a_connection_that_sends_nothing_is_closed_at_the_header_timeout_unanswered() {
    let start = tokio::time::Instant::now();
    let (mut client, served) = connect(config(500, 10_000, 10_000));
    let (got, at) = until_closed(&mut client).await;
    assert_eq!(got, "", "no request was begun: nothing to answer");
    assert_eq!(at - start, Duration::from_millis(500));
    served.await.unwrap().expect("served");
}

#[tokio::test(start_paused = true)]
async fn an_idle_connection_closes_without_an_answer_at_the_idle_timeout() {
    let (mut client, served) = connect(config(500, 2_000, 10_000));
    client
        .write_all(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        .await
        .unwrap();
    let mut first = [0u8; 1024];
    let n = client.read(&mut first).await.unwrap();
    let answered = tokio::time::Instant::now();
    assert!(first[..n].ends_with(b"\r\n\r\nhi"));
    let (rest, at) = until_closed(&mut client).await;
    assert_eq!(rest, "", "nothing is answered to an idle connection");
    assert_eq!(
        at - answered,
        Duration::from_secs(2),
        "the idle timeout, not the header one"
    );
    served.await.unwrap().expect("served");
}

#[tokio::test(start_paused = true)]
async fn a_body_the_client_stops_sending_is_answered_408() {
    let service = service_fn(|req: Request<Body>| async move {
        let body = req.into_body().collect().await?.to_bytes();
        Ok::<_, h1_tokio::BodyError>(Response::new(Full::new(body)))
    });
    let (mut client, server) = tokio::io::duplex(4096);
    let served = tokio::spawn(serve_connection(
        server,
        service,
        config(500, 10_000, 1_000),
    ));
    client
        .write_all(b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc")
        .await
        .unwrap();
    let start = tokio::time::Instant::now();
    let (got, at) = until_closed(&mut client).await;
    assert!(got.starts_with("HTTP/1.1 408 "), "{got}");
    assert_eq!(at - start, Duration::from_secs(1));
    served.await.unwrap().expect("served");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_head_is_cut_off_while_another_client_is_served() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        // Two connections: the stalled one and the served one.
        for _ in 0..2 {
            let (stream, _) = listener.accept().await.unwrap();
            tokio::spawn(serve_connection(
                stream,
                service_fn(hello),
                config(500, 10_000, 10_000),
            ));
        }
    });
    let mut stalled = tokio::net::TcpStream::connect(addr).await.unwrap();
    stalled
        .write_all(b"GET / HTTP/1.1\r\nHost: a\r\nX-Par")
        .await
        .unwrap();
    let began = std::time::Instant::now();
    let mut served = tokio::net::TcpStream::connect(addr).await.unwrap();
    for _ in 0..20 {
        served
            .write_all(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
            .await
            .unwrap();
        let mut buf = [0u8; 1024];
        let n = served.read(&mut buf).await.unwrap();
        assert!(buf[..n].ends_with(b"\r\n\r\nhi"));
    }
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(2), stalled.read_to_end(&mut out))
        .await
        .expect("the stalled connection is cut off within 2 s")
        .unwrap();
    assert!(
        began.elapsed() >= Duration::from_millis(450),
        "{:?}",
        began.elapsed()
    );
    assert!(
        out.starts_with(b"HTTP/1.1 408 "),
        "{}",
        String::from_utf8_lossy(&out)
    );
    server.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn each_request_starts_the_idle_time_afresh() {
    let (mut client, served) = connect(config(500, 2_000, 10_000));
    // Four requests 1.5 s apart: 6 s in all, no pause reaching 2 s.
    for _ in 0..4 {
        client
            .write_all(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
            .await
            .unwrap();
        let mut buf = [0u8; 1024];
        let n = client.read(&mut buf).await.unwrap();
        assert!(
            buf[..n].ends_with(b"\r\n\r\nhi"),
            "{}",
            String::from_utf8_lossy(&buf[..n])
        );
        tokio::time::sleep(Duration::from_millis(1_500)).await;
    }
    let (rest, _) = until_closed(&mut client).await;
    assert_eq!(rest, "");
    served.await.unwrap().expect("served");
}

#[tokio::test(start_paused = true)]
async fn a_client_left_waiting_for_continue_is_not_timed_out_while_the_service_works() {
    // The service drops the body unread and answers late: the client,
    // rightly waiting for `100 Continue`, is not the slow one.
    let service = service_fn(|req: Request<Body>| async move {
        drop(req.into_body());
        tokio::time::sleep(Duration::from_millis(1_000)).await;
        Ok::<_, Infallible>(Response::new(Full::new(Bytes::from_static(b"denied"))))
    });
    let (mut client, server) = tokio::io::duplex(4096);
    let served = tokio::spawn(serve_connection(server, service, config(500, 10_000, 500)));
    client
        .write_all(
            b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n",
        )
        .await
        .unwrap();
    let (got, _) = until_closed(&mut client).await;
    assert!(
        got.starts_with("HTTP/1.1 200 OK\r\n") && got.ends_with("denied"),
        "{got}"
    );
    served.await.unwrap().expect("served");
}

#[tokio::test(start_paused = true)]
async fn limits_too_long_for_the_clock_are_no_limits() {
    let mut c = Config::default();
    c.header_read_timeout = Some(Duration::MAX);
    c.idle_timeout = Some(Duration::MAX);
    let (mut client, server) = tokio::io::duplex(4096);
    let served = tokio::spawn(serve_connection(server, service_fn(hello), c));
    client
        .write_all(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        .await
        .unwrap();
    let mut buf = [0u8; 1024];
    let n = client.read(&mut buf).await.unwrap();
    assert!(buf[..n].ends_with(b"\r\n\r\nhi"));
    drop(client);
    served.await.unwrap().expect("served");
}

/// Polls `conn` in a task that, on its first poll, has first spent its
/// coop budget on other work (here: draining a busy channel), as a
/// connection does that shares its task with other futures (`join!`,
/// `select!`, `FuturesUnordered`).
fn spawn_after_busy_work<F>(conn: F) -> tokio::task::JoinHandle<F::Output>
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<u32>();
    for i in 0..1_000 {
        tx.send(i).unwrap();
    }
    let mut conn = Box::pin(conn);
    let mut first = true;
    tokio::spawn(std::future::poll_fn(move |cx| {
        if std::mem::take(&mut first) {
            // Each message received spends a unit of the task's budget;
            // the channel says Pending once it is spent.
            while let std::task::Poll::Ready(Some(_)) = rx.poll_recv(cx) {}
        }
        conn.as_mut().poll(cx)
    }))
}

#[tokio::test(start_paused = true)]
async fn the_header_timeout_runs_for_a_connection_first_polled_without_budget() {
    let start = tokio::time::Instant::now();
    let (mut client, server) = tokio::io::duplex(4096);
    let served = spawn_after_busy_work(serve_connection(
        server,
        service_fn(hello),
        config(500, 10_000, 10_000),
    ));
    let (got, at) = tokio::time::timeout(Duration::from_secs(60), until_closed(&mut client))
        .await
        .expect("closed at the header timeout");
    assert_eq!(got, "");
    assert_eq!(at - start, Duration::from_millis(500));
    served.await.unwrap().expect("served");
}

#[tokio::test(start_paused = true)]
async fn the_header_timeout_runs_for_a_raw_connection_first_polled_without_budget() {
    struct Hi;
    impl h1_tokio::raw::Handler for Hi {
        fn head(&mut self, _req: &h1_tokio::raw::Request<'_>) {}
        fn end(
            &mut self,
            res: &mut h1_tokio::raw::Responder<'_>,
        ) -> Result<(), h1_tokio::raw::SendError> {
            res.respond_with(200, [("A", "b")], b"hi")
        }
    }
    let start = tokio::time::Instant::now();
    let (mut client, server) = tokio::io::duplex(4096);
    let served = spawn_after_busy_work(h1_tokio::raw::serve(
        server,
        Hi,
        config(500, 10_000, 10_000),
    ));
    client.write_all(b"GET / HTTP/1.1\r\nHo").await.unwrap();
    let (got, at) = tokio::time::timeout(Duration::from_secs(60), until_closed(&mut client))
        .await
        .expect("answered 408 at the header timeout");
    assert!(got.starts_with("HTTP/1.1 408 "), "{got}");
    assert_eq!(at - start, Duration::from_millis(500));
    served.await.unwrap().expect("served");
}

/// `left` bytes of response body in 16 KiB frames, made as they are asked
/// for.
struct Big {
    left: usize,
}

impl http_body::Body for Big {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Bytes>, Infallible>>> {
        let n = self.left.min(16 * 1024);
        if n == 0 {
            return std::task::Poll::Ready(None);
        }
        self.left -= n;
        std::task::Poll::Ready(Some(Ok(http_body::Frame::data(Bytes::from(vec![b'x'; n])))))
    }
}

async fn big(_req: Request<Body>) -> Result<Response<Big>, Infallible> {
    Ok(Response::new(Big { left: 64 << 20 }))
}

#[tokio::test(start_paused = true)]
async fn a_client_that_stops_reading_is_cut_off_at_the_write_timeout() {
    let mut c = config(500, 10_000, 10_000);
    c.write_timeout = Some(Duration::from_millis(700));
    let (mut client, server) = tokio::io::duplex(4096);
    let served = tokio::spawn(serve_connection(server, service_fn(big), c));
    client
        .write_all(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        .await
        .unwrap();
    let start = tokio::time::Instant::now();
    // The client reads nothing: the server's writes wait.
    let err = tokio::time::timeout(Duration::from_secs(60), served)
        .await
        .expect("cut off")
        .unwrap()
        .expect_err("a client that does not read is an error");
    assert!(err.is_timeout(), "{err}");
    assert_eq!(
        tokio::time::Instant::now() - start,
        Duration::from_millis(700)
    );
}

#[tokio::test(start_paused = true)]
async fn a_slow_reader_that_keeps_reading_is_not_cut_off() {
    let mut c = config(500, 10_000, 10_000);
    c.write_timeout = Some(Duration::from_millis(700));
    let (mut client, server) = tokio::io::duplex(64 * 1024);
    let served = tokio::spawn(serve_connection(server, service_fn(big), c));
    client
        .write_all(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        .await
        .unwrap();
    // 64 KiB every 500 ms: each read is within the write timeout, the
    // whole response (64 MiB) takes far longer than it.
    let mut got = 0usize;
    let mut buf = vec![0u8; 64 * 1024];
    let start = tokio::time::Instant::now();
    loop {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let n = client.read(&mut buf).await.unwrap();
        if n == 0 {
            break;
        }
        got += n;
        if got > 4 << 20 {
            break;
        }
    }
    assert!(got > 4 << 20, "read {got} bytes");
    assert!(tokio::time::Instant::now() - start > Duration::from_secs(30));
    drop(client);
    let _ = served.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_reader_is_cut_off_while_another_client_is_served() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut c = config(10_000, 10_000, 10_000);
    c.write_timeout = Some(Duration::from_millis(500));
    let (stalled_done, stalled_result) = tokio::sync::oneshot::channel();
    let server = tokio::spawn(async move {
        // The stalled connection first, then the served one.
        let (stream, _) = listener.accept().await.unwrap();
        let stalled = serve_connection(stream, service_fn(big), c.clone());
        tokio::spawn(async move {
            let began = std::time::Instant::now();
            let _ = stalled_done.send((stalled.await, began.elapsed()));
        });
        let (stream, _) = listener.accept().await.unwrap();
        serve_connection(stream, service_fn(hello), c).await
    });
    let mut stalled = tokio::net::TcpStream::connect(addr).await.unwrap();
    stalled
        .write_all(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        .await
        .unwrap();
    // It never reads. Another client is served meanwhile.
    let mut served = tokio::net::TcpStream::connect(addr).await.unwrap();
    for _ in 0..20 {
        served
            .write_all(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
            .await
            .unwrap();
        let mut buf = [0u8; 1024];
        let n = served.read(&mut buf).await.unwrap();
        assert!(buf[..n].ends_with(b"\r\n\r\nhi"));
    }
    let (result, after) = tokio::time::timeout(Duration::from_secs(10), stalled_result)
        .await
        .expect("the stalled reader is cut off")
        .unwrap();
    let err = result.expect_err("cut off");
    assert!(err.is_timeout(), "{err}");
    assert!(after >= Duration::from_millis(500), "{after:?}");
    drop(served);
    server
        .await
        .unwrap()
        .expect("the other client was served in order");
}
