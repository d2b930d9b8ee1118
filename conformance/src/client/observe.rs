//! What a client-role run saw: what the client reported for each request
//! (its [`Record`]s, in the order it was asked to make them) and what the
//! test server received (the [`Received`] requests, on which connection).
//! Nothing here parses HTTP: the judge depends on no part of h1.

/// What the client reported for one request it was asked to make (the
/// client report contract, [`crate::client::contract`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    /// Interim (1xx) statuses it saw, if it says (reporting them is
    /// optional).
    pub interim: Vec<u16>,
    /// The final status, when it reported a response.
    pub status: Option<u16>,
    /// The header fields as it understood them, in order.
    pub fields: Vec<(Vec<u8>, Vec<u8>)>,
    /// The trailer fields, when it reports them apart.
    pub trailers: Vec<(Vec<u8>, Vec<u8>)>,
    /// The content, decoded.
    pub body: Option<Vec<u8>>,
    /// The client refused the response or the exchange failed: why. A
    /// record with an error is an error, whatever else it holds (a partial
    /// response a client records as incomplete, RFC 9112 §8).
    pub error: Option<String>,
}

impl Record {
    /// A record of only an error.
    pub fn error(why: impl Into<String>) -> Record {
        Record {
            error: Some(why.into()),
            ..Record::default()
        }
    }
}

/// A request the test server received.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Received {
    /// The connection it came on: 0 for the case's first, counted in the
    /// order the server accepted them.
    pub conn: usize,
    /// Its method.
    pub method: Vec<u8>,
    /// Its request-target.
    pub target: Vec<u8>,
    /// Its header fields, in order.
    pub fields: Vec<(Vec<u8>, Vec<u8>)>,
    /// Its content, decoded.
    pub body: Vec<u8>,
}

/// Everything a client-role runner saw for one case.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientObservation {
    /// What the client reported, one record per request it was asked to
    /// make (fewer when it stopped early).
    pub records: Vec<Record>,
    /// The requests the test server received, in arrival order.
    pub received: Vec<Received>,
    /// Bytes the server could not read as a request: why, per connection.
    pub unreadable: Vec<String>,
    /// The client could not be run, crashed, ran out of time, or its
    /// report does not follow the contract.
    pub problem: Option<String>,
    /// The end of what the client wrote to its standard error (live runs),
    /// shown when its report falls short.
    pub stderr: String,
    /// The client says it is h1 (the contract's `agent h1` line, or the
    /// in-process run): the deviations the cases declare are excused.
    pub h1: bool,
}
