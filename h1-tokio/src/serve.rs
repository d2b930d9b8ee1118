//! The connection driver: one [`ServerConn`] on one socket, its requests
//! handed to a service and its responses written in order.
//!
//! One future owns the socket, the protocol machine, the service and the
//! responses under way; it is polled by whatever wakes it (the socket, a
//! response future, a response body, the request body's reader) and each
//! time does every step that can be done without waiting, in this order:
//! start and stream the responses that are ready, oldest first; write
//! `100 Continue` when a waiting request's body is first read; take the
//! events of the bytes received (a request is handed to the service as its
//! head arrives, its body follows it through the [`Body`] one chunk at a
//! time); write what was encoded; read when the machine needs more bytes.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use bytes::{Buf, Bytes};
use h1_conn::{Expect, Framing, Method, Pause, RecvState, SendState, ServerEvent};
use http::{HeaderMap, Request, Response};
use tokio::io::{AsyncRead, AsyncWrite};
use tower_service::Service;

use crate::body::{Channels, Sender};
use crate::request::{trailer_map, Converter};
use crate::response::{delimiting, fields, has_upgrade_option, pairs};
use crate::transport::{Transport, Wait, ROUNDS, VECTORED_MIN};
use crate::upgrade::{self, Handover, Upgraded};
use crate::{Body, BodyError, BoxError, Config, Error};

/// Serves HTTP/1.1 on `io` with `service` until the connection ends.
///
/// Requests are parsed and checked by [`h1_conn`] with `config`'s strict
/// defaults; each is handed to the service as an `http::Request<Body>` as
/// soon as its head has arrived, its body streaming behind it. Pipelined
/// requests are handed over in turn (up to `config.conn.max_unanswered`
/// waiting) and answered in order. A client that breaks the protocol gets
/// its status (400, 413, 417, ...) from the connection, which then closes;
/// that is no error here. On close the connection lingers as RFC 9112 §9.6
/// asks (the write side shut down, unread bytes drained for a bounded time),
/// which needs a runtime with its timer enabled.
///
/// A response body whose size is known is sent with `Content-Length`, any
/// other chunked (or delimited by the close, to an HTTP/1.0 client);
/// `Date` is added. A service whose future fails has its request answered
/// 500, and the connection closes once the requests already received are
/// answered (the last answer says so).
///
/// A head that takes longer than `config.header_read_timeout` to arrive is
/// answered `408` and the connection closes; so is a body the client stops
/// sending for `config.body_read_timeout` (unless its response has
/// started); a connection idle for `config.idle_timeout` between requests
/// closes. Timers, like the linger, need a runtime with its timer enabled.
///
/// Allocations: once a connection is warm, it allocates nothing a
/// request itself (the head is copied into a reused block, field names
/// are kept from the request before, the service's future, the response
/// body and a request body's channel live in reused places). What the
/// `http` types need is left: the request's field map, which is the
/// previous response's map when that has room (else two allocations, its
/// index table and its entries), and a field name that is new on the
/// connection and not a standard one (one). tests/allocations.rs counts
/// them.
///
/// A request that asks to upgrade (or a `CONNECT`) carries the switch in
/// its extensions ([`upgrade::on`](crate::upgrade::on)): a `101` (or a
/// `2xx` to the `CONNECT`) from the service is written, and the socket is
/// then handed over with the bytes already received after the request.
///
/// ```no_run
/// use h1_tokio::{serve_connection, service_fn, Body, Config};
/// use http::{Request, Response};
///
/// # async fn run() -> std::io::Result<()> {
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
/// loop {
///     let (stream, _) = listener.accept().await?;
///     tokio::spawn(async move {
///         let hello = service_fn(|_req: Request<Body>| async {
///             Ok::<_, std::convert::Infallible>(Response::new(String::from("Hello, World!")))
///         });
///         if let Err(e) = serve_connection(stream, hello, Config::default()).await {
///             eprintln!("connection: {e}");
///         }
///     });
/// }
/// # }
/// ```
pub fn serve_connection<I, S, B>(io: I, service: S, config: Config) -> Connection<I, S, B>
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    S: Service<Request<Body>, Response = Response<B>>,
    S::Error: Into<BoxError>,
    B: http_body::Body,
    B::Error: Into<BoxError>,
{
    Connection {
        driver: Some(Driver::new(io, service, config)),
        closing: false,
    }
}

/// A connection being served: the future [`serve_connection`] returns.
/// It completes when the connection has closed (or been handed over by a
/// protocol switch), `Ok` whenever it ended in order, the client's
/// mistakes and timeouts included.
///
/// [`graceful_shutdown`](Self::graceful_shutdown) finishes it early,
/// without cutting a response short: for a server with its own accept loop
/// (TLS, Unix sockets) that is shutting down.
///
/// ```no_run
/// use h1_tokio::{serve_connection, service_fn, Body, Config};
/// use http::{Request, Response};
///
/// # async fn run(stream: tokio::net::TcpStream, mut stop: tokio::sync::watch::Receiver<()>) {
/// let hello = service_fn(|_req: Request<Body>| async {
///     Ok::<_, std::convert::Infallible>(Response::new(String::from("Hello, World!")))
/// });
/// let conn = serve_connection(stream, hello, Config::default());
/// tokio::pin!(conn);
/// tokio::select! {
///     result = conn.as_mut() => { let _ = result; }
///     _ = stop.changed() => {
///         // Answers what it has received, then closes.
///         conn.as_mut().graceful_shutdown();
///         let _ = conn.await;
///     }
/// }
/// # }
/// ```
#[must_use = "a connection is served only while its future is polled"]
pub struct Connection<I, S: Service<Request<Body>>, B> {
    /// `None` once the socket has been handed over.
    driver: Option<Driver<I, S, B>>,
    /// Every exchange is over: the socket is being closed.
    closing: bool,
}

// Nothing in a `Connection` is pinned in place (the service's and the
// bodies' futures are boxed, and the service is only called through
// `&mut`), so it may move whatever `S` and `B` are.
impl<I, S: Service<Request<Body>>, B> Unpin for Connection<I, S, B> {}

impl<I, S, B> Connection<I, S, B>
where
    S: Service<Request<Body>>,
{
    /// Finishes the connection gracefully: no further request is read, the
    /// requests already received are answered (the last answer says
    /// `Connection: close`) and the connection then closes; an idle one
    /// closes at once. Keep polling the connection until it completes.
    pub fn graceful_shutdown(self: Pin<&mut Self>) {
        if let Some(driver) = &mut self.get_mut().driver {
            driver.t.conn.close();
        }
    }
}

impl<I, S, B> Future for Connection<I, S, B>
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    S: Service<Request<Body>, Response = Response<B>>,
    S::Error: Into<BoxError>,
    B: http_body::Body,
    B::Error: Into<BoxError>,
{
    type Output = Result<(), Error>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Error>> {
        let this = self.get_mut();
        let Some(driver) = &mut this.driver else {
            return Poll::Ready(Ok(()));
        };
        if !this.closing {
            match driver.poll(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(e)) => {
                    this.driver = None;
                    return Poll::Ready(Err(e));
                }
                Poll::Ready(Ok(())) => {}
            }
            if driver.switched.is_some() && driver.handover.is_some() {
                let Some(Driver {
                    t,
                    switched: Some(rest),
                    handover: Some(handover),
                    ..
                }) = this.driver.take()
                else {
                    unreachable!("checked just above");
                };
                // Nobody waiting for the socket (the service did not ask
                // for it) drops it: the connection closes.
                let _ = handover.send(Upgraded::new(Box::new(t.io), rest));
                return Poll::Ready(Ok(()));
            }
            this.closing = true;
        }
        let closed = ready!(driver.t.poll_close(cx));
        this.driver = None;
        Poll::Ready(closed)
    }
}

/// A box reused for one value after another: each is pinned in place
/// while it is there, and the allocation outlives it, so a connection
/// boxes its service's futures and its response bodies once, not once a
/// request.
type Slot<T> = Pin<Box<Option<T>>>;

/// A request handed to the service, waiting for its response to start.
enum Owed<F, B> {
    /// It waits for every answer before it to be sent before the service
    /// is called (RFC 9112 §9.3.2: only requests with safe methods are
    /// processed in parallel; a request that is not safe, and any request
    /// behind it, is processed once it is the oldest, so none runs whose
    /// answer an earlier one that closes the connection would drop).
    Waiting {
        /// Holds the request until it is called (a box kept by the
        /// connection, as a call's).
        request: Box<Option<Request<Body>>>,
        switch: Option<Switch>,
        head: bool,
        safe: bool,
    },
    /// The service is working on it.
    Calling {
        /// Holds the call's future until it is ready.
        future: Slot<F>,
        /// The request may switch protocols: where its socket goes then.
        switch: Option<Switch>,
        /// The request is a HEAD.
        head: bool,
        /// Its method is safe (RFC 9110 §9.2.1).
        safe: bool,
    },
    /// The service has answered; it goes out at its turn.
    Ready {
        response: Response<B>,
        switch: Option<Switch>,
        head: bool,
    },
    /// The connection answers it itself with this status and closes.
    Own(u16),
}

impl<F, B> Owed<F, B> {
    /// Requests received after it wait for it (see `Waiting`): it is not
    /// processed yet, or is being processed and not safe, or its answer
    /// closes the connection.
    fn holds_back(&self) -> bool {
        match self {
            Owed::Waiting { .. } | Owed::Own(_) => true,
            Owed::Calling { safe, .. } => !safe,
            Owed::Ready { .. } => false,
        }
    }
}

/// A request that may switch protocols.
struct Switch {
    /// It is a `CONNECT`: a 2xx to it switches, as a 101 does.
    connect: bool,
    handover: Handover,
}

struct Driver<I, S: Service<Request<Body>>, B> {
    t: Transport<I>,
    service: S,
    max_output: usize,
    max_unanswered: usize,
    /// Requests whose responses have not started, oldest first.
    owed: VecDeque<Owed<S::Future, B>>,
    /// The oldest response's body while it is being sent (the slot is
    /// made for the first body streamed, and kept).
    streaming: Option<Slot<B>>,
    /// Slots of calls that have finished, for calls to come (as many as
    /// may be under way at once).
    calls: Vec<Slot<S::Future>>,
    /// Boxes of requests that have waited, for requests to come (each
    /// box moves into the queue and back, hence the boxes in a `Vec`).
    #[allow(clippy::vec_box)]
    waits: Vec<Box<Option<Request<Body>>>>,
    /// The body of the request being received, while its reader wants it.
    body: Option<Sender>,
    /// Where the bodies' channels come from.
    channels: Channels,
    /// Trailer fields of the body being received, until its end.
    trailers: Option<HeaderMap>,
    /// Between a request's head and its end.
    receiving: bool,
    /// The request being received has its response under way.
    receiving_answered: bool,
    /// The request being received waits for `100 Continue`.
    continue_owed: bool,
    /// Its reader dropped the body before inviting it: the client keeps
    /// waiting, rightly.
    continue_declined: bool,
    /// The service said it is ready for a request.
    service_ready: bool,
    /// This round, the machine stopped for want of bytes.
    starved: bool,
    /// What moves request heads into the `http` types.
    http: Converter,
    /// A client's end of sending is not its leaving (`Config::half_close`).
    half_close: bool,
    /// The client has left: no waiting request is processed.
    leaving: bool,
    /// Field maps of responses sent, for the fields of requests to come
    /// (as many as may be waiting at once: pipelined requests are read
    /// ahead of their responses).
    spare: Vec<HeaderMap>,
    /// Where the socket goes once the switching head is written.
    handover: Option<Handover>,
    /// The protocol switched: the bytes received after the request.
    switched: Option<Bytes>,
    /// A response was cut short: the connection ends with this once the
    /// output before it is written.
    broken: Option<Error>,
    /// The service can take no more requests: the connection ends with
    /// this once those received are answered.
    service_error: Option<Error>,
}

impl<I, S, B> Driver<I, S, B>
where
    I: AsyncRead + AsyncWrite + Unpin,
    S: Service<Request<Body>, Response = Response<B>>,
    S::Error: Into<BoxError>,
    B: http_body::Body,
    B::Error: Into<BoxError>,
{
    fn new(io: I, service: S, config: Config) -> Self {
        Driver {
            t: Transport::new(io, &config, false),
            service,
            max_output: config.conn.max_buffered_output,
            max_unanswered: config.conn.max_unanswered,
            owed: VecDeque::new(),
            streaming: None,
            calls: Vec::new(),
            waits: Vec::new(),
            body: None,
            channels: Channels::default(),
            trailers: None,
            receiving: false,
            receiving_answered: false,
            continue_owed: false,
            continue_declined: false,
            service_ready: false,
            starved: false,
            http: Converter::new(&config.conn),
            half_close: config.half_close,
            leaving: false,
            spare: Vec::new(),
            handover: None,
            switched: None,
            broken: None,
            service_error: None,
        }
    }

    /// Ready once the connection has nothing more to do but close.
    fn poll(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Error>> {
        self.t.new_poll();
        for _ in 0..ROUNDS {
            let mut progress = false;
            self.starved = false;
            if self.broken.is_none() {
                // The responses whose calls or bodies woke the task...
                progress |= self.respond(cx);
                progress |= self.invite(cx);
                progress |= self.receive(cx);
                // ...and those of the calls `receive` made behind a first
                // one still under way (a pipelined batch), and the
                // `100 Continue` a call made there may have asked for.
                progress |= self.respond(cx);
                progress |= self.invite(cx);
            }
            match self.t.write(cx) {
                Poll::Ready(wrote) => progress |= wrote?,
                Poll::Pending if progress => continue,
                // Woken when the socket takes more, or by the write timer.
                Poll::Pending => {
                    self.t.poll_write_timer(cx)?;
                    return Poll::Pending;
                }
            }
            // What was complete before the break is out: end here.
            if let Some(e) = self.broken.take() {
                return Poll::Ready(Err(e));
            }
            if self.t.closed && self.owed.is_empty() && !self.is_streaming() {
                return Poll::Ready(self.service_error.take().map_or(Ok(()), Err));
            }
            if self.t.want_read {
                let arrived = self.t.read(cx)?;
                // Nothing arrived for a machine that waits for bytes, and
                // the output is written: another round would find nothing
                // new, unless the write made room for a body being sent.
                progress = arrived || (progress && (!self.starved || self.is_streaming()));
            }
            if !progress {
                match self.t.poll_timer(cx, self.waiting_for()) {
                    None => return Poll::Pending,
                    Some(Wait::Body) => self.failed(BodyError::timed_out()),
                    Some(_) => {}
                }
            }
        }
        cx.waker().wake_by_ref();
        Poll::Pending
    }

    /// A response cannot be completed (its body failed, or broke its
    /// length): nothing more is sent after what is already encoded, and
    /// the connection ends with `error` once that is written.
    fn break_off(&mut self, error: Error) {
        self.end_body();
        self.owed.clear();
        self.t.conn.close();
        self.broken = Some(error);
    }

    /// Starts and streams the responses that are ready, in order: whether
    /// anything was done.
    #[inline]
    fn respond(&mut self, cx: &mut Context<'_>) -> bool {
        if self.owed.is_empty() && !self.is_streaming() {
            return false;
        }
        self.respond_owed(cx)
    }

    /// [`respond`](Self::respond) when something is owed.
    fn respond_owed(&mut self, cx: &mut Context<'_>) -> bool {
        let mut progress = false;
        loop {
            if let Some(body) = self
                .streaming
                .as_mut()
                .and_then(|s| s.as_mut().as_pin_mut())
            {
                if self.t.conn.out().len() >= self.max_output || self.t.frame_pending() {
                    break;
                }
                match body.poll_frame(cx) {
                    Poll::Pending => {
                        // The calls behind it go on meanwhile.
                        self.poll_calls(cx, 0);
                        break;
                    }
                    Poll::Ready(frame) => {
                        progress = true;
                        let data = matches!(&frame, Some(Ok(f)) if f.is_data());
                        if let Err(e) = self.send_frame(frame) {
                            self.break_off(e);
                            break;
                        }
                        if data {
                            self.end_if_ended();
                        }
                    }
                }
                continue;
            }
            // The last message has been sent (a response that closes, or
            // one delimited by the close): the requests read ahead of it
            // are never answered, and nothing waits for their calls.
            if self.t.conn.send_state() == SendState::Closed && !self.owed.is_empty() {
                self.owed.clear();
                progress = true;
            }
            let idle = self.t.conn.send_state() == SendState::Idle;
            if idle && matches!(self.owed.front(), Some(Owed::Waiting { .. })) {
                if !self.call_waiting(cx) {
                    break;
                }
                progress = true;
            }
            // The oldest call, when its answer could go out now: started
            // as it is ready, without a stop in the queue.
            let mut polled = 0;
            if idle {
                if let Some(Owed::Calling { future, .. }) = self.owed.front_mut() {
                    if let Some(call) = future.as_mut().as_pin_mut() {
                        polled = 1;
                        if let Poll::Ready(result) = call.poll(cx) {
                            future.set(None);
                            let Some(Owed::Calling {
                                future,
                                switch,
                                head,
                                ..
                            }) = self.owed.pop_front()
                            else {
                                unreachable!("matched as Calling above");
                            };
                            if self.calls.len() < self.max_unanswered {
                                self.calls.push(future);
                            }
                            progress = true;
                            if self.receiving && self.owed.is_empty() {
                                self.receiving_answered = true;
                            }
                            match result {
                                Ok(response) => self.start(response, switch, head),
                                Err(_) => self.answer(500),
                            }
                            continue;
                        }
                    }
                }
            }
            self.poll_calls(cx, polled);
            if !idle || !matches!(self.owed.front(), Some(Owed::Ready { .. } | Owed::Own(_))) {
                break;
            }
            let Some(owed) = self.owed.pop_front() else {
                break;
            };
            progress = true;
            if self.receiving && self.owed.is_empty() {
                self.receiving_answered = true;
            }
            match owed {
                Owed::Ready {
                    response,
                    switch,
                    head,
                } => self.start(response, switch, head),
                Owed::Own(status) => self.answer(status),
                Owed::Calling { .. } | Owed::Waiting { .. } => {
                    unreachable!("only a started response is popped")
                }
            }
        }
        progress
    }

    /// Polls the calls under way but the first `skip`: later ones may
    /// finish early and wait their turn.
    fn poll_calls(&mut self, cx: &mut Context<'_>, skip: usize) {
        for owed in self.owed.iter_mut().skip(skip) {
            let Owed::Calling { future, .. } = owed else {
                continue;
            };
            let Some(call) = future.as_mut().as_pin_mut() else {
                continue;
            };
            let Poll::Ready(result) = call.poll(cx) else {
                continue;
            };
            future.set(None);
            let Owed::Calling {
                future,
                switch,
                head,
                ..
            } = std::mem::replace(owed, Owed::Own(500))
            else {
                unreachable!("matched as Calling above");
            };
            if self.calls.len() < self.max_unanswered {
                self.calls.push(future);
            }
            if let Ok(response) = result {
                *owed = Owed::Ready {
                    response,
                    switch,
                    head,
                };
            }
        }
    }

    /// Calls the service for the oldest request, which waited for the
    /// answers before it: whether it was (false: the service is not ready
    /// yet, and the task is woken when it is).
    fn call_waiting(&mut self, cx: &mut Context<'_>) -> bool {
        if self.leaving {
            return false;
        }
        if !self.service_ready {
            match self.service.poll_ready(cx) {
                Poll::Ready(Ok(())) => {}
                // It cannot be called: it is answered 503, and the
                // connection ends with the error once the requests
                // received are answered.
                Poll::Ready(Err(e)) => {
                    self.service_error = Some(Error::service(e));
                    self.t.conn.close();
                    if let Some(front) = self.owed.front_mut() {
                        *front = Owed::Own(503);
                    }
                    return true;
                }
                Poll::Pending => return false,
            }
        }
        let Some(Owed::Waiting {
            request: mut held,
            switch,
            head,
            safe,
        }) = self.owed.pop_front()
        else {
            return false;
        };
        let Some(request) = held.take() else {
            return false;
        };
        if self.waits.len() < self.max_unanswered {
            self.waits.push(held);
        }
        self.service_ready = false;
        let mut future = self.calls.pop().unwrap_or_else(|| Box::pin(None));
        future.set(Some(self.service.call(request)));
        self.owed.push_front(Owed::Calling {
            future,
            switch,
            head,
            safe,
        });
        true
    }

    /// Writes the head of `response`, and its body when it has it whole;
    /// a switch when the request may switch and the status says so.
    fn start(&mut self, response: Response<B>, switch: Option<Switch>, head: bool) {
        // An answer that took its time is dated when it starts.
        self.t.refresh_date();
        let (mut parts, body) = response.into_parts();
        let status = parts.status.as_u16();
        let connect = switch.as_ref().is_some_and(|s| s.connect);
        // An interim response from a service would leave its request
        // unanswered while the next one's answer took its place.
        if status < 200 && status != 101 {
            return self.answer(500);
        }
        if status == 101 || (connect && (200..300).contains(&status)) {
            return match switch {
                Some(s) => self.switch(status, parts.headers, s.handover),
                // A 101 to a request that asked for no upgrade.
                None => self.answer(500),
            };
        }
        let exact = body.size_hint().exact();
        let Ok(d) = delimiting(status, &mut parts.headers, exact, head) else {
            return self.answer(500);
        };
        if d.close {
            self.t.conn.close_after_response();
        }
        let Ok(mut r) = self.t.conn.respond(status, d.framing) else {
            return self.answer(500);
        };
        if r.http_fields(fields(&parts.headers, &d)).is_err() {
            drop(r);
            return self.answer(500);
        }
        let finished = r.finish();
        // RFC 9112 §9.6: no request after a response that closes (the
        // service's `Connection: close`, a body the close delimits, ...) is
        // processed: those read ahead are dropped with their calls now.
        if matches!(finished, Ok(sent) if sent.close) {
            self.owed.clear();
        }
        // The map's allocation serves a request to come.
        if self.spare.len() < self.max_unanswered {
            self.spare.push(parts.headers);
        }
        match finished {
            Ok(sent) if sent.body && !body.is_end_stream() => {
                self.streaming
                    .get_or_insert_with(|| Box::pin(None))
                    .set(Some(body));
            }
            // An empty body after a head that has one: it ends now, or,
            // short of the Content-Length the service set, is broken.
            Ok(sent) if sent.body => {
                if let Err(e) = self.t.conn.send_end() {
                    self.break_off(Error::response_body(e));
                }
            }
            // Ended with its head (HEAD, 204, 304, a switch).
            Ok(_) => {}
            Err(_) => self.answer(500),
        }
    }

    fn answer(&mut self, status: u16) {
        self.t.answer(status);
    }

    /// Writes the head that switches protocols; the socket goes to
    /// `handover` once it is written and the machine says `Switch`.
    fn switch(&mut self, status: u16, headers: HeaderMap, handover: Handover) {
        let Ok(mut r) = self.t.conn.respond(status, Framing::Empty) else {
            return self.answer(500);
        };
        let fields = pairs(&headers).filter(|(name, _)| {
            !name.eq_ignore_ascii_case(b"content-length")
                && !name.eq_ignore_ascii_case(b"transfer-encoding")
        });
        // RFC 9110 §7.8: `Upgrade` goes with the `upgrade` connection
        // option, which a service may leave out.
        let added = (status == 101 && !has_upgrade_option(&headers))
            .then_some((&b"Connection"[..], &b"upgrade"[..]));
        if r.fields(fields.chain(added)).is_err() {
            drop(r);
            return self.answer(500);
        }
        match r.finish() {
            Ok(_) => self.handover = Some(handover),
            Err(_) => self.answer(500),
        }
    }

    /// Ends the body being sent when it says it has ended: polling it
    /// again only to hear so is a trip through all its layers (axum's
    /// boxed body, a mapped error, `Full`) for nothing.
    fn end_if_ended(&mut self) {
        let ended = self
            .streaming
            .as_ref()
            .and_then(|s| s.as_ref().as_pin_ref())
            .is_some_and(|body| body.is_end_stream());
        if ended {
            self.end_body();
            // Too short for its Content-Length: a message cut short ends
            // the connection.
            if let Err(e) = self.t.conn.send_end() {
                self.break_off(Error::response_body(e));
            }
        }
    }

    /// Sends one frame of the response body being streamed.
    fn send_frame(
        &mut self,
        frame: Option<Result<http_body::Frame<B::Data>, B::Error>>,
    ) -> Result<(), Error> {
        let frame = match frame {
            None => {
                self.end_body();
                // Too short for its Content-Length: the encoder refuses
                // to end it, and a message cut short ends the connection.
                return self.t.conn.send_end().map_err(Error::response_body);
            }
            Some(Err(e)) => {
                self.end_body();
                return Err(Error::response_body(e));
            }
            Some(Ok(frame)) => frame,
        };
        match frame.into_data() {
            // A large piece is written from its own buffer, not copied.
            Ok(mut data) if data.remaining() >= VECTORED_MIN && self.t.vectored() => {
                let data = data.copy_to_bytes(data.remaining());
                self.t.send_in_place(data).map_err(|e| {
                    self.end_body();
                    Error::response_body(e)
                })
            }
            Ok(mut data) => {
                while data.has_remaining() {
                    let chunk = data.chunk();
                    let n = chunk.len();
                    if let Err(e) = self.t.conn.send_data(chunk) {
                        self.end_body();
                        return Err(Error::response_body(e));
                    }
                    data.advance(n);
                }
                Ok(())
            }
            Err(frame) => {
                self.end_body();
                let Ok(trailers) = frame.into_trailers() else {
                    // A frame of a kind this crate does not know: the body
                    // ends without it.
                    return self.t.conn.send_end().map_err(Error::response_body);
                };
                let fields = pairs(&trailers);
                match self.t.conn.send_end_with_trailers(fields) {
                    Ok(()) => Ok(()),
                    // Trailers need a chunked body (a Content-Length one,
                    // or one to HTTP/1.0, has no place for them): dropped.
                    Err(_) => self.t.conn.send_end().map_err(Error::response_body),
                }
            }
        }
    }

    /// A response body is being sent.
    fn is_streaming(&self) -> bool {
        self.streaming.as_ref().is_some_and(|s| s.is_some())
    }

    /// The response body being sent is done with (its slot is kept).
    fn end_body(&mut self) {
        if let Some(slot) = &mut self.streaming {
            slot.set(None);
        }
    }

    /// `100 Continue` for the request being received, once its reader
    /// has asked for the body and every earlier response is done.
    fn invite(&mut self, cx: &mut Context<'_>) -> bool {
        if !self.continue_owed {
            return false;
        }
        let Some(body) = &mut self.body else {
            self.continue_owed = false;
            return false;
        };
        match body.poll_wanted(cx) {
            Poll::Ready(true) => match self.t.conn.send_continue() {
                Ok(true) => {
                    self.continue_owed = false;
                    true
                }
                // Not its turn yet (or no longer owed): asked again after
                // the next response.
                _ => false,
            },
            Poll::Ready(false) => {
                self.continue_owed = false;
                self.continue_declined = true;
                false
            }
            Poll::Pending => false,
        }
    }

    /// Takes the events of the bytes received until the machine needs
    /// more, pauses, or a reader has not taken its chunk yet.
    fn receive(&mut self, cx: &mut Context<'_>) -> bool {
        let mut progress = false;
        while !self.t.closed {
            // The machine reads no more of the body (a response that
            // closes went out before it): its reader gets no more.
            if self.body.is_some() && self.t.conn.recv_state() != RecvState::Body {
                if let Some(body) = self.body.take() {
                    body.fail(BodyError::closed());
                }
            }
            if let Some(body) = &mut self.body {
                match body.poll_ready(cx) {
                    Poll::Ready(Ok(())) => {}
                    // Its reader is gone: the rest is read and discarded.
                    // A client still waiting for `100 Continue` was never
                    // invited and rightly keeps waiting.
                    Poll::Ready(Err(_)) => {
                        self.body = None;
                        if self.continue_owed {
                            self.continue_owed = false;
                            self.continue_declined = true;
                        }
                    }
                    Poll::Pending => break,
                }
            }
            // Readiness is asked for when a head is arriving, not while
            // the connection idles (it may hold a limited resource).
            if !self.receiving
                && !self.service_ready
                && self.service_error.is_none()
                && self.t.conn.buffered() > 0
            {
                match self.service.poll_ready(cx) {
                    Poll::Ready(Ok(())) => self.service_ready = true,
                    // No more requests: those received are answered, then
                    // the connection ends with the error.
                    Poll::Ready(Err(e)) => {
                        self.service_error = Some(Error::service(e));
                        self.t.conn.close();
                    }
                    Poll::Pending => break,
                }
            }
            match self.t.conn.next_event() {
                ServerEvent::Request(req) => {
                    progress = true;
                    self.t.served = true;
                    self.t.heard();
                    self.receiving = true;
                    self.receiving_answered = false;
                    let (sender, body) = match req.framing {
                        Framing::Length(n) if n > 0 => {
                            let (s, b) = Body::channel_in(&mut self.channels, Some(n));
                            (Some(s), b)
                        }
                        f if f.has_body() => {
                            let (s, b) = Body::channel_in(&mut self.channels, None);
                            (Some(s), b)
                        }
                        _ => (None, Body::empty()),
                    };
                    self.continue_owed = sender.is_some() && req.expect() == Expect::Continue;
                    self.continue_declined = false;
                    self.body = sender;
                    let connect = req.method() == Method::Connect;
                    let head = req.method() == Method::Head;
                    let fields = &self.t.conn.field_entries()[..req.head.field_count];
                    let headers = self.spare.pop().unwrap_or_default();
                    let received = self.t.conn.received();
                    match self.http.request(&req, received, fields, headers, body) {
                        Ok(mut request) => {
                            let switch = (req.upgrade || connect).then(|| {
                                let (pending, handover) = upgrade::pending();
                                request.extensions_mut().insert(pending);
                                Switch { connect, handover }
                            });
                            let safe = request.method().is_safe();
                            if !self.owed.is_empty()
                                && (!safe || self.owed.iter().any(Owed::holds_back))
                            {
                                // It waits for the answers before it (see
                                // `Owed::Waiting`); the service's readiness
                                // is kept for its call.
                                let mut held = self.waits.pop().unwrap_or_default();
                                *held = Some(request);
                                self.owed.push_back(Owed::Waiting {
                                    request: held,
                                    switch,
                                    head,
                                    safe,
                                });
                                continue;
                            }
                            self.service_ready = false;
                            let mut future = self.calls.pop().unwrap_or_else(|| Box::pin(None));
                            future.set(Some(self.service.call(request)));
                            self.owed.push_back(Owed::Calling {
                                future,
                                switch,
                                head,
                                safe,
                            });
                            // A call that can answer at once does so before
                            // the next request is read: its allocations are
                            // freed before the next call makes its own (the
                            // allocator's per-thread caches then serve them),
                            // and its bytes are still in the cache.
                            if self.owed.len() == 1 {
                                self.respond(cx);
                            }
                        }
                        Err(_) => {
                            self.service_ready = false;
                            self.owed.push_back(Owed::Own(400));
                        }
                    }
                }
                ServerEvent::Data(span) => {
                    progress = true;
                    self.t.heard();
                    self.continue_owed = false;
                    self.continue_declined = false;
                    if let Some(body) = &mut self.body {
                        // Out of the buffer without a copy.
                        let bytes = self.t.conn.freeze();
                        if span.end() <= bytes.len() {
                            body.send(bytes.slice(span.range()));
                        }
                    }
                }
                ServerEvent::Trailers(_) => {
                    self.trailers = self.t.conn.trailers().map(trailer_map);
                }
                ServerEvent::End => {
                    progress = true;
                    self.receiving = false;
                    self.continue_owed = false;
                    if let Some(body) = self.body.take() {
                        body.finish(self.trailers.take());
                    }
                }
                ServerEvent::Error(e) => {
                    progress = true;
                    self.failed(BodyError::malformed(e));
                }
                ServerEvent::NeedMore => {
                    self.t.want_read = true;
                    self.starved = true;
                    break;
                }
                ServerEvent::Closed => {
                    self.t.closed = true;
                    break;
                }
                // The client has gone (`Config::half_close`): what the
                // service still works on for it is dropped, so a handler
                // waiting on a long poll or an event stream is told by
                // being dropped, and the connection ends.
                ServerEvent::Paused(Pause::ResponsesOwed)
                    if self.t.conn.is_eof() && !self.half_close && self.owed.len() <= 1 =>
                {
                    // Taken once the last request is the one owed (a client
                    // that pipelined a batch and then ended its side gets
                    // the answers before it, as from hyper); an answer
                    // ready now still goes out.
                    progress = true;
                    self.leaving = true;
                    self.respond(cx);
                    self.owed.clear();
                    self.end_body();
                    self.t.closed = true;
                    break;
                }
                ServerEvent::Switch(rest) => {
                    let rest = rest.get(self.t.conn.received()).unwrap_or_default();
                    self.switched = Some(Bytes::copy_from_slice(rest));
                    self.t.closed = true;
                    break;
                }
                // Output to write first, or responses to finish.
                _ => break,
            }
        }
        progress
    }

    /// The request being received failed (`error` is what its body's
    /// reader gets). The machine answers it itself unless its response is
    /// under way: the service's answer is not wanted then.
    fn failed(&mut self, error: BodyError) {
        if let Some(body) = self.body.take() {
            body.fail(error);
        }
        if self.receiving && !self.receiving_answered {
            self.owed.pop_back();
        }
        self.receiving = false;
        self.continue_owed = false;
    }

    /// What the connection waits for from the client now, if anything: it
    /// waits on nobody else (the service, the socket's write side, a
    /// client told to wait for `100 Continue`).
    fn waiting_for(&self) -> Option<Wait> {
        if self.t.closed || !self.t.want_read || !self.t.conn.out().is_empty() {
            return None;
        }
        // A client told to wait for `100 Continue`, and never told to
        // send, is not slow: it waits for the service.
        if self.receiving {
            return (!self.continue_owed && !self.continue_declined).then_some(Wait::Body);
        }
        if !self.owed.is_empty() || self.is_streaming() {
            return None;
        }
        Some(self.t.head_wait())
    }
}
