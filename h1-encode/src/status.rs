//! Status lines, pre-encoded for the registered status codes.

use h1_headers::chars::is_field_value_byte;

macro_rules! registered {
    ($($code:literal => $reason:literal,)*) => {
        /// The reason phrase registered for `code`, if any.
        ///
        /// The codes of RFC 9110 §15, plus 103 (RFC 8297), 428, 429, 431 and
        /// 511 (RFC 6585) and 451 (RFC 7725).
        ///
        /// ```
        /// assert_eq!(h1_encode::reason(404), Some("Not Found"));
        /// assert_eq!(h1_encode::reason(299), None);
        /// ```
        pub const fn reason(code: u16) -> Option<&'static str> {
            match code {
                $($code => Some($reason),)*
                _ => None,
            }
        }

        /// `HTTP/1.1 <code> <reason>\r\n` for a registered code.
        #[inline]
        pub(crate) const fn line(code: u16) -> Option<&'static [u8]> {
            match code {
                $($code => Some(concat!("HTTP/1.1 ", $code, " ", $reason, "\r\n").as_bytes()),)*
                _ => None,
            }
        }

        #[cfg(test)]
        pub(crate) const REGISTERED: &[u16] = &[$($code,)*];
    };
}

registered! {
    100 => "Continue",
    101 => "Switching Protocols",
    103 => "Early Hints",
    200 => "OK",
    201 => "Created",
    202 => "Accepted",
    203 => "Non-Authoritative Information",
    204 => "No Content",
    205 => "Reset Content",
    206 => "Partial Content",
    300 => "Multiple Choices",
    301 => "Moved Permanently",
    302 => "Found",
    303 => "See Other",
    304 => "Not Modified",
    305 => "Use Proxy",
    307 => "Temporary Redirect",
    308 => "Permanent Redirect",
    400 => "Bad Request",
    401 => "Unauthorized",
    402 => "Payment Required",
    403 => "Forbidden",
    404 => "Not Found",
    405 => "Method Not Allowed",
    406 => "Not Acceptable",
    407 => "Proxy Authentication Required",
    408 => "Request Timeout",
    409 => "Conflict",
    410 => "Gone",
    411 => "Length Required",
    412 => "Precondition Failed",
    413 => "Content Too Large",
    414 => "URI Too Long",
    415 => "Unsupported Media Type",
    416 => "Range Not Satisfiable",
    417 => "Expectation Failed",
    421 => "Misdirected Request",
    422 => "Unprocessable Content",
    426 => "Upgrade Required",
    428 => "Precondition Required",
    429 => "Too Many Requests",
    431 => "Request Header Fields Too Large",
    451 => "Unavailable For Legal Reasons",
    500 => "Internal Server Error",
    501 => "Not Implemented",
    502 => "Bad Gateway",
    503 => "Service Unavailable",
    504 => "Gateway Timeout",
    505 => "HTTP Version Not Supported",
    511 => "Network Authentication Required",
}

/// Whether `reason` may be a reason phrase: HTAB, SP, VCHAR and obs-text
/// only (RFC 9112 §4). Empty is allowed.
#[inline]
pub(crate) fn valid_reason(reason: &[u8]) -> bool {
    // The field-value byte class: HTAB, SP, VCHAR, obs-text.
    reason.iter().all(|&b| is_field_value_byte(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;

    #[test]
    fn lines_are_well_formed() {
        for &code in REGISTERED {
            let l = line(code).unwrap();
            let r = reason(code).unwrap();
            assert_eq!(l, format!("HTTP/1.1 {code} {r}\r\n").as_bytes());
            assert!(valid_reason(r.as_bytes()));
        }
        for code in 0..1000u16 {
            assert_eq!(line(code).is_some(), REGISTERED.contains(&code));
        }
        assert_eq!(line(200), Some(&b"HTTP/1.1 200 OK\r\n"[..]));
        assert!(line(306).is_none() && line(418).is_none());
    }

    #[test]
    fn reason_bytes() {
        assert!(valid_reason(b""));
        assert!(valid_reason(b"Caf\xe9\tOK"));
        assert!(!valid_reason(b"a\rb"));
        assert!(!valid_reason(b"a\nb"));
        assert!(!valid_reason(b"\x7f"));
        assert!(!valid_reason(b"\0"));
    }
}
