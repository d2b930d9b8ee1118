//! Protocol switches: a `101` to a request that asked to upgrade, a `2xx`
//! to `CONNECT`, and the socket handed to the service with the bytes the
//! client sent after its request.

use std::convert::Infallible;
use std::time::Duration;

use h1_tokio::{serve_connection, service_fn, upgrade, Body, Config};
use http::{Method, Request, Response, StatusCode};
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};

/// Switches every request that can (`Upgrade: echo` gets a 101, `CONNECT`
/// a 200) to an echo of what the client sends; others get a 200 "plain".
async fn echo(mut req: Request<Body>) -> Result<Response<String>, Infallible> {
    let on = upgrade::on(&mut req);
    let mut res = Response::new(String::new());
    if req.method() == Method::CONNECT {
        *res.status_mut() = StatusCode::OK;
    } else if req.headers().contains_key("upgrade") {
        *res.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
        res.headers_mut().insert("upgrade", "echo".parse().unwrap());
    } else {
        assert!(on.await.is_err(), "no switch for a plain request");
        return Ok(Response::new(String::from("plain")));
    }
    tokio::spawn(async move {
        let mut io = on.await.expect("switched");
        let mut buf = [0u8; 256];
        loop {
            match io.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => io.write_all(&buf[..n]).await.unwrap(),
            }
        }
    });
    Ok(res)
}

fn connect() -> (
    DuplexStream,
    tokio::task::JoinHandle<Result<(), h1_tokio::Error>>,
) {
    let (client, server) = tokio::io::duplex(4096);
    (
        client,
        tokio::spawn(serve_connection(
            server,
            service_fn(echo),
            Config::default(),
        )),
    )
}

/// Reads a response head, byte by byte so that nothing after it is
/// taken.
async fn read_head(client: &mut DuplexStream) -> String {
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let mut b = [0u8; 1];
        client.read_exact(&mut b).await.unwrap();
        head.push(b[0]);
    }
    String::from_utf8_lossy(&head).into_owned()
}

/// Reads `len` bytes.
async fn read_exact_str(client: &mut DuplexStream, len: usize) -> String {
    let mut buf = vec![0u8; len];
    tokio::time::timeout(Duration::from_secs(5), client.read_exact(&mut buf))
        .await
        .expect("in time")
        .unwrap();
    String::from_utf8_lossy(&buf).into_owned()
}

#[tokio::test]
async fn a_101_hands_the_socket_over_with_the_bytes_sent_after_the_request() {
    let (mut client, served) = connect();
    client
        .write_all(
            b"GET /chat HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: echo\r\n\r\nearly",
        )
        .await
        .unwrap();
    let head = read_head(&mut client).await;
    assert!(
        head.starts_with("HTTP/1.1 101 Switching Protocols\r\n"),
        "{head}"
    );
    let rest = head.to_ascii_lowercase();
    assert!(
        rest.contains("upgrade: echo\r\n") && rest.contains("connection: upgrade\r\n"),
        "{rest}"
    );
    assert_eq!(
        read_exact_str(&mut client, 5).await,
        "early",
        "the bytes after the request"
    );
    client.write_all(b"later").await.unwrap();
    assert_eq!(read_exact_str(&mut client, 5).await, "later");
    served
        .await
        .unwrap()
        .expect("the connection ends as it hands over");
}

#[tokio::test]
async fn a_2xx_to_connect_opens_a_tunnel() {
    let (mut client, served) = connect();
    client
        .write_all(b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
        .await
        .unwrap();
    let head = read_head(&mut client).await;
    assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
    assert!(
        !head.to_ascii_lowercase().contains("content-length"),
        "{head}"
    );
    client.write_all(b"\x16\x03\x01 tunnelled").await.unwrap();
    assert_eq!(
        read_exact_str(&mut client, 13).await,
        "\u{16}\u{3}\u{1} tunnelled"
    );
    served.await.unwrap().expect("handed over");
}

#[tokio::test]
async fn a_request_that_cannot_switch_gets_no_socket_and_the_connection_goes_on() {
    let (mut client, served) = connect();
    client
        .write_all(b"GET / HTTP/1.1\r\nHost: a\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    client.shutdown().await.unwrap();
    let mut out = Vec::new();
    client.read_to_end(&mut out).await.unwrap();
    let out = String::from_utf8_lossy(&out);
    assert_eq!(out.matches("\r\n\r\nplain").count(), 2, "{out}");
    served.await.unwrap().expect("served");
}

#[tokio::test]
async fn a_101_to_a_request_that_asked_for_no_upgrade_is_refused() {
    let service = service_fn(|_req: Request<Body>| async {
        let mut res = Response::new(String::new());
        *res.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
        Ok::<_, Infallible>(res)
    });
    let (mut client, server) = tokio::io::duplex(4096);
    let served = tokio::spawn(serve_connection(server, service, Config::default()));
    client
        .write_all(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        .await
        .unwrap();
    client.shutdown().await.unwrap();
    let mut out = Vec::new();
    client.read_to_end(&mut out).await.unwrap();
    let out = String::from_utf8_lossy(&out);
    assert!(out.starts_with("HTTP/1.1 500 "), "{out}");
    served.await.unwrap().expect("served");
}
