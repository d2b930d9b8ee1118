//! The one error type of the parser.

use core::fmt;

/// What was wrong with the input. Each kind maps to the status a server
/// should answer ([`ErrorKind::status`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    // --- request line / status line ---
    /// The method is empty or holds a byte that is not a tchar.
    InvalidMethod,
    /// The request-target holds a byte that is not a VCHAR, or a `#`.
    InvalidTarget,
    /// The request-target does not fit its form: `*` other than for OPTIONS,
    /// authority-form other than for CONNECT (or a CONNECT target without a
    /// numeric port), an absolute-form without a scheme or authority.
    InvalidTargetForm,
    /// The request-target is longer than [`Config::max_target_len`](crate::Config::max_target_len) (414).
    TargetTooLong,
    /// The protocol version is not `HTTP/DIGIT.DIGIT`.
    InvalidVersion,
    /// A well-formed version whose major number is not 1 (505).
    UnsupportedVersion,
    /// Something other than exactly one SP between the parts of the request
    /// line or status line, or trailing bytes after the version.
    InvalidRequestLine,
    /// The status code is not three digits, or the reason phrase holds a
    /// control byte.
    InvalidStatusLine,

    // --- line endings ---
    /// A CR not followed by LF.
    BareCr,
    /// An LF not preceded by CR (unless [`Config::allow_bare_lf`](crate::Config::allow_bare_lf)).
    BareLf,

    // --- field lines ---
    /// A field name is empty, holds a byte that is not a tchar, or the line
    /// has no colon.
    InvalidFieldName,
    /// Whitespace between a field name and its colon (RFC 9112 §5.1 MUST reject).
    WhitespaceBeforeColon,
    /// A field value holds NUL, a control byte other than HTAB, or DEL.
    InvalidFieldValue,
    /// A field line starting with whitespace: obs-fold (RFC 9112 §5.2), or a
    /// first field line starting with whitespace (§2.2).
    ObsFold,
    /// A field line longer than [`Config::max_field_line_len`](crate::Config::max_field_line_len) (431).
    FieldLineTooLong,
    /// More field lines than [`Config::max_fields`](crate::Config::max_fields), or than
    /// the caller's storage holds (431).
    TooManyFields,
    /// The head is longer than [`Config::max_head_len`](crate::Config::max_head_len) (431).
    HeadTooLarge,

    // --- framing facts ---
    /// A `Content-Length` that is not plain digits, overflows, or disagrees
    /// with another.
    InvalidContentLength,
    /// `Transfer-Encoding` that is malformed, empty, does not end in
    /// `chunked`, names `chunked` twice or with parameters.
    InvalidTransferEncoding,
    /// `Transfer-Encoding` names a coding this codec does not implement (501).
    UnsupportedTransferCoding,
    /// `Transfer-Encoding` in an HTTP/1.0 request.
    TransferEncodingInHttp10,
    /// Both `Transfer-Encoding` and `Content-Length` (a smuggling shape).
    ContentLengthWithTransferEncoding,
    /// An HTTP/1.1 request without `Host`.
    MissingHost,
    /// More than one `Host` field line.
    DuplicateHost,
    /// A `Host` value that is empty (HTTP/1.1) or not `uri-host [":" port]`.
    InvalidHost,

    // --- chunked framing ---
    /// A chunk size that is not hex, has a sign, `0x` or whitespace, or more
    /// than 16 significant digits.
    InvalidChunkSize,
    /// A malformed chunk extension.
    InvalidChunkExtension,
    /// A chunk-size line longer than [`Config::max_chunk_line_len`](crate::Config::max_chunk_line_len).
    ChunkLineTooLong,
    /// Chunk data not followed by CRLF.
    InvalidChunkDataEnd,
}

impl ErrorKind {
    /// The status code a server should answer: 400, 414, 431, 501 or 505.
    pub const fn status(self) -> u16 {
        match self {
            ErrorKind::TargetTooLong => 414,
            ErrorKind::FieldLineTooLong | ErrorKind::TooManyFields | ErrorKind::HeadTooLarge => 431,
            ErrorKind::UnsupportedTransferCoding => 501,
            ErrorKind::UnsupportedVersion => 505,
            _ => 400,
        }
    }

    /// A short English description.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorKind::InvalidMethod => "invalid method",
            ErrorKind::InvalidTarget => "invalid byte in request-target",
            ErrorKind::InvalidTargetForm => "request-target form not allowed here",
            ErrorKind::TargetTooLong => "request-target too long",
            ErrorKind::InvalidVersion => "invalid HTTP version",
            ErrorKind::UnsupportedVersion => "HTTP major version not supported",
            ErrorKind::InvalidRequestLine => "malformed request line",
            ErrorKind::InvalidStatusLine => "malformed status line",
            ErrorKind::BareCr => "CR not followed by LF",
            ErrorKind::BareLf => "LF without CR",
            ErrorKind::InvalidFieldName => "invalid field name",
            ErrorKind::WhitespaceBeforeColon => "whitespace between field name and colon",
            ErrorKind::InvalidFieldValue => "invalid byte in field value",
            ErrorKind::ObsFold => "field line starts with whitespace (obs-fold)",
            ErrorKind::FieldLineTooLong => "field line too long",
            ErrorKind::TooManyFields => "too many field lines",
            ErrorKind::HeadTooLarge => "head too large",
            ErrorKind::InvalidContentLength => "invalid Content-Length",
            ErrorKind::InvalidTransferEncoding => "invalid Transfer-Encoding",
            ErrorKind::UnsupportedTransferCoding => "transfer coding not implemented",
            ErrorKind::TransferEncodingInHttp10 => "Transfer-Encoding in an HTTP/1.0 request",
            ErrorKind::ContentLengthWithTransferEncoding => {
                "both Content-Length and Transfer-Encoding"
            }
            ErrorKind::MissingHost => "missing Host",
            ErrorKind::DuplicateHost => "more than one Host",
            ErrorKind::InvalidHost => "invalid Host",
            ErrorKind::InvalidChunkSize => "invalid chunk size",
            ErrorKind::InvalidChunkExtension => "invalid chunk extension",
            ErrorKind::ChunkLineTooLong => "chunk-size line too long",
            ErrorKind::InvalidChunkDataEnd => "chunk data not followed by CRLF",
        }
    }
}

/// A parse error: what was wrong ([`ErrorKind`]) and where (the byte offset in
/// the buffer handed to the parser).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Error {
    kind: ErrorKind,
    offset: usize,
}

impl Error {
    /// A new error of `kind` at byte `offset`.
    #[inline]
    pub const fn new(kind: ErrorKind, offset: usize) -> Error {
        Error { kind, offset }
    }

    /// What was wrong.
    #[inline]
    pub const fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// Where: the offset of the offending byte (or of the start of the
    /// offending element) in the buffer handed to the parser.
    #[inline]
    pub const fn offset(&self) -> usize {
        self.offset
    }

    /// The status code a server should answer: 400, 414, 431, 501 or 505.
    #[inline]
    pub const fn status(&self) -> u16 {
        self.kind.status()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.kind.as_str(), self.offset)
    }
}

#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use std::string::ToString;

    const KINDS: [ErrorKind; 29] = [
        ErrorKind::InvalidMethod,
        ErrorKind::InvalidTarget,
        ErrorKind::InvalidTargetForm,
        ErrorKind::TargetTooLong,
        ErrorKind::InvalidVersion,
        ErrorKind::UnsupportedVersion,
        ErrorKind::InvalidRequestLine,
        ErrorKind::InvalidStatusLine,
        ErrorKind::BareCr,
        ErrorKind::BareLf,
        ErrorKind::InvalidFieldName,
        ErrorKind::WhitespaceBeforeColon,
        ErrorKind::InvalidFieldValue,
        ErrorKind::ObsFold,
        ErrorKind::FieldLineTooLong,
        ErrorKind::TooManyFields,
        ErrorKind::HeadTooLarge,
        ErrorKind::InvalidContentLength,
        ErrorKind::InvalidTransferEncoding,
        ErrorKind::UnsupportedTransferCoding,
        ErrorKind::TransferEncodingInHttp10,
        ErrorKind::MissingHost,
        ErrorKind::DuplicateHost,
        ErrorKind::InvalidHost,
        ErrorKind::InvalidChunkSize,
        ErrorKind::InvalidChunkExtension,
        ErrorKind::ChunkLineTooLong,
        ErrorKind::InvalidChunkDataEnd,
        ErrorKind::ContentLengthWithTransferEncoding,
    ];

    #[test]
    fn every_kind_has_a_description_of_its_own() {
        for (i, a) in KINDS.iter().enumerate() {
            assert!(a.as_str().len() > 8, "{a:?}");
            for b in &KINDS[i + 1..] {
                assert_ne!(a.as_str(), b.as_str(), "{a:?} and {b:?}");
            }
        }
    }

    #[test]
    fn an_error_shows_what_and_where() {
        let e = Error::new(ErrorKind::BareLf, 17);
        assert_eq!(e.to_string(), "LF without CR at byte 17");
        assert_eq!(
            (e.kind(), e.offset(), e.status()),
            (ErrorKind::BareLf, 17, 400)
        );
        let e = Error::new(ErrorKind::ContentLengthWithTransferEncoding, 0);
        assert_eq!(
            e.to_string(),
            "both Content-Length and Transfer-Encoding at byte 0"
        );
    }
}
