//! The request body a service reads: a stream of chunks handed over from
//! the connection one at a time.
//!
//! The connection holds the [`Sender`], the service the [`Body`]. At most
//! one chunk is between them: the connection reads no further into the
//! body until the service has taken the chunk before (the slot is empty
//! again), so a service that reads slowly slows the client down through
//! TCP instead of making the server buffer. The first poll of the body is
//! also the moment a client waiting on `Expect: 100-continue` may be told
//! to send ([`Sender::poll_wanted`]).

use std::fmt;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

use bytes::Bytes;
use http::HeaderMap;
use http_body::{Frame, SizeHint};

/// A request's body, as the service reads it: `Bytes` chunks, then the
/// trailer fields if the chunked body had any.
///
/// It implements [`http_body::Body`]; `http-body-util`'s `BodyExt`
/// (`frame()`, `collect()`) and every framework built on `http` read it.
/// Dropping it unread tells the connection to discard the rest of the body
/// (and, when the client is still waiting on `Expect: 100-continue`, not to
/// invite it).
///
/// ```
/// use h1_tokio::Body;
/// use http_body::Body as _;
///
/// let body = Body::empty();
/// assert!(body.is_end_stream());
/// assert_eq!(body.size_hint().exact(), Some(0));
/// ```
pub struct Body {
    shared: Option<Arc<Shared>>,
    /// Bytes still to come when the length is known (`Content-Length`).
    remaining: Option<u64>,
}

/// Why a request body ended early: its connection failed or closed before
/// the body was complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BodyError {
    kind: BodyErrorKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum BodyErrorKind {
    /// The connection went away (the client closed it, or the server
    /// dropped it) before the body's end.
    Closed,
    /// The body broke the framing rules: the connection's error,
    /// described.
    Malformed(String),
    /// The client sent nothing for longer than the body read timeout.
    TimedOut,
}

impl BodyError {
    /// The connection closed before the body ended.
    pub(crate) fn closed() -> BodyError {
        BodyError {
            kind: BodyErrorKind::Closed,
        }
    }

    /// The body broke the framing rules (`why` says how).
    pub(crate) fn malformed(why: impl fmt::Display) -> BodyError {
        BodyError {
            kind: BodyErrorKind::Malformed(why.to_string()),
        }
    }

    /// The client stopped sending the body.
    pub(crate) fn timed_out() -> BodyError {
        BodyError {
            kind: BodyErrorKind::TimedOut,
        }
    }

    /// Whether the body stopped because the client sent nothing of it for
    /// longer than [`Config::body_read_timeout`](crate::Config::body_read_timeout).
    pub fn is_timeout(&self) -> bool {
        self.kind == BodyErrorKind::TimedOut
    }

    /// Whether the body broke the framing rules (rather than the
    /// connection closing before its end).
    pub fn is_malformed(&self) -> bool {
        matches!(self.kind, BodyErrorKind::Malformed(_))
    }
}

impl fmt::Display for BodyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            BodyErrorKind::Closed => {
                f.write_str("the connection closed before the request body ended")
            }
            BodyErrorKind::Malformed(why) => write!(f, "malformed request body: {why}"),
            BodyErrorKind::TimedOut => {
                f.write_str("the request body stopped arriving (read timeout)")
            }
        }
    }
}

impl std::error::Error for BodyError {}

/// What the two ends share.
#[derive(Default)]
struct Shared {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// The chunk handed over and not yet taken: at most one.
    chunk: Option<Bytes>,
    trailers: Option<HeaderMap>,
    /// The sender has said the body is complete (after the chunk and the
    /// trailers, if any, are taken, the stream ends).
    complete: bool,
    error: Option<BodyError>,
    /// The body has been polled at least once.
    wanted: bool,
    /// The body was dropped: what arrives is discarded.
    dropped: bool,
    /// Who waits for a chunk (the service).
    reader: Option<Waker>,
    /// Who waits for the slot to empty, or for the first poll (the
    /// connection).
    writer: Option<Waker>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while the lock was held cannot leave the state torn (each
        // critical section is a few assignments), so a poisoned lock is
        // used as it is.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn wake(waker: Option<Waker>) {
    if let Some(w) = waker {
        w.wake();
    }
}

impl Body {
    /// A body with no bytes: what a request without one carries. It
    /// allocates nothing.
    pub fn empty() -> Body {
        Body {
            shared: None,
            remaining: Some(0),
        }
    }

    /// A body streamed through a [`Sender`]; `length` is the
    /// `Content-Length` when the request has one.
    #[cfg(test)]
    pub(crate) fn channel(length: Option<u64>) -> (Sender, Body) {
        Body::channel_in(&mut Channels::default(), length)
    }

    /// [`channel`](Self::channel), with the shared part of an earlier
    /// channel of `channels` whose ends are both gone, when there is one.
    pub(crate) fn channel_in(channels: &mut Channels, length: Option<u64>) -> (Sender, Body) {
        let shared = match channels.take() {
            Some(shared) => shared,
            None => {
                let shared = Arc::new(Shared::default());
                if channels.kept.len() < Channels::MOST {
                    channels.kept.push(Arc::clone(&shared));
                }
                shared
            }
        };
        let sender = Sender {
            shared: Arc::clone(&shared),
            done: false,
        };
        let body = Body {
            shared: Some(shared),
            remaining: length,
        };
        (sender, body)
    }
}

impl Default for Body {
    fn default() -> Body {
        Body::empty()
    }
}

impl fmt::Debug for Body {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Body")
            .field("streamed", &self.shared.is_some())
            .field("remaining", &self.remaining)
            .finish()
    }
}

impl http_body::Body for Body {
    type Data = Bytes;
    type Error = BodyError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BodyError>>> {
        let Some(shared) = self.shared.clone() else {
            return Poll::Ready(None);
        };
        let mut s = shared.lock();
        let first = !s.wanted;
        s.wanted = true;
        if let Some(chunk) = s.chunk.take() {
            let writer = s.writer.take();
            drop(s);
            wake(writer);
            if let Some(n) = &mut self.remaining {
                *n = n.saturating_sub(chunk.len() as u64);
            }
            return Poll::Ready(Some(Ok(Frame::data(chunk))));
        }
        if let Some(e) = s.error.take() {
            s.complete = true;
            return Poll::Ready(Some(Err(e)));
        }
        if let Some(t) = s.trailers.take() {
            return Poll::Ready(Some(Ok(Frame::trailers(t))));
        }
        if s.complete {
            drop(s);
            self.shared = None;
            return Poll::Ready(None);
        }
        s.reader = Some(cx.waker().clone());
        // The first poll is news to the connection (a 100 Continue may be
        // owed).
        let writer = if first { s.writer.take() } else { None };
        drop(s);
        wake(writer);
        Poll::Pending
    }

    fn is_end_stream(&self) -> bool {
        match &self.shared {
            None => true,
            Some(shared) => {
                let s = shared.lock();
                s.complete && s.chunk.is_none() && s.trailers.is_none() && s.error.is_none()
            }
        }
    }

    fn size_hint(&self) -> SizeHint {
        match self.remaining {
            Some(n) => SizeHint::with_exact(n),
            None => SizeHint::default(),
        }
    }
}

impl Drop for Body {
    fn drop(&mut self) {
        if let Some(shared) = self.shared.take() {
            let mut s = shared.lock();
            s.dropped = true;
            s.chunk = None;
            let writer = s.writer.take();
            drop(s);
            wake(writer);
        }
    }
}

/// What a connection keeps to give its request bodies their channels:
/// the shared parts of earlier ones, each reused once both its ends are
/// gone (the usual case: the service has dropped the body of a request it
/// has answered), so a request with a body costs no allocation for it.
#[derive(Default)]
pub(crate) struct Channels {
    kept: Vec<Arc<Shared>>,
}

impl Channels {
    /// Most kept: a pipelined batch of requests with bodies.
    const MOST: usize = 16;

    /// A kept shared part nobody else holds, reset, and still kept.
    fn take(&mut self) -> Option<Arc<Shared>> {
        for kept in &mut self.kept {
            if let Some(free) = Arc::get_mut(kept) {
                // Both ends are gone: nobody else can see it.
                *free.state.get_mut().unwrap_or_else(|e| e.into_inner()) = State::default();
                return Some(Arc::clone(kept));
            }
        }
        None
    }
}

impl fmt::Debug for Channels {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Channels").finish_non_exhaustive()
    }
}

/// The connection's end of a [`Body`].
///
/// Dropped before [`finish`](Sender::finish) or [`fail`](Sender::fail),
/// it ends the body with a [`BodyError`] saying the connection closed.
pub(crate) struct Sender {
    shared: Arc<Shared>,
    done: bool,
}

/// The [`Body`] was dropped: nothing more is read from it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Dropped;

impl Sender {
    /// Ready when the slot is empty (the chunk before has been taken), or
    /// `Err(Dropped)` once the body is gone; else the task is woken when
    /// either happens.
    pub(crate) fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Dropped>> {
        let mut s = self.shared.lock();
        if s.dropped {
            return Poll::Ready(Err(Dropped));
        }
        if s.chunk.is_none() {
            return Poll::Ready(Ok(()));
        }
        s.writer = Some(cx.waker().clone());
        Poll::Pending
    }

    /// Hands `data` over. Call only when [`poll_ready`](Self::poll_ready)
    /// said the slot is empty; a chunk sent to a dropped body is discarded.
    pub(crate) fn send(&mut self, data: Bytes) {
        let mut s = self.shared.lock();
        if s.dropped || data.is_empty() {
            return;
        }
        debug_assert!(s.chunk.is_none(), "send without poll_ready");
        s.chunk = Some(data);
        let reader = s.reader.take();
        drop(s);
        wake(reader);
    }

    /// `Ready(true)` once the body has been polled (and is still held),
    /// `Ready(false)` once it was dropped; else the task is woken when
    /// either happens.
    pub(crate) fn poll_wanted(&mut self, cx: &mut Context<'_>) -> Poll<bool> {
        let mut s = self.shared.lock();
        // Polled and then dropped: nobody reads it after all.
        if s.dropped {
            return Poll::Ready(false);
        }
        if s.wanted {
            return Poll::Ready(true);
        }
        s.writer = Some(cx.waker().clone());
        Poll::Pending
    }

    /// The body is complete, with the trailer fields of a chunked body.
    pub(crate) fn finish(mut self, trailers: Option<HeaderMap>) {
        self.end(None, trailers);
    }

    /// The body cannot be completed: the reader gets `error` after the
    /// chunk already handed over.
    pub(crate) fn fail(mut self, error: BodyError) {
        self.end(Some(error), None);
    }

    fn end(&mut self, error: Option<BodyError>, trailers: Option<HeaderMap>) {
        self.done = true;
        let mut s = self.shared.lock();
        s.complete = true;
        s.error = error;
        s.trailers = trailers.filter(|t| !t.is_empty());
        let reader = s.reader.take();
        drop(s);
        wake(reader);
    }
}

impl Drop for Sender {
    fn drop(&mut self) {
        if !self.done {
            self.end(Some(BodyError::closed()), None);
        }
    }
}

#[cfg(test)]
mod tests;
