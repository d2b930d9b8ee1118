//! WebSockets for axum handlers served by h1-tokio: a [`WebSocketUpgrade`]
//! extractor with the API of axum's own (`axum::extract::ws`), which
//! answers `426` on h1-tokio because it waits for a switch only hyper can
//! hand over.
//!
//! Switching a handler over takes its imports, nothing else:
//!
//! ```text
//! - use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
//! + use h1_tokio::ws::{Message, WebSocket, WebSocketUpgrade};
//! ```
//!
//! The messages are axum's own ([`Message`], [`CloseFrame`],
//! [`Utf8Bytes`], [`close_code`] are re-exported from
//! `axum::extract::ws`), and so are the rejections ([`rejection`]) and
//! the error type (`axum::Error`): code that builds or matches them is
//! unchanged. The protocol underneath is tokio-tungstenite's, the one axum
//! uses: it answers pings, closes with the close handshake and joins
//! fragmented messages.
//!
//! ```no_run
//! use axum::{response::Response, routing::any, Router};
//! use h1_tokio::ws::{Message, WebSocket, WebSocketUpgrade};
//! use h1_tokio::{serve_connection, Config};
//!
//! async fn handler(ws: WebSocketUpgrade) -> Response {
//!     ws.protocols(["chat"])
//!         .on_failed_upgrade(|e| eprintln!("upgrade: {e}"))
//!         .on_upgrade(|mut socket: WebSocket| async move {
//!             while let Some(Ok(msg)) = socket.recv().await {
//!                 if let Message::Close(_) = msg {
//!                     break;
//!                 }
//!                 if socket.send(msg).await.is_err() {
//!                     break;
//!                 }
//!             }
//!         })
//! }
//!
//! # async fn run() -> std::io::Result<()> {
//! let app = Router::new().route("/ws", any(handler));
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! loop {
//!     let (stream, _) = listener.accept().await?;
//!     tokio::spawn(serve_connection(stream, app.clone(), Config::default()));
//! }
//! # }
//! ```
//!
//! The extractor asks for a WebSocket opening handshake (RFC 6455 §4.2.1)
//! on HTTP/1.1: a `GET`, `Connection` with the `upgrade` option, `Upgrade:
//! websocket`, `Sec-WebSocket-Version: 13` and a `Sec-WebSocket-Key`. A
//! request without them is rejected as axum rejects it: `405` for another
//! method, `400` for a missing or wrong field, `426` when the connection
//! cannot switch (an HTTP/1.0 request, or one not served by h1-tokio).
//! [`WebSocketUpgrade::on_upgrade`] answers `101`, and the callback gets
//! the [`WebSocket`] once h1-tokio has written that answer and handed the
//! socket over ([`crate::upgrade`]), with whatever the client sent after
//! its request.
//!
//! Text crosses between axum's [`Utf8Bytes`] and tungstenite's without a
//! copy, but neither crate offers a safe conversion that skips the UTF-8
//! check, so each text message and close reason is checked once more as it
//! crosses (a scan of its bytes).

use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use axum::body::{Body, Bytes};
use axum::extract::FromRequestParts;
use axum::response::Response;
use axum::Error;
use futures_util::sink::{Sink, SinkExt};
use futures_util::stream::{FusedStream, Stream, StreamExt};
use http::header::{self, HeaderMap, HeaderName, HeaderValue};
use http::request::Parts;
use http::{Method, StatusCode};
use tokio_tungstenite::tungstenite as ts;
use tokio_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};
use tokio_tungstenite::WebSocketStream;

use self::rejection::{
    ConnectionNotUpgradable, InvalidConnectionHeader, InvalidUpgradeHeader,
    InvalidWebSocketVersionHeader, MethodNotGet, WebSocketKeyHeaderMissing,
    WebSocketUpgradeRejection,
};
use crate::upgrade::{self, OnUpgrade, Upgraded};

pub use axum::extract::ws::{
    close_code, rejection, CloseCode, CloseFrame, Message, OnFailedUpgrade, Utf8Bytes,
};

/// Extractor for a WebSocket opening handshake, as axum's
/// `WebSocketUpgrade`, for requests served by h1-tokio.
///
/// The handler configures the connection and ends with
/// [`on_upgrade`](Self::on_upgrade), whose `101` response it returns. Use
/// it with `axum::routing::any` or `get`: only a `GET` can open a
/// WebSocket on HTTP/1.1.
///
/// See the [module docs](self) for an example.
#[must_use]
pub struct WebSocketUpgrade<F = DefaultOnFailedUpgrade> {
    config: WebSocketConfig,
    /// The subprotocol the `101` names, if any.
    protocol: Option<HeaderValue>,
    /// The client's `Sec-WebSocket-Key`, which the answer signs.
    key: HeaderValue,
    /// The socket, once h1-tokio has written the `101`.
    on_upgrade: OnUpgrade,
    on_failed_upgrade: F,
    /// The subprotocols the client offers, in its order.
    requested: Vec<HeaderValue>,
}

impl<F> fmt::Debug for WebSocketUpgrade<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WebSocketUpgrade")
            .field("config", &self.config)
            .field("protocol", &self.protocol)
            .field("key", &self.key)
            .field("requested", &self.requested)
            .finish_non_exhaustive()
    }
}

impl<F> WebSocketUpgrade<F> {
    /// How much the socket reads at once; 128 KiB unless set.
    pub fn read_buffer_size(mut self, size: usize) -> Self {
        self.config.read_buffer_size = size;
        self
    }

    /// How many bytes of outgoing frames gather before they are written to
    /// the socket; 128 KiB unless set, `0` writes each message at once.
    /// Flushing (`SinkExt::flush`, or [`WebSocket::send`], which flushes)
    /// writes them whatever their size.
    pub fn write_buffer_size(mut self, size: usize) -> Self {
        self.config.write_buffer_size = size;
        self
    }

    /// The most the outgoing buffer may hold before sending fails, which
    /// only happens while writes to the socket fail; unlimited unless set.
    /// Keep it above [`write_buffer_size`](Self::write_buffer_size) plus a
    /// message.
    pub fn max_write_buffer_size(mut self, max: usize) -> Self {
        self.config.max_write_buffer_size = max;
        self
    }

    /// The largest message accepted, in bytes, once its fragments are
    /// joined; 64 MiB unless set.
    pub fn max_message_size(mut self, max: usize) -> Self {
        self.config.max_message_size = Some(max);
        self
    }

    /// The largest frame accepted, in bytes; 16 MiB unless set.
    pub fn max_frame_size(mut self, max: usize) -> Self {
        self.config.max_frame_size = Some(max);
        self
    }

    /// Whether frames the client sent unmasked are accepted (RFC 6455
    /// §5.1 forbids them); `false` unless set.
    pub fn accept_unmasked_frames(mut self, accept: bool) -> Self {
        self.config.accept_unmasked_frames = accept;
        self
    }

    /// The subprotocols the server speaks, the preferred first: the first
    /// of them the client offered (`Sec-WebSocket-Protocol`) is selected
    /// and named in the `101`; none when the client offered none of them.
    /// Replaces any earlier selection.
    pub fn protocols<I>(mut self, protocols: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<Cow<'static, str>>,
    {
        let requested = &self.requested;
        self.protocol = protocols.into_iter().map(Into::into).find_map(|p| {
            requested
                .iter()
                .any(|r| r.as_bytes() == p.as_bytes())
                .then(|| match p {
                    Cow::Borrowed(s) => HeaderValue::from_str(s).ok(),
                    Cow::Owned(s) => HeaderValue::try_from(s).ok(),
                })
                .flatten()
        });
        self
    }

    /// The subprotocols the client offers, in the order of its
    /// `Sec-WebSocket-Protocol` fields (`soap, wamp` gives `soap`, then
    /// `wamp`).
    pub fn requested_protocols(&self) -> impl Iterator<Item = &HeaderValue> {
        self.requested.iter()
    }

    /// Selects `protocol` as the subprotocol the `101` names, replacing any
    /// earlier selection (by this or [`protocols`](Self::protocols)). RFC
    /// 6455 §4.2.2 wants one the client offered, and browsers fail the
    /// connection otherwise.
    pub fn set_selected_protocol(&mut self, protocol: HeaderValue) {
        self.protocol = Some(protocol);
    }

    /// The subprotocol the `101` will name, if one is selected.
    pub fn selected_protocol(&self) -> Option<&HeaderValue> {
        self.protocol.as_ref()
    }

    /// Calls `callback` with the error when the switch fails after all
    /// (the `101` was replaced by another answer, or the connection ended
    /// before it was written). Errors are ignored unless set.
    pub fn on_failed_upgrade<C>(self, callback: C) -> WebSocketUpgrade<C>
    where
        C: OnFailedUpgrade,
    {
        WebSocketUpgrade {
            config: self.config,
            protocol: self.protocol,
            key: self.key,
            on_upgrade: self.on_upgrade,
            on_failed_upgrade: callback,
            requested: self.requested,
        }
    }

    /// The `101 Switching Protocols` answer, which the handler returns;
    /// once h1-tokio has written it, `callback` runs on a task of its own
    /// with the [`WebSocket`].
    #[must_use = "the connection switches only when this response is returned"]
    pub fn on_upgrade<C, Fut>(self, callback: C) -> Response
    where
        C: FnOnce(WebSocket) -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
        F: OnFailedUpgrade,
    {
        let WebSocketUpgrade {
            config,
            protocol,
            key,
            on_upgrade,
            on_failed_upgrade,
            requested: _,
        } = self;
        let accept = ts::handshake::derive_accept_key(key.as_bytes());
        let accept = HeaderValue::try_from(accept).expect("base64 is a valid field value");

        let mut response = Response::new(Body::empty());
        *response.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
        let headers = response.headers_mut();
        headers.insert(header::CONNECTION, HeaderValue::from_static("upgrade"));
        headers.insert(header::UPGRADE, HeaderValue::from_static("websocket"));
        headers.insert(header::SEC_WEBSOCKET_ACCEPT, accept);
        if let Some(p) = &protocol {
            headers.insert(header::SEC_WEBSOCKET_PROTOCOL, p.clone());
        }

        tokio::spawn(async move {
            let io = match on_upgrade.await {
                Ok(io) => io,
                Err(e) => return on_failed_upgrade.call(Error::new(e)),
            };
            let inner = WebSocketStream::from_raw_socket(io, Role::Server, Some(config)).await;
            callback(WebSocket {
                inner,
                protocol,
                close: None,
            })
            .await;
        });
        response
    }
}

/// What [`WebSocketUpgrade`] does with a failed switch unless told
/// otherwise: nothing.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, Default)]
pub struct DefaultOnFailedUpgrade;

impl OnFailedUpgrade for DefaultOnFailedUpgrade {
    fn call(self, _error: Error) {}
}

impl<S> FromRequestParts<S> for WebSocketUpgrade<DefaultOnFailedUpgrade>
where
    S: Send + Sync,
{
    type Rejection = WebSocketUpgradeRejection;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        if parts.method != Method::GET {
            return Err(MethodNotGet::default().into());
        }
        if !has_token(&parts.headers, header::CONNECTION, "upgrade") {
            return Err(InvalidConnectionHeader::default().into());
        }
        if !has_token(&parts.headers, header::UPGRADE, "websocket") {
            return Err(InvalidUpgradeHeader::default().into());
        }
        // RFC 6455 §4.2.1, §11.3.1: one key, the base64 of 16 bytes; a
        // handshake without it is refused (400) as one without a key.
        let mut keys = parts.headers.get_all(header::SEC_WEBSOCKET_KEY).iter();
        let (Some(key), None) = (keys.next(), keys.next()) else {
            return Err(WebSocketKeyHeaderMissing::default().into());
        };
        if !is_key(key.as_bytes()) {
            return Err(WebSocketKeyHeaderMissing::default().into());
        }
        let key = key.clone();
        let version = parts.headers.get(header::SEC_WEBSOCKET_VERSION);
        if version.map(|v| v.as_bytes().trim_ascii()) != Some(b"13") {
            return Err(InvalidWebSocketVersionHeader::default().into());
        }
        // h1-tokio puts the switch in the extensions of a request that can
        // switch: HTTP/1.1 with `Upgrade` and `Connection: upgrade`.
        if parts.extensions.get::<upgrade::Pending>().is_none() {
            return Err(ConnectionNotUpgradable::default().into());
        }
        let on_upgrade = upgrade::on_parts(parts);
        let requested = parts
            .headers
            .get_all(header::SEC_WEBSOCKET_PROTOCOL)
            .iter()
            .flat_map(|v| v.as_bytes().split(|&b| b == b','))
            .map(<[u8]>::trim_ascii)
            .filter(|p| !p.is_empty())
            .filter_map(|p| HeaderValue::from_bytes(p).ok())
            .collect();
        Ok(WebSocketUpgrade {
            config: WebSocketConfig::default(),
            protocol: None,
            key,
            on_upgrade,
            on_failed_upgrade: DefaultOnFailedUpgrade,
            requested,
        })
    }
}

/// Whether a `name` field's comma-separated list has `token`, ignoring
/// case.
fn has_token(headers: &HeaderMap, name: HeaderName, token: &str) -> bool {
    headers.get_all(name).iter().any(|v| {
        v.as_bytes()
            .split(|&b| b == b',')
            .any(|t| t.trim_ascii().eq_ignore_ascii_case(token.as_bytes()))
    })
}

/// A WebSocket connection, as axum's `WebSocket`: messages in with
/// [`recv`](Self::recv) (or as a [`Stream`]), out with
/// [`send`](Self::send) (or as a [`Sink`]); `StreamExt::split` splits it
/// to read and write from different tasks.
///
/// Pings are answered with pongs as the socket is next read or written. A
/// close from the client is answered before it is handed over, so a
/// handler may stop at it (axum 0.8's `WebSocket` writes that answer only
/// with a further read, and a handler that stops at the close leaves the
/// client without it). Pings, pongs and closes are handed over too.
#[derive(Debug)]
pub struct WebSocket {
    inner: WebSocketStream<Upgraded>,
    protocol: Option<HeaderValue>,
    /// A close received, handed over once the answer tungstenite queued
    /// for it is written.
    close: Option<Message>,
}

impl WebSocket {
    /// The next message; `None` once the connection is closed.
    pub async fn recv(&mut self) -> Option<Result<Message, Error>> {
        self.next().await
    }

    /// Sends `msg` and flushes it to the socket.
    pub async fn send(&mut self, msg: Message) -> Result<(), Error> {
        self.inner.send(to_ts(msg)).await.map_err(Error::new)
    }

    /// The subprotocol the `101` named, if any.
    pub fn protocol(&self) -> Option<&HeaderValue> {
        self.protocol.as_ref()
    }
}

impl Stream for WebSocket {
    type Item = Result<Message, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        loop {
            if self.close.is_some() {
                // A close from the client: tungstenite queues its answer
                // but writes it only with the next read or write, which a
                // handler that stops at the close never makes. It goes out
                // first (a failure to write it is the connection's end,
                // which the next read reports).
                let _ = ready!(self.inner.poll_flush_unpin(cx));
                return Poll::Ready(self.close.take().map(Ok));
            }
            return Poll::Ready(match ready!(self.inner.poll_next_unpin(cx)) {
                Some(Ok(msg @ ts::Message::Close(_))) => {
                    self.close = from_ts(msg);
                    continue;
                }
                Some(Ok(msg)) => match from_ts(msg) {
                    Some(msg) => Some(Ok(msg)),
                    // A raw frame: tungstenite hands none over when reading.
                    None => continue,
                },
                Some(Err(e)) => Some(Err(Error::new(e))),
                None => None,
            });
        }
    }
}

impl FusedStream for WebSocket {
    fn is_terminated(&self) -> bool {
        self.close.is_none() && self.inner.is_terminated()
    }
}

impl Sink<Message> for WebSocket {
    type Error = Error;

    fn poll_ready(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Error>> {
        self.inner.poll_ready_unpin(cx).map_err(Error::new)
    }

    fn start_send(mut self: Pin<&mut Self>, msg: Message) -> Result<(), Error> {
        self.inner.start_send_unpin(to_ts(msg)).map_err(Error::new)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Error>> {
        self.inner.poll_flush_unpin(cx).map_err(Error::new)
    }

    fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Error>> {
        self.inner.poll_close_unpin(cx).map_err(Error::new)
    }
}

/// axum's text as tungstenite's: the same bytes, checked again.
fn text_to_ts(text: Utf8Bytes) -> ts::Utf8Bytes {
    ts::Utf8Bytes::try_from(Bytes::from(text)).expect("Utf8Bytes holds UTF-8")
}

/// tungstenite's text as axum's: the same bytes, checked again.
fn text_from_ts(text: ts::Utf8Bytes) -> Utf8Bytes {
    Utf8Bytes::try_from(Bytes::from(text)).expect("Utf8Bytes holds UTF-8")
}

fn to_ts(msg: Message) -> ts::Message {
    match msg {
        Message::Text(t) => ts::Message::Text(text_to_ts(t)),
        Message::Binary(b) => ts::Message::Binary(b),
        Message::Ping(b) => ts::Message::Ping(b),
        Message::Pong(b) => ts::Message::Pong(b),
        Message::Close(frame) => ts::Message::Close(frame.map(|f| ts::protocol::CloseFrame {
            code: f.code.into(),
            reason: text_to_ts(f.reason),
        })),
    }
}

/// `None` for a raw frame, which is no message.
fn from_ts(msg: ts::Message) -> Option<Message> {
    Some(match msg {
        ts::Message::Text(t) => Message::Text(text_from_ts(t)),
        ts::Message::Binary(b) => Message::Binary(b),
        ts::Message::Ping(b) => Message::Ping(b),
        ts::Message::Pong(b) => Message::Pong(b),
        ts::Message::Close(frame) => Message::Close(frame.map(|f| CloseFrame {
            code: f.code.into(),
            reason: text_from_ts(f.reason),
        })),
        ts::Message::Frame(_) => return None,
    })
}

/// Whether `key` is a `Sec-WebSocket-Key` (RFC 6455 §4.1): 16 bytes in
/// base64, which is 22 characters of the alphabet and `==`, the last of
/// the 22 carrying two bits of the last byte and four zero bits.
fn is_key(key: &[u8]) -> bool {
    let b64 = |b: &u8| b.is_ascii_alphanumeric() || *b == b'+' || *b == b'/';
    key.len() == 24
        && key[22..] == *b"=="
        && key[..22].iter().all(b64)
        && matches!(key[21], b'A' | b'Q' | b'g' | b'w')
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_key_is_the_base64_of_16_bytes() {
        assert!(super::is_key(b"dGhlIHNhbXBsZSBub25jZQ=="), "RFC 6455's");
        for bad in [
            &b"x"[..],
            b"dGhlIHNhbXBsZSBub25jZQ",
            b"dGhlIHNhbXBsZSBub25jZR==",
            b"dGhlIHNhbXBsZSBub25jZ!==",
            b"dGhlIHNhbXBsZSBub25jZQ=x",
            b"dGhlIHNhbXBsZSBub25jZQ===",
        ] {
            assert!(!super::is_key(bad), "{}", String::from_utf8_lossy(bad));
        }
    }

    use super::*;

    #[test]
    fn messages_cross_both_ways_unchanged() {
        let close = CloseFrame {
            code: close_code::AWAY,
            reason: Utf8Bytes::from("gone"),
        };
        for msg in [
            Message::Text(Utf8Bytes::from("héllo")),
            Message::Binary(Bytes::from_static(b"\0\x01")),
            Message::Ping(Bytes::from_static(b"p")),
            Message::Pong(Bytes::from_static(b"q")),
            Message::Close(Some(close)),
            Message::Close(None),
        ] {
            assert_eq!(from_ts(to_ts(msg.clone())), Some(msg));
        }
        let frame = ts::protocol::frame::Frame::ping(Bytes::new());
        assert_eq!(from_ts(ts::Message::Frame(frame)), None);
    }

    #[test]
    fn text_keeps_its_buffer() {
        let text = Utf8Bytes::from("no copy");
        let ptr = text.as_str().as_ptr();
        let ts::Message::Text(t) = to_ts(Message::Text(text)) else {
            panic!("text")
        };
        assert_eq!(t.as_str().as_ptr(), ptr);
        let Some(Message::Text(back)) = from_ts(ts::Message::Text(t)) else {
            panic!("text")
        };
        assert_eq!(back.as_str().as_ptr(), ptr);
    }

    #[test]
    fn tokens_are_found_in_lists_whatever_their_case() {
        let mut h = HeaderMap::new();
        h.append(header::CONNECTION, HeaderValue::from_static("keep-alive"));
        h.append(header::CONNECTION, HeaderValue::from_static(" Upgrade ,x"));
        assert!(has_token(&h, header::CONNECTION, "upgrade"));
        h.insert(header::CONNECTION, HeaderValue::from_static("upgraded"));
        assert!(!has_token(&h, header::CONNECTION, "upgrade"));
    }
}
