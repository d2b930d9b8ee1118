//! The states of a connection and every transition between them, in one
//! place, for both roles. Each side of a connection (what it receives, what
//! it sends) has its own state, as in h11; the two meet only where RFC 9112
//! makes them meet (a response that closes the connection stops the
//! reading; a response that switches protocols ends both).
//!
//! # Receiving (server: requests; client: responses)
//!
//! | state | input | next state | RFC |
//! |---|---|---|---|
//! | `Head` | a complete head (a message without a body ends at once) | `Body` | 9112 §6.3 |
//! | `Body` | end of the message, persistent, no switch asked | `Head` | 9112 §9.3 |
//! | `Body` | end of the message, a switch asked (Upgrade, CONNECT) and not yet answered | `AwaitSwitch` | 9110 §7.8, §9.3.6 |
//! | `Body` | end of the message, a switch asked and already answered (server: the answer came before the end was reported) | `Switched`, or as without a switch | 9110 §7.8 |
//! | `Body` | end of the message, not persistent | `Closed` | 9112 §9.3, §9.6 |
//! | `AwaitSwitch` | the response switched (101, 2xx to CONNECT) | `Switched` | 9110 §7.8, §9.3.6 |
//! | `AwaitSwitch` | the response did not switch | `Head` (or `Closed` when it closes) | 9110 §7.8 |
//! | `AwaitSwitch` | a response to an earlier request | `AwaitSwitch` (only the answer to the message that asked decides) | 9112 §9.3.2 |
//! | `Head` | (server) a response head that closes the connection is written, or `close()` | `Closed` | 9112 §9.6 |
//! | `Head`, `Body`, `AwaitSwitch` | a response that closes the connection is finished | `Closed` | 9112 §9.6 |
//! | `Head` with no bytes buffered | end of input | `Closed` | 9112 §9.6 |
//! | `Head` with bytes, `Body` | end of input (client: unless the body is close-delimited) | `Failed` | 9112 §8 |
//! | `Head`, `Body` | malformed bytes, a limit passed | `Failed` | 9112 §2.2, §6.3 |
//!
//! `Closed`, `Failed` and `Switched` are final: no byte received after them
//! is parsed as HTTP/1.1 (RFC 9112 §9.6: "MUST NOT process any further
//! requests"; a switched connection's bytes are the new protocol's).
//!
//! # Sending (server: responses; client: requests)
//!
//! | state | input | next state | RFC |
//! |---|---|---|---|
//! | `Idle` | an interim (1xx other than 101) head | `Idle` | 9110 §15.2 |
//! | `Idle` | a final head whose message has a body | `Body` | 9112 §6 |
//! | `Idle` | a final head without a body, persistent | `Idle` | 9112 §9.3 |
//! | `Idle` | a final head without a body, closing | `Closed` | 9112 §9.6 |
//! | `Idle` | 101, or a 2xx to CONNECT (server) | `Switched` | 9110 §15.2.2, §9.3.6 |
//! | `Body` | the body ends, persistent | `Idle` | 9112 §6 |
//! | `Body` | the body ends, closing | `Closed` | 9112 §9.6 |
//! | `Idle` | (server) the answer to a request that failed | `Closed` | 9112 §9.6 |
//!
//! A server may only answer the oldest unanswered request (RFC 9112 §9.3.2:
//! responses in the order of the requests); the connection keeps that queue
//! and refuses anything else.

/// The receiving side.
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

/// The sending side.
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

/// What happened, as far as the receiving side cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RecvInput {
    /// A complete head.
    Head,
    /// The message (head and body) is complete.
    End { persistent: bool, switch: bool },
    /// The response to the message that asked to switch was written.
    SwitchDecided { switched: bool },
    /// A message that closes the connection was sent or decided.
    Close,
    /// No more bytes will arrive; `clean`: none are buffered and no
    /// message is in progress (or the close-delimited body ended).
    Eof { clean: bool },
    /// Malformed input or a limit passed.
    Error,
}

/// What happened, as far as the sending side cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SendInput {
    /// An interim head (1xx, not 101).
    Interim,
    /// A final head; `body`: body bytes follow; `close`: the connection ends
    /// after this message; `switch`: it switches protocols.
    Head {
        body: bool,
        close: bool,
        switch: bool,
    },
    /// The body ended; `close` as for the head.
    End { close: bool },
    /// The connection's own answer to a failed message.
    ErrorAnswer,
}

impl RecvState {
    /// The receiving side's transition table (see the module docs). `None`
    /// for an input the state cannot take (a bug in the caller inside this
    /// crate, turned into a failure rather than a panic).
    pub(crate) const fn next(self, input: RecvInput) -> Option<RecvState> {
        use RecvInput as I;
        use RecvState::*;
        Some(match (self, input) {
            (Head, I::Head) => Body,
            (Body, I::End { switch: true, .. }) => AwaitSwitch,
            (
                Body,
                I::End {
                    persistent: true, ..
                },
            ) => Head,
            (
                Body,
                I::End {
                    persistent: false, ..
                },
            ) => Closed,
            (AwaitSwitch, I::SwitchDecided { switched: true }) => Switched,
            (AwaitSwitch, I::SwitchDecided { switched: false }) => Head,
            (Head | Body | AwaitSwitch, I::Close) => Closed,
            (Closed | Failed | Switched, I::Close) => self,
            (Head, I::Eof { clean: true }) => Closed,
            (Body, I::Eof { clean: true }) => Closed,
            (Head | Body, I::Eof { clean: false }) => Failed,
            (AwaitSwitch | Closed | Failed | Switched, I::Eof { .. }) => self,
            (Head | Body, I::Error) => Failed,
            _ => return None,
        })
    }
}

impl SendState {
    /// The sending side's transition table (see the module docs).
    pub(crate) const fn next(self, input: SendInput) -> Option<SendState> {
        use SendInput as I;
        use SendState::*;
        Some(match (self, input) {
            (Idle, I::Interim) => Idle,
            (Idle, I::Head { switch: true, .. }) => Switched,
            (Idle, I::Head { body: true, .. }) => Body,
            (Idle, I::Head { close: false, .. }) => Idle,
            (Idle, I::Head { close: true, .. }) => Closed,
            (Body, I::End { close: false }) => Idle,
            (Body, I::End { close: true }) => Closed,
            (Idle, I::ErrorAnswer) => Closed,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn final_states_take_no_message() {
        for s in [RecvState::Closed, RecvState::Failed, RecvState::Switched] {
            assert_eq!(s.next(RecvInput::Head), None);
            assert_eq!(
                s.next(RecvInput::End {
                    persistent: true,
                    switch: false
                }),
                None
            );
        }
        for s in [SendState::Closed, SendState::Switched] {
            assert_eq!(s.next(SendInput::Interim), None);
            let head = SendInput::Head {
                body: false,
                close: false,
                switch: false,
            };
            assert_eq!(s.next(head), None);
        }
    }

    #[test]
    fn a_switch_waits_for_the_answer() {
        let s = RecvState::Body.next(RecvInput::End {
            persistent: true,
            switch: true,
        });
        assert_eq!(s, Some(RecvState::AwaitSwitch));
        assert_eq!(s.unwrap().next(RecvInput::Head), None);
        assert_eq!(
            RecvState::AwaitSwitch.next(RecvInput::SwitchDecided { switched: false }),
            Some(RecvState::Head)
        );
    }

    #[test]
    fn eof_mid_message_fails() {
        assert_eq!(
            RecvState::Body.next(RecvInput::Eof { clean: false }),
            Some(RecvState::Failed)
        );
        assert_eq!(
            RecvState::Head.next(RecvInput::Eof { clean: true }),
            Some(RecvState::Closed)
        );
    }

    #[test]
    fn a_closing_body_end_closes_the_sender() {
        assert_eq!(
            SendState::Body.next(SendInput::End { close: true }),
            Some(SendState::Closed)
        );
        assert_eq!(
            SendState::Body.next(SendInput::End { close: false }),
            Some(SendState::Idle)
        );
        assert_eq!(SendState::Idle.next(SendInput::End { close: false }), None);
    }
}
