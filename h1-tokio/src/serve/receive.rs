//! The receiving side of the driver: the events of the bytes received,
//! each request handed to the service as its head arrives (or held until
//! the answers before it are sent), its body following it, and
//! `100 Continue` when its reader first asks for it.

use std::task::{Context, Poll};

use bytes::Bytes;
use h1_conn::{Expect, Framing, Method, Pause, RecvState, ServerEvent};
use http::{Request, Response};
use tokio::io::{AsyncRead, AsyncWrite};
use tower_service::Service;

use super::respond::{Owed, Switch};
use super::Driver;
use crate::request::trailer_map;
use crate::upgrade;
use crate::{Body, BodyError, BoxError, Error};

impl<I, S, B> Driver<I, S, B>
where
    I: AsyncRead + AsyncWrite + Unpin,
    S: Service<Request<Body>, Response = Response<B>>,
    S::Error: Into<BoxError>,
    B: http_body::Body,
    B::Error: Into<BoxError>,
{
    /// `100 Continue` for the request being received, once its reader
    /// has asked for the body and every earlier response is done.
    pub(super) fn invite(&mut self, cx: &mut Context<'_>) -> bool {
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
    pub(super) fn receive(&mut self, cx: &mut Context<'_>) -> bool {
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
    pub(super) fn failed(&mut self, error: BodyError) {
        if let Some(body) = self.body.take() {
            body.fail(error);
        }
        if self.receiving && !self.receiving_answered {
            self.owed.pop_back();
        }
        self.receiving = false;
        self.continue_owed = false;
    }
}
