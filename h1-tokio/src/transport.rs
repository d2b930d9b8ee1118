//! The socket side of a served connection, the same for every kind of
//! service: the machine fed from the socket, its output written and
//! flushed, the client's timers, and the close.

use std::future::Future;
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use bytes::{Buf, Bytes};
use h1_conn::{Closing, DateCache, ServerConn};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
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
    /// The client to take more of the output: the socket has taken none
    /// of it since the wait began.
    Write,
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
    write_timeout: Option<Duration>,
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
    /// How far the close has gone, once the connection closes.
    close: CloseStep,
    /// The clock as read in this poll, if it was: read at most once a
    /// poll, for the `Date` and for a timer that starts waiting.
    now: Option<Instant>,
    /// The responses' `Date`, when they carry one (`Config::send_date`):
    /// kept here from the clock as read once a poll that received bytes,
    /// where the machine's own cache would read it for each response.
    dates: Option<DateCache>,
}

/// The steps of [`Transport::poll_close`].
#[derive(Clone, Copy, Debug)]
enum CloseStep {
    /// Not begun: the machine says how to close.
    Start,
    /// Shutting the write side down; then draining `linger` bytes for at
    /// most its time, if set.
    Shutdown {
        linger: Option<(u64, Duration)>,
    },
    /// Reading and discarding until this many more bytes, the end of the
    /// client's stream, or the timer.
    Drain {
        left: u64,
    },
    Done,
}

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
            write_timeout: config.write_timeout,
            waiting: None,
            timer: None,
            polled_with: None,
            in_place: None,
            close: CloseStep::Start,
            now: None,
            dates: None,
        }
        .with_dates(config)
    }

    /// Takes the `Date` over from the machine, when responses carry one.
    fn with_dates(mut self, config: &Config) -> Self {
        if config.conn.send_date {
            let mut dates = DateCache::new();
            self.conn.set_date(*dates.line());
            self.dates = Some(dates);
        }
        self
    }

    /// A poll of the connection begins: the clock is to be read again.
    pub(crate) fn new_poll(&mut self) {
        self.now = None;
    }

    /// The clock, read once a poll.
    fn clock(&mut self) -> Instant {
        *self.now.get_or_insert_with(Instant::now)
    }

    /// Brings the machine's `Date` to the current second: before an
    /// answer is started, and when bytes arrive (the machine may answer
    /// them itself) or a timeout is to be answered.
    pub(crate) fn refresh_date(&mut self) {
        let now = self.clock();
        if let Some(dates) = &mut self.dates {
            let before = dates.formatted();
            let line = *dates.line_as_of(now.into_std());
            if dates.formatted() != before {
                self.conn.set_date(line);
            }
        }
    }

    /// The connection's own answer to the oldest request: `status`, no
    /// body, and the connection closes after it.
    pub(crate) fn answer(&mut self, status: u16) {
        self.refresh_date();
        self.conn.close();
        let empty: [(&[u8], &[u8]); 0] = [];
        // It fails only when the connection has already failed, which
        // then writes its own answer.
        let _ = self.conn.respond_with(status, empty, b"");
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
                let now = self.clock();
                self.waiting = Some((wait, now));
                now
            }
        };
        let limit = match wait {
            Wait::Head => self.head_timeout,
            Wait::Idle => self.idle_timeout,
            Wait::Body => self.body_timeout,
            Wait::Write => self.write_timeout,
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
        // A client that does not read is not answered: the caller ends the
        // connection. One that does not send is, as the machine decides.
        if wait != Wait::Write {
            self.refresh_date();
            self.conn.time_out();
        }
        Some(wait)
    }

    /// The socket took none of the output: the client has
    /// `write_timeout` to take some before the connection is ended
    /// (`Err` then). Call after a write that returned `Pending`.
    pub(crate) fn poll_write_timer(&mut self, cx: &mut Context<'_>) -> Result<(), Error> {
        match self.poll_timer(cx, Some(Wait::Write)) {
            Some(_) => Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client took none of the response for the write timeout",
            )
            .into()),
            None => Ok(()),
        }
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
                    // The client reads: a write that waits is timed afresh.
                    if matches!(self.waiting, Some((Wait::Write, _))) {
                        self.waiting = None;
                    }
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
                    self.refresh_date();
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
    /// Call once the output is written; ready when the socket may go.
    pub(crate) fn poll_close(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Error>> {
        loop {
            match self.close {
                CloseStep::Start => {
                    let linger = match self.conn.closing() {
                        Closing::Linger { bytes, time } => Some((bytes, time)),
                        _ => None,
                    };
                    // Shutting the write side down can wait on the client
                    // (TLS writes its close_notify): bounded as a write is.
                    if let Some(limit) = self.write_timeout {
                        let now = Instant::now();
                        self.arm(now.checked_add(limit).unwrap_or(now));
                    }
                    self.close = CloseStep::Shutdown { linger };
                }
                CloseStep::Shutdown { linger } => {
                    let shut = match Pin::new(&mut self.io).poll_shutdown(cx) {
                        Poll::Ready(r) => r,
                        Poll::Pending if self.write_timeout.is_some() && self.expired(cx) => {
                            // The client takes nothing: the socket is
                            // dropped as it is.
                            self.close = CloseStep::Done;
                            continue;
                        }
                        Poll::Pending => return Poll::Pending,
                    };
                    let Some((bytes, time)) = linger else {
                        // Closing at once: a socket that failed to shut
                        // down is closed all the same.
                        self.close = CloseStep::Done;
                        continue;
                    };
                    if let Err(e) = shut {
                        self.close = CloseStep::Done;
                        return Poll::Ready(Err(e.into()));
                    }
                    self.arm(Instant::now() + time);
                    self.close = CloseStep::Drain { left: bytes };
                }
                CloseStep::Drain { left } => {
                    let mut scrap = [0u8; 4096];
                    let mut buf = ReadBuf::new(&mut scrap);
                    match Pin::new(&mut self.io).poll_read(cx, &mut buf) {
                        Poll::Ready(Ok(())) if !buf.filled().is_empty() => {
                            let left = left.saturating_sub(buf.filled().len() as u64);
                            self.close = if left == 0 {
                                CloseStep::Done
                            } else {
                                CloseStep::Drain { left }
                            };
                        }
                        // The client's end, or its failure: nothing to wait for.
                        Poll::Ready(_) => self.close = CloseStep::Done,
                        Poll::Pending => {
                            if !self.expired(cx) {
                                return Poll::Pending;
                            }
                            self.close = CloseStep::Done;
                        }
                    }
                }
                CloseStep::Done => return Poll::Ready(Ok(())),
            }
        }
    }

    /// Whether the timer [`arm`](Self::arm) set has run out (else the task
    /// is woken when it does).
    fn expired(&mut self, cx: &mut Context<'_>) -> bool {
        self.timer
            .as_mut()
            .is_none_or(|t| t.as_mut().poll(cx).is_ready())
    }

    /// The timer set to `deadline`, not yet polled.
    fn arm(&mut self, deadline: Instant) {
        match &mut self.timer {
            Some(t) => t.as_mut().reset(deadline),
            None => self.timer = Some(Box::pin(tokio::time::sleep_until(deadline))),
        }
        self.polled_with = None;
        self.waiting = None;
    }
}
