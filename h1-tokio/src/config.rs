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
    /// The protocol machine's limits (head and body sizes, pipelining
    /// depth `max_unanswered`, output buffered before the service is
    /// slowed, the linger on close) and strictness. Two of its switches
    /// are the driver's to set: `auto_continue` is turned off (the driver
    /// sends `100 Continue` when the service first polls the request body)
    /// and `send_date` kept on (h1-conn keeps `Date` from the clock).
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
}

impl Default for Config {
    fn default() -> Config {
        Config {
            conn: h1_conn::Config::default(),
            header_read_timeout: Some(Duration::from_secs(30)),
            idle_timeout: Some(Duration::from_secs(60)),
            body_read_timeout: Some(Duration::from_secs(60)),
        }
    }
}

impl Config {
    /// The protocol machine's settings as the driver runs them.
    pub(crate) fn machine(&self) -> h1_conn::Config {
        let mut conn = self.conn.clone();
        conn.auto_continue = false;
        conn
    }
}
