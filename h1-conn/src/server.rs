//! The server role: requests in, responses out.

use alloc::collections::VecDeque;
use alloc::vec::Vec;

use h1_encode::{BodyWriter, DateLine, Exchange, Framing, ResponseWriter};
use h1_headers::{Entry, HeadersView};
use h1_parse::{Expect, Method, RequestHead, TransferEncoding, Version};

use crate::body::{BodyDecoder, Decoded};
use crate::config::Config;
use crate::error::{Error, SendError};
use crate::event::Event;
use crate::output::{discard_written, head_writer_wrapper, write_body, After};
use crate::reader::{receive_methods, HeadStep, Reader};
use crate::state::{RecvInput, RecvState, SendInput, SendState};
use crate::Closing;

/// A request head, with what the connection decided from it.
///
/// Spans (in [`head`](Self::head)) point into
/// [`ServerConn::received`]; the fields are [`ServerConn::fields`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Request {
    /// The parsed head: method, target, version, framing facts.
    pub head: RequestHead,
    /// How the body is delimited (RFC 9112 §6.3): `Empty`, `Length` or
    /// `Chunked`.
    pub body: Framing,
    /// The client sent `Expect: 100-continue` (HTTP/1.1 only; ignored in
    /// HTTP/1.0, RFC 9110 §10.1.1) and may wait for
    /// [`ServerConn::send_continue`] before sending the body.
    pub expect_continue: bool,
    /// `Expect` holds something other than `100-continue`: a server
    /// answers 417 (RFC 9110 §10.1.1). HTTP/1.1 only.
    pub expect_other: bool,
    /// The client asks to upgrade: HTTP/1.1, an `Upgrade` field and
    /// `Connection: upgrade` (RFC 9110 §7.8). Answer 101 to switch, or any
    /// other status to stay on HTTP/1.1.
    pub upgrade: bool,
    /// The client asked for a persistent connection (HTTP/1.1 without
    /// `Connection: close`, or HTTP/1.0 with `keep-alive`; RFC 9112 §9.3).
    pub persistent: bool,
}

impl Request {
    /// The method, recognised.
    pub fn method(&self) -> Method {
        self.head.method_kind
    }

    /// The version.
    pub fn version(&self) -> Version {
        self.head.version
    }
}

/// A request waiting for its response.
#[derive(Clone, Copy, Debug)]
struct Slot {
    version: h1_encode::Version,
    /// The request's method is HEAD.
    head_method: bool,
    connect: bool,
    upgrade: bool,
    persistent: bool,
    expect: bool,
    continue_sent: bool,
    body_done: bool,
    /// The request failed: the connection answers this status itself.
    error: Option<u16>,
}

impl Slot {
    const fn failed(status: u16) -> Slot {
        Slot {
            version: h1_encode::Version::Http11,
            head_method: false,
            connect: false,
            upgrade: false,
            persistent: false,
            expect: false,
            continue_sent: false,
            body_done: true,
            error: Some(status),
        }
    }
}

/// Everything but the output buffer, so an [`OutgoingResponse`] can borrow both.
#[derive(Debug)]
struct Inner {
    rx: Reader,
    recv: RecvState,
    send: SendState,
    slots: VecDeque<Slot>,
    /// The body writer of the response in progress.
    body: Option<BodyWriter>,
    /// Whether the response in progress closes the connection / switches.
    body_close: bool,
    date: Option<DateLine>,
    /// The server asked to close.
    closing: bool,
    /// What follows the request being received (its `switch`: it asked
    /// to switch protocols).
    reading: After,
    /// The answer to the request being received, when it asked to switch
    /// and was answered before its end was reported: switched or not.
    decided: Option<bool>,
    /// A failed request waits for the connection's own answer (so the
    /// common path checks one flag, not the queue).
    error_owed: bool,
}

/// The server role of one connection: fed received bytes, it yields
/// requests as [`Event`]s; told the responses, it encodes them into its
/// output buffer, in request order.
///
/// # The calling protocol
///
/// ```text
/// loop:
///     match conn.next_event():
///         Head(request)  -> start answering now, or later (up to the
///                           pipelining depth): conn.respond(...)
///         Data(span)     -> body bytes: conn.received()[span]
///         Trailers(n)    -> conn.trailers()
///         End            -> the request is complete
///         NeedMore       -> write conn.out(), read into conn.read_buf(),
///                           conn.filled(n) (n = 0: conn.eof())
///         Paused         -> finish a response, or write conn.out()
///         Switch(span)   -> write conn.out(), hand the socket over
///         Error(e)       -> nothing to do: the answer is queued
///         Closed         -> write conn.out(), then act on conn.closing()
/// ```
///
/// Responses: [`respond`](Self::respond) returns an [`OutgoingResponse`] (an
/// [`h1_encode::ResponseWriter`] whose framing the connection decided from
/// the request: HEAD, CONNECT, HTTP/1.0, keep-alive); after its
/// [`finish`](OutgoingResponse::finish), body bytes go through
/// [`send_data`](Self::send_data) and [`send_end`](Self::send_end).
/// [`respond_with`](Self::respond_with) does all of it for a body in
/// hand. Responses are appended to [`out`](Self::out) in request order; a
/// batch of pipelined requests answered before the next read costs one
/// write. Drivers call [`written`](Self::written) after writing.
///
/// After every response [`closing`](Self::closing) says whether the
/// connection stays open; once it says to close, no later byte is parsed.
///
/// ```
/// use h1_conn::{Framing, Event, ServerConn};
///
/// let mut conn = ServerConn::default();
/// conn.feed(b"GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n");
/// let mut targets = Vec::new();
/// loop {
///     match conn.next_event() {
///         Event::Head(req) => {
///             targets.push(req.head.target.slice(conn.received()).to_vec());
///             conn.respond_with(200, [("Content-Type", "text/plain")], b"hi")?;
///         }
///         Event::Data(_) | Event::End | Event::Trailers(_) => {}
///         Event::NeedMore => break,
///         other => panic!("{other:?}"),
///     }
/// }
/// assert_eq!(targets, [b"/a".to_vec(), b"/b".to_vec()]);
/// let out = conn.out();
/// assert_eq!(out.windows(15).filter(|w| w == b"HTTP/1.1 200 OK").count(), 2);
/// # Ok::<(), h1_conn::SendError>(())
/// ```
#[derive(Debug)]
pub struct ServerConn {
    out: Vec<u8>,
    inner: Inner,
}

impl Default for ServerConn {
    fn default() -> ServerConn {
        ServerConn::new(Config::default())
    }
}

impl ServerConn {
    /// A connection with `config`. Allocates its buffers now (receive
    /// buffer, field storage, the queue of unanswered requests); nothing
    /// per request after that once the output buffer has grown.
    pub fn new(config: Config) -> ServerConn {
        // The queue grows on demand past this; a huge depth ("no limit")
        // must not reserve it up front.
        let depth = config.max_unanswered.clamp(1, 1024);
        ServerConn {
            out: Vec::with_capacity(config.read_buf_len.clamp(512, 64 * 1024)),
            inner: Inner {
                recv: RecvState::Head,
                send: SendState::Idle,
                slots: VecDeque::with_capacity(depth + 1),
                body: None,
                body_close: false,
                date: None,
                closing: false,
                reading: After {
                    persistent: false,
                    switch: false,
                },
                decided: None,
                error_owed: false,
                rx: Reader::new(config),
            },
        }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.inner.rx.config
    }

    /// The receiving side's state.
    pub fn recv_state(&self) -> RecvState {
        self.inner.recv
    }

    /// The sending side's state.
    pub fn send_state(&self) -> SendState {
        self.inner.send
    }

    // --- input ---

    receive_methods!();

    /// The next event. Never blocks and never reads: see [`Event`].
    pub fn next_event(&mut self) -> Event<Request> {
        self.settle();
        let event = self.inner.next_event(self.out.len());
        self.settle();
        event
    }

    // --- output ---

    /// The bytes to write to the peer. Call [`written`](Self::written) with
    /// how many were written.
    pub fn out(&mut self) -> &[u8] {
        self.settle();
        &self.out
    }

    /// Drops the first `n` bytes of [`out`](Self::out) (written). The
    /// buffer keeps its capacity.
    pub fn written(&mut self, n: usize) {
        discard_written(&mut self.out, n);
    }

    /// Sets the `Date` every response from now on carries (RFC 9110
    /// §6.6.1); a server with a clock sets it once a second, e.g. from
    /// h1-encode's `DateCache`. Without one, responses carry no `Date` (a
    /// server without a clock).
    pub fn set_date(&mut self, date: DateLine) {
        self.inner.date = Some(date);
    }

    /// Asks to close: no further request is read, and the last response
    /// owed carries `Connection: close` (a response already under way is
    /// the last: the connection closes after it, although its head, already
    /// written, could not say so).
    pub fn close(&mut self) {
        let i = &mut self.inner;
        i.closing = true;
        if i.send == SendState::Body && i.slots.len() <= 1 {
            i.body_close = true;
        }
        if i.recv == RecvState::Head {
            i.recv = i.recv.next(RecvInput::Close).unwrap_or(RecvState::Failed);
        }
    }

    /// Starts the response to the oldest unanswered request.
    ///
    /// The connection states the facts of the request to the encoder (its
    /// version, HEAD, CONNECT) and whether the connection closes after this
    /// response: when the client asked, when [`close`](Self::close) was
    /// called, or when the request's body has not been fully received (a
    /// final response before the body: the body is then never read, so the
    /// connection cannot be reused). 1xx responses leave the request
    /// unanswered; `100` is what [`send_continue`](Self::send_continue)
    /// writes; `101` needs a request that asked to upgrade and whose body
    /// has arrived, as does a 2xx to CONNECT, and both switch protocols;
    /// a `101` to a request that also expected `100-continue` is preceded
    /// by the `100` if it was not sent (RFC 9110 §7.8; that `100` stays in
    /// the output even if the `101` is then dropped: it is a valid interim
    /// response to the request either way).
    pub fn respond(
        &mut self,
        status: u16,
        body: Framing,
    ) -> Result<OutgoingResponse<'_>, SendError> {
        self.settle();
        let (ex, switch, asked) = self.inner.exchange(status)?;
        if status == 101 {
            // RFC 9110 §7.8: a server that received both Upgrade and
            // `Expect: 100-continue` MUST send 100 before 101.
            if let Some(slot) = self.inner.slots.front_mut() {
                if slot.expect && !slot.continue_sent {
                    let interim = Exchange::new(ex.version);
                    let _interim_head =
                        ResponseWriter::start(&mut self.out, 100, &interim, Framing::Empty)?
                            .finish()?;
                    slot.continue_sent = true;
                }
            }
        }
        let mut w = ResponseWriter::start(&mut self.out, status, &ex, body)?;
        if status >= 200 {
            if let Some(date) = &self.inner.date {
                w.date(date);
            }
        }
        Ok(OutgoingResponse {
            w,
            inner: &mut self.inner,
            status,
            switch,
            asked,
        })
    }

    /// The whole response at once: `status`, `fields`, and `body` with its
    /// `Content-Length` (written only as the head for a HEAD request, 204
    /// or 304 take an empty body).
    pub fn respond_with<I, N, V>(
        &mut self,
        status: u16,
        fields: I,
        body: &[u8],
    ) -> Result<(), SendError>
    where
        I: IntoIterator<Item = (N, V)>,
        N: AsRef<[u8]>,
        V: AsRef<[u8]>,
    {
        let tunnel =
            self.inner.slots.front().is_some_and(|s| s.connect) && (200..300).contains(&status);
        let stated = if body.is_empty() && (matches!(status, 204 | 304) || tunnel) || status < 200 {
            Framing::Empty
        } else {
            Framing::Length(body.len() as u64)
        };
        let mut r = self.respond(status, stated)?;
        r.fields(fields)?;
        if r.finish()?.body {
            self.send_data(body)?;
            self.send_end()?;
        }
        Ok(())
    }

    /// Writes `100 Continue` for the request being received, which asked
    /// for it and whose body has not arrived (RFC 9110 §10.1.1). Only
    /// when all earlier responses are done (responses stay in order).
    pub fn send_continue(&mut self) -> Result<(), SendError> {
        self.settle();
        match self.inner.slots.front() {
            Some(s) if s.expect && !s.continue_sent && !s.body_done && s.error.is_none() => {}
            Some(_) => return Err(SendError::NotExpected),
            None => return Err(SendError::NoRequest),
        }
        self.respond(100, Framing::Empty)?.finish().map(|_| ())
    }

    /// Appends body bytes of the response in progress.
    pub fn send_data(&mut self, data: &[u8]) -> Result<(), SendError> {
        write_body(&mut self.inner.body, &mut self.out, data)
    }

    /// Ends the body of the response in progress (the last chunk when
    /// chunked).
    pub fn send_end(&mut self) -> Result<(), SendError> {
        let body = self.inner.body.as_mut().ok_or(SendError::NoMessage)?;
        body.finish(&mut self.out)?;
        self.inner.body_ended();
        self.settle();
        Ok(())
    }

    /// Ends a chunked body with a trailer section.
    pub fn send_end_with_trailers<I, N, V>(&mut self, trailers: I) -> Result<(), SendError>
    where
        I: IntoIterator<Item = (N, V)>,
        N: AsRef<[u8]>,
        V: AsRef<[u8]>,
    {
        let body = self.inner.body.as_mut().ok_or(SendError::NoMessage)?;
        body.finish_with_trailers(&mut self.out, trailers)?;
        self.inner.body_ended();
        self.settle();
        Ok(())
    }

    /// What to do with the socket once [`out`](Self::out) is written.
    pub fn closing(&self) -> Closing {
        let i = &self.inner;
        let done = matches!(i.recv, RecvState::Closed | RecvState::Failed)
            && i.slots.is_empty()
            && i.send != SendState::Body;
        if !done {
            return Closing::Open;
        }
        if i.rx.eof {
            Closing::Close
        } else {
            Closing::Linger {
                bytes: i.rx.config.linger_bytes,
                time: i.rx.config.linger_time,
            }
        }
    }

    /// How many requests have been received and not yet answered.
    pub fn unanswered(&self) -> usize {
        self.inner.slots.len()
    }

    /// Writes the connection's own answer to a failed request once it is
    /// that request's turn.
    #[inline]
    fn settle(&mut self) {
        if self.inner.error_owed {
            self.answer_error();
        }
    }

    #[cold]
    #[inline(never)]
    fn answer_error(&mut self) {
        let i = &mut self.inner;
        let Some(status) = i.slots.front().and_then(|s| s.error) else {
            return;
        };
        if i.send != SendState::Idle {
            return;
        }
        let ex = Exchange::new(h1_encode::Version::Http11)
            .close(true)
            .clock(i.date.is_some());
        // An error status is always 4xx/5xx and the body empty: the
        // encoder cannot refuse this head.
        if let Ok(mut w) = ResponseWriter::start(&mut self.out, status, &ex, Framing::Empty) {
            if let Some(date) = &i.date {
                w.date(date);
            }
            let _ = w.finish();
        }
        i.slots.clear();
        i.error_owed = false;
        i.send = i
            .send
            .next(SendInput::ErrorAnswer)
            .unwrap_or(SendState::Closed);
        i.recv = i.recv.next(RecvInput::Close).unwrap_or(RecvState::Failed);
    }
}

/// A response head being written (see [`ServerConn::respond`]). Derefs to
/// the encoder's [`ResponseWriter`] for the fields; [`finish`](Self::finish)
/// ends the head. Dropped without finishing, it leaves nothing behind.
#[must_use = "a response head does nothing until finished"]
pub struct OutgoingResponse<'c> {
    w: ResponseWriter<'c, Vec<u8>>,
    inner: &'c mut Inner,
    status: u16,
    switch: bool,
    /// The request asked to switch (Upgrade, CONNECT).
    asked: bool,
}

head_writer_wrapper!(OutgoingResponse, ResponseWriter);

/// What a finished head decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Sent {
    /// Body bytes follow: write them with `send_data` and end them with
    /// `send_end` (false for HEAD, 1xx, 204, 304, `Content-Length: 0`, a
    /// switch).
    pub body: bool,
    /// The connection closes after this message (the head says
    /// `Connection: close`, or the body is delimited by the close).
    pub close: bool,
}

impl OutgoingResponse<'_> {
    /// Ends the head. When [`Sent::body`], write the body with
    /// [`ServerConn::send_data`] and end it with [`ServerConn::send_end`].
    pub fn finish(self) -> Result<Sent, SendError> {
        let head = self.w.finish()?;
        let i = self.inner;
        if self.status < 200 && !self.switch {
            if self.status == 100 {
                if let Some(s) = i.slots.front_mut() {
                    s.continue_sent = true;
                }
            }
            i.send = i
                .send
                .next(SendInput::Interim)
                .ok_or(SendError::InProgress)?;
            return Ok(Sent {
                body: false,
                close: false,
            });
        }
        // `Content-Length: 0` has no body to write either.
        let body = head.body.wants_data();
        let input = SendInput::Head {
            body: body && !self.switch,
            close: head.close,
            switch: self.switch,
        };
        i.send = i.send.next(input).ok_or(SendError::InProgress)?;
        i.body_close = head.close;
        if head.close {
            // RFC 9112 §9.6: after a response that closes, no further
            // request is processed; stop reading now, not when it ends.
            i.closing = true;
            if i.recv == RecvState::Head {
                i.recv = i.recv.next(RecvInput::Close).unwrap_or(RecvState::Failed);
            }
        }
        let sent = Sent {
            body: i.send == SendState::Body,
            close: head.close,
        };
        if sent.body {
            i.body = Some(head.body);
        } else {
            i.response_done(head.close, self.switch, self.asked);
        }
        Ok(sent)
    }
}

impl Inner {
    /// The encoder's facts for a response with `status` to the oldest
    /// unanswered request, whether it switches protocols, and whether the
    /// request asked to.
    fn exchange(&self, status: u16) -> Result<(Exchange, bool, bool), SendError> {
        match self.send {
            SendState::Idle => {}
            SendState::Body => return Err(SendError::InProgress),
            SendState::Closed | SendState::Switched => return Err(SendError::Closed),
        }
        let slot = match self.slots.front() {
            Some(s) if s.error.is_none() => s,
            _ => return Err(SendError::NoRequest),
        };
        if status == 101 && !slot.upgrade {
            return Err(SendError::NotUpgradable);
        }
        let switch = status == 101 || (slot.connect && (200..300).contains(&status));
        // The body has arrived when its end was reported, or when the
        // decoder has all of it and `End` is merely not reported yet.
        let reading_it = self.slots.len() == 1 && self.recv == RecvState::Body;
        let body_done = slot.body_done || (reading_it && self.rx.decoder.is_done());
        if switch && !body_done {
            // The switch takes effect after the request (RFC 9110 §7.8).
            return Err(SendError::NotUpgradable);
        }
        if status == 100 && (!slot.expect || slot.continue_sent || body_done) {
            return Err(SendError::NotExpected);
        }
        // `close()` puts `Connection: close` on the last response owed.
        let last = self.closing && self.slots.len() == 1;
        let close = !switch && (!slot.persistent || !body_done || last);
        let ex = Exchange::new(slot.version)
            .head(slot.head_method)
            .connect(slot.connect)
            .close(close)
            .clock(self.date.is_some());
        Ok((ex, switch, slot.upgrade || slot.connect))
    }

    fn body_ended(&mut self) {
        self.body = None;
        let close = self.body_close;
        self.send = self
            .send
            .next(SendInput::End { close })
            .unwrap_or(SendState::Closed);
        // A response with a body never switches: for a request that asked,
        // it declines.
        let asked = self.slots.front().is_some_and(|s| s.upgrade || s.connect);
        self.response_done(close, false, asked);
    }

    /// The final response to the oldest request is complete. `asked`: that
    /// request asked to switch, so this response decided the switch.
    fn response_done(&mut self, close: bool, switched: bool, asked: bool) {
        self.slots.pop_front();
        if asked {
            match self.recv {
                // The reader waits on this very request.
                RecvState::AwaitSwitch => {
                    self.recv = self
                        .recv
                        .next(RecvInput::SwitchDecided { switched })
                        .unwrap_or(RecvState::Failed);
                    if !switched && (!self.reading.persistent || self.closing) {
                        self.recv = self
                            .recv
                            .next(RecvInput::Close)
                            .unwrap_or(RecvState::Failed);
                    }
                }
                // Answered before its end was reported: `End` applies it.
                RecvState::Body => self.decided = Some(switched),
                _ => {}
            }
        }
        if switched {
            self.slots.clear();
            return;
        }
        if close {
            self.recv = self
                .recv
                .next(RecvInput::Close)
                .unwrap_or(RecvState::Failed);
            // Requests read ahead are dropped unanswered: the connection
            // ends with this response.
            self.slots.clear();
        }
    }

    fn next_event(&mut self, buffered: usize) -> Event<Request> {
        match self.recv {
            RecvState::Head if buffered > 0 && buffered >= self.rx.config.max_buffered_output => {
                Event::Paused
            }
            RecvState::Head => self.read_head(),
            RecvState::Body => self.read_body(),
            RecvState::AwaitSwitch => Event::Paused,
            RecvState::Switched => Event::Switch(self.rx.rest()),
            RecvState::Failed | RecvState::Closed => self.closed_or_paused(),
        }
    }

    fn closed_or_paused(&self) -> Event<Request> {
        if self.slots.is_empty() && self.send != SendState::Body {
            Event::Closed
        } else {
            Event::Paused
        }
    }

    fn read_head(&mut self) -> Event<Request> {
        if self.slots.len() >= self.rx.config.max_unanswered.max(1) {
            return Event::Paused;
        }
        if self.rx.buf.unconsumed().is_empty() {
            if self.rx.eof {
                self.recv = self
                    .recv
                    .next(RecvInput::Eof { clean: true })
                    .unwrap_or(RecvState::Failed);
                return self.closed_or_paused();
            }
            return Event::NeedMore;
        }
        let head: RequestHead = match self.rx.head() {
            HeadStep::Head(head) => head,
            HeadStep::NeedMore => return Event::NeedMore,
            HeadStep::Fail(e) => return self.fail(e),
        };
        let f = &head.facts;
        let v11 = head.version == Version::Http11;
        let persistent = !f.connection.close() && (v11 || f.connection.keep_alive());
        let body = match (f.transfer_encoding, f.content_length) {
            (TransferEncoding::Chunked, _) => Framing::Chunked,
            (_, Some(n)) => Framing::Length(n),
            (_, None) => Framing::Empty,
        };
        if let Framing::Length(n) = body {
            if n > self.rx.config.max_body_len {
                return self.fail(Error::BodyTooLarge);
            }
        }
        // RFC 9110 §9.3.6: a CONNECT request has no content; what follows
        // its head is the tunnel's. Framing one would make this server and
        // a peer that follows the RFC disagree about where the tunnel
        // starts.
        if head.method_kind == Method::Connect
            && !matches!(body, Framing::Empty | Framing::Length(0))
        {
            return self.fail(Error::ContentInConnect);
        }
        let request = Request {
            head,
            body,
            expect_continue: v11 && f.expect == Expect::Continue,
            expect_other: v11 && f.expect == Expect::Other,
            upgrade: v11 && f.upgrade && f.connection.upgrade(),
            persistent,
        };
        self.rx.decoder = BodyDecoder::new(body);
        self.decided = None;
        self.reading = After {
            persistent,
            switch: request.upgrade || head.method_kind == Method::Connect,
        };
        self.slots.push_back(Slot {
            version: if v11 {
                h1_encode::Version::Http11
            } else {
                h1_encode::Version::Http10
            },
            head_method: head.method_kind == Method::Head,
            connect: head.method_kind == Method::Connect,
            upgrade: request.upgrade,
            persistent,
            expect: request.expect_continue,
            continue_sent: false,
            body_done: matches!(body, Framing::Empty | Framing::Length(0)),
            error: None,
        });
        self.recv = self.recv.next(RecvInput::Head).unwrap_or(RecvState::Failed);
        Event::Head(request)
    }

    fn read_body(&mut self) -> Event<Request> {
        match self.rx.body() {
            Err(e) => self.fail(e),
            Ok(Decoded::Data(span)) => Event::Data(span),
            Ok(Decoded::Trailers(n)) => Event::Trailers(n),
            Ok(Decoded::NeedMore) => Event::NeedMore,
            Ok(Decoded::End) => {
                // The newest slot is this request's, unless it was already
                // answered (and so every earlier one too).
                if let Some(slot) = self.slots.back_mut() {
                    slot.body_done = true;
                }
                let After {
                    persistent,
                    switch: asked,
                } = self.reading;
                let decided = self.decided.take();
                let input = RecvInput::End {
                    persistent: persistent && !self.closing,
                    switch: asked && decided != Some(false),
                };
                self.recv = self.recv.next(input).unwrap_or(RecvState::Failed);
                if decided == Some(true) {
                    self.recv = self
                        .recv
                        .next(RecvInput::SwitchDecided { switched: true })
                        .unwrap_or(RecvState::Failed);
                }
                Event::End
            }
        }
    }

    /// The peer sent something that cannot be processed: stop reading and
    /// queue the answer.
    fn fail(&mut self, e: Error) -> Event<Request> {
        let reading_body = self.recv == RecvState::Body;
        let input = match e {
            Error::UnexpectedEof => RecvInput::Eof { clean: false },
            _ => RecvInput::Error,
        };
        self.recv = self.recv.next(input).unwrap_or(RecvState::Failed);
        // The request whose body failed is the newest slot; it can still be
        // answered with the error unless its response has begun.
        let started = reading_body && self.slots.len() == 1 && self.send != SendState::Idle;
        if reading_body && !started {
            self.slots.pop_back();
        }
        if started {
            // Its response is under way: it ends the connection.
            self.closing = true;
            self.body_close = true;
        } else if e.is_answered() {
            self.slots.push_back(Slot::failed(e.status()));
            self.error_owed = true;
        }
        Event::Error(e)
    }
}
