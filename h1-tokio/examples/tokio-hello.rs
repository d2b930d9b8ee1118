//! TechEmpower's plaintext test served by h1-tokio: `GET /plaintext` gets
//! `Hello, World!` with `Content-Type`, `Content-Length`, `Date` and
//! `Server`; other methods on it `405`, other targets `404` (as
//! `benches/e2e/hyper-hello` answers, for the side-by-side benchmarks).
//!
//! It answers through [`raw::serve`], the allocation-free handler API; with
//! `--http` through [`serve_connection`] and a `service_fn` over the `http`
//! types, as a hyper server is written (and as costly per request: the
//! `http` types allocate).
//!
//! ```text
//! cargo run --release -p h1-tokio --example tokio-hello -- --addr 127.0.0.1:8080 \
//!     [--threads N] [--header-timeout-ms MS] [--http]
//! ```
//!
//! It prints `listening on ADDR` once bound (`--addr 127.0.0.1:0` picks a
//! free port). `--threads N` runs N current-thread runtimes, each on its
//! own thread with its own listener on the same port (`SO_REUSEPORT`: the
//! kernel spreads the connections); the default is one.
//! `--header-timeout-ms` sets [`Config::header_read_timeout`] (a head not
//! complete by then is answered 408); the default is the crate's.

use std::convert::Infallible;
use std::io::Write;
use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use h1_tokio::raw::{self, Handler, Method as RawMethod, PreEncoded, Responder, SendError};
use h1_tokio::{serve_connection, service_fn, Body, Config};
use http::header::{HeaderValue, ALLOW, CONTENT_TYPE, SERVER};
use http::{Method, Request, Response, StatusCode};
use http_body_util::Full;
use tokio::net::{TcpListener, TcpSocket};

const BODY: &[u8] = b"Hello, World!";

fn main() {
    let Args {
        addr,
        threads,
        config,
        http,
    } = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!(
                "tokio-hello: {e}\n\
                 usage: tokio-hello [--addr HOST:PORT] [--threads N] [--header-timeout-ms MS] [--http]"
            );
            std::process::exit(2);
        }
    };
    // tokio makes its sockets inside a runtime; these are handed to the
    // serving threads' runtimes afterwards.
    let setup = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .unwrap_or_else(|e| fail(&format!("no runtime: {e}")));
    let guard = setup.enter();
    // The first listener fixes the port (`:0` picks one); the others join
    // it.
    let first = listener(addr).unwrap_or_else(|e| fail(&format!("cannot listen on {addr}: {e}")));
    let bound = first
        .local_addr()
        .unwrap_or_else(|e| fail(&format!("no local address: {e}")));
    let mut listeners = vec![first];
    for _ in 1..threads {
        listeners.push(
            listener(bound)
                .unwrap_or_else(|e| fail(&format!("cannot listen again on {bound}: {e}"))),
        );
    }
    drop(guard);
    println!("listening on {bound}");
    let _ = std::io::stdout().flush();
    let workers: Vec<_> = listeners
        .into_iter()
        .map(|l| {
            let config = config.clone();
            std::thread::spawn(move || serve(l, config, http))
        })
        .collect();
    for w in workers {
        let _ = w.join();
    }
}

fn fail(message: &str) -> ! {
    eprintln!("tokio-hello: {message}");
    std::process::exit(1);
}

/// A listening socket on `addr` that other listeners may share.
fn listener(addr: SocketAddr) -> std::io::Result<std::net::TcpListener> {
    let socket = if addr.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    socket.set_reuseport(true)?;
    socket.bind(addr)?;
    let listener = socket.listen(1024)?;
    listener.into_std()
}

/// Serves `listener` on a current-thread runtime of its own.
fn serve(listener: std::net::TcpListener, config: Config, http: bool) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| fail(&format!("no runtime: {e}")));
    runtime.block_on(async move {
        let listener =
            TcpListener::from_std(listener).unwrap_or_else(|e| fail(&format!("listener: {e}")));
        loop {
            let (stream, _) = match listener.accept().await {
                Ok(accepted) => accepted,
                Err(e) => {
                    eprintln!("tokio-hello: accept: {e}");
                    continue;
                }
            };
            let _ = stream.set_nodelay(true);
            let config = config.clone();
            tokio::spawn(async move {
                let served = if http {
                    serve_connection(stream, service_fn(hello), config).await
                } else {
                    raw::serve(stream, Hello::new(), config).await
                };
                if let Err(e) = served {
                    if !e.is_io() {
                        eprintln!("tokio-hello: connection: {e}");
                    }
                }
            });
        }
    });
}

/// The handler of the raw API: the route is taken from the head, the
/// answer written at the request's end from lines encoded once.
struct Hello {
    answer: Answer,
    plaintext: PreEncoded,
    not_found: PreEncoded,
    not_allowed: PreEncoded,
}

#[derive(Clone, Copy)]
enum Answer {
    Plaintext,
    NotFound,
    NotAllowed,
}

impl Hello {
    fn new() -> Hello {
        let make = |fields: &[(&str, &str)]| {
            PreEncoded::new(fields.iter().copied()).expect("valid constant fields")
        };
        Hello {
            answer: Answer::NotFound,
            plaintext: make(&[("Server", "h1"), ("Content-Type", "text/plain")]),
            not_found: make(&[("Server", "h1")]),
            not_allowed: make(&[("Server", "h1"), ("Allow", "GET, HEAD")]),
        }
    }
}

impl Handler for Hello {
    fn head(&mut self, req: &raw::Request<'_>) {
        self.answer = match (req.target(), req.method()) {
            (b"/plaintext", RawMethod::Get | RawMethod::Head) => Answer::Plaintext,
            (b"/plaintext", _) => Answer::NotAllowed,
            _ => Answer::NotFound,
        };
    }

    fn end(&mut self, res: &mut Responder<'_>) -> Result<(), SendError> {
        let (status, lines, body) = match self.answer {
            Answer::Plaintext => (200, &self.plaintext, BODY),
            Answer::NotFound => (404, &self.not_found, &b""[..]),
            Answer::NotAllowed => (405, &self.not_allowed, &b""[..]),
        };
        let mut r = res.respond(status, raw::Framing::Length(body.len() as u64))?;
        r.pre_encoded(lines);
        r.finish_with_body(body)?;
        Ok(())
    }
}

async fn hello(req: Request<Body>) -> Result<Response<Full<Bytes>>, Infallible> {
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
        .insert(SERVER, HeaderValue::from_static("h1"));
    Ok(res)
}

/// The command line.
struct Args {
    addr: SocketAddr,
    threads: usize,
    config: Config,
    /// Serve with the `http` types rather than the raw handler.
    http: bool,
}

/// `--addr HOST:PORT` (default 127.0.0.1:8080), `--threads N` (default 1),
/// `--header-timeout-ms MS`, `--http`.
fn args() -> Result<Args, String> {
    let mut args = std::env::args().skip(1);
    let mut addr = String::from("127.0.0.1:8080");
    let mut threads = 1;
    let mut config = Config::default();
    let mut http = false;
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--addr" => addr = value()?,
            "--threads" => {
                let n = value()?;
                threads = n
                    .parse()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or(format!("--threads: {n:?} is not a positive count"))?;
            }
            "--header-timeout-ms" => {
                let ms = value()?;
                let ms: u64 = ms
                    .parse()
                    .map_err(|_| format!("--header-timeout-ms: {ms:?} is not a count"))?;
                config.header_read_timeout = Some(Duration::from_millis(ms));
            }
            "--http" => http = true,
            _ => return Err(format!("unknown argument {a:?}")),
        }
    }
    let addr = addr
        .parse()
        .map_err(|e| format!("bad address {addr:?}: {e}"))?;
    Ok(Args {
        addr,
        threads,
        config,
        http,
    })
}
