//! TechEmpower's plaintext test served by hyper 1.x on a tokio
//! current-thread runtime, as hyper's own examples write a server: one task
//! per connection, a `service_fn`. hyper adds `Date` itself, from a value it
//! formats once a second. The baseline `benches/e2e` measures h1's `hello`
//! against.
//!
//! ```text
//! cargo run --release -- --addr 127.0.0.1:0      # prints "listening on ADDR"
//! ```
//!
//! `GET /plaintext` (and `HEAD`) gets `200` with `Hello, World!`,
//! `Content-Type: text/plain`, `Content-Length`, `Date` and `Server`, the
//! fields h1's `hello` sends; other methods on it get `405`, other targets
//! `404`. hyper pipelines: it reads ahead and flushes a batch of answers
//! together.

use std::convert::Infallible;
use std::error::Error;
use std::net::SocketAddr;

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{HeaderValue, ALLOW, CONTENT_TYPE, SERVER};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

const BODY: &[u8] = b"Hello, World!";

type BoxError = Box<dyn Error + Send + Sync>;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), BoxError> {
    let addr = addr_arg()?;
    let listener = TcpListener::bind(addr).await?;
    println!("listening on {}", listener.local_addr()?);
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                eprintln!("accept: {e}");
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(async move {
            let conn = http1::Builder::new()
                .pipeline_flush(true)
                .serve_connection(TokioIo::new(stream), service_fn(hello));
            if let Err(e) = conn.await {
                eprintln!("connection: {e}");
            }
        });
    }
}

async fn hello(req: Request<hyper::body::Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let mut res = Response::new(Full::new(Bytes::new()));
    if req.uri().path() != "/plaintext" {
        *res.status_mut() = StatusCode::NOT_FOUND;
    } else if req.method() != Method::GET && req.method() != Method::HEAD {
        *res.status_mut() = StatusCode::METHOD_NOT_ALLOWED;
        res.headers_mut()
            .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
    } else {
        *res.body_mut() = Full::new(Bytes::from_static(BODY));
        res.headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static("text/plain"));
    }
    res.headers_mut()
        .insert(SERVER, HeaderValue::from_static("hyper"));
    Ok(res)
}

/// `--addr HOST:PORT` (default 127.0.0.1:8080).
fn addr_arg() -> Result<SocketAddr, BoxError> {
    let mut args = std::env::args().skip(1);
    let mut addr = String::from("127.0.0.1:8080");
    while let Some(a) = args.next() {
        match a.as_str() {
            "--addr" => addr = args.next().ok_or("--addr needs a value")?,
            _ => return Err(format!("unknown argument {a:?}").into()),
        }
    }
    Ok(addr.parse()?)
}
