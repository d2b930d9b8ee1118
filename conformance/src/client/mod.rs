//! The client role: the suite plays the server to an HTTP client under
//! test. A [`case::ClientCase`] is the requests a client is asked to make,
//! the bytes the test server answers each with, and what a conforming
//! client concludes (the response it reports, or that it must treat the
//! answer as an error), tied to its RFC sentence like a server case.
//!
//! - [`script`]: the test server, without I/O;
//! - [`agent`]: h1's user agent on h1-conn's client role, the client the
//!   in-process run and h1's client example test;
//! - [`inprocess`]: the agent against the script in memory (`cargo test`,
//!   and the binary with no arguments);
//! - [`live`]: the script on a loopback port and a client command run once
//!   per case ([`curl`] has a ready adapter), its report read as the
//!   [`contract`] says;
//! - [`judge`]: the verdict, from the case data, the client's report and
//!   the requests the server received ([`observe`]); it uses no part of
//!   h1.

pub mod agent;
pub mod case;
pub mod contract;
pub mod curl;
pub mod inprocess;
pub mod judge;
pub mod live;
pub mod observe;
pub mod script;
