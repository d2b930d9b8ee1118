//! The answering side of the driver: the requests owed their answers,
//! oldest first; their calls polled, their responses started in order,
//! their bodies streamed.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Buf;
use h1_conn::{Framing, SendState};
use http::header::{CONTENT_LENGTH, TRANSFER_ENCODING};
use http::{HeaderMap, Request, Response};
use tokio::io::{AsyncRead, AsyncWrite};
use tower_service::Service;

use super::Driver;
use crate::response::{delimiting, fields, has_upgrade_option, pairs};
use crate::transport::VECTORED_MIN;
use crate::upgrade::Handover;
use crate::{Body, BoxError, Error};

/// A box reused for one value after another: each is pinned in place
/// while it is there, and the allocation outlives it, so a connection
/// boxes its service's futures and its response bodies once, not once a
/// request.
pub(super) type Slot<T> = Pin<Box<Option<T>>>;

/// A request handed to the service, waiting for its response to start.
pub(super) enum Owed<F, B> {
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
    pub(super) fn holds_back(&self) -> bool {
        match self {
            Owed::Waiting { .. } | Owed::Own(_) => true,
            Owed::Calling { safe, .. } => !safe,
            Owed::Ready { .. } => false,
        }
    }
}

/// A request that may switch protocols.
pub(super) struct Switch {
    /// It is a `CONNECT`: a 2xx to it switches, as a 101 does.
    pub(super) connect: bool,
    pub(super) handover: Handover,
}

impl<I, S, B> Driver<I, S, B>
where
    I: AsyncRead + AsyncWrite + Unpin,
    S: Service<Request<Body>, Response = Response<B>>,
    S::Error: Into<BoxError>,
    B: http_body::Body,
    B::Error: Into<BoxError>,
{
    /// Starts and streams the responses that are ready, in order: whether
    /// anything was done.
    #[inline]
    pub(super) fn respond(&mut self, cx: &mut Context<'_>) -> bool {
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
        // A switch has no body: framing fields of the service's are left
        // out (the `http` types hold names lowercase, compared as names).
        let fields = headers
            .iter()
            .filter(|(name, _)| **name != CONTENT_LENGTH && **name != TRANSFER_ENCODING);
        // RFC 9110 §7.8: `Upgrade` goes with the `upgrade` connection
        // option, which a service may leave out.
        let added = status == 101 && !has_upgrade_option(&headers);
        let written = r.http_fields(fields).and_then(|r| {
            if added {
                r.field(b"Connection", b"upgrade")
            } else {
                Ok(r)
            }
        });
        if written.is_err() {
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
}
