//! The one place h1-tokio uses `unsafe`: a request's field values become
//! `http::HeaderValue`s without their bytes being checked a second time.
//!
//! `HeaderValue::from_maybe_shared` walks every byte of a value to check
//! it may be in a field (HTAB, or 0x20 to 0xFF but DEL). h1-parse has
//! already walked exactly those bytes against exactly that predicate
//! (`h1_headers::chars::is_field_value_byte`, the scalar twin its SIMD
//! scanners are tested and fuzzed against) before h1-conn reported the
//! request, so the second walk checks nothing new. On a browser's request
//! (twelve fields, ~550 bytes of values) it is most of what moving the
//! head into the `http` types costs.

use bytes::Bytes;
use http::header::HeaderValue;

/// Proof that the request's field values hold only bytes a
/// `HeaderValue` may hold: h1-conn's parser refused any other, which it
/// does unless obs-fold is allowed (a folded value keeps its CR LF).
#[derive(Clone, Copy, Debug)]
pub(crate) struct CheckedValues(());

impl CheckedValues {
    /// The proof, when the connection's parser gives it (h1-parse says
    /// which of its configurations do: all but obs-fold's).
    pub(crate) fn of(config: &h1_conn::Config) -> Option<CheckedValues> {
        config
            .parse
            .values_are_field_value_bytes()
            .then_some(CheckedValues(()))
    }
}

/// `value`, a field value of a request h1-conn accepted with the parser
/// behind `proof`, as a `HeaderValue`.
pub(crate) fn header_value(value: Bytes, proof: CheckedValues) -> HeaderValue {
    let CheckedValues(()) = proof;
    debug_assert!(
        value
            .iter()
            .all(|&b| h1_conn::headers::chars::is_field_value_byte(b)),
        "a value h1-parse would refuse: {value:?}"
    );
    // SAFETY: `from_maybe_shared_unchecked` asks that every byte be one a
    // `HeaderValue` may hold (HTAB, or 0x20..=0xFF but 0x7F). `proof`
    // exists only for a parser configuration that h1-parse says keeps
    // every field value span to bytes that passed `is_field_value_byte`
    // (`Config::values_are_field_value_bytes`), that very predicate (h1-parse's value
    // scanners; request.rs's tests send every byte value through the
    // connection and check the result against `HeaderValue::from_bytes`).
    unsafe { HeaderValue::from_maybe_shared_unchecked(value) }
}
