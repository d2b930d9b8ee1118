//! The conformance suite's echo contract (`conformance/cases/README.md`)
//! as an axum app served by h1-tokio: `conformance/run-peers.sh` runs the
//! live suite against it, beside h1-conn's own `echo` example, for the
//! h1-tokio column of `conformance/PEERS.md`.
//!
//! ```text
//! cargo run --release -p h1-tokio --example tokio-axum-echo -- --addr 127.0.0.1:0
//! ```
//!
//! It prints `listening on ADDR` once bound (`--addr 127.0.0.1:0` picks a
//! free port). It is written as a user of axum writes a server: a `Router`
//! whose fallback handler takes every request, on a tokio current-thread
//! runtime, each accepted connection served by
//! `h1_tokio::serve_connection` on a task of its own. Every request is
//! answered `200` with its body and the fields `x-echo-method`,
//! `x-echo-target`, `x-echo-version` and `Server: h1-echo` (the mark by
//! which the suite applies h1's declared deviations: what this app is
//! given to answer, h1-conn has parsed and judged), except:
//!
//! - `CONNECT`: `501` (not a proxy);
//! - an `https` absolute-form target: `421` (RFC 9110 §7.4);
//! - a websocket upgrade (HTTP/1.1, `Connection: upgrade`, `Upgrade:
//!   websocket`): `101`, then the switched connection is dropped (closed);
//!   other upgrades are answered as any request;
//! - an `Expect` other than `100-continue`: `417` with `Connection: close`,
//!   the body unread (h1-conn refuses such a request before the app sees
//!   it; the check is here for the contract's sake). h1-tokio sends `100
//!   Continue` when the body is first read;
//! - a body that cannot be read (bad chunked framing, a client gone):
//!   `400` with `Connection: close`, unless h1-tokio has answered the
//!   request itself (it does for bad framing).
//!
//! The limits of the contract are h1-tokio's `Config::default()` (h1-conn's
//! head limits), but for the body: h1-tokio streams a body of any length
//! by default and leaves the limit to the service, while the contract's
//! 1 MiB must hold at the chunk-size line, which only the connection sees.
//! So `config.conn.max_body_len` is set to 1 MiB: h1-tokio answers `413`
//! itself, at once for a `Content-Length` over it (no `100 Continue`
//! invites such a body) and at the chunk size that would pass it. The
//! handler collects the body with the same limit.
//!
//! `x-echo-target` is the target as sent: the `Uri` for an origin-form
//! target (which it keeps byte for byte), h1-tokio's `RequestTarget`
//! extension for the others (`Uri` lowercases a scheme and writes an
//! empty path as `/`).

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::header::{HeaderName, CONNECTION, EXPECT, SERVER, UPGRADE};
use axum::http::response::Builder;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Version};
use axum::response::Response;
use axum::Router;
use h1_tokio::{serve_connection, upgrade, Config, RequestTarget};
use http_body_util::LengthLimitError;
use tokio::net::TcpListener;

/// The echo contract's body limit.
const MAX_BODY: usize = 1 << 20;

fn app() -> Router {
    Router::new().fallback(echo)
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let addr = match addr_arg() {
        Ok(addr) => addr,
        Err(e) => {
            eprintln!("tokio-axum-echo: {e}");
            std::process::exit(2);
        }
    };
    let listener = match TcpListener::bind(&addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("tokio-axum-echo: cannot listen on {addr}: {e}");
            std::process::exit(1);
        }
    };
    match listener.local_addr() {
        Ok(bound) => println!("listening on {bound}"),
        Err(e) => {
            eprintln!("tokio-axum-echo: {e}");
            std::process::exit(1);
        }
    }
    let router = app();
    let mut config = Config::default();
    config.conn.max_body_len = MAX_BODY as u64;
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                eprintln!("tokio-axum-echo: accept: {e}");
                continue;
            }
        };
        let router = router.clone();
        let config = config.clone();
        tokio::spawn(async move {
            if let Err(e) = serve_connection(stream, router, config).await {
                if !e.is_io() {
                    eprintln!("tokio-axum-echo: connection: {e}");
                }
            }
        });
    }
}

/// `--addr HOST:PORT` (default `127.0.0.1:8080`).
fn addr_arg() -> Result<String, String> {
    let mut args = std::env::args().skip(1);
    let mut addr = String::from("127.0.0.1:8080");
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--addr", Some(value)) => addr = value,
            _ => return Err(format!("unknown argument {arg:?} (want --addr HOST:PORT)")),
        }
    }
    Ok(addr)
}

/// The fallback handler: every request, whatever its method and target.
async fn echo(mut req: Request) -> Response {
    let method = req.method().clone();
    let target = match req.extensions().get::<RequestTarget>() {
        Some(sent) => sent.as_str().to_owned(),
        None => req.uri().to_string(),
    };
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
            .header(SERVER, "h1-echo")
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
    let switched = websocket.then(|| upgrade::on(&mut req));
    let https = req.uri().scheme_str() == Some("https");
    // h1-tokio has refused a body over the limit before it reaches here.
    let body = match axum::body::to_bytes(req.into_body(), MAX_BODY).await {
        Ok(body) => body,
        Err(e) if is_length_limit(&e) => {
            return respond(
                echoed(StatusCode::PAYLOAD_TOO_LARGE).header(CONNECTION, "close"),
                Bytes::new(),
            )
        }
        // The body could not be read (bad framing, or the client went
        // away): the request is answered 400 and the connection ends.
        Err(_) => {
            return respond(
                echoed(StatusCode::BAD_REQUEST).header(CONNECTION, "close"),
                Bytes::new(),
            )
        }
    };
    if let Some(switched) = switched {
        // This server speaks no websocket: once switched, it closes.
        tokio::spawn(async move {
            if let Ok(io) = switched.await {
                drop(io);
            }
        });
        return respond(
            Response::builder()
                .status(StatusCode::SWITCHING_PROTOCOLS)
                .header(UPGRADE, "websocket")
                .header(CONNECTION, "upgrade")
                .header(SERVER, "h1-echo"),
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

/// Whether collecting the body stopped at the limit (rather than on a
/// body that could not be read).
fn is_length_limit(e: &axum::Error) -> bool {
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if s.is::<LengthLimitError>() {
            return true;
        }
        source = s.source();
    }
    false
}

fn respond(builder: Builder, body: Bytes) -> Response {
    match builder.body(Body::from(body)) {
        Ok(response) => response,
        // A target no field value may hold: answer without echoing it.
        Err(_) => {
            let mut response = Response::new(Body::empty());
            *response.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
            response
                .headers_mut()
                .insert("x-echo-error", HeaderValue::from_static("target"));
            response
        }
    }
}

/// The elements of a comma-separated field (RFC 9110 §5.6.1), every line
/// of it, without surrounding whitespace and without empty ones.
fn elements(headers: &HeaderMap, name: HeaderName) -> impl Iterator<Item = &[u8]> {
    headers
        .get_all(name)
        .into_iter()
        .flat_map(|v| v.as_bytes().split(|&b| b == b','))
        .map(<[u8]>::trim_ascii)
        .filter(|e| !e.is_empty())
}

/// Whether a comma-separated field lists `token` (case-insensitive).
fn lists(headers: &HeaderMap, name: HeaderName, token: &str) -> bool {
    elements(headers, name).any(|e| e.eq_ignore_ascii_case(token.as_bytes()))
}
