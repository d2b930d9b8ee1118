//! HTTP/1.1 on tokio with [`h1_conn`] as the engine, for services written
//! with the `http` types.
//!
//! [`serve_connection`] serves one connection (any `AsyncRead +
//! AsyncWrite`) with a `tower_service::Service<http::Request<Body>>`: each
//! request is parsed and checked by h1-conn's strict defaults and handed
//! over as soon as its head has arrived; its [`Body`] streams behind it
//! with backpressure (one chunk between the connection and the service,
//! never the whole body buffered), trailers included, and a client
//! waiting on `Expect: 100-continue` is invited when the service first
//! reads the body. Pipelined requests are answered in order. Responses are
//! framed by h1-encode: `Content-Length` when the body's size is known,
//! chunked otherwise, trailers, `Date`.
//!
//! ```no_run
//! use h1_tokio::{serve_connection, service_fn, Body, Config};
//! use http::{Request, Response};
//! use http_body_util::BodyExt;
//!
//! # async fn run(stream: tokio::net::TcpStream) -> Result<(), h1_tokio::Error> {
//! let echo = service_fn(|req: Request<Body>| async move {
//!     let body = req.into_body().collect().await?.to_bytes();
//!     Ok::<_, h1_tokio::BodyError>(Response::new(http_body_util::Full::new(body)))
//! });
//! serve_connection(stream, echo, Config::default()).await
//! # }
//! ```
//!
//! [`raw::serve`] is the same connection for a synchronous
//! [`raw::Handler`] without the `http` types: no allocation per request.
//!
//! Both time the client ([`Config`]: a head is answered `408` when it
//! takes longer than `header_read_timeout`, a stalled body too, an idle
//! connection closes) and linger on close as RFC 9112 §9.6 asks.
//!
//! [`serve`] accepts on a TCP listener and serves each connection on a
//! task of its own, as `axum::serve` does (at most `max_connections` at
//! once), and shuts down gracefully: it stops accepting, lets each
//! connection answer what it has received, closes the idle ones, and ends
//! the rest after a grace period.
//!
//! A service can switch protocols: [`upgrade::on`] gives it the socket
//! once its `101` (or `2xx` to `CONNECT`) is written. With the `ws`
//! feature, `h1_tokio::ws` gives axum handlers the WebSocket extractor
//! that axum's own cannot be on h1-tokio.
//!
//! Under construction (issue 15; `DESIGN.md` beside this crate's
//! `Cargo.toml` says where it stands).
// `unsafe` is denied but in `trusted`, its one audited helper.
#![deny(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

mod arena;
#[cfg(feature = "axum")]
mod axum;
mod body;
mod config;
mod error;
mod names;
pub mod raw;
mod request;
mod response;
mod serve;
mod server;
mod service;
mod transport;
#[allow(unsafe_code)]
mod trusted;
pub mod upgrade;
#[cfg(feature = "ws")]
#[cfg_attr(docsrs, doc(cfg(feature = "ws")))]
pub mod ws;

pub use body::{Body, BodyError};
pub use config::Config;
pub use error::Error;
pub use request::RequestTarget;
pub use serve::{serve_connection, Connection};
pub use server::{serve, Incoming, Serve, ServeFuture, WithGracefulShutdown};
pub use service::{service_fn, ServiceFn};

/// The error type services and bodies may fail with.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;
