//! An HTTP/1.1 server for tokio that serves `http`/tower services, with
//! [`h1_conn`]'s protocol machine as its engine.
//!
//! - [`serve`] accepts on a `TcpListener` and serves each connection on a
//!   task of its own, shaped like `axum::serve` (with the `axum` feature it
//!   takes a `Router`, and `into_make_service_with_connect_info` for
//!   `ConnectInfo`), with at most [`max_connections`](Serve::max_connections)
//!   at once and a [graceful shutdown](Serve::with_graceful_shutdown).
//! - [`serve_connection`] serves one connection, on any `AsyncRead +
//!   AsyncWrite` (TLS, Unix sockets: your own accept loop), with a
//!   `tower_service::Service<http::Request<Body>>`. The [`Connection`] it
//!   returns is a future, and [`Connection::graceful_shutdown`] finishes it
//!   without cutting a response short.
//! - [`raw::serve`] serves one connection with a synchronous
//!   [`raw::Handler`] that sees views into the receive buffer instead of
//!   the `http` types: no allocation per request.
//! - [`upgrade::on`] hands a service the socket once its `101` (or `2xx`
//!   to `CONNECT`) is written; with the `ws` feature, `h1_tokio::ws` is
//!   axum's WebSocket extractor working on that switch.
//! - [`Config`] holds h1-conn's limits and the connection's timers.
//!
//! Each request is parsed and judged by h1-conn's strict defaults (a client
//! that breaks the protocol gets its `400`, `413`, `431`, ... from the
//! connection, which closes) and handed to the service as soon as its head
//! has arrived; its [`Body`] streams behind it with backpressure (one chunk
//! between the connection and the service), trailers included, and a
//! client waiting on `Expect: 100-continue` is invited when the service
//! first reads the body. Pipelined requests are read ahead (up to
//! `config.conn.max_unanswered`) and answered in order. Responses are framed
//! by h1-encode: `Content-Length` when the body's size is known, chunked
//! otherwise, trailers, `Date`. A head or body the client is too slow to
//! send is answered `408`, idle connections and clients that stop reading
//! are ended, and a closing connection lingers as RFC 9112 §9.6 asks. A
//! request whose target is not in origin form carries the target as sent
//! ([`RequestTarget`]) beside its `http::Uri`.
//!
//! ```no_run
//! use h1_tokio::{service_fn, Body};
//! use http::{Request, Response};
//!
//! #[tokio::main]
//! async fn main() -> std::io::Result<()> {
//!     let hello = service_fn(|req: Request<Body>| async move {
//!         let text = format!("Hello, {}!", req.uri().path());
//!         Ok::<_, std::convert::Infallible>(Response::new(text))
//!     });
//!     let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await?;
//!     h1_tokio::serve(listener, hello).await
//! }
//! ```
//!
//! An axum application changes one line (with the `axum` feature):
//!
//! ```text
//! - axum::serve(listener, app).await
//! + h1_tokio::serve(listener, app).await
//! ```
//!
//! # Features
//!
//! - `axum`: [`serve`] takes an axum `Router` or `MethodRouter`, and
//!   `into_make_service_with_connect_info::<SocketAddr>()`.
//! - `ws`: `h1_tokio::ws`, axum's `WebSocketUpgrade` for h1-tokio (axum's
//!   own answers `426` here: it waits for a socket only hyper hands over).
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

// The README's examples need the `axum` and `ws` features.
#[cfg(all(doctest, feature = "axum", feature = "ws"))]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
