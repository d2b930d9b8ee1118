//! The protocol machine: everything that decides what a connection may
//! read or send next, for both roles, in one place (h11's rule: what
//! affects the state machine lives in it). Each side of a connection (what
//! it receives, what it sends) has its own state, and the states carry
//! their data (the body decoder of the message being read, the body writer
//! of the message being sent); the two sides meet only where RFC 9112 makes
//! them meet, through the queue of messages in flight and the inputs the
//! roles give both sides.
//!
//! The tables below and the picture are checked against the transition
//! functions by this module's tests: a row that the code does not take, or
//! a transition the code takes that no row lists, fails them, and the
//! picture is drawn from the transitions themselves.
//!
//! # Receiving (server: requests; client: responses)
//!
//! | from | input | to | when | RFC |
//! |---|---|---|---|---|
//! | Head | Head | Body | a complete head (a message without a body ends at once) | 9112 §6.3 |
//! | Body | End | Head | persistent, no switch asked or the switch was declined | 9112 §9.3 |
//! | Body | End | Closed | not persistent | 9112 §9.3, §9.6 |
//! | Body | End | AwaitSwitch | a switch was asked (Upgrade, CONNECT) and is not answered yet | 9110 §7.8, §9.3.6 |
//! | Body | End | Switched | the switch was already accepted (server: answered before the end was reported; client: the response switches) | 9110 §7.8 |
//! | Body | Decided | Body | the answer to a switch came before the end: kept for `End` | 9110 §7.8 |
//! | AwaitSwitch | Decided | Switched | the response switched (101, 2xx to CONNECT) | 9110 §7.8, §9.3.6 |
//! | AwaitSwitch | Decided | Head | the response declined, persistent | 9110 §7.8 |
//! | AwaitSwitch | Decided | Closed | the response declined, not persistent | 9112 §9.6 |
//! | Head | Finish | Closed | no message after the one in progress (`close()`, a closing response head) | 9112 §9.6 |
//! | Body | Finish | Body | the message in progress is the last | 9112 §9.6 |
//! | AwaitSwitch | Finish | AwaitSwitch | the message in progress is the last | 9112 §9.6 |
//! | Head | Close | Closed | a response that closes the connection is complete | 9112 §9.6 |
//! | Body | Close | Closed | a response that closes the connection is complete | 9112 §9.6 |
//! | AwaitSwitch | Close | Closed | a response that closes the connection is complete | 9112 §9.6 |
//! | Head | Eof | Closed | end of input, nothing buffered | 9112 §9.6 |
//! | Head | Eof | Failed | end of input inside a head | 9112 §8 |
//! | Body | Eof | Failed | end of input inside a body | 9112 §8 |
//! | Head | Error | Failed | malformed bytes, a limit passed | 9112 §2.2, §6.3 |
//! | Body | Error | Failed | malformed bytes, a limit passed | 9112 §7.1 |
//! | Failed | Answered | Failed | the connection wrote its own answer to the failure | 9112 §9.6 |
//! | Failed | Close | Failed | a response that closes the connection is complete: the answer owed behind it is dropped | 9112 §9.6 |
//!
//! `Closed`, `Failed` and `Switched` are final: no byte received after them
//! is parsed as HTTP/1.1 (RFC 9112 §9.6: "MUST NOT process any further
//! requests"; a switched connection's bytes are the new protocol's).
//!
//! # Sending (server: responses; client: requests)
//!
//! | from | input | to | when | RFC |
//! |---|---|---|---|---|
//! | Idle | Interim | Idle | an interim (1xx other than 101) head | 9110 §15.2 |
//! | Idle | Head | Body | a final head whose message has a body | 9112 §6 |
//! | Idle | Head | Idle | a final head without a body, persistent | 9112 §9.3 |
//! | Idle | Head | Closed | a final head without a body, closing | 9112 §9.6 |
//! | Idle | Head | Switched | 101, or a 2xx to CONNECT | 9110 §15.2.2, §9.3.6 |
//! | Body | End | Idle | the body ends, persistent | 9112 §6 |
//! | Body | End | Closed | the body ends, closing | 9112 §9.6 |
//! | Idle | Finish | Closed | (client) no request may follow: the server closes, or a closing request was sent | 9112 §9.6 |
//! | Body | Finish | Body | the message in progress is the last | 9112 §9.6 |
//! | Idle | Answer | Closed | (server) the connection's own answer to a failed request | 9112 §9.6 |
//!
//! A server answers requests in the order they came (RFC 9112 §9.3.2): the
//! machine's queue holds them, oldest first, until their response is
//! complete.
//!
//! # The picture
//!
#![doc = include_str!("../doc/states.svg")]

use alloc::collections::VecDeque;

use h1_encode::BodyWriter;
use h1_headers::Version;

use crate::body::BodyDecoder;

/// The receiving side, as the API reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RecvState {
    /// Reading a head (or waiting for one).
    Head,
    /// Reading a body.
    Body,
    /// The message asked to switch protocols; nothing more is read until
    /// its response says whether it did.
    AwaitSwitch,
    /// The protocol switched; the remaining bytes are the new protocol's.
    Switched,
    /// No further message is read.
    Closed,
    /// The peer sent something that cannot be processed.
    Failed,
}

/// The sending side, as the API reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SendState {
    /// No message in progress.
    Idle,
    /// A head was written; its body is being written.
    Body,
    /// The message that ends the connection is complete.
    Closed,
    /// A head that switched protocols was written.
    Switched,
}

/// What a message that may switch protocols has settled so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Switch {
    /// The message does not switch.
    No,
    /// Server: the request asked (Upgrade, CONNECT); its response decides.
    Asked,
    /// The answer is known: switched or not.
    Decided(bool),
}

/// The receiving side, with its data.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Recv {
    Head,
    Body {
        decoder: BodyDecoder,
        /// Another message may follow this one.
        persistent: bool,
        switch: Switch,
    },
    AwaitSwitch {
        persistent: bool,
    },
    Switched,
    Closed,
    Failed {
        /// Server: the status the connection answers itself, once the
        /// responses owed before it are done.
        answer: Option<u16>,
    },
}

/// What happened, as far as the receiving side cares.
#[derive(Debug)]
pub(crate) enum RecvInput {
    /// A complete head: how its body is decoded, whether another message
    /// may follow it, and what it settles about switching.
    Head {
        decoder: BodyDecoder,
        persistent: bool,
        switch: Switch,
    },
    /// The message (head and body) is complete.
    End,
    /// The response to the message that asked to switch is complete.
    Decided { switched: bool },
    /// No message is read after the one in progress.
    Finish,
    /// No message is read any more, starting now.
    Close,
    /// No more bytes will arrive; `clean`: none are buffered and no message
    /// is in progress.
    Eof { clean: bool },
    /// Malformed input or a limit passed; the status to answer, if any.
    Error { answer: Option<u16> },
    /// The answer to the failure was written.
    Answered,
}

/// The sending side, with its data.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Send {
    Idle,
    Body {
        writer: BodyWriter,
        /// The connection ends with this message.
        close: bool,
        /// Server: the request asked to switch; this response (which has a
        /// body, so it declines) decides it.
        asked: bool,
    },
    Closed,
    Switched,
}

/// What happened, as far as the sending side cares.
#[derive(Debug)]
pub(crate) enum SendInput {
    /// An interim head (1xx, not 101).
    Interim,
    /// A final head: its body's writer when body bytes follow, whether the
    /// connection ends after it, whether it switches protocols, and
    /// (server) whether the request asked to switch.
    Head {
        body: Option<BodyWriter>,
        close: bool,
        switch: bool,
        asked: bool,
    },
    /// The body ended.
    End,
    /// No message is sent after the one in progress.
    Finish,
    /// Server: the connection's own answer to a failed request.
    Answer,
}

/// Whether a request's `100 Continue` is still to come.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Continue {
    /// Not asked for (or HTTP/1.0, or no body to wait for).
    No,
    /// Asked for and not sent.
    Owed,
    /// Sent.
    Sent,
}

/// A message whose exchange is not complete: server, a request received
/// and not answered yet; client, a request sent and not answered yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct InFlight {
    pub(crate) version: Version,
    /// The method is HEAD: the response has no body.
    pub(crate) head: bool,
    /// The method is CONNECT: a 2xx switches to a tunnel.
    pub(crate) connect: bool,
    /// The request asked to upgrade: a 101 switches.
    pub(crate) upgrade: bool,
    /// The request allows the connection to persist after the exchange.
    pub(crate) persistent: bool,
    /// Server: the request's `100 Continue`.
    pub(crate) expect: Continue,
    /// Server: the request's body has been received whole.
    pub(crate) body_done: bool,
}

impl InFlight {
    /// Whether the request may switch protocols.
    pub(crate) const fn asks_switch(&self) -> bool {
        self.upgrade || self.connect
    }

    /// Whether a final response with `status` switches protocols: a 101
    /// (to a request that asked to upgrade), or a 2xx to CONNECT (a tunnel,
    /// RFC 9110 §9.3.6).
    pub(crate) const fn switched_by(&self, status: u16) -> bool {
        status == 101 || (self.connect && status >= 200 && status < 300)
    }
}

/// The whole machine: both sides, the messages in flight, and whether the
/// local side still wants the connection.
#[derive(Debug)]
pub(crate) struct Machine {
    pub(crate) recv: Recv,
    pub(crate) send: Send,
    /// Oldest first.
    pub(crate) queue: VecDeque<InFlight>,
    /// False once the local side asked to close (`close()`): the last
    /// response owed says `Connection: close`, the last request carries it.
    pub(crate) keep_alive: bool,
    /// Server: the next final response is the last, whatever is queued
    /// behind it (`close_after_response()`).
    pub(crate) last_response: bool,
}

impl Machine {
    /// Whether a new message may be started on the sending side.
    pub(crate) fn may_start(&self) -> Result<(), crate::error::SendError> {
        match self.send {
            Send::Idle => Ok(()),
            Send::Body { .. } => Err(crate::error::SendError::InProgress),
            Send::Closed | Send::Switched => Err(crate::error::SendError::Closed),
        }
    }

    pub(crate) fn new(depth: usize) -> Machine {
        Machine {
            recv: Recv::Head,
            send: Send::Idle,
            queue: VecDeque::with_capacity(depth),
            keep_alive: true,
            last_response: false,
        }
    }

    /// Applies `input` to the receiving side; false (and no change) when the
    /// state does not take it.
    #[inline(always)]
    pub(crate) fn recv(&mut self, input: RecvInput) -> bool {
        self.recv.next(input)
    }

    /// Applies `input` to the sending side; false (and no change) when the
    /// state does not take it.
    #[inline(always)]
    pub(crate) fn send(&mut self, input: SendInput) -> bool {
        self.send.next(input)
    }

    /// Server: the final response to the oldest request is complete.
    /// `asked`: that request asked to switch, so this response decided
    /// the switch.
    pub(crate) fn response_done(&mut self, close: bool, switched: bool, asked: bool) {
        self.queue.pop_front();
        if asked {
            // The reader waits on this very request (`AwaitSwitch`), or
            // reads its body (`End` applies the answer).
            self.recv(RecvInput::Decided { switched });
        }
        if switched {
            self.queue.clear();
        } else if close {
            self.recv(RecvInput::Close);
            // Requests read ahead are dropped unanswered: the connection
            // ends with this response.
            self.queue.clear();
        }
    }

    /// Whether an error answer waits to be written.
    #[inline(always)]
    pub(crate) fn answer_owed(&self) -> Option<u16> {
        match self.recv {
            Recv::Failed { answer } => answer,
            _ => None,
        }
    }
}

impl Recv {
    /// The kind of state, as the API reports it.
    pub(crate) const fn kind(&self) -> RecvState {
        match self {
            Recv::Head => RecvState::Head,
            Recv::Body { .. } => RecvState::Body,
            Recv::AwaitSwitch { .. } => RecvState::AwaitSwitch,
            Recv::Switched => RecvState::Switched,
            Recv::Closed => RecvState::Closed,
            Recv::Failed { .. } => RecvState::Failed,
        }
    }

    /// The receiving side's transition table (see the module docs). Returns
    /// whether the state took `input`; when it did not, it is unchanged.
    /// Inlined: each caller gives one kind of input, and the rest of the
    /// table folds away.
    #[inline(always)]
    pub(crate) fn next(&mut self, input: RecvInput) -> bool {
        use RecvInput as I;
        let next = match (&mut *self, input) {
            (
                Recv::Head,
                I::Head {
                    decoder,
                    persistent,
                    switch,
                },
            ) => Recv::Body {
                decoder,
                persistent,
                switch,
                // A message without a body ends at once: `End` follows.
            },
            (
                Recv::Body {
                    persistent, switch, ..
                },
                I::End,
            ) => match switch {
                Switch::Asked => Recv::AwaitSwitch {
                    persistent: *persistent,
                },
                Switch::Decided(true) => Recv::Switched,
                Switch::No | Switch::Decided(false) if *persistent => Recv::Head,
                Switch::No | Switch::Decided(false) => Recv::Closed,
            },
            (Recv::Body { switch, .. }, I::Decided { switched }) if *switch == Switch::Asked => {
                *switch = Switch::Decided(switched);
                return true;
            }
            (Recv::AwaitSwitch { persistent }, I::Decided { switched }) => match () {
                () if switched => Recv::Switched,
                () if *persistent => Recv::Head,
                () => Recv::Closed,
            },
            (Recv::Head, I::Finish) => Recv::Closed,
            (Recv::Body { persistent, .. } | Recv::AwaitSwitch { persistent }, I::Finish) => {
                *persistent = false;
                return true;
            }
            (Recv::Head | Recv::Body { .. } | Recv::AwaitSwitch { .. }, I::Close) => Recv::Closed,
            (Recv::Head, I::Eof { clean: true }) => Recv::Closed,
            (Recv::Head | Recv::Body { .. }, I::Eof { clean: false }) => {
                Recv::Failed { answer: None }
            }
            (Recv::Head | Recv::Body { .. }, I::Error { answer }) => Recv::Failed { answer },
            // A response that closes the connection is the last message:
            // an answer owed behind it is never sent.
            (Recv::Failed { answer }, I::Answered | I::Close) if answer.is_some() => {
                *answer = None;
                return true;
            }
            _ => return false,
        };
        *self = next;
        true
    }
}

impl Send {
    /// The kind of state, as the API reports it.
    pub(crate) const fn kind(&self) -> SendState {
        match self {
            Send::Idle => SendState::Idle,
            Send::Body { .. } => SendState::Body,
            Send::Closed => SendState::Closed,
            Send::Switched => SendState::Switched,
        }
    }

    /// The sending side's transition table (see the module docs). Returns
    /// whether the state took `input`; when it did not, it is unchanged.
    #[inline(always)]
    pub(crate) fn next(&mut self, input: SendInput) -> bool {
        use SendInput as I;
        let next = match (&mut *self, input) {
            (Send::Idle, I::Interim) => return true,
            (Send::Idle, I::Head { switch: true, .. }) => Send::Switched,
            (
                Send::Idle,
                I::Head {
                    body: Some(writer),
                    close,
                    asked,
                    ..
                },
            ) => Send::Body {
                writer,
                close,
                asked,
            },
            (Send::Idle, I::Head { close: false, .. }) => return true,
            (Send::Idle, I::Head { close: true, .. }) => Send::Closed,
            (Send::Body { close: false, .. }, I::End) => Send::Idle,
            (Send::Body { close: true, .. }, I::End) => Send::Closed,
            (Send::Idle, I::Finish | I::Answer) => Send::Closed,
            (Send::Body { close, .. }, I::Finish) => {
                *close = true;
                return true;
            }
            _ => return false,
        };
        *self = next;
        true
    }
}

#[cfg(test)]
mod tests;
