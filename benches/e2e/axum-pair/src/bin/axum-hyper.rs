//! The pair's baseline: [`axum_pair::app`] served by hyper 1.x's `http1`
//! connection on a tokio current-thread runtime, a task per connection, the
//! Router wrapped in hyper-util's `TowerToHyperService` as `axum::serve`
//! wraps it. hyper at its best for this load: `pipeline_flush` on (it
//! flushes a batch of pipelined answers together) and `TCP_NODELAY` on the
//! accepted socket.
//!
//! ```text
//! cargo run --release --bin axum-hyper -- --addr 127.0.0.1:0   # prints "listening on ADDR"
//! ```

use axum_pair::{addr_arg, app, BoxError};
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
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
        let service = TowerToHyperService::new(router.clone());
        tokio::spawn(async move {
            let conn = http1::Builder::new()
                .pipeline_flush(true)
                .serve_connection(TokioIo::new(stream), service);
            if let Err(e) = conn.await {
                eprintln!("connection: {e}");
            }
        });
    }
}
