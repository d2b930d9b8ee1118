//! Protocol switches: a service that answers `101 Switching Protocols`
//! (or a `2xx` to `CONNECT`) takes the connection's socket over once that
//! answer is written, with the bytes the client sent after its request.
//!
//! ```no_run
//! use h1_tokio::{service_fn, upgrade, Body};
//! use http::{Request, Response, StatusCode};
//! use tokio::io::{AsyncReadExt, AsyncWriteExt};
//!
//! let echo = service_fn(|mut req: Request<Body>| async move {
//!     let on = upgrade::on(&mut req);
//!     tokio::spawn(async move {
//!         if let Ok(mut io) = on.await {
//!             let mut buf = [0u8; 1024];
//!             while let Ok(n) = io.read(&mut buf).await {
//!                 if n == 0 || io.write_all(&buf[..n]).await.is_err() {
//!                     break;
//!                 }
//!             }
//!         }
//!     });
//!     let mut res = Response::new(String::new());
//!     *res.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
//!     res.headers_mut().insert("upgrade", "echo".parse().unwrap());
//!     Ok::<_, std::convert::Infallible>(res)
//! });
//! # let _ = echo;
//! ```

use std::fmt;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::{Buf, Bytes};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::oneshot;

/// A socket a connection can hand over.
pub trait Io: AsyncRead + AsyncWrite + Send + Unpin + 'static {}

impl<T: AsyncRead + AsyncWrite + Send + Unpin + 'static> Io for T {}

/// The connection after the switch: the bytes the client sent after its
/// request come first, then the socket's.
pub struct Upgraded {
    io: Box<dyn Io>,
    read_buf: Bytes,
}

impl Upgraded {
    pub(crate) fn new(io: Box<dyn Io>, read_buf: Bytes) -> Upgraded {
        Upgraded { io, read_buf }
    }

    /// The socket and the bytes already read from it that belong to the
    /// new protocol.
    pub fn into_parts(self) -> (Box<dyn Io>, Bytes) {
        (self.io, self.read_buf)
    }
}

impl fmt::Debug for Upgraded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Upgraded")
            .field("read_buf", &self.read_buf.len())
            .finish_non_exhaustive()
    }
}

impl AsyncRead for Upgraded {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.read_buf.has_remaining() {
            let n = self.read_buf.len().min(buf.remaining());
            buf.put_slice(&self.read_buf[..n]);
            self.read_buf.advance(n);
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl AsyncWrite for Upgraded {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

/// The switch a request may lead to: resolves to the [`Upgraded`]
/// connection once the service's `101` (or `2xx` to `CONNECT`) has been
/// written, or to an [`UpgradeError`] when the connection answered
/// otherwise or ended first.
#[derive(Debug)]
pub struct OnUpgrade {
    rx: Option<oneshot::Receiver<Upgraded>>,
}

/// Why a request's connection was not handed over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpgradeError(&'static str);

impl fmt::Display for UpgradeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for UpgradeError {}

impl Future for OnUpgrade {
    type Output = Result<Upgraded, UpgradeError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let Some(rx) = &mut self.rx else {
            return Poll::Ready(Err(UpgradeError("the request cannot switch protocols")));
        };
        Pin::new(rx)
            .poll(cx)
            .map_err(|_| UpgradeError("the connection did not switch protocols"))
    }
}

/// What a request that may switch carries in its extensions.
pub(crate) struct Pending(oneshot::Receiver<Upgraded>);

/// The connection's end of a request's [`OnUpgrade`].
pub(crate) type Handover = oneshot::Sender<Upgraded>;

/// A pair for a request that may switch: what goes into its extensions,
/// and what the connection keeps.
pub(crate) fn pending() -> (Pending, Handover) {
    let (tx, rx) = oneshot::channel();
    (Pending(rx), tx)
}

impl Clone for Pending {
    // http's extensions need `Clone`; a clone cannot take the socket.
    fn clone(&self) -> Pending {
        let (_, rx) = oneshot::channel();
        Pending(rx)
    }
}

/// The switch `req` may lead to (taken out of it: ask once). A request
/// that cannot switch (it asked for no upgrade and is no `CONNECT`) gives
/// one that fails at once.
pub fn on<B>(req: &mut http::Request<B>) -> OnUpgrade {
    OnUpgrade {
        rx: req.extensions_mut().remove::<Pending>().map(|p| p.0),
    }
}

/// [`on`] for a request already split into its parts, as extractors such
/// as axum's `FromRequestParts` see it: the switch is taken out of
/// `parts.extensions` (ask once), and a request that cannot switch gives
/// one that fails at once.
pub fn on_parts(parts: &mut http::request::Parts) -> OnUpgrade {
    OnUpgrade {
        rx: parts.extensions.remove::<Pending>().map(|p| p.0),
    }
}
