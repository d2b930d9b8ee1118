//! The floor under `axum-hyper` and `axum-h1`: [`axum_pair::app`] served
//! with the HTTP/1.1 protocol work taken out. The same shape as the other
//! two (a tokio current-thread runtime, a task per connection, `TCP_NODELAY`
//! on the accepted socket), and per connection the work any engine must do
//! for axum, minus parsing and encoding:
//!
//! - each read goes into a buffer, and each request head in it is found by
//!   its CR LF CR LF (`memchr::memmem`, as `floor-hello` finds them; the
//!   benchmark's requests carry no body) and not parsed;
//! - for each, the `http::Request<axum::body::Body>` the Router gets from
//!   any engine is built from constants: `GET`, the URI `/plaintext` (built
//!   once, cloned per request: the clones share its bytes), HTTP/1.1, and a
//!   `HeaderMap` filled per request by appending the fields the benchmark
//!   sends, names as `http::header` constants (or `HeaderName::from_static`
//!   for the `sec-` ones, which have none), values as
//!   `HeaderValue::from_static`, evaluated at compile time;
//! - the Router is called as `h1_tokio::serve_connection` calls it
//!   (`poll_ready`, then `call` on the connection's own service), its answer
//!   awaited and its body polled to the end, frame by frame, and dropped;
//! - each request is answered with the same pre-encoded bytes (those hyper
//!   writes for `GET /plaintext`, with a fixed date), one write for all the
//!   requests one read brought (as the pipelining engines write them).
//!
//! The fields (`--fields`, as `benches/e2e/callgrind.sh` sends them by
//! `REQ`, in the order h2load writes them):
//!
//! - `h2load` (the default): h2load's own head, `Host: 127.0.0.1:PORT` and
//!   `user-agent: h2load nghttp2/1.52.0`. The port is known once bound: that
//!   one value is made once (`HeaderValue::from_static` over a leaked
//!   string) and cloned per request, a static `Bytes`'s clone;
//! - `browser`: the 12 fields of `testdata/inputs/2_chrome12.http` (`Host:
//!   www.example.com`, h2load's `user-agent` replaced by Chrome's, ...,
//!   `cookie`).
//!
//! Whatever the request, the answer is `/plaintext`'s: the Router sees only
//! the `Request` built here. The instructions a request costs are what axum
//! and the `http` types cost on tokio under any engine;
//! `benches/e2e/callgrind.sh` counts it as `axum-floor`, and what
//! `axum-hyper` and `axum-h1` cost above it is their HTTP/1.1 layer.
//!
//! ```text
//! cargo run --release --bin axum-floor -- --addr 127.0.0.1:0 --fields browser   # prints "listening on ADDR"
//! ```

use std::net::SocketAddr;

use axum::body::Body;
use axum::http::header::{self, HeaderName, HeaderValue};
use axum::http::{HeaderMap, Method, Request, Uri, Version};
use axum::Router;
use axum_pair::{app, BoxError};
use http_body_util::BodyExt;
use memchr::memmem::Finder;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tower::{Service, ServiceExt};

/// What hyper writes for `GET /plaintext` answered by the Router, with a
/// fixed date.
const ANSWER: &[u8] = b"HTTP/1.1 200 OK\r\ncontent-type: text/plain; charset=utf-8\r\n\
content-length: 13\r\ndate: Thu, 03 Dec 2026 16:00:00 GMT\r\n\r\nHello, World!";

/// The request fields the benchmark sends.
#[derive(Clone)]
enum Fields {
    /// h2load's own: `Host` (this server's address) and `user-agent`.
    H2load { host: HeaderValue },
    /// The 12 fields of `testdata/inputs/2_chrome12.http`.
    Browser,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), BoxError> {
    let (addr, browser) = args()?;
    let listener = TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    println!("listening on {local}");
    let fields = if browser {
        Fields::Browser
    } else {
        let host: &'static str = Box::leak(local.to_string().into_boxed_str());
        Fields::H2load {
            host: HeaderValue::from_static(host),
        }
    };
    let uri = Uri::from_static("/plaintext");
    let router = app();
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                eprintln!("accept: {e}");
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(serve(stream, router.clone(), fields.clone(), uri.clone()));
    }
}

/// Reads and answers until the client closes.
async fn serve(mut stream: TcpStream, mut router: Router, fields: Fields, uri: Uri) {
    let end = Finder::new(b"\r\n\r\n");
    let mut input = vec![0u8; 16 * 1024];
    let mut out = Vec::with_capacity(16 * 1024);
    let mut filled = 0;
    loop {
        match stream.read(&mut input[filled..]).await {
            Ok(0) | Err(_) => return,
            Ok(n) => filled += n,
        }
        let mut at = 0;
        while let Some(i) = end.find(&input[at..filled]) {
            at += i + 4;
            let mut request = Request::new(Body::empty());
            *request.method_mut() = Method::GET;
            *request.uri_mut() = uri.clone();
            *request.version_mut() = Version::HTTP_11;
            *request.headers_mut() = headers(&fields);
            let Ok(service) = ServiceExt::<Request<Body>>::ready(&mut router).await;
            let Ok(response) = service.call(request).await;
            let mut body = response.into_body();
            while let Some(frame) = body.frame().await {
                if frame.is_err() {
                    return;
                }
            }
            out.extend_from_slice(ANSWER);
        }
        input.copy_within(at..filled, 0);
        filled -= at;
        if filled == input.len() || stream.write_all(&out).await.is_err() {
            return;
        }
        out.clear();
    }
}

/// A request's fields, appended one by one as an engine appends them.
fn headers(fields: &Fields) -> HeaderMap {
    match fields {
        Fields::H2load { host } => {
            let mut map = HeaderMap::with_capacity(2);
            map.append(header::HOST, host.clone());
            map.append(
                header::USER_AGENT,
                const { HeaderValue::from_static("h2load nghttp2/1.52.0") },
            );
            map
        }
        Fields::Browser => {
            let mut map = HeaderMap::with_capacity(12);
            map.append(
                header::HOST,
                const { HeaderValue::from_static("www.example.com") },
            );
            map.append(
                header::USER_AGENT,
                const {
                    HeaderValue::from_static(
                        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 \
                         (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
                    )
                },
            );
            map.append(
                header::CONNECTION,
                const { HeaderValue::from_static("keep-alive") },
            );
            map.append(
                const { HeaderName::from_static("sec-ch-ua") },
                const {
                    HeaderValue::from_static(
                        "\"Chromium\";v=\"124\", \"Google Chrome\";v=\"124\", \
                         \"Not-A.Brand\";v=\"99\"",
                    )
                },
            );
            map.append(
                const { HeaderName::from_static("sec-ch-ua-platform") },
                const { HeaderValue::from_static("\"Windows\"") },
            );
            map.append(
                header::ACCEPT,
                const {
                    HeaderValue::from_static(
                        "text/html,application/xhtml+xml,application/xml;q=0.9,\
                         image/avif,image/webp,image/apng,*/*;q=0.8",
                    )
                },
            );
            map.append(
                const { HeaderName::from_static("sec-fetch-site") },
                const { HeaderValue::from_static("none") },
            );
            map.append(
                const { HeaderName::from_static("sec-fetch-mode") },
                const { HeaderValue::from_static("navigate") },
            );
            map.append(
                const { HeaderName::from_static("sec-fetch-dest") },
                const { HeaderValue::from_static("document") },
            );
            map.append(
                header::ACCEPT_ENCODING,
                const { HeaderValue::from_static("gzip, deflate, br, zstd") },
            );
            map.append(
                header::ACCEPT_LANGUAGE,
                const { HeaderValue::from_static("en-US,en;q=0.9") },
            );
            map.append(
                header::COOKIE,
                const {
                    HeaderValue::from_static(
                        "_ga=GA1.2.1234567890.1700000000; \
                         sessionid=8f3c2a9d7e6b5a4c3d2e1f0a9b8c7d6e; \
                         csrftoken=Zx9Yw8Vu7Ts6Rq5P",
                    )
                },
            );
            map
        }
    }
}

/// `--addr HOST:PORT` (default 127.0.0.1:8080) and `--fields h2load|browser`
/// (default h2load): the address, and whether the fields are the browser's.
fn args() -> Result<(SocketAddr, bool), BoxError> {
    let mut args = std::env::args().skip(1);
    let mut addr = String::from("127.0.0.1:8080");
    let mut browser = false;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--addr" => addr = args.next().ok_or("--addr needs a value")?,
            "--fields" => match args.next().as_deref() {
                Some("h2load") => browser = false,
                Some("browser") => browser = true,
                _ => return Err("--fields needs h2load or browser".into()),
            },
            _ => return Err(format!("unknown argument {a:?}").into()),
        }
    }
    Ok((addr.parse()?, browser))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The browser fields are those of `2_chrome12.http`, in h2load's order
    /// (`Host` first, `user-agent` second, then the file's order).
    #[test]
    fn browser_fields_are_the_files() {
        let file = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../testdata/inputs/2_chrome12.http"
        ))
        .unwrap();
        let mut lines: Vec<(String, String)> = file
            .split("\r\n")
            .skip(1)
            .take_while(|l| !l.is_empty())
            .map(|l| {
                let (name, value) = l.split_once(':').unwrap();
                (name.to_ascii_lowercase(), value.trim().to_owned())
            })
            .collect();
        let ua = lines.iter().position(|(n, _)| n == "user-agent").unwrap();
        let ua = lines.remove(ua);
        lines.insert(1, ua);
        let map = headers(&Fields::Browser);
        let got: Vec<(String, String)> = map
            .iter()
            .map(|(n, v)| (n.as_str().to_owned(), v.to_str().unwrap().to_owned()))
            .collect();
        assert_eq!(lines[0].0, "host");
        assert_eq!(got, lines);
    }
}
