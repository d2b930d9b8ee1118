//! A head being written through a connection: the encoder's writer, and
//! what the connection decided about the message, applied to the machine
//! when the head is finished.

use alloc::vec::Vec;
use core::fmt;
use core::ops::{Deref, DerefMut};

use h1_encode::{DateLine, RequestWriter, ResponseWriter};

use crate::state::{InFlight, Machine};

/// A head being written: [`OutgoingResponse`] (server) or
/// [`OutgoingRequest`] (client). Derefs to the encoder's writer for the
/// fields; `finish` ends the head and tells the connection. Dropped without
/// finishing, it leaves nothing behind.
#[must_use = "a head does nothing until finished"]
pub struct Outgoing<'c, W> {
    pub(crate) w: W,
    pub(crate) m: &'c mut Machine,
    /// The `Date` line a response gets when its fields did not bring one.
    pub(crate) date: Option<&'c DateLine>,
    pub(crate) plan: Plan,
}

/// What the connection decided about the message whose head is written.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plan {
    /// Server: the status.
    pub(crate) status: u16,
    /// The message switches protocols (server: 101, or 2xx to CONNECT).
    pub(crate) switch: bool,
    /// Server: the request answered; client: the request sent.
    pub(crate) flight: InFlight,
}

/// A response head being written (see
/// [`ServerConn::respond`](crate::ServerConn::respond)).
pub type OutgoingResponse<'c> = Outgoing<'c, ResponseWriter<'c, Vec<u8>>>;

/// A request head being written (see
/// [`ClientConn::request`](crate::ClientConn::request)).
pub type OutgoingRequest<'c> = Outgoing<'c, RequestWriter<'c, Vec<u8>>>;

/// What a finished head decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Sent {
    /// Body bytes follow: write them with `send_data` and end them with
    /// `send_end` (false for HEAD, 1xx, 204, 304, `Content-Length: 0`, a
    /// switch).
    pub body: bool,
    /// The connection closes after this message (the head says
    /// `Connection: close`, or the body is delimited by the close).
    pub close: bool,
}

impl<W> fmt::Debug for Outgoing<'_, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Outgoing")
            .field("plan", &self.plan)
            .finish_non_exhaustive()
    }
}

impl<W> Deref for Outgoing<'_, W> {
    type Target = W;
    fn deref(&self) -> &W {
        &self.w
    }
}

impl<W> DerefMut for Outgoing<'_, W> {
    fn deref_mut(&mut self) -> &mut W {
        &mut self.w
    }
}
