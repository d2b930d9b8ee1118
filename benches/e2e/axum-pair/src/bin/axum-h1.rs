//! [`axum_pair::app`] served by h1-tokio's `serve_connection` (the Router as
//! a tower service over `http::Request<h1_tokio::Body>`) on a tokio
//! current-thread runtime, a task per connection, `TCP_NODELAY` on the
//! accepted socket: the same loop as `axum-hyper`, h1-tokio instead of hyper
//! underneath.
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
        let service = router.clone();
        tokio::spawn(async move {
            let conn = h1_tokio::serve_connection(stream, service, h1_tokio::Config::default());
            if let Err(e) = conn.await {
                if !e.is_io() {
                    eprintln!("connection: {e}");
                }
            }
        });
    }
}
