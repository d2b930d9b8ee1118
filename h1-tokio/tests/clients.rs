//! Real clients against h1-tokio serving an axum `Router` (the
//! `tokio-axum` example's): curl, Python's http.client and h2load
//! pipelining. CI installs all three; a missing one fails the test.

use std::io::Write;
use std::net::SocketAddr;
use std::process::{Command, Output, Stdio};

use axum::body::Bytes;
use axum::routing::{get, post};
use axum::Router;
use h1_tokio::{serve_connection, Config};
use hyper_util::rt::TokioIo;

/// Serves the router on 127.0.0.1 from a runtime on its own thread, for as
/// long as the test process lives.
fn serve() -> SocketAddr {
    let app = Router::new()
        .route("/plaintext", get(|| async { "Hello, World!" }))
        .route("/echo", post(|body: Bytes| async move { body }));
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.set_nonblocking(true).expect("non-blocking");
    let addr = listener.local_addr().expect("address");
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let app = app.clone();
                tokio::spawn(serve_connection(stream, app, Config::default()));
            }
        });
    });
    addr
}

/// Runs `program` with `args` and `input` on its stdin; its output, which
/// must be a success.
fn run(program: &str, args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{program} must be installed (CI installs it): {e}"));
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("input");
    let out = child.wait_with_output().expect("output");
    assert!(
        out.status.success(),
        "{program} {args:?}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
fn curl_gets_the_plaintext_and_its_echo_back() {
    let addr = serve();
    let url = format!("http://{addr}/plaintext");
    let out = run("curl", &["-sS", "--max-time", "10", &url], b"");
    assert_eq!(out.stdout, b"Hello, World!");

    let body: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
    let url = format!("http://{addr}/echo");
    let out = run(
        "curl",
        &["-sS", "--max-time", "10", "--data-binary", "@-", &url],
        &body,
    );
    assert!(
        out.stdout == body,
        "the echo differs ({} bytes back)",
        out.stdout.len()
    );
}

#[test]
fn curl_waits_for_100_continue_and_gets_it() {
    let addr = serve();
    let url = format!("http://{addr}/echo");
    // -v prints the interim response; the body goes after it.
    let out = run(
        "curl",
        &[
            "-sS",
            "-v",
            "--max-time",
            "10",
            "-H",
            "Expect: 100-continue",
            "--data-binary",
            "@-",
            &url,
        ],
        b"after the invitation",
    );
    let trace = String::from_utf8_lossy(&out.stderr);
    assert!(trace.contains("HTTP/1.1 100 Continue"), "{trace}");
    assert_eq!(out.stdout, b"after the invitation");
}

#[test]
fn python_http_client_reuses_one_connection() {
    let addr = serve();
    let script = format!(
        r#"
import http.client
c = http.client.HTTPConnection("{ip}", {port}, timeout=10)
for i in range(5):
    c.request("POST", "/echo", body=("n%d" % i).encode())
    r = c.getresponse()
    assert r.status == 200, r.status
    assert r.read() == ("n%d" % i).encode()
c.request("GET", "/plaintext")
r = c.getresponse()
assert r.read() == b"Hello, World!"
print("ok", c.sock.getsockname()[1])
"#,
        ip = addr.ip(),
        port = addr.port()
    );
    let out = run("python3", &["-c", &script], b"");
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("ok "));
}

#[test]
fn h2load_pipelines_sixteen_deep_without_a_failure() {
    let addr = serve();
    let url = format!("http://{addr}/plaintext");
    let out = run(
        "h2load",
        &["--h1", "-m", "16", "-c", "4", "-n", "20000", &url],
        b"",
    );
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("20000 succeeded, 0 failed"), "{report}");
    assert!(report.contains("status codes: 20000 2xx"), "{report}");
}

#[test]
fn hyper_client_sends_requests_on_one_connection() {
    use http_body_util::{BodyExt, Full};

    let addr = serve();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async move {
        let stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .expect("handshake");
        let driving = tokio::spawn(conn);
        for i in 0..3 {
            let body = format!("request {i}");
            let req = http::Request::post("/echo")
                .header("host", addr.to_string())
                .body(Full::new(Bytes::from(body.clone())))
                .expect("request");
            let res = sender.send_request(req).await.expect("response");
            assert_eq!(res.status(), 200);
            let got = res.into_body().collect().await.expect("body").to_bytes();
            assert_eq!(got, body.as_bytes());
        }
        let req = http::Request::get("/plaintext")
            .header("host", addr.to_string())
            .body(Full::new(Bytes::new()))
            .expect("request");
        let res = sender.send_request(req).await.expect("response");
        let got = res.into_body().collect().await.expect("body").to_bytes();
        assert_eq!(got, "Hello, World!");
        drop(sender);
        driving
            .await
            .expect("task")
            .expect("the connection ends cleanly");
    });
}
