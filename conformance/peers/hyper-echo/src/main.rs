//! The conformance suite's echo contract (`conformance/cases/README.md`)
//! served by hyper 1.x: a peer that `conformance/run-peers.sh` runs the live
//! suite against, side by side with h1.
//!
//! ```text
//! cargo run --release -- --addr 127.0.0.1:0      # prints "listening on ADDR"
//! ```
//!
//! It is written as a user of hyper writes a server: hyper's HTTP/1.1
//! connection on a tokio current-thread runtime, one task per connection,
//! a `service_fn` that collects the whole body and answers. Every request
//! is answered `200` with its body and the fields `x-echo-method`,
//! `x-echo-target` and `x-echo-version`, except:
//!
//! - `CONNECT`: `501` (not a proxy);
//! - an `https` absolute-form target: `421` (RFC 9110 §7.4);
//! - a websocket upgrade (HTTP/1.1, `Connection: upgrade`, `Upgrade:
//!   websocket`): `101`, then the upgraded connection is dropped (closed);
//!   other upgrades are answered as any request;
//! - an `Expect` other than `100-continue`: `417` with `Connection: close`,
//!   the body unread; hyper itself sends `100 Continue` when the body of a
//!   `100-continue` request is first read;
//! - a body over 1 MiB: `413` with `Connection: close` (at once when
//!   `Content-Length` says so, as hyper's own examples check the body's
//!   size hint);
//! - a body hyper reports it cannot read (bad chunked framing, a client
//!   gone): `400` with `Connection: close`. hyper hands that error to the
//!   service and writes nothing itself; returning it (`?`) would only drop
//!   the connection.
//!
//! What hyper refuses while reading a head, it answers (or closes on)
//! itself. It sends `100 Continue` only for an `Expect` that is exactly
//! `100-continue`. The limits of the contract that hyper has a setting for
//! are set: 100 field lines, and a 64 KiB read buffer (the head limit).
//! hyper keeps no request-target as received: `x-echo-target` is its
//! parsed `Uri` written back, which is the target as sent except that the
//! scheme is lowercased, an empty path becomes `/` and a fragment is
//! dropped.

use std::error::Error;
use std::net::SocketAddr;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::Body as _;
use hyper::body::Incoming;
use hyper::header::{HeaderName, HeaderValue, CONNECTION, EXPECT, SERVER, UPGRADE};
use hyper::http::response::Builder;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{HeaderMap, Method, Request, Response, StatusCode, Version};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

/// The echo contract's body limit.
const MAX_BODY: usize = 1 << 20;

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
        tokio::spawn(async move {
            let conn = http1::Builder::new()
                .max_headers(100)
                .max_buf_size(64 << 10)
                .serve_connection(TokioIo::new(stream), service_fn(echo))
                .with_upgrades();
            if let Err(e) = conn.await {
                eprintln!("connection: {e}");
            }
        });
    }
}

/// `--addr ADDR` (default `127.0.0.1:8080`).
fn addr_arg() -> Result<SocketAddr, BoxError> {
    let mut args = std::env::args().skip(1);
    let mut addr = "127.0.0.1:8080".to_string();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--addr" => addr = args.next().ok_or("--addr needs a value")?,
            other => return Err(format!("unknown argument {other:?} (want --addr ADDR)").into()),
        }
    }
    Ok(addr.parse()?)
}

async fn echo(mut req: Request<Incoming>) -> Result<Response<Full<Bytes>>, BoxError> {
    let method = req.method().clone();
    let target = req.uri().to_string();
    let version = match req.version() {
        Version::HTTP_10 => "HTTP/1.0",
        _ => "HTTP/1.1",
    };
    let echoed = |status: StatusCode| -> Builder {
        Response::builder()
            .status(status)
            .header("x-echo-method", method.as_str())
            .header("x-echo-target", target.as_str())
            .header("x-echo-version", version)
            .header(SERVER, "hyper-echo")
    };
    let headers = req.headers();
    if elements(headers, EXPECT).any(|e| !e.eq_ignore_ascii_case(b"100-continue")) {
        // An expectation this server cannot meet; the client may be
        // holding its body back, so the connection closes.
        return respond(
            echoed(StatusCode::EXPECTATION_FAILED).header(CONNECTION, "close"),
            Bytes::new(),
        );
    }
    let websocket = req.version() == Version::HTTP_11
        && lists(headers, CONNECTION, "upgrade")
        && lists(headers, UPGRADE, "websocket");
    let upgrade = websocket.then(|| hyper::upgrade::on(&mut req));
    let https = req.uri().scheme_str() == Some("https");
    // A Content-Length over the limit is refused before any of it is read;
    // a chunked body, once it passes the limit.
    let body = if req.body().size_hint().lower() > MAX_BODY as u64 {
        None
    } else {
        match Limited::new(req.into_body(), MAX_BODY).collect().await {
            Ok(collected) => Some(collected.to_bytes()),
            Err(e) if e.is::<LengthLimitError>() => None,
            // hyper could not read the body (bad chunked framing, or the client
            // went away): the request is answered 400 and the connection ends.
            Err(_) => {
                return respond(
                    echoed(StatusCode::BAD_REQUEST).header(CONNECTION, "close"),
                    Bytes::new(),
                )
            }
        }
    };
    let Some(body) = body else {
        return respond(
            echoed(StatusCode::PAYLOAD_TOO_LARGE).header(CONNECTION, "close"),
            Bytes::new(),
        );
    };
    if let Some(upgrade) = upgrade {
        // This server speaks no websocket: once switched, it closes.
        tokio::spawn(async move {
            if let Ok(upgraded) = upgrade.await {
                drop(upgraded);
            }
        });
        return respond(
            Response::builder()
                .status(StatusCode::SWITCHING_PROTOCOLS)
                .header(UPGRADE, "websocket")
                .header(CONNECTION, "upgrade")
                .header(SERVER, "hyper-echo"),
            Bytes::new(),
        );
    }
    if method == Method::CONNECT {
        return respond(echoed(StatusCode::NOT_IMPLEMENTED), Bytes::new());
    }
    if https {
        // RFC 9110 §7.4: this connection is not secured for an https
        // resource.
        return respond(echoed(StatusCode::MISDIRECTED_REQUEST), Bytes::new());
    }
    respond(echoed(StatusCode::OK), body)
}

fn respond(builder: Builder, body: Bytes) -> Result<Response<Full<Bytes>>, BoxError> {
    match builder.body(Full::new(body)) {
        Ok(response) => Ok(response),
        // A target no field value may hold: answer without echoing it.
        Err(_) => Ok(Response::builder()
            .status(StatusCode::INTERNAL_SERVER_ERROR)
            .header("x-echo-error", "target")
            .body(Full::new(Bytes::new()))?),
    }
}

/// The elements of a comma-separated field (RFC 9110 §5.6.1), every line
/// of it, without surrounding whitespace and without empty ones.
fn elements(headers: &HeaderMap<HeaderValue>, name: HeaderName) -> impl Iterator<Item = &[u8]> {
    headers
        .get_all(name)
        .into_iter()
        .flat_map(|v| v.as_bytes().split(|&b| b == b','))
        .map(<[u8]>::trim_ascii)
        .filter(|e| !e.is_empty())
}

/// Whether a comma-separated field lists `token` (case-insensitive).
fn lists(headers: &HeaderMap<HeaderValue>, name: HeaderName, token: &str) -> bool {
    elements(headers, name).any(|e| e.eq_ignore_ascii_case(token.as_bytes()))
}
