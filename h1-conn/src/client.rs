//! The client role: requests out, responses in.

use alloc::collections::VecDeque;
use alloc::vec::Vec;

use h1_encode::{BodyWriter, Exchange, Framing, RequestWriter};
use h1_headers::{Entry, HeadersView};
use h1_parse::{Method, ResponseHead, TransferEncoding, Version};

use crate::body::{BodyDecoder, Decoded};
use crate::config::Config;
use crate::error::{Error, SendError};
use crate::event::Event;
use crate::output::{discard_written, head_writer_wrapper, write_body, After};
use crate::reader::{receive_methods, HeadStep, Reader};
use crate::state::{RecvInput, RecvState, SendInput, SendState};
use crate::Closing;

/// A response head, with what the connection decided from it and from the
/// request it answers. Spans point into [`ClientConn::received`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Response {
    /// The parsed head: status, reason, version, framing facts.
    pub head: ResponseHead,
    /// How the body is delimited (RFC 9112 §6.3): none after HEAD, for
    /// 1xx, 204, 304 and a 2xx to CONNECT; chunked; `Content-Length`; or
    /// until the connection closes.
    pub body: Framing,
    /// The connection stays open after this response (RFC 9112 §9.3).
    pub persistent: bool,
}

impl Response {
    /// The status code.
    pub fn status(&self) -> u16 {
        self.head.status
    }
}

/// A request sent and not yet answered.
#[derive(Clone, Copy, Debug)]
struct Pending {
    /// The request's method is HEAD.
    head_method: bool,
    connect: bool,
    upgrade: bool,
    close: bool,
    http10: bool,
}

#[derive(Debug)]
struct Inner {
    rx: Reader,
    recv: RecvState,
    send: SendState,
    pending: VecDeque<Pending>,
    /// The response being received: persistent, switches.
    current: After,
    body: Option<BodyWriter>,
    body_close: bool,
    closing: bool,
    /// No request may be sent any more: one that closes was sent, or the
    /// server said it closes (RFC 9112 §9.6).
    done_sending: bool,
}

/// The client role of one connection: requests are encoded into its output
/// buffer (pipelined, up to [`Config::max_unanswered`]); the bytes received
/// yield responses as [`Event`]s, each matched with the request it answers
/// (so a response to HEAD has no body, and a 2xx to CONNECT switches).
///
/// ```
/// use h1_conn::{Framing, ClientConn, Event};
///
/// let mut conn = ClientConn::default();
/// conn.request(b"HEAD", b"/", Some(b"example.com"), Framing::Empty)?.finish()?;
/// assert!(conn.out().starts_with(b"HEAD / HTTP/1.1\r\nHost: example.com\r\n"));
/// conn.written(conn.out().len());
///
/// conn.feed(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n");
/// let Event::Head(resp) = conn.next_event() else { panic!() };
/// assert_eq!(resp.status(), 200);
/// assert_eq!(conn.next_event(), Event::End); // HEAD: no body
/// assert_eq!(conn.next_event(), Event::NeedMore);
/// # Ok::<(), h1_conn::SendError>(())
/// ```
#[derive(Debug)]
pub struct ClientConn {
    out: Vec<u8>,
    inner: Inner,
}

impl Default for ClientConn {
    fn default() -> ClientConn {
        ClientConn::new(Config::default())
    }
}

impl ClientConn {
    /// A connection with `config`.
    pub fn new(config: Config) -> ClientConn {
        ClientConn {
            out: Vec::with_capacity(512),
            inner: Inner {
                recv: RecvState::Head,
                send: SendState::Idle,
                pending: VecDeque::with_capacity(config.max_unanswered.clamp(1, 1024)),
                current: After {
                    persistent: true,
                    switch: false,
                },
                body: None,
                body_close: false,
                closing: false,
                done_sending: false,
                rx: Reader::new(config),
            },
        }
    }

    /// The receiving side's state.
    pub fn recv_state(&self) -> RecvState {
        self.inner.recv
    }

    /// The sending side's state.
    pub fn send_state(&self) -> SendState {
        self.inner.send
    }

    receive_methods!();

    /// The next event (see [`Event`]).
    pub fn next_event(&mut self) -> Event<Response> {
        self.inner.next_event()
    }

    /// The bytes to write to the server.
    pub fn out(&self) -> &[u8] {
        &self.out
    }

    /// Drops the first `n` bytes of [`out`](Self::out) (written).
    pub fn written(&mut self, n: usize) {
        discard_written(&mut self.out, n);
    }

    /// Asks to close: the next request carries `Connection: close`, and no
    /// request may follow it.
    pub fn close(&mut self) {
        self.inner.closing = true;
    }

    /// Starts an HTTP/1.1 request (see h1-encode's [`RequestWriter`] for
    /// what is checked). `host` is required.
    pub fn request(
        &mut self,
        method: &[u8],
        target: &[u8],
        host: Option<&[u8]>,
        body: Framing,
    ) -> Result<OutgoingRequest<'_>, SendError> {
        self.request_version(Version::Http11, method, target, host, body)
    }

    /// Starts a request of `version` (HTTP/1.0: no chunked body, and the
    /// connection closes after the response unless it says keep-alive).
    pub fn request_version(
        &mut self,
        version: Version,
        method: &[u8],
        target: &[u8],
        host: Option<&[u8]>,
        body: Framing,
    ) -> Result<OutgoingRequest<'_>, SendError> {
        let i = &mut self.inner;
        match i.send {
            SendState::Idle => {}
            SendState::Body => return Err(SendError::InProgress),
            _ => return Err(SendError::Closed),
        }
        i.may_send()?;
        let v = match version {
            Version::Http10 => h1_encode::Version::Http10,
            _ => h1_encode::Version::Http11,
        };
        // HTTP/1.0 requests close unless keep-alive is asked for, which
        // this client does not do.
        let close = i.closing || v == h1_encode::Version::Http10;
        let ex = Exchange::new(v).close(close);
        let w = RequestWriter::start(&mut self.out, method, target, host, &ex, body)?;
        Ok(OutgoingRequest {
            w,
            inner: &mut self.inner,
            pending: Pending {
                head_method: Method::from_bytes(method) == Method::Head,
                connect: Method::from_bytes(method) == Method::Connect,
                upgrade: false,
                close,
                http10: v == h1_encode::Version::Http10,
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
        let i = &mut self.inner;
        if i.send == SendState::Body {
            return Err(SendError::InProgress);
        }
        i.may_send()?;
        i.pending.push_back(Pending {
            head_method: Method::from_bytes(method) == Method::Head,
            connect: Method::from_bytes(method) == Method::Connect,
            upgrade,
            close,
            http10,
        });
        i.done_sending |= close;
        Ok(())
    }

    /// Appends body bytes of the request in progress.
    pub fn send_data(&mut self, data: &[u8]) -> Result<(), SendError> {
        write_body(&mut self.inner.body, &mut self.out, data)
    }

    /// Ends the body of the request in progress (the last chunk when
    /// chunked).
    pub fn send_end(&mut self) -> Result<(), SendError> {
        let body = self.inner.body.as_mut().ok_or(SendError::NoMessage)?;
        body.finish(&mut self.out)?;
        self.inner.body_ended()
    }

    /// Ends a chunked request body with a trailer section.
    pub fn send_end_with_trailers<I, N, V>(&mut self, trailers: I) -> Result<(), SendError>
    where
        I: IntoIterator<Item = (N, V)>,
        N: AsRef<[u8]>,
        V: AsRef<[u8]>,
    {
        let body = self.inner.body.as_mut().ok_or(SendError::NoMessage)?;
        body.finish_with_trailers(&mut self.out, trailers)?;
        self.inner.body_ended()
    }

    /// How many requests wait for their response.
    pub fn outstanding(&self) -> usize {
        self.inner.pending.len()
    }

    /// What to do with the socket: close once no more responses will be
    /// read.
    pub fn closing(&self) -> Closing {
        match self.inner.recv {
            RecvState::Closed | RecvState::Failed => Closing::Close,
            _ => Closing::Open,
        }
    }
}

/// A request head being written (see [`ClientConn::request`]). Derefs to
/// the encoder's [`RequestWriter`].
#[must_use = "a request head does nothing until finished"]
pub struct OutgoingRequest<'c> {
    w: RequestWriter<'c, Vec<u8>>,
    inner: &'c mut Inner,
    pending: Pending,
}

head_writer_wrapper!(OutgoingRequest, RequestWriter);

impl OutgoingRequest<'_> {
    /// Marks the request as asking to upgrade (it carries `Upgrade` and
    /// `Connection: upgrade`, written as fields): a 101 then switches.
    pub fn upgrade(&mut self) -> &mut Self {
        self.pending.upgrade = true;
        self
    }

    /// Ends the head; a body follows through [`ClientConn::send_data`].
    pub fn finish(self) -> Result<(), SendError> {
        let head = self.w.finish()?;
        let i = self.inner;
        let body = head.body.wants_data();
        let input = SendInput::Head {
            body,
            close: head.close,
            switch: false,
        };
        i.send = i.send.next(input).ok_or(SendError::InProgress)?;
        i.body_close = head.close;
        if body {
            i.body = Some(head.body);
        }
        i.pending.push_back(self.pending);
        i.done_sending |= head.close;
        Ok(())
    }
}

impl Inner {
    fn body_ended(&mut self) -> Result<(), SendError> {
        self.body = None;
        let close = self.body_close;
        self.send = self
            .send
            .next(SendInput::End { close })
            .ok_or(SendError::NoMessage)?;
        Ok(())
    }

    /// Whether another request may be sent now.
    fn may_send(&self) -> Result<(), SendError> {
        if self.done_sending
            || matches!(
                self.recv,
                RecvState::Switched
                    | RecvState::Closed
                    | RecvState::Failed
                    | RecvState::AwaitSwitch
            )
        {
            return Err(SendError::Closed);
        }
        // Bytes behind a request that may switch protocols would land in
        // the new protocol (RFC 9110 §7.8, §9.3.6).
        if self.pending.iter().any(|p| p.connect || p.upgrade) {
            return Err(SendError::SwitchPending);
        }
        if self.pending.len() >= self.rx.config.max_unanswered.max(1) {
            return Err(SendError::TooManyOutstanding);
        }
        Ok(())
    }

    fn next_event(&mut self) -> Event<Response> {
        match self.recv {
            RecvState::Head => self.read_head(),
            RecvState::Body => self.read_body(),
            RecvState::AwaitSwitch => {
                self.recv = self
                    .recv
                    .next(RecvInput::SwitchDecided { switched: true })
                    .unwrap_or(RecvState::Failed);
                self.next_event()
            }
            RecvState::Switched => Event::Switch(self.rx.rest()),
            RecvState::Closed | RecvState::Failed => Event::Closed,
        }
    }

    fn read_head(&mut self) -> Event<Response> {
        let empty = self.rx.buf.unconsumed().is_empty();
        let Some(&req) = self.pending.front() else {
            if !empty {
                return self.fail(Error::UnsolicitedResponse);
            }
            if self.rx.eof {
                self.recv = self
                    .recv
                    .next(RecvInput::Eof { clean: true })
                    .unwrap_or(RecvState::Failed);
                return Event::Closed;
            }
            return Event::NeedMore;
        };
        if empty && !self.rx.eof {
            return Event::NeedMore;
        }
        let head: ResponseHead = match self.rx.head() {
            HeadStep::Head(head) => head,
            HeadStep::NeedMore => return Event::NeedMore,
            HeadStep::Fail(e) => return self.fail(e),
        };
        let status = head.status;
        let f = &head.facts;
        if status < 200 && status != 101 {
            if req.http10 {
                return self.fail(Error::UnexpectedStatus);
            }
            let resp = Response {
                head,
                body: Framing::Empty,
                persistent: true,
            };
            return Event::Informational(resp);
        }
        if status == 101 && !req.upgrade {
            return self.fail(Error::UnexpectedStatus);
        }
        let switch = status == 101 || (req.connect && (200..300).contains(&status));
        // RFC 9112 §6.3, in its order.
        let body = if req.head_method || status == 204 || status == 304 || switch {
            Framing::Empty
        } else {
            match (f.transfer_encoding, f.content_length) {
                (TransferEncoding::Chunked, _) => Framing::Chunked,
                (TransferEncoding::NotChunked, _) => Framing::UntilClose,
                (_, Some(n)) => Framing::Length(n),
                (_, None) => Framing::UntilClose,
            }
        };
        if let Framing::Length(n) = body {
            if n > self.rx.config.max_body_len {
                return self.fail(Error::BodyTooLarge);
            }
        }
        let v11 = head.version == Version::Http11;
        let persistent = !req.close
            && !f.connection.close()
            && (v11 || f.connection.keep_alive())
            && body != Framing::UntilClose;
        self.current = After { persistent, switch };
        // RFC 9112 §9.6: a client that receives "close" MUST cease sending
        // requests on that connection.
        self.done_sending |= !persistent;
        self.rx.decoder = BodyDecoder::new(body);
        self.recv = self.recv.next(RecvInput::Head).unwrap_or(RecvState::Failed);
        Event::Head(Response {
            head,
            body,
            persistent,
        })
    }

    fn read_body(&mut self) -> Event<Response> {
        match self.rx.body() {
            Err(e) => self.fail(e),
            Ok(Decoded::Data(span)) => Event::Data(span),
            Ok(Decoded::Trailers(n)) => Event::Trailers(n),
            Ok(Decoded::NeedMore) => Event::NeedMore,
            Ok(Decoded::End) => {
                self.pending.pop_front();
                let After { persistent, switch } = self.current;
                self.recv = self
                    .recv
                    .next(RecvInput::End { persistent, switch })
                    .unwrap_or(RecvState::Failed);
                Event::End
            }
        }
    }

    fn fail(&mut self, e: Error) -> Event<Response> {
        let input = match e {
            Error::UnexpectedEof => RecvInput::Eof { clean: false },
            _ => RecvInput::Error,
        };
        self.recv = self.recv.next(input).unwrap_or(RecvState::Failed);
        Event::Error(e)
    }
}
