//! `h1_tokio::ws`: an axum `Router` whose handlers take the WebSocket
//! extractor, served by `serve_connection` on 127.0.0.1, against
//! tokio-tungstenite's client.
#![cfg(feature = "ws")]

use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

use axum::response::Response;
use axum::routing::{any, get};
use axum::Router;
use futures_util::{SinkExt, StreamExt};
use h1_tokio::ws::{close_code, CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use h1_tokio::{serve_connection, Config};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{CloseCode, Data, OpCode};
use tokio_tungstenite::tungstenite::protocol::frame::Frame;
use tokio_tungstenite::tungstenite::{self as ts, Bytes};
use tokio_tungstenite::WebSocketStream;

/// Every wait in these tests is bounded by this.
const LIMIT: Duration = Duration::from_secs(10);

async fn timed<F: Future>(what: &str, f: F) -> F::Output {
    tokio::time::timeout(LIMIT, f)
        .await
        .unwrap_or_else(|_| panic!("timed out: {what}"))
}

/// The module docs' handler: echoes every message.
async fn echo(ws: WebSocketUpgrade) -> Response {
    ws.protocols(["chat"])
        .on_failed_upgrade(|e| eprintln!("{e}"))
        .on_upgrade(|mut socket: WebSocket| async move {
            while let Some(Ok(msg)) = socket.recv().await {
                if socket.send(msg).await.is_err() {
                    break;
                }
            }
        })
}

/// Says which subprotocol was selected, then closes with 1000.
async fn closing(ws: WebSocketUpgrade) -> Response {
    ws.protocols(["v2", "chat"])
        .on_upgrade(|mut socket: WebSocket| async move {
            let protocol = socket
                .protocol()
                .map(|p| p.to_str().unwrap().to_owned())
                .unwrap_or_else(|| String::from("none"));
            socket.send(Message::text(protocol)).await.unwrap();
            let close = CloseFrame {
                code: close_code::NORMAL,
                reason: Utf8Bytes::from_static("done"),
            };
            socket.send(Message::Close(Some(close))).await.unwrap();
            // The client's answer ends the handshake.
            while let Some(Ok(_)) = socket.recv().await {}
        })
}

/// The router, served on 127.0.0.1: an accept loop, a task per
/// connection. Failed upgrades go to `failed`.
async fn serve(failed: mpsc::UnboundedSender<String>) -> SocketAddr {
    let lost = move |ws: WebSocketUpgrade| async move {
        ws.on_failed_upgrade(move |e: axum::Error| {
            let _ = failed.send(e.to_string());
        })
        .on_upgrade(|_socket| async { panic!("no socket for a replaced 101") })
    };
    let app = Router::new()
        .route("/echo", any(echo))
        .route("/close", any(closing))
        // The handler's 101 is replaced on its way out: no switch.
        .route(
            "/lost",
            get(lost).layer(axum::middleware::map_response(|_res: Response| async {
                "replaced"
            })),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("address");
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            tokio::spawn(serve_connection(stream, app.clone(), Config::default()));
        }
    });
    addr
}

async fn server() -> SocketAddr {
    serve(mpsc::unbounded_channel().0).await
}

type Client = WebSocketStream<TcpStream>;

/// A WebSocket client on `path`, offering `protocols` when given.
async fn client(
    addr: SocketAddr,
    path: &str,
    protocols: Option<&str>,
) -> (Client, ts::handshake::client::Response) {
    let mut request = format!("ws://{addr}{path}").into_client_request().unwrap();
    if let Some(p) = protocols {
        request
            .headers_mut()
            .insert("sec-websocket-protocol", p.parse().unwrap());
    }
    let stream = timed("connect", TcpStream::connect(addr)).await.unwrap();
    timed(
        "handshake",
        tokio_tungstenite::client_async(request, stream),
    )
    .await
    .expect("handshake")
}

async fn next(ws: &mut Client) -> ts::Message {
    timed("a message", ws.next())
        .await
        .expect("a message, not the end")
        .expect("a message, not an error")
}

#[tokio::test]
async fn text_and_binary_messages_are_echoed() {
    let addr = server().await;
    let (mut ws, res) = client(addr, "/echo", None).await;
    assert_eq!(res.status(), 101);
    assert!(
        res.headers().get("sec-websocket-protocol").is_none(),
        "no protocol offered, none selected"
    );
    ws.send(ts::Message::text("héllo")).await.unwrap();
    assert_eq!(next(&mut ws).await, ts::Message::text("héllo"));
    let binary: Vec<u8> = (0..=255).collect();
    ws.send(ts::Message::binary(binary.clone())).await.unwrap();
    assert_eq!(next(&mut ws).await, ts::Message::binary(binary));
    // A larger one, in more than one read on the server.
    let big = "x".repeat(300_000);
    ws.send(ts::Message::text(big.clone())).await.unwrap();
    assert_eq!(next(&mut ws).await, ts::Message::text(big));
}

#[tokio::test]
async fn a_fragmented_message_comes_back_whole() {
    let addr = server().await;
    let (mut ws, _) = client(addr, "/echo", None).await;
    let parts = ["frag", "men", "ted"];
    for (i, part) in parts.iter().enumerate() {
        let opcode = if i == 0 { Data::Text } else { Data::Continue };
        let last = i == parts.len() - 1;
        let frame = Frame::message(Bytes::from(*part), OpCode::Data(opcode), last);
        ws.send(ts::Message::Frame(frame)).await.unwrap();
    }
    // The server's echo is of one message: one frame, the text whole.
    assert_eq!(next(&mut ws).await, ts::Message::text("fragmented"));
}

#[tokio::test]
async fn a_ping_is_answered_by_a_pong() {
    let addr = server().await;
    let (mut ws, _) = client(addr, "/echo", None).await;
    ws.send(ts::Message::Ping(Bytes::from_static(b"are you there")))
        .await
        .unwrap();
    // tungstenite's answer; the echo handler also gets the ping and sends
    // it back, which comes after.
    let pong = loop {
        match next(&mut ws).await {
            ts::Message::Pong(p) => break p,
            ts::Message::Ping(_) => continue,
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(&pong[..], b"are you there");
}

#[tokio::test]
async fn a_close_from_the_client_is_answered_with_its_code() {
    let addr = server().await;
    let (mut ws, _) = client(addr, "/echo", None).await;
    ws.send(ts::Message::text("before")).await.unwrap();
    assert_eq!(next(&mut ws).await, ts::Message::text("before"));
    ws.close(Some(ts::protocol::CloseFrame {
        code: CloseCode::Normal,
        reason: "bye".into(),
    }))
    .await
    .unwrap();
    match next(&mut ws).await {
        ts::Message::Close(Some(f)) => assert_eq!(u16::from(f.code), 1000),
        other => panic!("{other:?}"),
    }
    // Then the connection ends.
    assert!(timed("the end", ws.next()).await.is_none());
}

#[tokio::test]
async fn a_close_from_the_server_reaches_the_client() {
    let addr = server().await;
    let (mut ws, res) = client(addr, "/close", Some("x, chat")).await;
    assert_eq!(res.headers()["sec-websocket-protocol"], "chat");
    assert_eq!(next(&mut ws).await, ts::Message::text("chat"));
    match next(&mut ws).await {
        ts::Message::Close(Some(f)) => {
            assert_eq!(u16::from(f.code), 1000);
            assert_eq!(f.reason, "done");
        }
        other => panic!("{other:?}"),
    }
    // tungstenite answered the close; the stream then ends.
    assert!(timed("the end", ws.next()).await.is_none());
}

#[tokio::test]
async fn the_servers_preferred_protocol_among_the_clients_is_selected() {
    let addr = server().await;
    // The echo handler speaks "chat" only.
    let (_ws, res) = client(addr, "/echo", Some("x, chat")).await;
    assert_eq!(res.headers()["sec-websocket-protocol"], "chat");
    // `/close` prefers "v2" to "chat"; the client's order does not count.
    let (mut ws, res) = client(addr, "/close", Some("chat, v2")).await;
    assert_eq!(res.headers()["sec-websocket-protocol"], "v2");
    assert_eq!(next(&mut ws).await, ts::Message::text("v2"));
    // Offered in two fields (a raw handshake: tungstenite's client reads
    // only the first).
    let req = format!(
        "GET /close HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: a\r\n\
         Sec-WebSocket-Protocol: b , chat\r\n{KEY}\r\n"
    );
    let (head, mut stream) = switch(addr, req.as_bytes()).await;
    assert!(head.starts_with("http/1.1 101 "), "{head}");
    assert!(
        head.contains("\r\nsec-websocket-protocol: chat\r\n"),
        "{head}"
    );
    let mut frame = [0u8; 6];
    timed("a frame", stream.read_exact(&mut frame))
        .await
        .unwrap();
    assert_eq!(&frame, b"\x81\x04chat");
}

#[tokio::test]
async fn no_protocol_is_named_when_the_client_offers_none_the_server_speaks() {
    // tungstenite's client fails such a handshake: a raw one.
    let addr = server().await;
    let req = format!(
        "GET /close HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: a, b\r\n{KEY}\r\n"
    );
    let (head, mut stream) = switch(addr, req.as_bytes()).await;
    assert!(head.starts_with("http/1.1 101 "), "{head}");
    assert!(!head.contains("sec-websocket-protocol"), "{head}");
    // The server's first frame: unmasked text "none".
    let mut frame = [0u8; 6];
    timed("a frame", stream.read_exact(&mut frame))
        .await
        .unwrap();
    assert_eq!(&frame, b"\x81\x04none");
}

/// Sends `request` on a new connection; the response's head, lowercase,
/// read byte by byte so that what follows is left on the stream.
async fn switch(addr: SocketAddr, request: &[u8]) -> (String, TcpStream) {
    let mut stream = timed("connect", TcpStream::connect(addr)).await.unwrap();
    stream.write_all(request).await.unwrap();
    let mut got = Vec::new();
    while !got.ends_with(b"\r\n\r\n") {
        let mut b = [0u8; 1];
        timed("response", stream.read_exact(&mut b)).await.unwrap();
        got.push(b[0]);
    }
    (String::from_utf8(got).unwrap().to_ascii_lowercase(), stream)
}

#[tokio::test]
async fn a_frame_sent_with_the_handshake_is_not_lost() {
    let addr = server().await;
    // The handshake and a masked text frame "hi" in one write: the frame
    // reaches h1-tokio with the request, before the switch.
    let mut bytes = format!(
        "GET /echo HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 13\r\n{KEY}\r\n"
    )
    .into_bytes();
    let mask = [1u8, 2, 3, 4];
    bytes.extend_from_slice(&[0x81, 0x80 | 2]);
    bytes.extend_from_slice(&mask);
    bytes.extend(b"hi".iter().zip(mask).map(|(b, m)| b ^ m));
    let (head, mut stream) = switch(addr, &bytes).await;
    assert!(head.starts_with("http/1.1 101 "), "{head}");
    let mut frame = [0u8; 4];
    timed("the echo", stream.read_exact(&mut frame))
        .await
        .unwrap();
    assert_eq!(&frame, b"\x81\x02hi");
}

/// Sends `request` on a new connection; the response's status line and
/// body (by its `Content-Length`).
async fn exchange(addr: SocketAddr, request: &str) -> (String, String) {
    let mut stream = timed("connect", TcpStream::connect(addr)).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut got = Vec::new();
    let head_end = loop {
        if let Some(i) = got.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let mut buf = [0u8; 1024];
        let n = timed("response", stream.read(&mut buf)).await.unwrap();
        assert!(n > 0, "the connection ended early: {got:?}");
        got.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8(got[..head_end].to_vec()).unwrap();
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().unwrap())
        })
        .unwrap_or(0);
    while got.len() < head_end + length {
        let mut buf = [0u8; 1024];
        let n = timed("body", stream.read(&mut buf)).await.unwrap();
        assert!(n > 0, "the body ended early");
        got.extend_from_slice(&buf[..n]);
    }
    let status = head.lines().next().unwrap().to_owned();
    let body = String::from_utf8(got[head_end..head_end + length].to_vec()).unwrap();
    (status, body)
}

const KEY: &str = "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";

#[tokio::test]
async fn the_handshake_is_signed_as_rfc_6455_shows() {
    let addr = server().await;
    let req = format!(
        "GET /echo HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\nUpgrade: WebSocket\r\n\
         Sec-WebSocket-Version: 13\r\n{KEY}\r\n"
    );
    let (head, _stream) = switch(addr, req.as_bytes()).await;
    assert!(
        head.starts_with("http/1.1 101 switching protocols\r\n"),
        "{head}"
    );
    // RFC 6455 §1.3's example key and its answer.
    assert!(
        head.contains("\r\nsec-websocket-accept: s3pplmbitxaq9kygzzhzrbk+xoo=\r\n"),
        "{head}"
    );
    assert!(head.contains("\r\nupgrade: websocket\r\n"), "{head}");
    assert!(head.contains("\r\nconnection: upgrade\r\n"), "{head}");
}

#[tokio::test]
async fn a_request_without_its_key_gets_400() {
    let addr = server().await;
    let req = "GET /echo HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\
               Sec-WebSocket-Version: 13\r\n\r\n";
    let (status, body) = exchange(addr, req).await;
    assert!(status.starts_with("HTTP/1.1 400 "), "{status}");
    assert_eq!(body, "`Sec-WebSocket-Key` header missing");
}

#[tokio::test]
async fn a_wrong_version_gets_400() {
    let addr = server().await;
    let req = format!(
        "GET /echo HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 8\r\n{KEY}\r\n"
    );
    let (status, body) = exchange(addr, &req).await;
    assert!(status.starts_with("HTTP/1.1 400 "), "{status}");
    assert_eq!(body, "`Sec-WebSocket-Version` header did not include '13'");
}

#[tokio::test]
async fn a_post_gets_405() {
    let addr = server().await;
    let req = format!(
        "POST /echo HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 13\r\n{KEY}Content-Length: 0\r\n\r\n"
    );
    let (status, body) = exchange(addr, &req).await;
    assert!(status.starts_with("HTTP/1.1 405 "), "{status}");
    assert_eq!(body, "Request method must be `GET`");
}

#[tokio::test]
async fn a_plain_get_gets_400_for_its_connection_field() {
    let addr = server().await;
    let (status, body) = exchange(addr, "GET /echo HTTP/1.1\r\nHost: a\r\n\r\n").await;
    assert!(status.starts_with("HTTP/1.1 400 "), "{status}");
    assert_eq!(body, "Connection header did not include 'upgrade'");
    // Asking to upgrade, but not to a WebSocket.
    let req = "GET /echo HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: h2c\r\n\r\n";
    let (status, body) = exchange(addr, req).await;
    assert!(status.starts_with("HTTP/1.1 400 "), "{status}");
    assert_eq!(body, "`Upgrade` header did not include 'websocket'");
}

#[tokio::test]
async fn a_request_that_cannot_switch_gets_426() {
    let addr = server().await;
    // HTTP/1.0 cannot upgrade (RFC 9110 §7.8): h1-tokio offers no switch.
    let req = format!(
        "GET /echo HTTP/1.0\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 13\r\n{KEY}\r\n"
    );
    let (status, body) = exchange(addr, &req).await;
    assert!(status.starts_with("HTTP/1.1 426 "), "{status}");
    assert_eq!(
        body,
        "WebSocket request couldn't be upgraded since no upgrade state was present"
    );
}

#[tokio::test]
async fn a_replaced_101_is_reported_as_a_failed_upgrade() {
    let (failed, mut failures) = mpsc::unbounded_channel();
    let addr = serve(failed).await;
    let req = format!(
        "GET /lost HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 13\r\n{KEY}\r\n"
    );
    let (status, body) = exchange(addr, &req).await;
    assert!(status.starts_with("HTTP/1.1 200 "), "{status}");
    assert_eq!(body, "replaced");
    let error = timed("the failure", failures.recv())
        .await
        .expect("reported");
    assert_eq!(error, "the connection did not switch protocols");
}
