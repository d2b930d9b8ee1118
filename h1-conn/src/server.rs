//! The server role: requests in, responses out.

use h1_encode::{DateLine, Exchange, Framing, ResponseWriter};
use h1_parse::{Expect, Method, RequestHead, Version};

use crate::body::{BodyDecoder, Decoded};
use crate::config::Config;
use crate::conn::{Conn, Role, Server};
use crate::date::Dates;
use crate::error::{Error, SendError};
use crate::event::{Pause, ServerEvent};
use crate::outgoing::{OutgoingResponse, Plan, Sent};
use crate::reader::HeadStep;
use crate::state::{Continue, InFlight, Recv, RecvInput, Send, SendInput, Switch};
use crate::Closing;

/// The server role of one connection: fed received bytes, it yields
/// requests as [`ServerEvent`]s; told the responses, it encodes them into
/// its output buffer, in request order.
///
/// # The calling protocol
///
/// ```text
/// loop:
///     match conn.next_event():
///         Request(req)   -> answer now, or later (up to the pipelining
///                           depth): conn.respond(...) / respond_with(...)
///         Data(span)     -> body bytes: conn.received()[span]
///         Trailers(n)    -> conn.trailers()
///         End            -> the request is complete
///         NeedMore       -> write conn.out(), read into conn.read_buf(),
///                           conn.filled(n) (n = 0: conn.eof())
///         Paused(why)    -> finish a response (or, for OutputFull, write
///                           conn.out())
///         Switch(span)   -> write conn.out(), hand the socket over
///         Error(e)       -> nothing to do: the answer is queued
///         Closed         -> write conn.out(), then act on conn.closing()
/// ```
///
/// Responses: [`respond`](Self::respond) returns an [`OutgoingResponse`] (an
/// [`h1_encode::ResponseWriter`] whose framing the connection decided from
/// the request: HEAD, CONNECT, HTTP/1.0, keep-alive); after its
/// [`finish`](OutgoingResponse::finish), body bytes go through
/// [`send_data`](Conn::send_data) and [`send_end`](Conn::send_end).
/// [`respond_with`](Self::respond_with) does all of it for a body in hand.
/// Responses are appended to [`out`](Conn::out) in request order; a batch
/// of pipelined requests answered before the next read costs one write.
/// Drivers call [`written`](Conn::written) after writing.
///
/// What the protocol requires without the caller's help is done by the
/// connection: the `Date` line (under `std`, [`Config::send_date`]),
/// `100 Continue` when a client waits for it and its body is asked for
/// ([`Config::auto_continue`]), the answer to a request that failed, 417 to
/// an unknown expectation ([`Config::refuse_unknown_expect`]), and
/// `Connection: close` when the connection will not persist.
///
/// After every response [`closing`](Self::closing) says whether the
/// connection stays open; once it says to close, no later byte is parsed.
///
/// ```
/// use h1_conn::{ServerConn, ServerEvent};
///
/// let mut conn = ServerConn::default();
/// conn.feed(b"GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n");
/// let mut targets = Vec::new();
/// loop {
///     match conn.next_event() {
///         ServerEvent::Request(req) => {
///             targets.push(req.head.target.slice(conn.received()).to_vec());
///             conn.respond_with(200, [("Content-Type", "text/plain")], b"hi")?;
///         }
///         ServerEvent::Data(_) | ServerEvent::End | ServerEvent::Trailers(_) => {}
///         ServerEvent::NeedMore => break,
///         other => panic!("{other:?}"),
///     }
/// }
/// assert_eq!(targets, [b"/a".to_vec(), b"/b".to_vec()]);
/// let out = conn.out();
/// assert_eq!(out.windows(15).filter(|w| w == b"HTTP/1.1 200 OK").count(), 2);
/// # Ok::<(), h1_conn::SendError>(())
/// ```
pub type ServerConn = Conn<Server>;

/// A request head, with what the connection decided from it.
///
/// Spans (in [`head`](Self::head)) point into
/// [`received`](Conn::received); the fields are [`fields`](Conn::fields).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Request {
    /// The parsed head: method, target, version, framing facts.
    pub head: RequestHead,
    /// How the body is delimited (RFC 9112 §6.3): `Empty`, `Length` or
    /// `Chunked`.
    pub framing: Framing,
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

    /// What the client expects (RFC 9110 §10.1.1): `Expect::Continue` when
    /// it may wait for `100 Continue` before sending its body (which the
    /// connection sends by itself, see [`Config::auto_continue`]);
    /// `Expect::Other` reaches the caller only with
    /// [`Config::refuse_unknown_expect`] off. Always `Expect::None` for
    /// HTTP/1.0, which has no expectations.
    pub fn expect(&self) -> Expect {
        match self.head.version {
            Version::Http11 => self.head.facts.expect,
            Version::Http10 => Expect::None,
        }
    }
}

impl Role for Server {
    type Event = ServerEvent;

    #[inline]
    fn next_event(conn: &mut ServerConn) -> ServerEvent {
        conn.poll()
    }

    fn out_capacity(config: &Config) -> usize {
        config.read_buf_len.clamp(512, 64 * 1024)
    }

    #[inline]
    fn body_sent(conn: &mut ServerConn, close: bool, asked: bool) {
        // A response with a body never switches: for a request that asked,
        // it declines.
        conn.m.response_done(close, false, asked);
        conn.write_owed_answer();
    }
}

impl Conn<Server> {
    /// Sets the `Date` every response from now on carries (RFC 9110
    /// §6.6.1), replacing the connection's own clock ([`Config::send_date`]):
    /// a server that keeps one `DateCache` for many connections, a test
    /// with a fixed date, or a server without `std` that has a clock.
    pub fn set_date(&mut self, date: DateLine) {
        self.dates = Dates::Set(date);
    }

    /// Asks to close: no further request is read, and the last response
    /// owed carries `Connection: close` (a response already under way is
    /// the last: the connection closes after it, although its head, already
    /// written, could not say so).
    pub fn close(&mut self) {
        self.write_owed_answer();
        self.m.keep_alive = false;
        if matches!(self.m.send, Send::Body { .. }) && self.m.queue.len() <= 1 {
            self.m.send(SendInput::Finish);
        }
        self.m.recv(RecvInput::Finish);
    }

    /// Asks to close with the next final response: it says `Connection:
    /// close` and is the connection's last message (a response already
    /// under way, its head written, becomes the last without saying so).
    /// Requests received after its request are dropped unanswered, as RFC
    /// 9112 §9.6 asks of a server that sends `close` (it "MUST NOT process
    /// any further requests received on that connection"), and no further
    /// request is read. [`close`](Self::close), by contrast, still answers
    /// every request received.
    ///
    /// ```
    /// use h1_conn::{Config, ServerConn, ServerEvent};
    ///
    /// let mut config = Config::default();
    /// config.send_date = false;
    /// let mut conn = ServerConn::new(config);
    /// conn.feed(b"GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n");
    /// assert!(matches!(conn.next_event(), ServerEvent::Request(_)));
    /// assert!(matches!(conn.next_event(), ServerEvent::End));
    /// assert!(matches!(conn.next_event(), ServerEvent::Request(_)));
    /// assert!(matches!(conn.next_event(), ServerEvent::End));
    /// conn.close_after_response();
    /// conn.respond_with(503, [("Retry-After", "5")], b"")?;
    /// assert_eq!(
    ///     conn.out(),
    ///     b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    /// );
    /// // `GET /b` is not answered.
    /// assert!(conn.respond_with(200, [("A", "b")], b"").is_err());
    /// # Ok::<(), h1_conn::SendError>(())
    /// ```
    pub fn close_after_response(&mut self) {
        self.m.last_response = true;
        self.close();
        if matches!(self.m.send, Send::Body { .. }) {
            self.m.send(SendInput::Finish);
        }
    }

    /// The client has taken too long: call it when a timer of the caller's
    /// (how long a head or a body may take to arrive) has run out.
    ///
    /// A head of which some bytes have arrived, or a body still being
    /// received whose response has not started, is answered `408 Request
    /// Timeout` (RFC 9110 §15.5.9) once the responses owed before it are
    /// done, and the connection then closes, as after any error of the
    /// client's (its response under way, a body's request is not answered
    /// twice: the connection closes after that response). A connection
    /// waiting for a head with nothing of it received (idle between
    /// requests) closes without an answer once nothing is owed.
    ///
    /// ```
    /// use h1_conn::{Config, ServerConn, ServerEvent};
    ///
    /// let mut conn = ServerConn::new(Config::default());
    /// conn.feed(b"GET / HTTP/1.1\r\nHo");
    /// assert_eq!(conn.next_event(), ServerEvent::NeedMore);
    /// conn.time_out();
    /// assert!(conn.out().starts_with(b"HTTP/1.1 408 Request Timeout\r\n"));
    /// assert_eq!(conn.next_event(), ServerEvent::Closed);
    /// ```
    pub fn time_out(&mut self) {
        match self.m.recv {
            Recv::Head if self.rx.buf.unconsumed().is_empty() => self.close(),
            Recv::Head | Recv::Body { .. } => {
                let _ = self.fail(Error::TimedOut);
            }
            _ => {}
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
    /// response to the request either way). The `Date` line is added when
    /// the fields bring none.
    pub fn respond(
        &mut self,
        status: u16,
        framing: Framing,
    ) -> Result<OutgoingResponse<'_>, SendError> {
        self.write_owed_answer();
        let (ex, plan) = self.plan(status)?;
        if status == 101 && plan.flight.expect == Continue::Owed {
            // RFC 9110 §7.8: a server that received both Upgrade and
            // `Expect: 100-continue` MUST send 100 before 101.
            self.write_continue()?;
        }
        let w = ResponseWriter::start(&mut self.out, status, &ex, framing)?;
        let date = if status >= 200 {
            // The time the response is made (RFC 9110 §6.6.1).
            self.dates.tick();
            self.dates.line()
        } else {
            None
        };
        Ok(OutgoingResponse {
            w,
            m: &mut self.m,
            date,
            plan,
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
        let tunnel = status != 101 && self.m.queue.front().is_some_and(|f| f.switched_by(status));
        let stated = if body.is_empty() && (matches!(status, 204 | 304) || tunnel) || status < 200 {
            Framing::Empty
        } else {
            Framing::Length(body.len() as u64)
        };
        let mut r = self.respond(status, stated)?;
        r.fields(fields)?;
        r.finish_with_body(body)?;
        self.write_owed_answer();
        Ok(())
    }

    /// Writes `100 Continue` now for the request being received, if it
    /// asked for it, its body has not arrived, the `100` was not sent, and
    /// every earlier response is done (responses stay in order). Returns
    /// whether it was written; `Ok(false)` in every other case, so calling
    /// it for any request is safe. With [`Config::auto_continue`] (the
    /// default) the connection writes it by itself when the body is asked
    /// for; this sends it earlier.
    pub fn send_continue(&mut self) -> Result<bool, SendError> {
        self.write_owed_answer();
        if !self.continue_due() {
            return Ok(false);
        }
        self.write_continue()?;
        Ok(true)
    }

    /// What to do with the socket once [`out`](Conn::out) is written.
    pub fn closing(&self) -> Closing {
        let done = matches!(self.m.recv, Recv::Closed | Recv::Failed { answer: None })
            && self.m.queue.is_empty()
            && !matches!(self.m.send, Send::Body { .. });
        if !done {
            return Closing::Open;
        }
        if self.rx.eof {
            Closing::Close
        } else {
            Closing::Linger {
                bytes: self.rx.config.linger_bytes,
                time: self.rx.config.linger_time,
            }
        }
    }

    /// How many requests have been received and not yet answered (a failed
    /// one whose answer is not written yet counts).
    pub fn unanswered(&self) -> usize {
        self.m.queue.len() + usize::from(self.m.answer_owed().is_some())
    }

    /// The encoder's facts for a response with `status` to the oldest
    /// unanswered request, and what the connection decided about it.
    fn plan(&self, status: u16) -> Result<(Exchange, Plan), SendError> {
        self.m.may_start()?;
        let flight = *self.m.queue.front().ok_or(SendError::NoRequest)?;
        if status == 101 && !flight.upgrade {
            return Err(SendError::NotUpgradable);
        }
        let switch = flight.switched_by(status);
        let body_done = self.body_done(&flight);
        if switch && !body_done {
            return Err(SendError::BodyPending);
        }
        if status == 100 && (flight.expect != Continue::Owed || body_done) {
            return Err(SendError::NotExpected);
        }
        // `close()` puts `Connection: close` on the last response owed.
        // An answer owed to a failed request comes after it, and says it.
        let last = self.m.last_response
            || (!self.m.keep_alive && self.m.queue.len() == 1 && self.m.answer_owed().is_none());
        let close = !switch && (!flight.persistent || !body_done || last);
        let ex = Exchange::new(flight.version)
            .head(flight.head)
            .connect(flight.connect)
            .close(close)
            .clock(self.dates.line().is_some());
        Ok((
            ex,
            Plan {
                status,
                switch,
                flight,
            },
        ))
    }

    /// Whether the body of the oldest request has arrived whole: its end
    /// was reported, or the decoder has all of it and `End` is merely not
    /// reported yet.
    fn body_done(&self, flight: &InFlight) -> bool {
        flight.body_done
            || (self.m.queue.len() == 1
                && matches!(&self.m.recv, Recv::Body { decoder, .. } if decoder.is_done()))
    }

    /// Whether a `100 Continue` is owed and may be written now: the
    /// request being read asked for it, it is its turn, and none of its
    /// body has arrived (a client that started sending has stopped waiting;
    /// RFC 9110 §10.1.1 lets the server omit the 100 then).
    fn continue_due(&self) -> bool {
        let Recv::Body { decoder, .. } = &self.m.recv else {
            return false;
        };
        matches!(self.m.send, Send::Idle)
            && self.m.queue.len() == 1
            && self.m.queue[0].expect == Continue::Owed
            && !self.m.queue[0].body_done
            && decoder.received() == 0
            && !decoder.is_done()
            && self.rx.buf.unconsumed().is_empty()
    }

    fn write_continue(&mut self) -> Result<(), SendError> {
        let Some(flight) = self.m.queue.front_mut() else {
            return Err(SendError::NoRequest);
        };
        let ex = Exchange::new(flight.version);
        let _interim = ResponseWriter::start(&mut self.out, 100, &ex, Framing::Empty)?.finish()?;
        flight.expect = Continue::Sent;
        self.m.send(SendInput::Interim);
        Ok(())
    }

    #[inline]
    fn poll(&mut self) -> ServerEvent {
        self.write_owed_answer();
        match self.m.recv {
            Recv::Head => self.read_head(),
            Recv::Body { .. } => self.read_body(),
            Recv::AwaitSwitch { .. } => ServerEvent::Paused(Pause::SwitchPending),
            Recv::Switched => ServerEvent::Switch(self.rx.rest()),
            Recv::Closed | Recv::Failed { .. } => self.closed_or_paused(),
        }
    }

    fn closed_or_paused(&self) -> ServerEvent {
        if self.m.queue.is_empty()
            && !matches!(self.m.send, Send::Body { .. })
            && self.m.answer_owed().is_none()
        {
            ServerEvent::Closed
        } else {
            ServerEvent::Paused(Pause::ResponsesOwed)
        }
    }

    #[inline]
    fn read_head(&mut self) -> ServerEvent {
        let config = &self.rx.config;
        if !self.out.is_empty() && self.out.len() >= config.max_buffered_output {
            return ServerEvent::Paused(Pause::OutputFull);
        }
        if self.m.queue.len() >= config.max_unanswered.max(1) {
            return ServerEvent::Paused(Pause::Unanswered);
        }
        if self.rx.buf.unconsumed().is_empty() {
            if self.rx.eof {
                self.m.recv(RecvInput::Eof { clean: true });
                return self.closed_or_paused();
            }
            return ServerEvent::NeedMore;
        }
        let head: RequestHead = match self.rx.head() {
            HeadStep::Head(head) => head,
            HeadStep::NeedMore => return ServerEvent::NeedMore,
            HeadStep::Fail(e) => return self.fail(e),
        };
        self.accept(head)
    }

    /// Decides what a complete request head means for the connection.
    #[inline]
    fn accept(&mut self, head: RequestHead) -> ServerEvent {
        let framing = head.framing();
        if let Framing::Length(n) = framing {
            if n > self.rx.config.max_body_len {
                return self.fail(Error::BodyTooLarge);
            }
        }
        let method = head.method_kind;
        // RFC 9110 §9.3.6: a CONNECT request has no content; what follows
        // its head is the tunnel's. Framing one would make this server and
        // a peer that follows the RFC disagree about where the tunnel
        // starts.
        if method == Method::Connect && framing.has_body() {
            return self.fail(Error::ContentInConnect);
        }
        let f = &head.facts;
        let v11 = head.version == Version::Http11;
        let expect = if v11 { f.expect } else { Expect::None };
        if expect == Expect::Other && self.rx.config.refuse_unknown_expect {
            return self.fail(Error::ExpectationFailed);
        }
        let persistent = !f.connection.close() && (v11 || f.connection.keep_alive());
        let upgrade = v11 && f.upgrade && f.connection.upgrade();
        let flight = InFlight {
            version: head.version,
            head: method == Method::Head,
            connect: method == Method::Connect,
            upgrade,
            persistent,
            expect: if expect == Expect::Continue {
                Continue::Owed
            } else {
                Continue::No
            },
            body_done: !framing.has_body(),
        };
        self.m.queue.push_back(flight);
        self.m.recv(RecvInput::Head {
            decoder: BodyDecoder::new(framing),
            persistent,
            switch: if flight.asks_switch() {
                Switch::Asked
            } else {
                Switch::No
            },
        });
        ServerEvent::Request(Request {
            head,
            framing,
            upgrade,
            persistent,
        })
    }

    fn read_body(&mut self) -> ServerEvent {
        let Recv::Body { decoder, .. } = &mut self.m.recv else {
            return ServerEvent::NeedMore;
        };
        // Most requests have no body: their end needs no decoding.
        if decoder.is_done() {
            return self.request_end();
        }
        match self.rx.body(decoder) {
            Err(e) => self.fail(e),
            Ok(Decoded::Data(span)) => ServerEvent::Data(span),
            Ok(Decoded::Trailers(n)) => ServerEvent::Trailers(n),
            Ok(Decoded::NeedMore) => {
                // The caller asks for the body: a client waiting for
                // `100 Continue` is told to send it.
                if self.rx.config.auto_continue && self.continue_due() {
                    // A 100 head always encodes.
                    let _ = self.write_continue();
                }
                ServerEvent::NeedMore
            }
            Ok(Decoded::End) => self.request_end(),
        }
    }

    #[inline]
    fn request_end(&mut self) -> ServerEvent {
        // The newest request is this one, unless it was already answered
        // (and so every earlier one too).
        if let Some(flight) = self.m.queue.back_mut() {
            flight.body_done = true;
        }
        self.m.recv(RecvInput::End);
        ServerEvent::End
    }

    /// The client sent something that cannot be processed: stop reading
    /// and queue the answer.
    #[cold]
    fn fail(&mut self, e: Error) -> ServerEvent {
        let reading_body = matches!(self.m.recv, Recv::Body { .. });
        // The request whose body failed is the newest; it can still be
        // answered with the error unless its response has begun.
        let started = reading_body && self.m.queue.len() == 1 && !matches!(self.m.send, Send::Idle);
        if reading_body && !started {
            self.m.queue.pop_back();
        }
        let answer = if started {
            // Its response is under way: it ends the connection.
            self.m.keep_alive = false;
            self.m.send(SendInput::Finish);
            None
        } else {
            e.status()
        };
        self.m.recv(match e {
            Error::UnexpectedEof => RecvInput::Eof { clean: false },
            _ => RecvInput::Error { answer },
        });
        self.write_owed_answer();
        ServerEvent::Error(e)
    }

    /// Writes the connection's own answer to a failed request once it is
    /// that request's turn.
    #[inline]
    fn write_owed_answer(&mut self) {
        if let Some(status) = self.m.answer_owed() {
            if self.m.queue.is_empty() && matches!(self.m.send, Send::Idle) {
                self.answer(status);
            }
        }
    }

    #[cold]
    fn answer(&mut self, status: u16) {
        self.dates.tick();
        let date = self.dates.line();
        let ex = Exchange::new(Version::Http11)
            .close(true)
            .clock(date.is_some());
        // An error status is always 4xx/5xx and the body empty: the
        // encoder cannot refuse this head.
        if let Ok(mut w) = ResponseWriter::start(&mut self.out, status, &ex, Framing::Empty) {
            if let Some(date) = date {
                w.date(date);
            }
            let _ = w.finish();
        }
        self.m.recv(RecvInput::Answered);
        self.m.send(SendInput::Answer);
    }
}

impl OutgoingResponse<'_> {
    /// Ends the head. When [`Sent::body`], write the body with
    /// [`send_data`](Conn::send_data) and end it with
    /// [`send_end`](Conn::send_end).
    pub fn finish(self) -> Result<Sent, SendError> {
        self.end(None)
    }

    /// Ends the head and writes `body` as the whole body (exactly the
    /// declared `Content-Length`, or one chunk and the last chunk when
    /// chunked): the response is complete, at the cost of one call. For a
    /// response without a body (to HEAD, 1xx, 204, 304) only the head is
    /// written. On an error nothing is written.
    ///
    /// ```
    /// use h1_conn::{Framing, ServerConn, ServerEvent};
    /// let mut conn = ServerConn::default();
    /// conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n");
    /// assert!(matches!(conn.next_event(), ServerEvent::Request(_)));
    /// let mut r = conn.respond(200, Framing::Length(2))?;
    /// r.field(b"Content-Type", b"text/plain")?;
    /// let sent = r.finish_with_body(b"hi")?;
    /// assert!(!sent.body);
    /// assert!(conn.out().ends_with(b"\r\n\r\nhi"));
    /// assert_eq!(conn.unanswered(), 0);
    /// # Ok::<(), h1_conn::SendError>(())
    /// ```
    pub fn finish_with_body(self, body: &[u8]) -> Result<Sent, SendError> {
        self.end(Some(body))
    }

    #[inline]
    fn end(mut self, body: Option<&[u8]>) -> Result<Sent, SendError> {
        if let Some(date) = self.date {
            if !self.w.has_date() {
                self.w.date(date);
            }
        }
        let head = match body {
            None => self.w.finish()?,
            Some(body) => self.w.finish_with_body(body)?,
        };
        let m = self.m;
        let plan = self.plan;
        if plan.status < 200 && !plan.switch {
            if plan.status == 100 {
                if let Some(f) = m.queue.front_mut() {
                    f.expect = Continue::Sent;
                }
            }
            m.send(SendInput::Interim);
            return Ok(Sent {
                body: false,
                close: false,
            });
        }
        // `Content-Length: 0` has no body to write either.
        let body = head.body.wants_data() && !plan.switch;
        let close = head.close;
        let asked = plan.flight.asks_switch();
        m.send(SendInput::Head {
            body: body.then_some(head.body),
            close,
            switch: plan.switch,
            asked,
        });
        if close {
            // RFC 9112 §9.6: after a response that closes, no further
            // request is processed; stop reading now, not when it ends.
            m.keep_alive = false;
            m.recv(RecvInput::Finish);
        }
        if !body {
            // The response is complete. An answer to a failed request
            // queued behind it is written by the connection's next call
            // (`next_event`, `respond`): the head writer holds the output
            // buffer only until here.
            m.response_done(close, plan.switch, asked);
        }
        Ok(Sent { body, close })
    }
}
