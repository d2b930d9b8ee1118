//! The floor under a tokio server: `floor-hello`'s work (each request found
//! by its CR LF CR LF and answered with the same bytes, no HTTP) in the
//! shape of `tokio-hello` and hyper's hello: a current-thread runtime, a
//! task per connection, reads and writes through tokio's `TcpStream`. The
//! instructions a request costs here are what tokio's readiness,
//! scheduling and socket calls take, under any server on it;
//! `benches/e2e/callgrind.sh` counts it as `tokio-floor`.
//!
//! ```text
//! cargo run --release --bin tokio-floor -- --addr 127.0.0.1:0
//! ```

#[path = "../../../../../h1-conn/examples/common/listen.rs"]
mod listen;

use memchr::memmem::Finder;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The bytes `tokio-hello` sends for `GET /plaintext`, with a fixed date.
const ANSWER: &[u8] = b"HTTP/1.1 200 OK\r\nServer: h1\r\nContent-Type: text/plain\r\n\
Content-Length: 13\r\nDate: Thu, 03 Dec 2026 16:00:00 GMT\r\n\r\nHello, World!";

fn main() -> std::io::Result<()> {
    let listener = listen::listen("tokio-floor");
    listener.set_nonblocking(true)?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let listener = tokio::net::TcpListener::from_std(listener)?;
        loop {
            let (stream, _) = listener.accept().await?;
            stream.set_nodelay(true)?;
            tokio::spawn(serve(stream));
        }
    })
}

/// Reads and answers until the client closes.
async fn serve(mut stream: TcpStream) {
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
