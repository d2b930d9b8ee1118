//! Serving without the `http` types: a synchronous [`Handler`] called on
//! the connection's task with views into its receive buffer, answering
//! each request at its end through h1-conn's encoder.
//!
//! What it costs per request is h1's parse and encode and a share of one
//! read and one write: no `HeaderMap`, no `Uri`, no boxed future, no
//! allocation at all in steady state. What it gives up is the ecosystem
//! (tower, axum) and asynchronous handling: a handler answers before the
//! connection reads on, so it suits answers that need no waiting (static
//! content, caches, health checks, TechEmpower's tests). Anything that
//! awaits belongs in a service on [`serve_connection`](crate::serve_connection).
//!
//! ```no_run
//! use h1_tokio::raw::{self, Handler, Request, Responder, SendError};
//! use h1_tokio::Config;
//!
//! struct Hello;
//!
//! impl Handler for Hello {
//!     fn head(&mut self, _req: &Request<'_>) {}
//!     fn end(&mut self, res: &mut Responder<'_>) -> Result<(), SendError> {
//!         res.respond_with(200, [("Content-Type", "text/plain")], b"Hello, World!")
//!     }
//! }
//!
//! # async fn run(stream: tokio::net::TcpStream) -> Result<(), h1_tokio::Error> {
//! raw::serve(stream, Hello, Config::default()).await
//! # }
//! ```

use std::future::poll_fn;
use std::task::{Context, Poll};

/// The types a handler works with, from h1-conn.
pub use h1_conn::{
    Framing, HeadersView, Method, OutgoingResponse, PreEncoded, SendError, SendState, Version,
};
use h1_conn::{ServerConn, ServerEvent};
use tokio::io::{AsyncRead, AsyncWrite};

use crate::transport::{Transport, Wait, ROUNDS};
use crate::{Config, Error};

/// What a connection served by [`serve`] calls for each request, in order.
pub trait Handler {
    /// A request's head has arrived. `req` borrows the connection's
    /// buffer: keep what the answer needs (a route, say), not the views.
    fn head(&mut self, req: &Request<'_>);

    /// The next bytes of the request's body (decoded: the chunked framing
    /// is gone). Reading them is what invites a client waiting on
    /// `Expect: 100-continue`.
    fn data(&mut self, data: &[u8]) {
        let _ = data;
    }

    /// The trailer fields of a chunked body, before its end.
    fn trailers(&mut self, trailers: HeadersView<'_>) {
        let _ = trailers;
    }

    /// The request is complete: answer it now, whole (the head and, for a
    /// streamed body, every byte and its end). A request left unanswered
    /// is answered `500` and the connection closes; an error returned, or
    /// a body left unfinished, closes the connection.
    fn end(&mut self, res: &mut Responder<'_>) -> Result<(), SendError>;
}

/// A request head, as [`Handler::head`] sees it.
#[derive(Debug)]
pub struct Request<'a> {
    req: &'a h1_conn::Request,
    buf: &'a [u8],
    fields: Option<HeadersView<'a>>,
}

impl<'a> Request<'a> {
    /// The method, recognised.
    pub fn method(&self) -> Method {
        self.req.method()
    }

    /// The method's bytes (for one [`method`](Self::method) does not
    /// name).
    pub fn method_bytes(&self) -> &'a [u8] {
        self.req.head.method.get(self.buf).unwrap_or_default()
    }

    /// The request-target's bytes, as sent.
    pub fn target(&self) -> &'a [u8] {
        self.req.head.target.get(self.buf).unwrap_or_default()
    }

    /// The version.
    pub fn version(&self) -> Version {
        self.req.version()
    }

    /// The field lines (names as sent; look-ups ignore ASCII case).
    pub fn fields(&self) -> Option<HeadersView<'a>> {
        self.fields
    }

    /// Everything h1-conn knows of the request: its parsed head with the
    /// framing facts, its body's framing, whether it asks to upgrade or
    /// to keep the connection.
    pub fn details(&self) -> &'a h1_conn::Request {
        self.req
    }
}

/// The connection, as [`Handler::end`] answers through it: the response
/// to the request that just ended.
#[derive(Debug)]
pub struct Responder<'a> {
    conn: &'a mut ServerConn,
}

impl Responder<'_> {
    /// Starts the response: add fields to the head, then `finish` it (see
    /// [`ServerConn::respond`]); a body follows with
    /// [`send_data`](Self::send_data) and [`send_end`](Self::send_end).
    pub fn respond(
        &mut self,
        status: u16,
        framing: Framing,
    ) -> Result<OutgoingResponse<'_>, SendError> {
        self.conn.respond(status, framing)
    }

    /// The whole response at once (see [`ServerConn::respond_with`]).
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
        self.conn.respond_with(status, fields, body)
    }

    /// Makes the response started next the connection's last: it says
    /// `Connection: close`, no further request is read, and the connection
    /// closes once it is written (a response already under way becomes
    /// the last without saying so; see
    /// [`ServerConn::close_after_response`]).
    pub fn close_after_response(&mut self) {
        self.conn.close_after_response();
    }

    /// Body bytes of the response under way.
    pub fn send_data(&mut self, data: &[u8]) -> Result<(), SendError> {
        self.conn.send_data(data)
    }

    /// Ends the body of the response under way.
    pub fn send_end(&mut self) -> Result<(), SendError> {
        self.conn.send_end()
    }

    /// Whether a body is being sent (after a head that has one, before
    /// its end).
    pub fn send_state(&self) -> SendState {
        self.conn.send_state()
    }
}

/// Serves HTTP/1.1 on `io` with `handler` until the connection ends, as
/// [`serve_connection`](crate::serve_connection) does for a service:
/// the same checks, pipelining, timeouts and linger on close; `100
/// Continue` is sent when the connection reads the body for the handler.
/// Sockets are not handed over: a `101` (or a `2xx` to `CONNECT`) from the
/// handler ends the connection once written.
pub async fn serve<I, H>(io: I, handler: H, config: Config) -> Result<(), Error>
where
    I: AsyncRead + AsyncWrite + Unpin,
    H: Handler,
{
    let mut driver = Driver {
        t: Transport::new(io, &config, true),
        handler,
        receiving: false,
    };
    poll_fn(|cx| driver.poll(cx)).await?;
    poll_fn(|cx| driver.t.poll_close(cx)).await
}

struct Driver<I, H> {
    t: Transport<I>,
    handler: H,
    /// Between a request's head and its end.
    receiving: bool,
}

impl<I: AsyncRead + AsyncWrite + Unpin, H: Handler> Driver<I, H> {
    fn poll(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Error>> {
        self.t.new_poll();
        for _ in 0..ROUNDS {
            let (mut progress, starved) = self.receive();
            match self.t.write(cx) {
                Poll::Ready(wrote) => progress |= wrote?,
                Poll::Pending if progress => continue,
                Poll::Pending => {
                    self.t.poll_write_timer(cx)?;
                    return Poll::Pending;
                }
            }
            if self.t.closed {
                return Poll::Ready(Ok(()));
            }
            if self.t.want_read {
                let arrived = self.t.read(cx)?;
                // Nothing arrived for a machine that asked for bytes in
                // this round, and its output is all written: another round
                // would find nothing new, so the connection waits now.
                progress = arrived || (progress && !starved);
            }
            if !progress {
                let wait = self.waiting_for();
                if self.t.poll_timer(cx, wait).is_none() {
                    return Poll::Pending;
                }
                self.receiving = false;
            }
        }
        cx.waker().wake_by_ref();
        Poll::Pending
    }

    /// Takes the events of the bytes received, calling the handler, until
    /// the machine needs more or its output is to be written first:
    /// whether there were any, and whether it stopped for want of bytes.
    fn receive(&mut self) -> (bool, bool) {
        let mut progress = false;
        while !self.t.closed {
            match self.t.conn.next_event() {
                ServerEvent::Request(req) => {
                    progress = true;
                    self.receiving = true;
                    self.t.served = true;
                    self.t.heard();
                    let conn = &self.t.conn;
                    self.handler.head(&Request {
                        req: &req,
                        buf: conn.received(),
                        fields: conn.fields(),
                    });
                }
                ServerEvent::Data(span) => {
                    progress = true;
                    self.t.heard();
                    self.handler
                        .data(span.get(self.t.conn.received()).unwrap_or_default());
                }
                ServerEvent::Trailers(_) => {
                    if let Some(view) = self.t.conn.trailers() {
                        self.handler.trailers(view);
                    }
                }
                ServerEvent::End => {
                    progress = true;
                    self.receiving = false;
                    self.end();
                }
                ServerEvent::Error(_) => {
                    // The machine answers it (400, 413, ...) and closes.
                    progress = true;
                    self.receiving = false;
                }
                ServerEvent::NeedMore => {
                    self.t.want_read = true;
                    return (progress, true);
                }
                ServerEvent::Closed | ServerEvent::Switch(_) => {
                    self.t.closed = true;
                    break;
                }
                // Output to write first; every request is answered at its
                // end, so no other pause can last.
                _ => break,
            }
        }
        (progress, false)
    }

    /// The handler answers the request that ended; what it left undone
    /// ends the connection.
    fn end(&mut self) {
        let answered = self.t.conn.unanswered();
        let result = self.handler.end(&mut Responder {
            conn: &mut self.t.conn,
        });
        if result.is_err() || self.t.conn.send_state() != SendState::Idle {
            // A response cut short cannot be completed: the client must
            // see the connection end, not wait for the rest.
            self.t.conn.close();
            self.t.closed = true;
        } else if self.t.conn.unanswered() >= answered {
            self.t.answer(500);
        }
    }

    fn waiting_for(&self) -> Option<Wait> {
        if self.t.closed || !self.t.want_read || !self.t.conn.out().is_empty() {
            return None;
        }
        if self.receiving {
            return Some(Wait::Body);
        }
        Some(self.t.head_wait())
    }
}
