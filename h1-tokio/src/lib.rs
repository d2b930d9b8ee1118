//! HTTP/1.1 on tokio with [`h1_conn`] as the engine, for services written
//! with the `http` types.
//!
//! Under construction: this step holds the request [`Body`], which streams
//! a request's body from the connection to the service with backpressure
//! (one chunk in flight, never the whole body buffered), its trailers, and
//! the signal that the service has started reading it (when a waiting
//! `Expect: 100-continue` client is told to send). The connection driver
//! that serves a `tower_service::Service` over any `AsyncRead +
//! AsyncWrite` comes next; `DESIGN.md` beside this crate's `Cargo.toml`
//! holds the plan (how hyper does it, and the driver on h1-conn's API).
#![forbid(unsafe_code)]
#![deny(missing_docs)]
// The connection driver, the one user of the body channel and the request
// conversion, is the next step of this crate (issue 15); until it lands,
// only their tests use them.
#![allow(dead_code)]

mod body;
mod request;

pub use body::{Body, BodyError};
