//! Limits of a connection.

use core::time::Duration;

/// Limits and policies of a connection, for both roles. [`Config::default`]
/// is the strict profile (h1-parse's strict [`parse::Config`](crate::parse::Config)
/// and the limits below).
///
/// ```
/// let mut config = h1_conn::Config::default();
/// config.max_body_len = 1 << 20; // 1 MiB, then 413
/// config.max_unanswered = 1; // answer one request at a time
/// assert!(!config.parse.allow_bare_lf);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Config {
    /// The head parser's limits and leniencies (also used for chunk-size
    /// lines and trailer sections).
    pub parse: h1_parse::Config,
    /// Largest message body accepted, decoded bytes (413 for a request).
    /// A `Content-Length` above it is refused before any body byte is read;
    /// a chunked body as soon as a chunk size would pass it. Default 8 MiB.
    pub max_body_len: u64,
    /// Most chunk-extension bytes in one chunked body, summed over all its
    /// chunk-size lines (400). Each line is also bounded by
    /// [`h1_parse::Config::max_chunk_line_len`]; this bounds the work a body
    /// of many small chunks with long extensions causes. Default 16 KiB.
    pub max_chunk_ext_len: usize,
    /// Server role: most requests received whose response is not finished
    /// yet. When reached, [`ServerEvent::Paused`](crate::ServerEvent::Paused) until a
    /// response finishes. `1` answers one request at a time; the default,
    /// 16, lets a caller parse a pipelined batch ahead. Client role: most
    /// requests sent and not yet answered. At least 1.
    pub max_unanswered: usize,
    /// Server role: once this many response bytes wait in the output
    /// buffer, no further request is parsed ([`ServerEvent::Paused`](crate::ServerEvent::Paused))
    /// until the driver writes some: a client that pipelines without
    /// reading cannot make the server buffer without bound. Default 256 KiB.
    pub max_buffered_output: usize,
    /// Initial size of the receive buffer: what
    /// [`read_buf`](crate::ServerConn::read_buf) lends at first. The buffer
    /// grows to hold a head of [`h1_parse::Config::max_head_len`] bytes,
    /// and doubles whenever a read fills all the room it was lent (a
    /// client sending faster than the reads take, such as a large body),
    /// never past `max_head_len` plus this. Default 8 KiB.
    pub read_buf_len: usize,
    /// After deciding to close while the peer may still be sending, how many
    /// bytes a driver reads and discards before closing (RFC 9112 §9.6; see
    /// [`Closing::Linger`](crate::Closing::Linger)). Default 1 MiB.
    pub linger_bytes: u64,
    /// ... and for how long at most. Default 2 s.
    pub linger_time: Duration,
    /// Server role, `std`: responses carry a `Date` line (RFC 9110 §6.6.1:
    /// an origin server with a clock MUST send one) kept by the connection
    /// from the system clock, read as each response is started (and
    /// formatted once a second).
    /// [`set_date`](crate::ServerConn::set_date) overrides it. Without
    /// `std` there is no clock: only a line set with `set_date` is sent.
    /// Default true.
    pub send_date: bool,
    /// Server role: when the client asks `Expect: 100-continue` and its
    /// body is awaited (the caller asks for the next event after the
    /// request head while the body has not arrived), `100 Continue` is
    /// written for it on its turn (RFC 9110 §10.1.1), so a client that
    /// waits does not stall. False: only
    /// [`send_continue`](crate::ServerConn::send_continue) writes it.
    /// Default true.
    pub auto_continue: bool,
    /// Server role: a request whose `Expect` holds anything but
    /// `100-continue` fails with
    /// [`Error::ExpectationFailed`](crate::Error::ExpectationFailed),
    /// answered 417 by the connection, which then closes (RFC 9110
    /// §10.1.1). False: the request is delivered and
    /// [`Request::expect`](crate::Request::expect) tells, for the caller to
    /// answer. Default true.
    pub refuse_unknown_expect: bool,
}

impl Config {
    /// The defaults.
    pub const DEFAULT: Config = Config {
        parse: h1_parse::Config::DEFAULT,
        max_body_len: 8 * 1024 * 1024,
        max_chunk_ext_len: 16 * 1024,
        max_unanswered: 16,
        max_buffered_output: 256 * 1024,
        read_buf_len: 8 * 1024,
        linger_bytes: 1024 * 1024,
        linger_time: Duration::from_secs(2),
        send_date: true,
        auto_continue: true,
        refuse_unknown_expect: true,
    };
}

impl Default for Config {
    fn default() -> Config {
        Config::DEFAULT
    }
}
