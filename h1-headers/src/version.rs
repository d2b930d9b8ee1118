//! The protocol version of a message.

/// The protocol version of a message: what a parser read from a start line,
/// what an encoder writes, what a connection decides keep-alive and framing
/// by.
///
/// `HTTP/1.x` for any x > 1 is read as [`Version::Http11`] (RFC 9110 §2.5: a
/// recipient treats a higher minor version as the highest it supports).
///
/// ```
/// use h1_headers::Version;
/// assert_eq!(Version::Http10.as_str(), "HTTP/1.0");
/// assert!(Version::Http10 < Version::Http11);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Version {
    /// `HTTP/1.0`.
    Http10,
    /// `HTTP/1.1`.
    Http11,
}

impl Version {
    /// `"HTTP/1.0"` or `"HTTP/1.1"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Version::Http10 => "HTTP/1.0",
            Version::Http11 => "HTTP/1.1",
        }
    }
}
