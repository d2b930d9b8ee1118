//! One axum [`Router`] for the two servers of the pair: `axum-hyper`
//! (hyper 1.x's `http1` connection, the service wrapped in hyper-util's
//! `TowerToHyperService`, as `axum::serve` does) and `axum-h1`
//! (`h1_tokio::serve_connection`). Both run a tokio current-thread runtime
//! and a task per connection, so the difference between them is the HTTP/1.1
//! layer under the same application.
//!
//! The routes:
//!
//! - `GET /plaintext`: `Hello, World!` as `text/plain; charset=utf-8`;
//! - `GET /json`: `{"message":"Hello, World!"}` through axum's `Json`;
//! - `GET /user/{id}`: `user N` for a numeric id (`Path<u32>`; another id
//!   is answered `400` by the extractor);
//! - `POST /echo`: the request body back (`Bytes`).
//!
//! Anything else gets axum's `404` (or `405` for a known path).

use std::error::Error;
use std::net::SocketAddr;

use axum::body::Bytes;
use axum::extract::Path;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Serialize;

/// The error type of the binaries' `main`.
pub type BoxError = Box<dyn Error + Send + Sync>;

/// The body of `GET /json`.
#[derive(Serialize)]
struct Message {
    message: &'static str,
}

/// The application both servers serve.
pub fn app() -> Router {
    Router::new()
        .route("/plaintext", get(plaintext))
        .route("/json", get(json))
        .route("/user/{id}", get(user))
        .route("/echo", post(echo))
}

async fn plaintext() -> &'static str {
    "Hello, World!"
}

async fn json() -> Json<Message> {
    Json(Message {
        message: "Hello, World!",
    })
}

async fn user(Path(id): Path<u32>) -> String {
    format!("user {id}")
}

async fn echo(body: Bytes) -> Bytes {
    body
}

/// `--addr HOST:PORT` from the command line (default 127.0.0.1:8080).
pub fn addr_arg() -> Result<SocketAddr, BoxError> {
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
