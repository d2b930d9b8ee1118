//! One axum application, written as an axum user writes it, served by
//! `h1_tokio::serve` (with `ConnectInfo` and a graceful shutdown) on
//! 127.0.0.1, against real clients: curl, hyper's client and
//! tokio-tungstenite's. curl is installed here and in CI; a missing curl
//! fails the tests that use it.
#![cfg(all(feature = "axum", feature = "ws"))]

use std::convert::Infallible;
use std::fmt;
use std::future::{Future, IntoFuture};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, State};
use axum::http::StatusCode;
use axum::response::sse::{Event, Sse};
use axum::response::Response;
use axum::routing::{any, get, post};
use axum::Router;
use futures_util::{stream, SinkExt, Stream, StreamExt};
use h1_tokio::ws::{Message, WebSocket, WebSocketUpgrade};
use http_body_util::{BodyExt, Empty};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::Message as WsMessage;
use tower_http::compression::CompressionLayer;

/// Every wait is bounded by this.
const LIMIT: Duration = Duration::from_secs(60);
/// The server's grace period on shutdown.
const GRACE: Duration = Duration::from_secs(10);
/// The size of the upload and of the download: 50 MiB.
const BIG: usize = 50 * 1024 * 1024;
/// The download's chunks.
const CHUNK: usize = 64 * 1024;
/// What `/text` repeats (200 times), compressed on request.
const TEXT: &str = "h1-tokio serves an axum application; ";

async fn timed<F: Future>(what: &str, f: F) -> F::Output {
    tokio::time::timeout(LIMIT, f)
        .await
        .unwrap_or_else(|_| panic!("timed out: {what}"))
}

/// Length and FNV-1a hash of a byte stream, fed piece by piece.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Sum {
    len: u64,
    hash: u64,
}

impl Sum {
    fn new() -> Sum {
        Sum {
            len: 0,
            hash: 0xcbf2_9ce4_8422_2325,
        }
    }

    fn add(&mut self, bytes: &[u8]) {
        self.len += bytes.len() as u64;
        for &b in bytes {
            self.hash = (self.hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn of(bytes: &[u8]) -> Sum {
        let mut sum = Sum::new();
        sum.add(bytes);
        sum
    }
}

/// As the upload handler answers it: `<length> <hash>`.
impl fmt::Display for Sum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {:016x}", self.len, self.hash)
    }
}

/// 50 MiB of a pattern that never repeats at a chunk's period, so a
/// chunk lost, doubled or out of order changes the hash.
fn big() -> &'static [u8] {
    static BIG_DATA: OnceLock<Vec<u8>> = OnceLock::new();
    BIG_DATA.get_or_init(|| {
        (0..BIG as u64)
            .map(|i| ((i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 56) as u8) ^ (i >> 16) as u8)
            .collect()
    })
}

fn big_sum() -> Sum {
    static SUM: OnceLock<Sum> = OnceLock::new();
    *SUM.get_or_init(|| Sum::of(big()))
}

// The application.

async fn peer(ConnectInfo(addr): ConnectInfo<SocketAddr>) -> String {
    addr.to_string()
}

/// Echoes every message until the client's close (which `WebSocket`
/// answers itself).
async fn echo(ws: WebSocketUpgrade) -> Response {
    ws.on_upgrade(|mut socket: WebSocket| async move {
        while let Some(Ok(msg)) = socket.recv().await {
            if let Message::Close(_) = msg {
                break;
            }
            if socket.send(msg).await.is_err() {
                break;
            }
        }
    })
}

/// `count` events `tick 0`, `tick 1`, ..., `gap` apart, then the end.
fn ticks(count: usize, gap: Duration) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    Sse::new(stream::unfold(0, move |i| async move {
        if i == count {
            return None;
        }
        if i > 0 {
            tokio::time::sleep(gap).await;
        }
        let event = Event::default().id(i.to_string()).data(format!("tick {i}"));
        Some((Ok(event), i + 1))
    }))
}

/// Reads the body as it streams and answers its length and hash.
async fn upload(body: Body) -> Result<String, (StatusCode, String)> {
    let mut data = body.into_data_stream();
    let mut sum = Sum::new();
    while let Some(chunk) = data.next().await {
        let chunk = chunk.map_err(|e| (StatusCode::BAD_REQUEST, e.to_string()))?;
        sum.add(&chunk);
    }
    Ok(sum.to_string())
}

/// 50 MiB in 64 KiB chunks, of unknown length to the server.
async fn download() -> Body {
    let chunks =
        stream::iter(big().chunks(CHUNK)).map(|c| Ok::<_, Infallible>(Bytes::from_static(c)));
    Body::from_stream(chunks)
}

/// The handlers waiting on something for a client (an event stream with
/// nothing to say yet, a long poll), as an application counts them.
#[derive(Clone, Default)]
struct Listeners(Arc<AtomicUsize>);

/// One of them, while it is alive.
struct Listening(Listeners);

impl Listeners {
    fn enter(&self) -> Listening {
        self.0.fetch_add(1, Ordering::SeqCst);
        Listening(self.clone())
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        self.0 .0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// One event, then nothing until the client leaves.
async fn quiet(
    State(listeners): State<Listeners>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let listening = listeners.enter();
    Sse::new(stream::unfold(
        (0, listening),
        |(i, listening)| async move {
            if i > 0 {
                std::future::pending::<()>().await;
            }
            Some((Ok(Event::default().data("hello")), (i + 1, listening)))
        },
    ))
}

/// A long poll with nothing to answer yet.
async fn wait(State(listeners): State<Listeners>) -> &'static str {
    let _listening = listeners.enter();
    std::future::pending::<()>().await;
    "news"
}

fn app() -> Router {
    Router::new()
        .route("/peer", get(peer))
        .route("/ws", any(echo))
        .route(
            "/sse",
            get(|| async { ticks(5, Duration::from_millis(100)) }),
        )
        .route(
            "/sse/slow",
            get(|| async { ticks(4, Duration::from_millis(500)) }),
        )
        .route("/sse/quiet", get(quiet))
        .route("/wait", get(wait))
        .route(
            "/listeners",
            get(|State(l): State<Listeners>| async move { l.0.load(Ordering::SeqCst).to_string() }),
        )
        .route("/upload", post(upload))
        // The Bytes extractor, under axum's default 2 MB limit.
        .route(
            "/bytes",
            post(|body: Bytes| async move { body.len().to_string() }),
        )
        .route("/download", get(download))
        .route("/text", get(|| async { TEXT.repeat(200) }))
        .route(
            "/slow",
            get(|| async {
                tokio::time::sleep(Duration::from_secs(1)).await;
                "slow answer"
            }),
        )
        .layer(CompressionLayer::new())
        .with_state(Listeners::default())
}

/// The application served on 127.0.0.1 until `stop` is sent (or dropped).
struct Server {
    addr: SocketAddr,
    stop: oneshot::Sender<()>,
    served: JoinHandle<std::io::Result<()>>,
}

async fn start() -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    let (stop, stopped) = oneshot::channel::<()>();
    let app = app().into_make_service_with_connect_info::<SocketAddr>();
    let served = tokio::spawn(
        h1_tokio::serve(listener, app)
            .grace(GRACE)
            .with_graceful_shutdown(async {
                let _ = stopped.await;
            })
            .into_future(),
    );
    Server { addr, stop, served }
}

/// Runs curl (`-sS` and a time limit added) and returns its output, which
/// must be a success.
async fn curl(args: &[&str]) -> Output {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let run = tokio::task::spawn_blocking(move || {
        Command::new("curl")
            .args(["-sS", "--max-time", "60"])
            .args(&args)
            .output()
    });
    let out = timed("curl", run)
        .await
        .expect("curl's thread")
        .unwrap_or_else(|e| panic!("curl must be installed (CI installs it): {e}"));
    assert!(
        out.status.success(),
        "curl: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A file in the temporary directory, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, contents: &[u8]) -> TempFile {
        let path = std::env::temp_dir().join(format!("h1-tokio-{}-{name}", std::process::id()));
        std::fs::write(&path, contents).expect("temporary file");
        TempFile(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

type HyperClient = hyper::client::conn::http1::SendRequest<Empty<Bytes>>;

/// hyper's client on a connection of its own, and that connection's
/// local address.
async fn hyper_client(addr: SocketAddr) -> (HyperClient, SocketAddr) {
    let stream = timed("connect", TcpStream::connect(addr))
        .await
        .expect("connect");
    let local = stream.local_addr().expect("local address");
    let handshake = hyper::client::conn::http1::handshake(TokioIo::new(stream));
    let (client, conn) = timed("handshake", handshake).await.expect("handshake");
    tokio::spawn(conn);
    (client, local)
}

async fn hyper_get(client: &mut HyperClient, path: &str) -> http::Response<hyper::body::Incoming> {
    let req = http::Request::get(path)
        .header("host", "127.0.0.1")
        .body(Empty::new())
        .expect("request");
    timed(path, client.send_request(req))
        .await
        .expect("response")
}

/// The body of `path`, as text, by hyper's client on a connection of its
/// own.
async fn text(addr: SocketAddr, path: &str) -> String {
    let (mut client, _) = hyper_client(addr).await;
    let body = hyper_get(&mut client, path).await.into_body();
    let body = timed("body", body.collect())
        .await
        .expect("body")
        .to_bytes();
    String::from_utf8(body.to_vec()).expect("UTF-8")
}

/// A connection of its own that has asked for `path`.
async fn open(addr: SocketAddr, path: &str) -> TcpStream {
    let mut stream = timed("connect", TcpStream::connect(addr))
        .await
        .expect("connect");
    let request = format!("GET {path} HTTP/1.1\r\nHost: a\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("write");
    stream
}

/// Reads into `buf` until it holds `needle`; the connection must not end
/// first.
async fn read_until(stream: &mut TcpStream, buf: &mut Vec<u8>, needle: &str) {
    timed(needle, async {
        while !buf.windows(needle.len()).any(|w| w == needle.as_bytes()) {
            let mut chunk = [0u8; 4096];
            let n = stream.read(&mut chunk).await.expect("read");
            let so_far = String::from_utf8_lossy(buf);
            assert!(n > 0, "closed before {needle:?} arrived, after: {so_far}");
            buf.extend_from_slice(&chunk[..n]);
        }
    })
    .await
}

/// Reads until the server closes; what was read before and since, as
/// text.
async fn read_to_end(mut stream: TcpStream, mut buf: Vec<u8>) -> String {
    timed("the end", stream.read_to_end(&mut buf))
        .await
        .expect("read");
    String::from_utf8(buf).expect("UTF-8")
}

/// The `data:` lines of an event stream.
fn data_lines(events: &str) -> Vec<&str> {
    events
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .collect()
}

// The checks.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connect_info_is_the_clients_own_address() {
    let server = start().await;
    let (mut client, local) = hyper_client(server.addr).await;
    let res = hyper_get(&mut client, "/peer").await;
    assert_eq!(res.status(), 200);
    let body = timed("body", res.into_body().collect())
        .await
        .expect("body");
    assert_eq!(body.to_bytes(), local.to_string());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn websocket_echoes_text_and_binary_and_closes_with_1000() {
    let server = start().await;
    let stream = timed("connect", TcpStream::connect(server.addr))
        .await
        .expect("connect");
    let url = format!("ws://{}/ws", server.addr);
    let (mut ws, res) = timed("handshake", tokio_tungstenite::client_async(url, stream))
        .await
        .expect("handshake");
    assert_eq!(res.status(), 101);

    let text = WsMessage::text("héllo, h1");
    let binary = WsMessage::binary(vec![0u8, 1, 2, 254, 255]);
    for msg in [&text, &binary] {
        timed("send", ws.send(msg.clone())).await.expect("send");
    }
    for msg in [&text, &binary] {
        let echoed = timed("echo", ws.next()).await.expect("an echo");
        assert_eq!(&echoed.expect("a message"), msg);
    }

    let bye = CloseFrame {
        code: CloseCode::Normal,
        reason: "bye".into(),
    };
    timed("close", ws.close(Some(bye))).await.expect("close");
    match timed("the close", ws.next()).await {
        Some(Ok(WsMessage::Close(Some(frame)))) => assert_eq!(frame.code, CloseCode::Normal),
        other => panic!("wanted the server's close with 1000, got {other:?}"),
    }
    let end = timed("the end", ws.next()).await;
    assert!(end.is_none(), "the close handshake is over: {end:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sse_events_arrive_in_order_as_they_are_sent() {
    let server = start().await;
    let (mut client, _) = hyper_client(server.addr).await;
    let res = hyper_get(&mut client, "/sse").await;
    assert_eq!(res.status(), 200);
    let headers = res.headers();
    assert_eq!(headers["content-type"], "text/event-stream");
    assert_eq!(headers["transfer-encoding"], "chunked", "{headers:?}");
    assert!(headers.get("content-length").is_none(), "{headers:?}");

    let mut body = res.into_body();
    let mut events = String::new();
    let mut first = None;
    while let Some(frame) = timed("an event", body.frame()).await {
        let data = frame.expect("frame").into_data().expect("data");
        events.push_str(std::str::from_utf8(&data).expect("UTF-8"));
        first.get_or_insert_with(Instant::now);
    }
    let last = Instant::now();
    let ticks = ["tick 0", "tick 1", "tick 2", "tick 3", "tick 4"];
    assert_eq!(data_lines(&events), ticks, "{events}");
    assert!(events.ends_with("\n\n"), "{events:?}");
    // 400 ms of gaps: the first event came as it was sent, not with the end.
    let spread = last - first.expect("an event");
    assert!(spread >= Duration::from_millis(300), "at once: {spread:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_50_mib_upload_arrives_whole_with_100_continue_or_chunked() {
    let server = start().await;
    let file = TempFile::new("upload", big());
    let data = format!("@{}", file.0.display());
    let url = format!("http://{}/upload", server.addr);
    let want = big_sum().to_string();

    // Content-Length: curl asks for `100 Continue` before a body this large.
    let started = Instant::now();
    let out = curl(&["-v", "--data-binary", &data, &url]).await;
    let took = started.elapsed();
    let trace = String::from_utf8_lossy(&out.stderr);
    let length = format!("> Content-Length: {BIG}");
    assert!(trace.contains(&length), "{trace}");
    assert!(trace.contains("> Expect: 100-continue"), "{trace}");
    assert!(trace.contains("< HTTP/1.1 100 Continue"), "{trace}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), want);
    eprintln!("50 MiB upload with Content-Length and 100-continue, by curl: {took:?}");

    // Chunked.
    let started = Instant::now();
    let chunked = "Transfer-Encoding: chunked";
    let out = curl(&["-v", "-H", chunked, "--data-binary", &data, &url]).await;
    let took = started.elapsed();
    let trace = String::from_utf8_lossy(&out.stderr);
    assert!(trace.contains("> Transfer-Encoding: chunked"), "{trace}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), want);
    eprintln!("50 MiB upload chunked, by curl: {took:?}");

    // Not the driver but axum's limit decides: the Bytes extractor takes 2 MB.
    let url = format!("http://{}/bytes", server.addr);
    let status = ["-o", "/dev/null", "-w", "%{http_code}"];
    let out = curl(&[&status[..], &["--data-binary", &data, &url]].concat()).await;
    assert_eq!(String::from_utf8_lossy(&out.stdout), "413");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_50_mib_download_arrives_whole() {
    let server = start().await;
    let (mut client, _) = hyper_client(server.addr).await;
    let started = Instant::now();
    let res = hyper_get(&mut client, "/download").await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["transfer-encoding"], "chunked");
    let mut body = res.into_body();
    let mut sum = Sum::new();
    while let Some(frame) = timed("a chunk", body.frame()).await {
        sum.add(&frame.expect("frame").into_data().expect("data"));
    }
    let took = started.elapsed();
    eprintln!("50 MiB download, by hyper's client: {took:?}");
    assert_eq!(sum, big_sum());
}

/// Splits curl's `-D -` output into the lowercased head and the body.
fn head_and_body(out: &[u8]) -> (String, &[u8]) {
    let end = out
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head");
    let (head, body) = out.split_at(end + 4);
    (String::from_utf8_lossy(head).to_lowercase(), body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gzip_from_tower_http_reaches_curl_and_decompresses() {
    let server = start().await;
    let url = format!("http://{}/text", server.addr);
    let text = TEXT.repeat(200);

    // --compressed asks for gzip (among others) and decodes it.
    let out = curl(&["--compressed", "-D", "-", &url]).await;
    let (head, body) = head_and_body(&out.stdout);
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(head.contains("\r\ncontent-encoding: gzip\r\n"), "{head}");
    assert_eq!(String::from_utf8_lossy(body), text);

    // Undecoded, it is gzip's, and much smaller.
    let out = curl(&["-H", "Accept-Encoding: gzip", "-D", "-", &url]).await;
    let (head, body) = head_and_body(&out.stdout);
    assert!(head.contains("\r\ncontent-encoding: gzip\r\n"), "{head}");
    assert!(body.starts_with(&[0x1f, 0x8b]), "{body:?}");
    assert!(body.len() < text.len() / 10, "{} bytes", body.len());

    // Not asked for, not compressed.
    let out = curl(&["-D", "-", &url]).await;
    let (head, body) = head_and_body(&out.stdout);
    assert!(!head.contains("content-encoding"), "{head}");
    assert_eq!(String::from_utf8_lossy(body), text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_closes_the_idle_and_finishes_the_slow_and_the_stream() {
    let server = start().await;
    let addr = server.addr;
    // An idle keep-alive connection: one request answered, then nothing.
    let mut idle = open(addr, "/peer").await;
    let local = idle.local_addr().expect("local address").to_string();
    read_until(&mut idle, &mut Vec::new(), &local).await;
    // An event stream of 4 ticks over 1.5 s, its first tick received.
    let mut sse = open(addr, "/sse/slow").await;
    let mut sse_got = Vec::new();
    read_until(&mut sse, &mut sse_got, "data: tick 0\n\n").await;
    // A request whose handler sleeps a second.
    let slow = open(addr, "/slow").await;
    tokio::time::sleep(Duration::from_millis(100)).await;

    let stopped_at = Instant::now();
    server.stop.send(()).expect("the server runs");

    let mut scrap = [0u8; 64];
    let closed = tokio::time::timeout(Duration::from_millis(300), idle.read(&mut scrap)).await;
    let n = closed
        .expect("the idle connection closes at once")
        .expect("read");
    assert_eq!(n, 0, "{:?}", String::from_utf8_lossy(&scrap[..n]));
    drop(idle);

    let slow_got = read_to_end(slow, Vec::new()).await;
    assert!(slow_got.starts_with("HTTP/1.1 200 OK\r\n"), "{slow_got}");
    let close = "\r\nconnection: close\r\n";
    assert!(slow_got.to_lowercase().contains(close), "{slow_got}");
    assert!(slow_got.ends_with("slow answer"), "{slow_got}");
    assert!(!server.served.is_finished(), "the event stream still runs");

    let sse_got = read_to_end(sse, sse_got).await;
    let chunked = "\r\ntransfer-encoding: chunked\r\n";
    assert!(sse_got.to_lowercase().contains(chunked), "{sse_got}");
    let ticks = ["tick 0", "tick 1", "tick 2", "tick 3"];
    assert_eq!(data_lines(&sse_got), ticks, "{sse_got}");
    assert!(sse_got.ends_with("\r\n0\r\n\r\n"), "the end: {sse_got:?}");

    let served = timed("serve's end", server.served).await;
    served.expect("task").expect("serve");
    let took = stopped_at.elapsed();
    assert!(took < GRACE, "serve ended with the grace period: {took:?}");
}

/// As with `axum::serve` (hyper ends a connection whose client has gone,
/// dropping what it is answering): an application that waits for events
/// on behalf of clients does not keep waiting for those that have left.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_leaves_has_its_stream_and_its_long_poll_dropped() {
    let server = start().await;
    let addr = server.addr;
    let mut sse = open(addr, "/sse/quiet").await;
    read_until(&mut sse, &mut Vec::new(), "data: hello\n\n").await;
    let poll = open(addr, "/wait").await;
    let started = Instant::now();
    while text(addr, "/listeners").await != "2" {
        assert!(started.elapsed() < Duration::from_secs(5), "no long poll");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    drop(sse);
    drop(poll);
    let left = Instant::now();
    let mut listening = text(addr, "/listeners").await;
    while listening != "0" && left.elapsed() < Duration::from_secs(1) {
        tokio::time::sleep(Duration::from_millis(50)).await;
        listening = text(addr, "/listeners").await;
    }
    assert_eq!(
        listening, "0",
        "handlers still waiting 1 s after their clients left"
    );
}
