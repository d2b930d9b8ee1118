//! One connection, either role: the receive buffer and head parser, the
//! output buffer, the protocol machine, and the methods both roles share.

use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;

use h1_encode::Frame;
use h1_headers::{Entry, HeadersView};

use crate::config::Config;
use crate::date::Dates;
use crate::error::SendError;
use crate::reader::Reader;
use crate::state::{Machine, RecvState, Send, SendInput, SendState};

/// A connection's role: [`Server`] (requests in, responses out) or
/// [`Client`] (requests out, responses in). Sealed.
pub trait Role: sealed::Sealed + Sized {
    /// What [`Conn::next_event`] reports in this role.
    type Event;
    #[doc(hidden)]
    fn next_event(conn: &mut Conn<Self>) -> Self::Event;
    #[doc(hidden)]
    fn out_capacity(config: &Config) -> usize;
    /// The body of the message this side sent is complete; `close`: the
    /// connection ends with it; `asked`: (server) its request asked to
    /// switch.
    #[doc(hidden)]
    fn body_sent(conn: &mut Conn<Self>, close: bool, asked: bool);
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Server {}
    impl Sealed for super::Client {}
}

/// The server role: see [`ServerConn`](crate::ServerConn).
#[derive(Debug)]
pub enum Server {}

/// The client role: see [`ClientConn`](crate::ClientConn).
#[derive(Debug)]
pub enum Client {}

/// One HTTP/1.1 connection in role `R`, with no I/O: fed the bytes a socket
/// received, it reports what they hold ([`next_event`](Self::next_event));
/// told what to send, it encodes it into [`out`](Self::out). The roles are
/// [`ServerConn`](crate::ServerConn) and [`ClientConn`](crate::ClientConn);
/// the methods below are the same for both.
pub struct Conn<R: Role> {
    pub(crate) out: Vec<u8>,
    pub(crate) rx: Reader,
    pub(crate) m: Machine,
    pub(crate) dates: Dates,
    role: PhantomData<R>,
}

impl<R: Role> fmt::Debug for Conn<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Conn")
            .field("recv", &self.m.recv.kind())
            .field("send", &self.m.send.kind())
            .field("in_flight", &self.m.queue.len())
            .field("buffered", &self.buffered())
            .field("out", &self.out.len())
            .finish_non_exhaustive()
    }
}

impl<R: Role> Default for Conn<R> {
    fn default() -> Conn<R> {
        Conn::new(Config::default())
    }
}

impl<R: Role> Conn<R> {
    /// A connection with `config`. Allocates its buffers now (receive and
    /// output buffers, field storage, the queue of messages in flight);
    /// nothing per message after that once the output buffer has grown.
    pub fn new(config: Config) -> Conn<R> {
        // The queue grows on demand past this; a huge depth ("no limit")
        // must not reserve it up front.
        let depth = config.max_unanswered.clamp(1, 1024) + 1;
        Conn {
            out: Vec::with_capacity(R::out_capacity(&config)),
            m: Machine::new(depth),
            dates: Dates::new(config.send_date),
            rx: Reader::new(config),
            role: PhantomData,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.rx.config
    }

    /// The receiving side's state.
    pub fn recv_state(&self) -> RecvState {
        self.m.recv.kind()
    }

    /// The sending side's state.
    pub fn send_state(&self) -> SendState {
        self.m.send.kind()
    }

    /// The next event. Never blocks and never reads.
    #[inline]
    pub fn next_event(&mut self) -> R::Event {
        R::next_event(self)
    }

    // --- input ---

    /// The free part of the receive buffer, to read into; then call
    /// [`filled`](Self::filled). Moves unconsumed bytes to the front
    /// first, which ends the validity of every span handed out so far.
    /// Empty only when unconsumed bytes fill the buffer at its limit,
    /// which happens only while the connection is paused: answer first.
    pub fn read_buf(&mut self) -> &mut [u8] {
        self.rx.read_buf()
    }

    /// Records that `n` bytes were read into [`read_buf`](Self::read_buf).
    #[inline]
    pub fn filled(&mut self, n: usize) {
        self.rx.buf.fill(n);
    }

    /// Copies `data` in (for callers that read into their own buffer);
    /// returns how many bytes fitted. Ends the validity of spans as
    /// [`read_buf`](Self::read_buf) does.
    pub fn feed(&mut self, data: &[u8]) -> usize {
        self.rx.feed(data)
    }

    /// Records that the peer closed its sending side (a read returned 0).
    pub fn eof(&mut self) {
        self.rx.eof = true;
    }

    /// Whether [`eof`](Self::eof) was called.
    pub fn is_eof(&self) -> bool {
        self.rx.eof
    }

    /// The received bytes the spans of events point into.
    pub fn received(&self) -> &[u8] {
        self.rx.buf.all()
    }

    /// How many received bytes are not consumed yet: the start of the next
    /// message (or of the new protocol's stream after a switch).
    pub fn buffered(&self) -> usize {
        self.rx.buf.unconsumed().len()
    }

    /// Takes every consumed byte out of the receive buffer as `Bytes`,
    /// without a copy (`bytes` feature). The spans of the events reported
    /// so far index the result, so a head (with
    /// [`SharedHeaders::from_head`](crate::SharedHeaders::from_head) and
    /// [`field_entries`](Self::field_entries)) or body data can outlive the
    /// buffer; events reported later index [`received`](Self::received)
    /// again, which now starts at the first unconsumed byte.
    #[cfg(feature = "bytes")]
    #[cfg_attr(docsrs, doc(cfg(feature = "bytes")))]
    pub fn freeze(&mut self) -> bytes::Bytes {
        self.rx.freeze()
    }

    /// The fields of the last head, while its spans are valid.
    pub fn fields(&self) -> Option<HeadersView<'_>> {
        self.rx.fields()
    }

    /// The raw field entries of the last head: spans into
    /// [`received`](Self::received) (or into the `Bytes` of a `freeze` that
    /// followed the head).
    pub fn field_entries(&self) -> &[Entry] {
        self.rx.field_entries()
    }

    /// The trailer fields of the last `Trailers` event, while valid (until
    /// the next head).
    pub fn trailers(&self) -> Option<HeadersView<'_>> {
        self.rx.trailers()
    }

    // --- output ---

    /// The bytes to write to the peer. Call [`written`](Self::written) with
    /// how many were written.
    #[inline]
    pub fn out(&self) -> &[u8] {
        &self.out
    }

    /// Drops the first `n` bytes of [`out`](Self::out) (written). The
    /// buffer keeps its capacity.
    #[inline]
    pub fn written(&mut self, n: usize) {
        if n >= self.out.len() {
            self.out.clear();
        } else {
            self.out.drain(..n);
        }
    }

    /// Appends body bytes of the message being sent, framed by its writer
    /// (a chunk when chunked).
    #[inline]
    pub fn send_data(&mut self, data: &[u8]) -> Result<(), SendError> {
        match &mut self.m.send {
            Send::Body { writer, .. } => Ok(writer.write(&mut self.out, data)?),
            _ => Err(SendError::NoMessage),
        }
    }

    /// Body bytes of the message being sent, framed but not copied: `data`
    /// is accounted for as [`send_data`](Self::send_data) would, and its
    /// framing (the chunk-size line and CRLF when chunked, nothing
    /// otherwise) is returned around it for the caller to write itself,
    /// so a large piece goes out in a vectored write instead of through
    /// [`out`](Self::out). The frame comes after everything in `out` now
    /// and before anything added to it later: write in that order.
    ///
    /// ```
    /// use h1_conn::{Config, Framing, ServerConn, ServerEvent};
    ///
    /// let mut config = Config::default();
    /// config.send_date = false;
    /// let mut conn = ServerConn::new(config);
    /// conn.feed(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    /// assert!(matches!(conn.next_event(), ServerEvent::Request(_)));
    /// conn.respond(200, Framing::Chunked)?.finish()?;
    /// let big = vec![b'x'; 100_000];
    /// let frame = conn.send_data_frame(&big)?;
    /// assert_eq!(frame.prefix(), b"186a0\r\n");
    /// assert_eq!(frame.data().len(), 100_000);
    /// assert_eq!(frame.suffix(), b"\r\n");
    /// // `out()` holds the head; the frame goes after it.
    /// assert!(conn.out().ends_with(b"Transfer-Encoding: chunked\r\n\r\n"));
    /// # Ok::<(), h1_conn::SendError>(())
    /// ```
    #[inline]
    pub fn send_data_frame<'d>(&mut self, data: &'d [u8]) -> Result<Frame<'d>, SendError> {
        match &mut self.m.send {
            Send::Body { writer, .. } => Ok(writer.frame(data)?),
            _ => Err(SendError::NoMessage),
        }
    }

    /// Ends the body of the message being sent (the last chunk when
    /// chunked).
    #[inline]
    pub fn send_end(&mut self) -> Result<(), SendError> {
        match &mut self.m.send {
            Send::Body { writer, .. } => writer.finish(&mut self.out)?,
            _ => return Err(SendError::NoMessage),
        }
        self.body_sent();
        Ok(())
    }

    /// Ends a chunked body with a trailer section.
    pub fn send_end_with_trailers<I, N, V>(&mut self, trailers: I) -> Result<(), SendError>
    where
        I: IntoIterator<Item = (N, V)>,
        N: AsRef<[u8]>,
        V: AsRef<[u8]>,
    {
        match &mut self.m.send {
            Send::Body { writer, .. } => writer.finish_with_trailers(&mut self.out, trailers)?,
            _ => return Err(SendError::NoMessage),
        }
        self.body_sent();
        Ok(())
    }

    /// The body of the message being sent is complete.
    #[inline]
    fn body_sent(&mut self) {
        let (close, asked) = match self.m.send {
            Send::Body { close, asked, .. } => (close, asked),
            _ => (false, false),
        };
        self.m.send(SendInput::End);
        R::body_sent(self, close, asked);
    }
}
