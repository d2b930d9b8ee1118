//! The HTTP/1.1 connection state machine: every RFC 9112 framing,
//! keep-alive and pipelining rule in one checked place, with no I/O.
//!
//! A [`ServerConn`] is fed the bytes a socket received and yields
//! [`ServerEvent`]s (a request head, body data, trailers, the end of a
//! message, "need more bytes", "paused" with its reason, a protocol switch,
//! an error); told the responses, it encodes them through h1-encode into
//! one output buffer, in request order, with the framing checked against
//! the request (HEAD, 1xx, 204, 304, CONNECT, HTTP/1.0). A [`ClientConn`]
//! mirrors it: requests out, [`ClientEvent`]s in. Both are one [`Conn`] in
//! a [`Role`], and share every method that does not depend on the role.
//!
//! Everything that decides what may be read or sent next is one protocol
//! machine, in [`state`], whose tables and picture are checked against its
//! code; body framing is [`BodyDecoder`]; errors carry the status to answer
//! ([`Error::status`]).
//!
//! # Closing without losing the last response
//!
//! When a connection ends while the peer may still be sending (an error,
//! `Connection: close` with pipelined bytes behind it, a body never read),
//! closing the socket at once lets the peer's TCP stack answer the unread
//! bytes with a reset that can destroy the response before the client
//! reads it (RFC 9112 §9.6). [`ServerConn::closing`] says
//! [`Closing::Linger`] then: shut down the writing side, read and discard
//! for a bounded time and byte count, then close. The examples do this.
//!
//! # Features
//!
//! - `std` (default): runtime CPU detection in the parser,
//!   `std::error::Error`, the `Date` line kept from the system clock
//!   ([`Config::send_date`]), and h1-encode's [`DateCache`].
//! - `bytes`: the receive buffer is a `bytes::BytesMut`, and `freeze()`
//!   takes the consumed bytes out as `Bytes` without a copy, so heads
//!   (as `SharedHeaders`) and body data outlive the buffer; the `bytes`
//!   crate is re-exported as `h1_conn::bytes`.
//!
//! # One import
//!
//! The types of h1-parse, h1-encode and h1-headers that this crate's API
//! takes and returns are re-exported here ([`Method`], [`Version`],
//! [`RequestHead`], [`Framing`], [`DateCache`], [`Entry`], [`Span`], ...),
//! and each crate whole as [`parse`], [`encode`] and [`headers`] for the
//! rest (among them the types whose names would clash here:
//! `parse::Config`, `parse::Error`, `encode::Error`), so a server needs no
//! other h1 crate in its `Cargo.toml`.
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;
#[cfg(any(feature = "std", test))]
extern crate std;

mod body;
mod client;
mod config;
mod conn;
mod date;
mod error;
mod event;
mod outgoing;
mod reader;
mod recv_buf;
mod server;
pub mod state;

pub use body::{BodyDecoder, Decoded};
pub use client::{ClientConn, Response};
pub use config::Config;
pub use conn::{Client, Conn, Role, Server};
pub use error::{Error, SendError};
pub use event::{ClientEvent, Pause, ServerEvent};
pub use outgoing::{Outgoing, OutgoingRequest, OutgoingResponse, Sent};
pub use server::{Request, ServerConn};
pub use state::{RecvState, SendState};

/// The `bytes` crate that `freeze()` and [`SharedHeaders`] use.
#[cfg(feature = "bytes")]
#[cfg_attr(docsrs, doc(cfg(feature = "bytes")))]
pub use bytes;
pub use h1_encode as encode;
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub use h1_encode::DateCache;
pub use h1_encode::{DateLine, Frame, Framing, PreEncoded, RequestWriter, ResponseWriter};
pub use h1_headers as headers;
#[cfg(feature = "bytes")]
#[cfg_attr(docsrs, doc(cfg(feature = "bytes")))]
pub use h1_headers::SharedHeaders;
pub use h1_headers::{Entry, HeaderBlob, HeadersView, Span};
pub use h1_parse as parse;
pub use h1_parse::{
    ConnectionTokens, ErrorKind, Expect, Method, RequestHead, ResponseHead, TargetForm,
    TransferEncoding, Version,
};

use core::time::Duration;

/// What a driver does with the socket once the output is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Closing {
    /// Keep the connection: read the next message.
    Open,
    /// Close now: the peer has closed its side too.
    Close,
    /// Close gracefully (RFC 9112 §9.6): shut down writing, then read and
    /// discard up to `bytes` bytes for up to `time` (or until the peer
    /// closes), then close.
    Linger {
        /// Most bytes to discard.
        bytes: u64,
        /// Longest time to wait.
        time: Duration,
    },
}

// The crate's README (its page on crates.io) is tested as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
