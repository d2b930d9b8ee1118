//! The socket side of a served connection, the same for every kind of
//! service: the machine fed from the socket, its output written and
//! flushed, the client's timers, and the close.

use std::future::Future;
use std::io::IoSlice;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use bytes::{Buf, Bytes};
use h1_conn::{Closing, ServerConn};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::time::{Instant, Sleep};

use crate::{Config, Error};

/// Rounds of work one poll of a connection may do before it yields to the
/// runtime, so a client that pipelines without pause cannot starve the
/// other tasks.
pub(crate) const ROUNDS: usize = 16;

/// What the connection can wait for from the client, each with its limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wait {
    /// The rest of a head (or the first head of the connection).
    Head,
    /// The next request, every earlier one answered.
    Idle,
    /// More of a body whose reader waits.
    Body,
}

/// Body bytes at least this long go out from the service's own buffer in
/// a vectored write, framed by the machine, instead of being copied into
/// its output.
pub(crate) const VECTORED_MIN: usize = 8 * 1024;

/// A body frame written from its own buffer: the machine's output up to
/// `at` goes before it, what the machine adds later after it.
struct InPlaceFrame {
    at: usize,
    /// The chunk-size line (empty unless chunked), the data, the CRLF
    /// (empty unless chunked).
    parts: [Bytes; 3],
}

/// A socket and the protocol machine it feeds.
pub(crate) struct Transport<I> {
    pub(crate) io: I,
    pub(crate) conn: ServerConn,
    /// The machine needs more bytes.
    pub(crate) want_read: bool,
    /// The machine said `Closed`: no further request will come.
    pub(crate) closed: bool,
    /// A request has been received on this connection.
    pub(crate) served: bool,
    /// Bytes were written since the last flush.
    unflushed: bool,
    head_timeout: Option<Duration>,
    idle_timeout: Option<Duration>,
    body_timeout: Option<Duration>,
    /// What the connection waits for from the client, and since when.
    waiting: Option<(Wait, Instant)>,
    /// The timer of `waiting`, made once and moved from one deadline to
    /// the next.
    timer: Option<Pin<Box<Sleep>>>,
    /// The waker `timer` was last polled with, while its deadline has
    /// stayed the same.
    polled_with: Option<Waker>,
    /// A body frame waiting to be written in its place.
    in_place: Option<InPlaceFrame>,
    /// Ready when the server shuts down (a [`Server`](crate::Server)'s
    /// connections have one).
    shutdown: Option<Shutdown>,
}

/// A future that completes when the connection is to finish.
pub(crate) type Shutdown = Pin<Box<dyn Future<Output = ()> + Send>>;

impl<I: AsyncRead + AsyncWrite + Unpin> Transport<I> {
    /// `continue_on_read`: see [`Config::machine`].
    pub(crate) fn new(io: I, config: &Config, continue_on_read: bool) -> Self {
        Transport {
            io,
            conn: ServerConn::new(config.machine(continue_on_read)),
            want_read: false,
            closed: false,
            served: false,
            unflushed: false,
            head_timeout: config.header_read_timeout,
            idle_timeout: config.idle_timeout,
            body_timeout: config.body_read_timeout,
            waiting: None,
            timer: None,
            polled_with: None,
            in_place: None,
            shutdown: None,
        }
    }

    /// The connection finishes when `shutdown` completes: no request is
    /// read after it, the answers owed are written (the last saying
    /// `Connection: close`), and an idle connection closes at once.
    pub(crate) fn with_shutdown(mut self, shutdown: Option<Shutdown>) -> Self {
        self.shutdown = shutdown;
        self
    }

    /// The connection's own answer to the oldest request: `status`, no
    /// body, and the connection closes after it.
    pub(crate) fn answer(&mut self, status: u16) {
        self.conn.close();
        let empty: [(&[u8], &[u8]); 0] = [];
        // It fails only when the connection has already failed, which
        // then writes its own answer.
        let _ = self.conn.respond_with(status, empty, b"");
    }

    /// Whether the shutdown came now (the machine has been told).
    pub(crate) fn poll_shutdown(&mut self, cx: &mut Context<'_>) -> bool {
        let Some(shutdown) = &mut self.shutdown else {
            return false;
        };
        if shutdown.as_mut().poll(cx).is_pending() {
            return false;
        }
        self.shutdown = None;
        self.conn.close();
        true
    }

    /// The client sent something the wait was for (a request, body
    /// bytes): the next wait is timed afresh.
    pub(crate) fn heard(&mut self) {
        self.waiting = None;
    }

    /// What a connection that waits on nothing but the client's next head
    /// waits for.
    pub(crate) fn head_wait(&self) -> Wait {
        if self.conn.buffered() > 0 || !self.served {
            Wait::Head
        } else {
            Wait::Idle
        }
    }

    /// Keeps the timer on `wait`, what the connection waits for from the
    /// client now (`None`: it waits on nobody but itself, the service or
    /// the socket); the wait whose time ran out, when one did. The machine
    /// has then been told ([`ServerConn::time_out`]).
    #[inline]
    pub(crate) fn poll_timer(&mut self, cx: &mut Context<'_>, wait: Option<Wait>) -> Option<Wait> {
        let Some(wait) = wait else {
            self.waiting = None;
            return None;
        };
        let since = match self.waiting {
            Some((w, since)) if w == wait => since,
            _ => {
                let now = Instant::now();
                self.waiting = Some((wait, now));
                now
            }
        };
        let limit = match wait {
            Wait::Head => self.head_timeout,
            Wait::Idle => self.idle_timeout,
            Wait::Body => self.body_timeout,
        }?;
        // A limit past the clock's end is no limit.
        let deadline = since.checked_add(limit)?;
        let timer = self
            .timer
            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        // Moved only to an earlier deadline: one that moved later (each
        // request pushes the idle one on) is looked at when the timer
        // runs out, so a request costs no trip through the timer wheel.
        if deadline < timer.deadline() {
            timer.as_mut().reset(deadline);
            self.polled_with = None;
        }
        // A timer still running that holds this task's waker will wake
        // it: polling it again (the common case, a poll per request)
        // would only register the same waker once more.
        if !timer.is_elapsed()
            && self
                .polled_with
                .as_ref()
                .is_some_and(|w| w.will_wake(cx.waker()))
        {
            return None;
        }
        loop {
            if timer.as_mut().poll(cx).is_pending() {
                // Only a poll that ran holds the waker: one refused because
                // the task's budget was spent registered nothing (a new
                // `Sleep` is not even in the timer wheel then). A poll that
                // ran gives its unit back on Pending, so budget remains; a
                // refused one leaves none.
                self.polled_with =
                    tokio::task::coop::has_budget_remaining().then(|| cx.waker().clone());
                return None;
            }
            if timer.deadline() >= deadline {
                break;
            }
            timer.as_mut().reset(deadline);
        }
        self.polled_with = None;
        self.waiting = None;
        self.conn.time_out();
        Some(wait)
    }

    /// Body bytes of the response being sent, written from `data` itself
    /// after what the machine has encoded so far (see
    /// [`ServerConn::send_data_frame`]). One at a time: the caller waits
    /// for [`frame_pending`](Self::frame_pending) to turn false before the next.
    pub(crate) fn send_in_place(&mut self, data: Bytes) -> Result<(), h1_conn::SendError> {
        debug_assert!(self.in_place.is_none(), "one frame at a time");
        let frame = self.conn.send_data_frame(&data)?;
        let prefix = Bytes::copy_from_slice(frame.prefix());
        let suffix = Bytes::from_static(frame.suffix());
        self.in_place = Some(InPlaceFrame {
            at: self.conn.out().len(),
            parts: [prefix, data, suffix],
        });
        Ok(())
    }

    /// Whether the socket takes vectored writes (else a body frame is
    /// better copied than written in three small writes).
    pub(crate) fn vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    /// A body frame is still to be written.
    pub(crate) fn frame_pending(&self) -> bool {
        self.in_place.is_some()
    }

    /// Writes what the machine encoded (and a body frame in its place):
    /// ready once all of it is written and flushed, saying whether
    /// anything was (room it made in the output may let the machine go
    /// on).
    #[inline]
    pub(crate) fn write(&mut self, cx: &mut Context<'_>) -> Poll<Result<bool, Error>> {
        let mut wrote = false;
        loop {
            let written = if self.in_place.is_some() {
                self.poll_write_around_frame(cx)
            } else if !self.conn.out().is_empty() {
                Pin::new(&mut self.io).poll_write(cx, self.conn.out())
            } else {
                break;
            };
            match written {
                Poll::Ready(Ok(0)) => {
                    return Poll::Ready(Err(
                        std::io::Error::from(std::io::ErrorKind::WriteZero).into()
                    ))
                }
                Poll::Ready(Ok(n)) => {
                    if self.in_place.is_some() {
                        self.advance_around_frame(n);
                    } else {
                        self.conn.written(n);
                    }
                    self.unflushed = true;
                    wrote = true;
                }
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e.into())),
                Poll::Pending => return Poll::Pending,
            }
        }
        if self.unflushed {
            match Pin::new(&mut self.io).poll_flush(cx) {
                Poll::Ready(Ok(())) => self.unflushed = false,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e.into())),
                Poll::Pending => return Poll::Pending,
            }
        }
        Poll::Ready(Ok(wrote))
    }

    /// One vectored write of the output before the body frame, the
    /// frame, and the output after it.
    #[inline(never)]
    fn poll_write_around_frame(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<usize>> {
        let Some(frame) = &self.in_place else {
            return Poll::Ready(Ok(0));
        };
        let out = self.conn.out();
        let (before, after) = out.split_at(frame.at.min(out.len()));
        let [prefix, data, suffix] = &frame.parts;
        let slices = [
            IoSlice::new(before),
            IoSlice::new(prefix),
            IoSlice::new(data),
            IoSlice::new(suffix),
            IoSlice::new(after),
        ];
        Pin::new(&mut self.io).poll_write_vectored(cx, &slices)
    }

    /// Takes `n` written bytes off the front: the output before the
    /// frame, the frame, then the output after it.
    fn advance_around_frame(&mut self, mut n: usize) {
        let Some(frame) = &mut self.in_place else {
            return self.conn.written(n);
        };
        let before = n.min(frame.at);
        self.conn.written(before);
        frame.at -= before;
        n -= before;
        for part in &mut frame.parts {
            let k = n.min(part.len());
            part.advance(k);
            n -= k;
        }
        if frame.parts.iter().all(Bytes::is_empty) {
            self.in_place = None;
            self.conn.written(n);
        }
    }

    /// Reads into the machine's buffer: whether anything (bytes or the
    /// end) arrived.
    pub(crate) fn read(&mut self, cx: &mut Context<'_>) -> Result<bool, Error> {
        let mut buf = ReadBuf::new(self.conn.read_buf());
        match Pin::new(&mut self.io).poll_read(cx, &mut buf) {
            Poll::Ready(Ok(())) => {
                let n = buf.filled().len();
                self.want_read = false;
                if n == 0 {
                    self.conn.eof();
                } else {
                    self.conn.filled(n);
                }
                Ok(true)
            }
            Poll::Ready(Err(e)) => Err(e.into()),
            Poll::Pending => Ok(false),
        }
    }

    /// Ends the connection as the machine says: at once, or shutting down
    /// the write side and draining what the client still sends for a
    /// bounded time (RFC 9112 §9.6), so its unread bytes cannot make its
    /// stack reset the connection before it has read the last response.
    pub(crate) async fn close(mut self) -> Result<(), Error> {
        if let Closing::Linger { bytes, time } = self.conn.closing() {
            self.io.shutdown().await?;
            let drain = async {
                let mut left = bytes;
                let mut scrap = [0u8; 4096];
                while left > 0 {
                    match self.io.read(&mut scrap).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => left = left.saturating_sub(n as u64),
                    }
                }
            };
            let _ = tokio::time::timeout(time, drain).await;
        } else {
            let _ = self.io.shutdown().await;
        }
        Ok(())
    }
}
