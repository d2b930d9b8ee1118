//! Span-based HTTP/1.1 header storage.
//!
//! A parsed head does not copy its fields: each field line becomes an
//! [`Entry`], a pair of [`Span`]s (offset and length) into the bytes that
//! arrived. This crate holds those types and what works on them:
//!
//! - [`Span`] and [`Entry`], eight and sixteen bytes;
//! - the vocabulary the other crates share: [`Version`] and [`Framing`]
//!   (how a body is delimited);
//! - [`HeadersView`], a borrowed view over a buffer and its entries, with
//!   allocation-free, ASCII case-insensitive lookups in arrival order;
//! - [`HeaderBlob`], an owned set of fields: every name and value back to back
//!   in one byte buffer, with a span index, for headers a server builds or
//!   keeps; it validates what it stores and refuses with [`HeaderError`];
#![cfg_attr(
    feature = "bytes",
    doc = "- with the `bytes` feature, [`SharedHeaders`], spans into a frozen"
)]
#![cfg_attr(
    not(feature = "bytes"),
    doc = "- with the `bytes` feature, `SharedHeaders`, spans into a frozen"
)]
//!   `bytes::Bytes`, so a parsed head outlives the receive buffer without a copy;
//! - helpers for field values: [`parse_content_length`], [`content_length`],
//!   [`list_elements`], [`list_contains`], [`value_eq_ignore_case`], and the
//!   byte classes in [`chars`].
//!
//! The crate is `#![no_std]` and uses `alloc` only for [`HeaderBlob`] and the
//! entry index of `SharedHeaders`. Lookups and iteration never allocate.
//!
//! ```
//! use h1_headers::{Entry, HeaderBlob, HeadersView, Span};
//!
//! // The spans a parser reports for `Host: example.com\r\n`.
//! let buf = b"Host: example.com\r\n";
//! let entries = [Entry::new(Span::new(0, 4).unwrap(), Span::new(6, 11).unwrap())];
//! let view = HeadersView::new(buf, &entries);
//! assert_eq!(view.get(b"HOST"), Some(&b"example.com"[..]));
//!
//! // An owned copy, for when the receive buffer is reused.
//! let owned = HeaderBlob::from_view(&view)?;
//! assert_eq!(owned.as_bytes(), b"hostexample.com");
//! # Ok::<(), h1_headers::HeaderError>(())
//! ```
//!
//! # Features
//!
//! - `bytes` (off by default): `SharedHeaders`, headers that keep a
//!   `bytes::Bytes` of the head they arrived in.
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;
#[cfg(test)]
extern crate std;

mod blob;
pub mod chars;
mod framing;
mod list;
#[cfg(feature = "bytes")]
mod shared;
mod span;
mod version;
pub mod view;

pub use blob::{HeaderBlob, HeaderError};
pub use framing::Framing;
pub use list::{
    content_length, list_contains, list_elements, parse_content_length, value_eq_ignore_case,
    ContentLengthError, ListElements,
};
#[cfg(feature = "bytes")]
#[cfg_attr(docsrs, doc(cfg(feature = "bytes")))]
pub use shared::SharedHeaders;
pub use span::{Entry, Span};
pub use version::Version;
pub use view::HeadersView;

// The crate's README (its page on crates.io) is tested as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
