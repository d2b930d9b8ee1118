//! What an attacker's review of the driver tried (RFC 9112/9110, against
//! hyper's, Go's and nginx's behaviour), each pinned: the bugs it found
//! (a pipelined POST run and then dropped unanswered, a call held back by
//! the response streaming before it, a batch lost to the client's end, a
//! stale `Date`, an untimed close, a listener error aborting every
//! connection, a malformed WebSocket key accepted), and property checks
//! of what it found sound (every header value valid, pipelined mixes
//! never stall, percent-decoding limited to unreserved octets).

use std::convert::Infallible;
use std::future::IntoFuture;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use h1_tokio::{serve_connection, service_fn, Body, Config};
use http::{Request, Response};
use http_body::Frame;
use http_body_util::{BodyExt, Full, StreamBody};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, DuplexStream, ReadBuf};

fn ok(text: &'static str) -> Result<Response<Full<Bytes>>, Infallible> {
    Ok(Response::new(Full::new(Bytes::from_static(
        text.as_bytes(),
    ))))
}

/// A socket whose shutdown writes a few bytes first (as TLS writes its
/// `close_notify`), so it waits while the peer does not read.
struct TlsLike {
    inner: DuplexStream,
    notify_left: usize,
}

impl AsyncRead for TlsLike {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for TlsLike {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.notify_left > 0 {
            let n = self.notify_left.min(24);
            let notify = [0x15u8; 24];
            let this = &mut *self;
            let wrote = std::task::ready!(Pin::new(&mut this.inner).poll_write(cx, &notify[..n]))?;
            self.notify_left -= wrote;
        }
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

fn no_date() -> Config {
    let mut config = Config::default();
    config.conn.send_date = false;
    config.write_timeout = Some(Duration::from_millis(200));
    config
}

const CLOSE_REQUEST: &[u8] = b"GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n";

/// The bytes `serve_connection` answers `CLOSE_REQUEST` with.
async fn answer_len() -> usize {
    let (mut client, server) = tokio::io::duplex(1 << 16);
    let served = tokio::spawn(serve_connection(
        server,
        service_fn(|_req: Request<Body>| async { ok("hello") }),
        no_date(),
    ));
    client.write_all(CLOSE_REQUEST).await.unwrap();
    let mut out = Vec::new();
    client.read_to_end(&mut out).await.unwrap();
    served.await.unwrap().unwrap();
    out.len()
}

/// serve.rs `Connection::poll` -> transport.rs `poll_close`: the
/// `Shutdown` step polls `poll_shutdown` with no timer. On a socket whose
/// shutdown must write (TLS's close_notify), a client that has stopped
/// reading once the response fitted its window keeps the connection (and
/// its task, buffers, and in `serve` its permit) forever: the write
/// timeout covers only the output, not the close.
#[tokio::test]
async fn closing_a_socket_whose_shutdown_waits_on_the_client_is_timed() {
    let len = answer_len().await;
    // Room for the response exactly: the close_notify then waits for the
    // client to read, which it never does.
    let (mut client, server) = tokio::io::duplex(len);
    let io = TlsLike {
        inner: server,
        notify_left: 24,
    };
    let served = tokio::spawn(serve_connection(
        io,
        service_fn(|_req: Request<Body>| async { ok("hello") }),
        no_date(),
    ));
    client.write_all(CLOSE_REQUEST).await.unwrap();
    // The client never reads.
    let ended = tokio::time::timeout(Duration::from_secs(3), served).await;
    assert!(
        ended.is_ok(),
        "the connection still waits on a shutdown the client never lets finish \
         (write_timeout is 200 ms)"
    );
    drop(client);
}

type Boxed = http_body_util::combinators::UnsyncBoxBody<Bytes, Infallible>;

/// serve.rs `respond_owed`: while a response body streams, the loop
/// `break`s on the body's `Pending` before it reaches "Every response
/// future is polled, not just the oldest: later ones may finish early and
/// wait their turn"; `receive`'s immediate poll goes through the same
/// loop. So a pipelined request's call is not polled at all (its handler
/// does not run) until the response before it has sent its whole body:
/// here /b's handler runs only after /stream's 1.5 s body has ended.
#[tokio::test]
async fn a_pipelined_call_runs_while_the_response_before_it_streams() {
    let ran_b = Arc::new(AtomicBool::new(false));
    let seen = Arc::clone(&ran_b);
    let service = service_fn(move |req: Request<Body>| {
        let ran_b = Arc::clone(&seen);
        async move {
            if req.uri().path() == "/b" {
                ran_b.store(true, Ordering::SeqCst);
                return Ok::<_, Infallible>(Response::new(Boxed::new(Full::new(
                    Bytes::from_static(b"b"),
                ))));
            }
            // A body that sends a piece, waits 1.5 s, sends another.
            let pieces = futures_util::stream::unfold(0u8, |n| async move {
                match n {
                    0 => Some((Ok(Frame::data(Bytes::from_static(b"first"))), 1)),
                    1 => {
                        tokio::time::sleep(Duration::from_millis(1500)).await;
                        Some((Ok(Frame::data(Bytes::from_static(b"last"))), 2))
                    }
                    _ => None,
                }
            });
            Ok(Response::new(Boxed::new(StreamBody::new(pieces))))
        }
    });
    let (mut client, server) = tokio::io::duplex(1 << 16);
    let served = tokio::spawn(serve_connection(server, service, Config::default()));
    client
        .write_all(b"GET /stream HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: a\r\n\r\n")
        .await
        .unwrap();
    // The first piece of /stream is out: both requests have been read.
    let mut buf = [0u8; 4096];
    let mut got = Vec::new();
    while !String::from_utf8_lossy(&got).contains("first") {
        let n = client.read(&mut buf).await.unwrap();
        assert!(n > 0);
        got.extend_from_slice(&buf[..n]);
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let ran = ran_b.load(Ordering::SeqCst);
    drop(client);
    let _ = served.await;
    assert!(
        ran,
        "/b's handler has not run 500 ms after it was read: its call is not polled \
         while /stream's body is under way"
    );
}

extern "C" {
    fn shutdown(fd: i32, how: i32) -> i32;
}

/// server.rs `run`: an accept error that `transient` does not list (it
/// lists ConnectionAborted/Reset, Interrupted, WouldBlock; accept(2) also
/// passes on the new socket's pending network errors, EPROTO, ENETDOWN,
/// EHOSTUNREACH, ENETUNREACH, ETIMEDOUT, ENOPROTOOPT, EOPNOTSUPP, and
/// ENOBUFS/ENOMEM under memory pressure) ends `serve` with `Err`, and the
/// `JoinSet` of connection tasks is dropped with it: every connection
/// still serving a request is aborted mid-response. (axum::serve logs,
/// sleeps and goes on accepting.) Here the error is made with
/// shutdown(2) on the listening socket (EINVAL from accept): the request
/// already being served must still get its answer.
#[tokio::test]
async fn a_broken_listener_lets_the_connections_being_served_finish() {
    use std::os::fd::AsRawFd;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let fd = listener.as_raw_fd();
    let started = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&started);
    let app = service_fn(move |_req: Request<Body>| {
        let started = Arc::clone(&seen);
        async move {
            started.fetch_add(1, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(500)).await;
            ok("answered")
        }
    });
    let server = tokio::spawn(h1_tokio::serve(listener, app).into_future());
    let mut client = tokio::net::TcpStream::connect(addr).await.unwrap();
    client
        .write_all(b"GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    while started.load(Ordering::SeqCst) == 0 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // The listener fails while the request is being served.
    // SAFETY: `fd` is the listening socket, still open (the server holds it).
    assert_eq!(unsafe { shutdown(fd, 2) }, 0);
    let result = tokio::time::timeout(Duration::from_secs(5), server).await;
    eprintln!("serve ended with {result:?}");
    let mut out = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), client.read_to_end(&mut out)).await;
    let out = String::from_utf8_lossy(&out);
    assert!(
        out.ends_with("answered"),
        "the request in flight was cut off when serve returned: {out:?}"
    );
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, xs: &[&'a [u8]]) -> &'a [u8] {
        xs[self.below(xs.len())]
    }
}

fn random_request(r: &mut Rng) -> Vec<u8> {
    const NASTY: &[&[u8]] = &[
        b"\r",
        b"\n",
        b"\0",
        b"\x7f",
        b"\t",
        b" ",
        b"\x80",
        b"\xff",
        b"\r\n",
        b"\r\n ",
        b"\n ",
        b"\n\t",
        b"\r\r\n",
        b"\x0b",
        b"\x1f",
        b":",
        b"\r\n\r\n",
        b"\n\n",
    ];
    let mut h = Vec::new();
    h.extend_from_slice(r.pick(&[b"GET", b"POST", b"OPTIONS"]));
    h.extend_from_slice(r.pick(&[b" ", b"  ", b"\t"]));
    h.extend_from_slice(r.pick(&[b"/", b"/a?b", b"http://h/x", b"http://%68/"]));
    h.extend_from_slice(r.pick(&[b" ", b"  "]));
    h.extend_from_slice(b"HTTP/1.1");
    h.extend_from_slice(r.pick(&[b"\r\n", b"\n"]));
    h.extend_from_slice(b"Host: h\r\n");
    for _ in 0..r.below(6) {
        h.extend_from_slice(r.pick(&[b"X-A", b"x", b"Accept", b"Cookie"]));
        h.push(b':');
        for _ in 0..r.below(6) {
            if r.below(8) == 0 {
                h.extend_from_slice(r.pick(NASTY));
            } else {
                h.extend_from_slice(r.pick(&[b"v", b"0", b" ", b"\t", b"abc", b"\xc3\xa9"]));
            }
        }
        h.extend_from_slice(r.pick(&[b"\r\n", b"\r\n", b"\n", b"\r\n "]));
    }
    h.extend_from_slice(r.pick(&[b"\r\n", b"\n"]));
    h
}

/// trusted.rs: whatever the leniencies and however the bytes are split
/// across reads, every `HeaderValue` a service gets holds only bytes
/// `HeaderValue::from_bytes` accepts (in this debug build `http` itself
/// would also panic in `from_maybe_shared_unchecked` on any other byte,
/// failing the connection task).
#[tokio::test]
async fn every_header_value_a_service_gets_is_valid() {
    let mut r = Rng(0x2545_f491_4f6c_dd1d);
    let checked = Arc::new(AtomicUsize::new(0));
    for _ in 0..4000 {
        let mut config = Config::default();
        config.conn.parse.allow_bare_lf = r.below(2) == 0;
        config.conn.parse.allow_multiple_spaces_in_request_line = r.below(2) == 0;
        config.conn.parse.allow_obs_fold = r.below(4) == 0;
        config.conn.read_buf_len = [16, 64, 8192][r.below(3)];
        config.half_close = true;
        let mut input = Vec::new();
        for _ in 0..1 + r.below(3) {
            input.extend_from_slice(&random_request(&mut r));
        }
        let seen = Arc::clone(&checked);
        let service = service_fn(move |req: Request<Body>| {
            let seen = Arc::clone(&seen);
            async move {
                for (name, value) in req.headers() {
                    assert!(
                        http::HeaderValue::from_bytes(value.as_bytes()).is_ok(),
                        "{name}: {value:?}"
                    );
                    seen.fetch_add(1, Ordering::Relaxed);
                }
                ok("ok")
            }
        });
        let (mut client, server) = tokio::io::duplex(1 << 16);
        let served = tokio::spawn(serve_connection(server, service, config));
        let mut at = 0;
        while at < input.len() {
            let n = (1 + r.below(9)).min(input.len() - at);
            if client.write_all(&input[at..at + n]).await.is_err() {
                break;
            }
            at += n;
            tokio::task::yield_now().await;
        }
        let _ = client.shutdown().await;
        let mut sink = Vec::new();
        let _ = client.read_to_end(&mut sink).await;
        served
            .await
            .expect("the connection task did not panic")
            .ok();
    }
    eprintln!("values checked: {}", checked.load(Ordering::Relaxed));
    assert!(checked.load(Ordering::Relaxed) > 1000);
}

/// serve.rs: a mix of pipelined requests (bodies of both framings, some
/// read whole, some in part, some not at all; answers at once, after a
/// yield, after a timer, streamed in pieces, or failing), written in
/// random pieces: the connection always ends (every answer written, or a
/// close it chose), never waits on nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipelined_mixes_never_stall() {
    let mut r = Rng(0x1234_5678_9abc_def1);
    for round in 0..300 {
        let mut input = Vec::new();
        let n = 1 + r.below(6);
        for i in 0..n {
            let how = r.below(7);
            let len = [0usize, 1, 10, 5000, 70000][r.below(5)];
            let chunked = r.below(2) == 0;
            let target = format!("/{how}/{i}");
            input.extend_from_slice(format!("POST {target} HTTP/1.1\r\nHost: a\r\n").as_bytes());
            if len == 0 && r.below(2) == 0 {
                input.extend_from_slice(b"\r\n");
                continue;
            }
            if chunked {
                input.extend_from_slice(b"Transfer-Encoding: chunked\r\n\r\n");
                let mut left = len;
                while left > 0 {
                    let c = left.min(1 + r.below(9000));
                    input.extend_from_slice(format!("{c:x}\r\n").as_bytes());
                    input.extend(std::iter::repeat_n(b'z', c));
                    input.extend_from_slice(b"\r\n");
                    left -= c;
                }
                input.extend_from_slice(b"0\r\n\r\n");
            } else {
                input.extend_from_slice(format!("Content-Length: {len}\r\n\r\n").as_bytes());
                input.extend(std::iter::repeat_n(b'z', len));
            }
        }
        let service = service_fn(|req: Request<Body>| async move {
            let how: u32 = req.uri().path()[1..2].parse().unwrap();
            let mut body = req.into_body();
            match how {
                0 => {}
                1 => tokio::task::yield_now().await,
                2 => tokio::time::sleep(Duration::from_millis(3)).await,
                3 => {
                    let _ = body.frame().await;
                }
                4 => {
                    let _ = (&mut body).collect().await;
                }
                5 => {
                    let pieces = futures_util::stream::unfold(0u8, |n| async move {
                        if n == 3 {
                            return None;
                        }
                        tokio::time::sleep(Duration::from_millis(1)).await;
                        Some((
                            Ok::<_, Infallible>(Frame::data(Bytes::from(vec![b'p'; 20000]))),
                            n + 1,
                        ))
                    });
                    let _ = (&mut body).collect().await;
                    return Ok::<_, Infallible>(Response::new(Boxed::new(StreamBody::new(pieces))));
                }
                _ => {
                    return Ok(http::Response::builder()
                        .status(503)
                        .body(Boxed::new(Full::new(Bytes::new())))
                        .unwrap())
                }
            }
            Ok(Response::new(Boxed::new(Full::new(Bytes::from_static(
                b"done",
            )))))
        });
        let mut config = Config::default();
        config.half_close = true;
        config.conn.read_buf_len = [512, 8192][r.below(2)];
        let (mut client, server) = tokio::io::duplex([1024, 1 << 16][r.below(2)]);
        let served = tokio::spawn(serve_connection(server, service, config));
        let seed = r.next();
        let writer = tokio::spawn(async move {
            let mut r = Rng(seed | 1);
            let (mut rd, mut wr) = tokio::io::split(&mut client);
            let reader = async {
                let mut out = Vec::new();
                let _ = rd.read_to_end(&mut out).await;
                out
            };
            let write = async {
                let mut at = 0;
                while at < input.len() {
                    let k = (1 + r.below(20000)).min(input.len() - at);
                    if wr.write_all(&input[at..at + k]).await.is_err() {
                        break;
                    }
                    at += k;
                }
                let _ = wr.shutdown().await;
            };
            let (out, ()) = tokio::join!(reader, write);
            out
        });
        let done = tokio::time::timeout(Duration::from_secs(10), served).await;
        assert!(done.is_ok(), "round {round}: the connection stalled");
        let _ = writer.await;
    }
}

/// Reads until `out` contains `until` (10 s at most).
async fn read_until<R: AsyncRead + Unpin>(rd: &mut R, out: &mut Vec<u8>, until: &str) -> bool {
    let mut buf = [0u8; 8192];
    while !String::from_utf8_lossy(out).contains(until) {
        match tokio::time::timeout(Duration::from_secs(5), rd.read(&mut buf)).await {
            Ok(Ok(n)) if n > 0 => out.extend_from_slice(&buf[..n]),
            _ => return false,
        }
    }
    true
}

/// serve.rs `invite`: a client that waits for `100 Continue` behind a
/// pipelined request whose answer is slow, streamed, or immediate, with
/// a handler that reads the body at once or after a while, gets its 100
/// and then its answer.
#[tokio::test]
async fn continue_is_sent_behind_pipelined_requests() {
    for before in ["/slow", "/stream", "/now"] {
        for late in [false, true] {
            let service = service_fn(move |req: Request<Body>| async move {
                let path = req.uri().path().to_owned();
                match path.as_str() {
                    "/slow" => tokio::time::sleep(Duration::from_millis(50)).await,
                    "/stream" => {
                        let pieces = futures_util::stream::unfold(0u8, |n| async move {
                            if n == 3 {
                                return None;
                            }
                            tokio::time::sleep(Duration::from_millis(20)).await;
                            Some((
                                Ok::<_, Infallible>(Frame::data(Bytes::from_static(b"piece"))),
                                n + 1,
                            ))
                        });
                        return Ok::<_, Infallible>(Response::new(Boxed::new(StreamBody::new(
                            pieces,
                        ))));
                    }
                    "/now" => {}
                    _ => {
                        if late {
                            tokio::time::sleep(Duration::from_millis(30)).await;
                        }
                        let body = req.into_body().collect().await.unwrap().to_bytes();
                        return Ok(Response::new(Boxed::new(Full::new(body))));
                    }
                }
                Ok(Response::new(Boxed::new(Full::new(Bytes::from_static(
                    b"first",
                )))))
            });
            let (client, server) = tokio::io::duplex(1 << 16);
            let served = tokio::spawn(serve_connection(server, service, Config::default()));
            let (mut rd, mut wr) = tokio::io::split(client);
            wr.write_all(
                format!(
                    "GET {before} HTTP/1.1\r\nHost: a\r\n\r\n\
                     POST /up HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n"
                )
                .as_bytes(),
            )
            .await
            .unwrap();
            let mut out = Vec::new();
            assert!(
                read_until(&mut rd, &mut out, "100 Continue").await,
                "{before} late={late}: no 100: {}",
                String::from_utf8_lossy(&out)
            );
            wr.write_all(b"hello").await.unwrap();
            assert!(
                read_until(&mut rd, &mut out, "hello").await,
                "{before} late={late}: no answer: {}",
                String::from_utf8_lossy(&out)
            );
            drop((rd, wr));
            let _ = served.await;
        }
    }
}

/// serve.rs `Connection::graceful_shutdown`: called while a request's
/// body is still arriving (and another request is pipelined behind it,
/// not yet read): the upload is read to its end and answered with
/// `Connection: close`, and the connection then ends.
#[tokio::test]
async fn a_graceful_shutdown_finishes_an_upload_in_progress() {
    let service = service_fn(|req: Request<Body>| async move {
        let body = req.into_body().collect().await.unwrap().to_bytes();
        Ok::<_, Infallible>(Response::new(Full::new(body)))
    });
    let (client, server) = tokio::io::duplex(1 << 16);
    let (mut rd, mut wr) = tokio::io::split(client);
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(async move {
        let conn = serve_connection(server, service, Config::default());
        tokio::pin!(conn);
        tokio::select! {
            r = conn.as_mut() => r,
            _ = stop_rx => {
                conn.as_mut().graceful_shutdown();
                conn.await
            }
        }
    });
    wr.write_all(b"POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nhello")
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    stop_tx.send(()).unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    wr.write_all(b"world").await.unwrap();
    let mut out = Vec::new();
    assert!(
        read_until(&mut rd, &mut out, "helloworld").await,
        "{}",
        String::from_utf8_lossy(&out)
    );
    let text = String::from_utf8_lossy(&out);
    assert!(
        text.contains("connection: close") || text.contains("Connection: close"),
        "{text}"
    );
    let ended = tokio::time::timeout(Duration::from_secs(5), served).await;
    assert!(ended.is_ok(), "the connection ends after the answer");
}

/// What a service sees of one request: `status uri` or the status alone.
async fn one(request: &[u8]) -> String {
    let service = service_fn(|req: Request<Body>| async move {
        let sent = req
            .extensions()
            .get::<h1_tokio::RequestTarget>()
            .map(|t| t.as_str().to_owned())
            .unwrap_or_default();
        let text = format!(
            "uri={} host={:?} sent={}",
            req.uri(),
            req.uri().host(),
            sent
        );
        Ok::<_, Infallible>(Response::new(Full::new(Bytes::from(text))))
    });
    let (mut client, server) = tokio::io::duplex(1 << 16);
    let mut config = Config::default();
    config.half_close = true;
    let served = tokio::spawn(serve_connection(server, service, config));
    client.write_all(request).await.unwrap();
    client.shutdown().await.unwrap();
    let mut out = Vec::new();
    client.read_to_end(&mut out).await.unwrap();
    let _ = served.await;
    let text = String::from_utf8_lossy(&out).into_owned();
    let status = text.get(9..12).unwrap_or("???").to_owned();
    match text.split("\r\n\r\n").nth(1) {
        Some(body) if !body.is_empty() => format!("{status} {body}"),
        _ => status,
    }
}

/// request.rs `unreserved_decoded`: octets that are not unreserved
/// characters stay encoded (and `Uri` refuses them: 400), a decoded octet
/// never forms a new triplet that is decoded again, userinfo and a path
/// are never decoded, and a decoded host is the same host.
#[tokio::test]
async fn percent_encoded_authorities_decode_only_unreserved_octets() {
    let cases: &[(&str, &str)] = &[
        (
            "http://%65xample.com/x",
            "200 uri=http://example.com/x host=Some(\"example.com\") sent=http://%65xample.com/x",
        ),
        ("http://a%2Fb/", "400"),
        ("http://a%40b/", "400"),
        ("http://a%3A80/", "400"),
        ("http://a%25b/", "400"),
        ("http://a%2%65b/", "400"),
        ("http://a%%36%35/", "400"),
        ("http://u@a/", "400"),
        ("http://u%40a@b/", "400"),
        ("http://[::1%25eth0]/", "400"),
        ("http://%5B::1%5D/", "400"),
        (
            "http://a%2Eb/%2E%2E/x",
            "200 uri=http://a.b/%2E%2E/x host=Some(\"a.b\") sent=http://a%2Eb/%2E%2E/x",
        ),
        (
            "http://a%2eb?%2e",
            "200 uri=http://a.b/?%2e host=Some(\"a.b\") sent=http://a%2eb?%2e",
        ),
    ];
    let mut wrong = Vec::new();
    for (target, want) in cases {
        let got = one(format!("GET {target} HTTP/1.1\r\nHost: a\r\n\r\n").as_bytes()).await;
        if got != *want {
            wrong.push(format!("{target}: got {got:?}, want {want:?}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// ws.rs `from_request_parts`: RFC 6455 §4.2.1 asks for a
/// `Sec-WebSocket-Key` "with a base64-encoded value that, when decoded,
/// is 16 bytes in length" and has the server answer a handshake that
/// does not match with an error such as 400; §11.3.1 says the field MUST
/// NOT appear more than once. The extractor checks only that one is
/// there (as axum's does), and signs whatever it got.
#[cfg(feature = "ws")]
#[tokio::test]
async fn a_malformed_or_repeated_websocket_key_is_refused() {
    use axum::routing::any;
    use h1_tokio::ws::WebSocketUpgrade;
    async fn handler(ws: WebSocketUpgrade) -> axum::response::Response {
        ws.on_upgrade(|_socket| async {})
    }
    let mut accepted = Vec::new();
    for keys in [
        "Sec-WebSocket-Key: x\r\n",
        "Sec-WebSocket-Key: not base64 at all!\r\n",
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Key: AAAAAAAAAAAAAAAAAAAAAA==\r\n",
    ] {
        let app = axum::Router::new().route("/ws", any(handler));
        let (mut client, server) = tokio::io::duplex(1 << 16);
        let served = tokio::spawn(serve_connection(server, app, Config::default()));
        client
            .write_all(
                format!(
                    "GET /ws HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
                     Sec-WebSocket-Version: 13\r\n{keys}\r\n"
                )
                .as_bytes(),
            )
            .await
            .unwrap();
        let mut out = vec![0u8; 4096];
        let n = tokio::time::timeout(Duration::from_secs(5), client.read(&mut out))
            .await
            .unwrap()
            .unwrap();
        let head = String::from_utf8_lossy(&out[..n]).into_owned();
        if head.starts_with("HTTP/1.1 101") {
            accepted.push(keys.trim_end().to_owned());
        }
        drop(client);
        let _ = served.await;
    }
    assert!(accepted.is_empty(), "answered 101 to: {accepted:#?}");
}

/// serve.rs `receive`, `Paused(ResponsesOwed)` with the client's end
/// (default `half_close: false`): every call still under way is dropped,
/// the oldest pipelined request's included. hyper (1.13 `conn.rs`
/// `mid_message_detect_eof`) does not look for the end while pipelined
/// bytes are still buffered, so it answers every request of such a batch
/// but the last. Here two pipelined requests and the client's end (as
/// `printf '...' | nc -N`, or a load generator that shuts its side down
/// after its batch) get no answer at all.
#[tokio::test]
async fn a_pipelined_batch_followed_by_the_clients_end_gets_the_answers_before_the_last() {
    let service = service_fn(|_req: Request<Body>| async {
        tokio::time::sleep(Duration::from_millis(30)).await;
        ok("answer")
    });
    let (mut client, server) = tokio::io::duplex(1 << 16);
    let served = tokio::spawn(serve_connection(server, service, Config::default()));
    client
        .write_all(b"GET /1 HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n")
        .await
        .unwrap();
    client.shutdown().await.unwrap();
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), client.read_to_end(&mut out))
        .await
        .unwrap()
        .unwrap();
    let _ = served.await;
    let out = String::from_utf8_lossy(&out);
    assert!(
        out.starts_with("HTTP/1.1 200 OK"),
        "the first request of the batch is not answered: {out:?}"
    );
}

/// `secs` after the Unix epoch as an IMF-fixdate (RFC 9110 §5.6.7).
fn imf_fixdate(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    let wd = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][(days % 7) as usize];
    let mon = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ][(m - 1) as usize];
    format!(
        "{wd}, {d:02} {mon} {y} {:02}:{:02}:{:02} GMT",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// transport.rs (8ec9e40b) `refresh_date`: the responses' `Date` is
/// brought to the clock only when bytes are read or a timer runs out, so
/// an answer made later than its request arrived (any handler that
/// awaits: a query, a long poll) carries the time its request arrived.
/// RFC 9110 §6.6.1: the sender SHOULD generate the value as "the best
/// available approximation of the date and time of message generation"
/// (caches compute the response's age from it: a 2.5 s handler gives a
/// response that looks 2.5 s old the moment it is sent).
#[tokio::test]
async fn a_slow_answer_is_dated_when_it_starts() {
    let service = service_fn(|_req: Request<Body>| async {
        tokio::time::sleep(Duration::from_millis(2500)).await;
        ok("late")
    });
    let (mut client, server) = tokio::io::duplex(1 << 16);
    let served = tokio::spawn(serve_connection(server, service, Config::default()));
    client
        .write_all(b"GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut out = Vec::new();
    client.read_to_end(&mut out).await.unwrap();
    let answered = unix_now();
    let _ = served.await;
    let out = String::from_utf8_lossy(&out);
    let date = out
        .lines()
        .find_map(|l| {
            l.strip_prefix("date: ")
                .or_else(|| l.strip_prefix("Date: "))
        })
        .expect("a Date")
        .to_owned();
    let fresh: Vec<String> = (0..=1).map(|k| imf_fixdate(answered - k)).collect();
    assert!(
        fresh.contains(&date),
        "Date {date:?}, but the answer was made at {:?}",
        fresh[0]
    );
}

/// serve.rs `receive`/`respond_owed`: every pipelined request is handed
/// to the service as soon as its head is read (up to `max_unanswered`),
/// whatever its method, and its call is polled while the responses before
/// it are still being made. When one of those then closes the connection
/// (the service's `Connection: close` here; equally a response body that
/// fails, `break_off`, or a response sent before its request body was
/// read), `start` drops the calls read ahead unanswered (RFC 9112 §9.6),
/// but a non-idempotent one has already run. The client, told nothing
/// about it, retries it on a new connection (RFC 9112 §9.3.2: a client
/// SHOULD retry unanswered pipelined requests): it runs twice. §9.3.2
/// lets a server process pipelined requests in parallel only "if they
/// all have safe methods"; hyper calls the service for one request at a
/// time.
#[tokio::test]
async fn a_pipelined_post_waits_for_the_answers_before_it() {
    let charged = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&charged);
    let service = service_fn(move |req: Request<Body>| {
        let charged = Arc::clone(&seen);
        async move {
            if req.method() == http::Method::POST {
                charged.fetch_add(1, Ordering::SeqCst);
                return ok("charged");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
            Ok(http::Response::builder()
                .header("connection", "close")
                .body(Full::new(Bytes::from_static(b"bye")))
                .unwrap())
        }
    });
    let (mut client, server) = tokio::io::duplex(1 << 16);
    let served = tokio::spawn(serve_connection(server, service, Config::default()));
    client
        .write_all(
            b"GET /first HTTP/1.1\r\nHost: a\r\n\r\n\
              POST /charge HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n",
        )
        .await
        .unwrap();
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), client.read_to_end(&mut out))
        .await
        .unwrap()
        .unwrap();
    let _ = served.await;
    let out = String::from_utf8_lossy(&out);
    let answered = out.contains("charged");
    let ran = charged.load(Ordering::SeqCst);
    assert!(
        answered || ran == 0,
        "POST /charge ran {ran} time(s) but was never answered (the client will retry it): {out:?}"
    );
}
