//! HTTP/1.1 head and body-framing encoder: responses for the server role,
//! requests for the client role, appended to a buffer the caller reuses.
//!
//! A response is a handful of copies: a pre-encoded status line, the `Date`
//! line of the current second (`DateCache` with `std`), constant lines
//! encoded once ([`PreEncoded`]), the caller's fields (checked on the way),
//! and the framing fields the encoder decides itself. Nothing is allocated
//! once the buffer has grown.
//!
//! Framing is decided in one place, when a head is started, from the status,
//! the [`Framing`] the caller states for the body and the [`Exchange`] (facts about the
//! request being answered: its version, whether it was HEAD or CONNECT,
//! whether the connection closes). The encoder then writes
//! `Content-Length` or `Transfer-Encoding: chunked`, `Connection: close` or
//! `keep-alive`, refuses content where none is allowed and refuses caller
//! fields that would contradict it. The [`BodyWriter`] it returns frames
//! chunks and counts `Content-Length` bodies. See [`ResponseWriter`] for
//! the list of rules.
//!
//! ```
//! use h1_encode::{DateLine, Exchange, Framing, ResponseWriter, Version};
//!
//! let date = DateLine::new(b"Sun, 06 Nov 1994 08:49:37 GMT")?;
//! let mut buf = Vec::new();
//! // Answering an HTTP/1.0 request that asked for keep-alive, body streamed:
//! // no chunked coding for 1.0, so the body ends when the connection closes.
//! let ex = Exchange::new(Version::Http10).close(false);
//! let mut w = ResponseWriter::start(&mut buf, 200, &ex, Framing::Chunked)?;
//! w.date(&date);
//! let mut head = w.finish()?;
//! assert!(head.close);
//! head.body.write(&mut buf, b"streamed")?;
//! head.body.finish(&mut buf)?;
//! assert_eq!(
//!     buf,
//!     b"HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nConnection: close\r\n\r\nstreamed"
//! );
//! # Ok::<(), h1_encode::Error>(())
//! ```
//!
//! # Features
//!
//! - `std` (default): `DateCache` (through `httpdate`), `IoSlice` helpers,
//!   `std::error::Error` for [`Error`].
//! - `bytes`: [`Sink`] for `bytes::BytesMut`.
//! - `http`: encode `http::response::Parts` and `http::request::Parts`
//!   (`encode_response_parts`, `encode_request_parts`).
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;
#[cfg(any(feature = "std", test))]
extern crate std;

mod body;
mod date;
mod error;
mod fields;
mod framing;
#[cfg(feature = "http")]
mod http_parts;
mod num;
mod sink;
mod status;
mod writer;

pub use body::{BodyWriter, Frame};
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub use date::DateCache;
pub use date::DateLine;
pub use error::Error;
pub use fields::PreEncoded;
pub use framing::Exchange;
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub use http_parts::{encode_request_parts, encode_response_parts};
pub use sink::Sink;
pub use status::reason;
pub use writer::{Head, RequestWriter, ResponseWriter};

pub use h1_headers as headers;
pub use h1_headers::{Framing, HeaderBlob, Version};

// The crate's README (its page on crates.io) is tested as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
