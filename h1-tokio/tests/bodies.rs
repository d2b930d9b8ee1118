//! Request bodies past h1-conn's own default limit: the driver streams
//! them to the service, which decides; a limit set in the config is still
//! answered `413` before the service sees the request.

use std::convert::Infallible;
use std::time::Duration;

use bytes::Bytes;
use h1_tokio::{serve_connection, service_fn, Body, Config};
use http::{Request, Response};
use http_body_util::{BodyExt, Full};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Answers with the number of body bytes it read.
async fn count(req: Request<Body>) -> Result<Response<Full<Bytes>>, Infallible> {
    let mut body = req.into_body();
    let mut n = 0usize;
    while let Some(frame) = body.frame().await {
        match frame {
            Ok(f) => n += f.data_ref().map_or(0, Bytes::len),
            Err(e) => return Ok(Response::new(Full::new(Bytes::from(format!("error {e}"))))),
        }
    }
    Ok(Response::new(Full::new(Bytes::from(n.to_string()))))
}

/// Sends a request with a `len`-byte body (`Content-Length`, or chunked
/// in 64 KiB chunks) and returns the answer.
async fn upload(config: Config, len: usize, chunked: bool) -> String {
    let (client, server) = tokio::io::duplex(256 * 1024);
    let served = tokio::spawn(serve_connection(server, service_fn(count), config));
    let writer = tokio::spawn(async move {
        let framing = if chunked {
            String::from("Transfer-Encoding: chunked")
        } else {
            format!("Content-Length: {len}")
        };
        let head = format!("POST /up HTTP/1.1\r\nHost: a\r\n{framing}\r\n\r\n");
        let (mut rx, mut tx) = tokio::io::split(client);
        tx.write_all(head.as_bytes()).await?;
        let piece = vec![b'x'; 64 * 1024];
        let mut left = len;
        while left > 0 {
            let n = left.min(piece.len());
            if chunked {
                tx.write_all(format!("{n:x}\r\n").as_bytes()).await?;
            }
            tx.write_all(&piece[..n]).await?;
            if chunked {
                tx.write_all(b"\r\n").await?;
            }
            left -= n;
        }
        if chunked {
            tx.write_all(b"0\r\n\r\n").await?;
        }
        tx.shutdown().await?;
        let mut out = Vec::new();
        rx.read_to_end(&mut out).await?;
        Ok::<_, std::io::Error>(String::from_utf8_lossy(&out).into_owned())
    });
    // A refusal closes the connection before the body is sent, which may
    // break the writer's pipe: what it read is what matters.
    let got = tokio::time::timeout(Duration::from_secs(60), writer)
        .await
        .expect("answered in time")
        .unwrap();
    served.await.unwrap().expect("served");
    got.unwrap_or_else(|e| format!("writer failed: {e}"))
}

#[tokio::test]
async fn a_body_past_h1_conns_default_limit_streams_to_the_service() {
    let len = (9 << 20) + 7;
    for chunked in [false, true] {
        let got = upload(Config::default(), len, chunked).await;
        assert!(got.starts_with("HTTP/1.1 200 OK\r\n"), "{got}");
        assert!(
            got.ends_with(&format!("\r\n\r\n{len}")),
            "chunked {chunked}: {got}"
        );
    }
}

#[tokio::test]
async fn a_body_limit_set_in_the_config_is_answered_413_before_the_service() {
    let mut config = Config::default();
    config.conn.max_body_len = 1 << 20;
    let got = upload(config, (1 << 20) + 1, false).await;
    assert!(got.starts_with("HTTP/1.1 413 "), "{got}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fast_upload_is_read_in_pieces_larger_than_the_first_read() {
    // The service notes the largest chunk it was handed.
    let largest = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = std::sync::Arc::clone(&largest);
    let service = service_fn(move |req: Request<Body>| {
        let seen = std::sync::Arc::clone(&seen);
        async move {
            let mut body = req.into_body();
            let mut n = 0usize;
            while let Some(Ok(frame)) = body.frame().await {
                let len = frame.data_ref().map_or(0, Bytes::len);
                seen.fetch_max(len, std::sync::atomic::Ordering::SeqCst);
                n += len;
            }
            Ok::<_, Infallible>(Response::new(Full::new(Bytes::from(n.to_string()))))
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        let (stream, _) = listener.accept().await.unwrap();
        serve_connection(stream, service, Config::default()).await
    });
    let len = 16 << 20;
    let mut client = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!("POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: {len}\r\n\r\n");
    client.write_all(head.as_bytes()).await.unwrap();
    let piece = vec![b'x'; 256 * 1024];
    for _ in 0..len / piece.len() {
        client.write_all(&piece).await.unwrap();
    }
    let mut answer = vec![0u8; 1024];
    let n = tokio::time::timeout(Duration::from_secs(30), client.read(&mut answer))
        .await
        .expect("answered")
        .unwrap();
    let answer = String::from_utf8_lossy(&answer[..n]);
    assert!(answer.ends_with(&format!("\r\n\r\n{len}")), "{answer}");
    let largest = largest.load(std::sync::atomic::Ordering::SeqCst);
    // The first reads are lent the configured 8 KiB; a client that fills
    // them is read in larger pieces.
    assert!(largest > 8 * 1024, "largest chunk {largest} bytes");
    drop(client);
    server.await.unwrap().expect("served");
}
