//! An axum `Router` served by h1-tokio: `GET /plaintext` answers `Hello,
//! World!`, `POST /echo` the request body. The application is written for
//! axum as it is; the one line that serves it is `h1_tokio::serve` where
//! it was `axum::serve` (with h1-tokio's `axum` feature), and the HTTP/1.1
//! underneath is h1's. Ctrl-C shuts it down gracefully.
//!
//! ```text
//! cargo run --release -p h1-tokio --features axum --example tokio-axum -- --addr 127.0.0.1:8080
//! curl http://127.0.0.1:8080/plaintext
//! curl --data-binary 'some bytes' http://127.0.0.1:8080/echo
//! ```
//!
//! It prints `listening on ADDR` once bound (`--addr 127.0.0.1:0` picks a
//! free port).

use axum::body::Bytes;
use axum::routing::{get, post};
use axum::Router;
use tokio::net::TcpListener;

fn app() -> Router {
    Router::new()
        .route("/plaintext", get(|| async { "Hello, World!" }))
        .route("/echo", post(|body: Bytes| async move { body }))
}

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let mut addr = String::from("127.0.0.1:8080");
    while let Some(a) = args.next() {
        match (a.as_str(), args.next()) {
            ("--addr", Some(value)) => addr = value,
            _ => {
                eprintln!("usage: tokio-axum [--addr HOST:PORT]");
                std::process::exit(2);
            }
        }
    }
    let listener = match TcpListener::bind(&addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("tokio-axum: cannot listen on {addr}: {e}");
            std::process::exit(1);
        }
    };
    match listener.local_addr() {
        Ok(bound) => println!("listening on {bound}"),
        Err(e) => eprintln!("tokio-axum: {e}"),
    }
    // Was: axum::serve(listener, app()).with_graceful_shutdown(...)
    let served = h1_tokio::serve(listener, app())
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await;
    if let Err(e) = served {
        eprintln!("tokio-axum: {e}");
        std::process::exit(1);
    }
}
