//! [`axum_pair::app`] served by h1-tokio as an axum user switches to it:
//! `h1_tokio::serve(listener, app)` in place of `axum::serve` (each
//! accepted connection on a task of its own, `TCP_NODELAY` set, the Router
//! cloned for it and served by `serve_connection`), on a tokio
//! current-thread runtime: the same runtime as `axum-hyper`, h1-tokio
//! instead of hyper underneath.
//!
//! ```text
//! cargo run --release --bin axum-h1 -- --addr 127.0.0.1:0   # prints "listening on ADDR"
//! ```

use axum_pair::{addr_arg, app, BoxError};
use tokio::net::TcpListener;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), BoxError> {
    let addr = addr_arg()?;
    let listener = TcpListener::bind(addr).await?;
    println!("listening on {}", listener.local_addr()?);
    h1_tokio::serve(listener, app()).await?;
    Ok(())
}
