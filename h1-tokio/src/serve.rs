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

use bytes::Bytes;
use http::{HeaderMap, Request, Response};
use tokio::io::{AsyncRead, AsyncWrite};
use tower_service::Service;

use crate::body::{Channels, Sender};
use crate::request::Converter;
use crate::transport::{Transport, Wait, ROUNDS};
use crate::upgrade::{Handover, Upgraded};
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

mod receive;
mod respond;

use respond::{Owed, Slot};

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
