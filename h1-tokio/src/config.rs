//! What a connection may do: h1-conn's limits, and the driver's own.

use std::time::Duration;

/// The settings of a connection served by [`serve_connection`](crate::serve_connection).
///
/// ```
/// let mut config = h1_tokio::Config::default();
/// config.conn.max_unanswered = 8; // pipelining depth
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Config {
    /// The protocol machine's limits (head sizes, pipelining depth
    /// `max_unanswered`, output buffered before the service is slowed, the
    /// linger on close) and strictness. h1-conn's own defaults, but for
    /// `max_body_len`: unlimited here (h1-conn's default is 8 MiB), since
    /// a request body streams to the service with backpressure and the
    /// service knows what it accepts (a request over a limit set here is
    /// answered `413` before the service sees it). Its `auto_continue` is
    /// the driver's to set: [`serve_connection`](crate::serve_connection)
    /// sends `100 Continue` when the service first polls the request body,
    /// [`raw::serve`](crate::raw::serve) when the body is read for the
    /// handler.
    pub conn: h1_conn::Config,
    /// Longest a request head may take to arrive, from its first byte (the
    /// first head of a connection: from the connection's start). A head
    /// still incomplete then is answered `408 Request Timeout` and the
    /// connection closes (RFC 9110 §15.5.9); a connection that has sent
    /// nothing at all closes without an answer. `None`: no limit. Default
    /// 30 s.
    pub header_read_timeout: Option<Duration>,
    /// Longest a connection may wait for its next request once every
    /// earlier one is answered; then it closes without an answer.
    /// Default 60 s.
    pub idle_timeout: Option<Duration>,
    /// Longest the client may leave a request body without sending more of
    /// it while the service waits for it; then the request is answered
    /// `408` if its response has not started, and the connection closes.
    /// Default 60 s.
    pub body_read_timeout: Option<Duration>,
    /// Longest the client may leave the response unread: when the socket
    /// has taken none of the output for this long, the connection ends
    /// ([`Error`](crate::Error) with [`is_timeout`](crate::Error::is_timeout)),
    /// so a client that stops reading cannot hold a connection and its
    /// buffers. Each write the socket takes starts the time afresh, so a
    /// slow reader that keeps reading is served. Default 60 s.
    pub write_timeout: Option<Duration>,
    /// Whether a client that closes its sending side (its read gives the
    /// end) still gets the answers to the requests it sent. False (the
    /// default, as hyper, nginx and Go): the end is taken as the client
    /// leaving, so the service's futures and response bodies still under
    /// way are dropped and the connection closes (a handler waiting on a
    /// long poll or an event stream learns of it by being dropped); an
    /// answer already complete is still written. True: for clients that
    /// shut down their write side and then read (some scripts and
    /// `nc`-like tools), at the price of serving a client that has gone.
    pub half_close: bool,
}

impl Default for Config {
    fn default() -> Config {
        let mut conn = h1_conn::Config::default();
        // A body reaches the service through one chunk of buffer at a
        // time, so its length costs the server no memory: the service
        // decides how much it takes (axum's `DefaultBodyLimit`, say).
        conn.max_body_len = u64::MAX;
        Config {
            conn,
            header_read_timeout: Some(Duration::from_secs(30)),
            idle_timeout: Some(Duration::from_secs(60)),
            body_read_timeout: Some(Duration::from_secs(60)),
            write_timeout: Some(Duration::from_secs(60)),
            half_close: false,
        }
    }
}

impl Config {
    /// The protocol machine's settings as a driver runs them: with
    /// `continue_on_read`, `100 Continue` goes out when the driver reads
    /// the body (h1-conn's own `auto_continue`); else the driver sends it.
    pub(crate) fn machine(&self, continue_on_read: bool) -> h1_conn::Config {
        let mut conn = self.conn.clone();
        conn.auto_continue = continue_on_read;
        conn
    }
}
