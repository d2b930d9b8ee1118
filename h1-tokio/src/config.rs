//! What a connection may do: h1-conn's limits, and the driver's own.

/// The settings of a connection served by [`serve_connection`](crate::serve_connection).
///
/// ```
/// let mut config = h1_tokio::Config::default();
/// config.conn.max_unanswered = 8; // pipelining depth
/// ```
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Config {
    /// The protocol machine's limits (head and body sizes, pipelining
    /// depth `max_unanswered`, output buffered before the service is
    /// slowed, the linger on close) and strictness. Two of its switches
    /// are the driver's to set: `auto_continue` is turned off (the driver
    /// sends `100 Continue` when the service first polls the request body)
    /// and `send_date` kept on (h1-conn keeps `Date` from the clock).
    pub conn: h1_conn::Config,
}

impl Config {
    /// The protocol machine's settings as the driver runs them.
    pub(crate) fn machine(&self) -> h1_conn::Config {
        let mut conn = self.conn.clone();
        conn.auto_continue = false;
        conn
    }
}
