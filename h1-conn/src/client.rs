//! The client role: requests out, responses in.

use h1_encode::{Exchange, Framing, RequestWriter};
use h1_parse::{Method, ResponseHead, Version};

use crate::body::{BodyDecoder, Decoded};
use crate::config::Config;
use crate::conn::{Client, Conn, Role};
use crate::error::{Error, SendError};
use crate::event::ClientEvent;
use crate::outgoing::{OutgoingRequest, Plan, Sent};
use crate::reader::HeadStep;
use crate::state::{Continue, InFlight, Recv, RecvInput, SendInput, Switch};
use crate::Closing;

/// The client role of one connection: requests are encoded into its output
/// buffer (pipelined, up to [`Config::max_unanswered`]); the bytes received
/// yield responses as [`ClientEvent`]s, each matched with the request it
/// answers (so a response to HEAD has no body, and a 2xx to CONNECT
/// switches).
///
/// ```
/// use h1_conn::{ClientConn, ClientEvent, Framing};
///
/// let mut conn = ClientConn::default();
/// conn.request(b"HEAD", b"/", Some(b"example.com"), Framing::Empty)?.finish()?;
/// assert!(conn.out().starts_with(b"HEAD / HTTP/1.1\r\nHost: example.com\r\n"));
/// conn.written(conn.out().len());
///
/// conn.feed(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n");
/// let ClientEvent::Response(resp) = conn.next_event() else { panic!() };
/// assert_eq!(resp.status(), 200);
/// assert_eq!(conn.next_event(), ClientEvent::End); // HEAD: no body
/// assert_eq!(conn.next_event(), ClientEvent::NeedMore);
/// # Ok::<(), h1_conn::SendError>(())
/// ```
pub type ClientConn = Conn<Client>;

/// A response head, with what the connection decided from it and from the
/// request it answers. Spans point into [`received`](Conn::received).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Response {
    /// The parsed head: status, reason, version, framing facts.
    pub head: ResponseHead,
    /// How the body is delimited (RFC 9112 §6.3): none after HEAD, for
    /// 1xx, 204, 304 and a 2xx to CONNECT; chunked; `Content-Length`; or
    /// until the connection closes.
    pub framing: Framing,
    /// The connection stays open after this response (RFC 9112 §9.3).
    pub persistent: bool,
}

impl Response {
    /// The status code.
    pub fn status(&self) -> u16 {
        self.head.status
    }
}

impl Role for Client {
    type Event = ClientEvent;

    #[inline]
    fn next_event(conn: &mut ClientConn) -> ClientEvent {
        conn.poll()
    }

    fn out_capacity(_: &Config) -> usize {
        512
    }

    fn body_sent(_: &mut ClientConn, _: bool, _: bool) {}
}

impl Conn<Client> {
    /// Asks to close: the next request carries `Connection: close`, and no
    /// request may follow it.
    pub fn close(&mut self) {
        self.m.keep_alive = false;
    }

    /// Starts an HTTP/1.1 request (see h1-encode's [`RequestWriter`] for
    /// what is checked). `host` is required.
    pub fn request(
        &mut self,
        method: &[u8],
        target: &[u8],
        host: Option<&[u8]>,
        framing: Framing,
    ) -> Result<OutgoingRequest<'_>, SendError> {
        self.request_version(Version::Http11, method, target, host, framing)
    }

    /// Starts a request of `version` (HTTP/1.0: no chunked body, and the
    /// connection closes after the response unless it says keep-alive).
    pub fn request_version(
        &mut self,
        version: Version,
        method: &[u8],
        target: &[u8],
        host: Option<&[u8]>,
        framing: Framing,
    ) -> Result<OutgoingRequest<'_>, SendError> {
        self.may_send()?;
        // HTTP/1.0 requests close unless keep-alive is asked for, which
        // this client does not do.
        let close = !self.m.keep_alive || version == Version::Http10;
        let ex = Exchange::new(version).close(close);
        let w = RequestWriter::start(&mut self.out, method, target, host, &ex, framing)?;
        let method = Method::from_bytes(method);
        Ok(OutgoingRequest {
            w,
            m: &mut self.m,
            date: None,
            plan: Plan {
                status: 0,
                switch: false,
                flight: InFlight {
                    version,
                    head: method == Method::Head,
                    connect: method == Method::Connect,
                    upgrade: false,
                    persistent: !close,
                    expect: Continue::No,
                    body_done: false,
                },
            },
        })
    }

    /// Records a request that was written by other means (raw bytes, as a
    /// conformance runner sends them), so the response to it is framed
    /// right: its `method`, whether it was HTTP/1.0, whether it asked to
    /// upgrade, and whether it closes the connection.
    ///
    /// Refused as [`request`](Self::request) would be: while a request is
    /// being sent, after the connection closed or switched, behind a
    /// request that asked to switch, past the pipelining limit.
    pub fn sent(
        &mut self,
        method: &[u8],
        http10: bool,
        upgrade: bool,
        close: bool,
    ) -> Result<(), SendError> {
        self.may_send()?;
        let method = Method::from_bytes(method);
        self.m.queue.push_back(InFlight {
            version: if http10 {
                Version::Http10
            } else {
                Version::Http11
            },
            head: method == Method::Head,
            connect: method == Method::Connect,
            upgrade,
            persistent: !close,
            expect: Continue::No,
            body_done: true,
        });
        if close {
            self.m.send(SendInput::Finish);
        }
        Ok(())
    }

    /// How many requests wait for their response.
    pub fn outstanding(&self) -> usize {
        self.m.queue.len()
    }

    /// What to do with the socket: close once no more responses will be
    /// read.
    pub fn closing(&self) -> Closing {
        match self.m.recv {
            Recv::Closed | Recv::Failed { .. } => Closing::Close,
            _ => Closing::Open,
        }
    }

    /// Whether another request may be sent now.
    fn may_send(&self) -> Result<(), SendError> {
        self.m.may_start()?;
        if !matches!(self.m.recv, Recv::Head | Recv::Body { .. }) {
            return Err(SendError::Closed);
        }
        // Bytes behind a request that may switch protocols would land in
        // the new protocol (RFC 9110 §7.8, §9.3.6).
        if self.m.queue.iter().any(InFlight::asks_switch) {
            return Err(SendError::SwitchPending);
        }
        if self.m.queue.len() >= self.rx.config.max_unanswered.max(1) {
            return Err(SendError::TooManyOutstanding);
        }
        Ok(())
    }

    fn poll(&mut self) -> ClientEvent {
        match self.m.recv {
            Recv::Head => self.read_head(),
            Recv::Body { .. } => self.read_body(),
            // A client's switch is settled by the response head, so it
            // never waits for one.
            Recv::AwaitSwitch { .. } => ClientEvent::NeedMore,
            Recv::Switched => ClientEvent::Switch(self.rx.rest()),
            Recv::Closed | Recv::Failed { .. } => ClientEvent::Closed,
        }
    }

    fn read_head(&mut self) -> ClientEvent {
        let empty = self.rx.buf.unconsumed().is_empty();
        let Some(&req) = self.m.queue.front() else {
            if !empty {
                return self.fail(Error::UnsolicitedResponse);
            }
            if self.rx.eof {
                self.m.recv(RecvInput::Eof { clean: true });
                return ClientEvent::Closed;
            }
            return ClientEvent::NeedMore;
        };
        if empty && !self.rx.eof {
            return ClientEvent::NeedMore;
        }
        let head: ResponseHead = match self.rx.head() {
            HeadStep::Head(head) => head,
            HeadStep::NeedMore => return ClientEvent::NeedMore,
            HeadStep::Fail(e) => return self.fail(e),
        };
        let status = head.status;
        if status < 200 && status != 101 {
            if req.version == Version::Http10 {
                return self.fail(Error::UnexpectedStatus);
            }
            return ClientEvent::Interim(Response {
                head,
                framing: Framing::Empty,
                persistent: true,
            });
        }
        if status == 101 && !req.upgrade {
            return self.fail(Error::UnexpectedStatus);
        }
        let switch = req.switched_by(status);
        let method = match (req.head, req.connect) {
            (true, _) => Method::Head,
            (_, true) => Method::Connect,
            _ => Method::Get,
        };
        let framing = head.framing(method);
        if let Framing::Length(n) = framing {
            if n > self.rx.config.max_body_len {
                return self.fail(Error::BodyTooLarge);
            }
        }
        let f = &head.facts;
        let v11 = head.version == Version::Http11;
        let persistent = req.persistent
            && !f.connection.close()
            && (v11 || f.connection.keep_alive())
            && framing != Framing::UntilClose;
        if !persistent {
            // RFC 9112 §9.6: a client that receives "close" MUST cease
            // sending requests on that connection.
            self.m.send(SendInput::Finish);
        }
        self.m.recv(RecvInput::Head {
            decoder: BodyDecoder::new(framing),
            persistent,
            switch: if switch {
                Switch::Decided(true)
            } else {
                Switch::No
            },
        });
        ClientEvent::Response(Response {
            head,
            framing,
            persistent,
        })
    }

    fn read_body(&mut self) -> ClientEvent {
        let Recv::Body { decoder, .. } = &mut self.m.recv else {
            return ClientEvent::NeedMore;
        };
        match self.rx.body(decoder) {
            Err(e) => self.fail(e),
            Ok(Decoded::Data(span)) => ClientEvent::Data(span),
            Ok(Decoded::Trailers(n)) => ClientEvent::Trailers(n),
            Ok(Decoded::NeedMore) => ClientEvent::NeedMore,
            Ok(Decoded::End) => {
                self.m.queue.pop_front();
                self.m.recv(RecvInput::End);
                ClientEvent::End
            }
        }
    }

    #[cold]
    fn fail(&mut self, e: Error) -> ClientEvent {
        self.m.recv(match e {
            Error::UnexpectedEof => RecvInput::Eof { clean: false },
            _ => RecvInput::Error { answer: None },
        });
        ClientEvent::Error(e)
    }
}

impl OutgoingRequest<'_> {
    /// Marks the request as asking to upgrade (it carries `Upgrade` and
    /// `Connection: upgrade`, written as fields): a 101 then switches.
    pub fn upgrade(&mut self) -> &mut Self {
        self.plan.flight.upgrade = true;
        self
    }

    /// Ends the head. When [`Sent::body`], write the body with
    /// [`send_data`](Conn::send_data) and end it with
    /// [`send_end`](Conn::send_end).
    pub fn finish(self) -> Result<Sent, SendError> {
        let head = self.w.finish()?;
        let m = self.m;
        let body = head.body.wants_data();
        let close = head.close;
        m.send(SendInput::Head {
            body: body.then_some(head.body),
            close,
            switch: false,
            asked: false,
        });
        let mut flight = self.plan.flight;
        flight.persistent &= !close;
        m.queue.push_back(flight);
        Ok(Sent { body, close })
    }
}
