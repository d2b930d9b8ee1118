//! An RFC 9112 conformance suite for HTTP/1.1 servers and clients.
//!
//! Cases are data (`cases/*.toml`, format in `cases/README.md`, plus the
//! shared vectors imported from `testdata/conformance/vectors.jsonl`): the
//! bytes a client sends, the RFC sentence and requirement level they check,
//! the requests those bytes hold ([`heads`], declared in
//! `cases/heads.jsonl`), and what a conforming server does with them. Two
//! runners produce an [`Observation`](observe::Observation) per case, read
//! by the same [`reader`] and judged by the same [`judge`], which decides
//! from the case data and the observation alone (it uses no part of h1):
//!
//! - [`inprocess`]: through h1-conn's server role in memory (an echo
//!   server, [`echo`]): no sockets, used by `cargo test` and by the
//!   binary with no arguments;
//! - [`live`]: over loopback TCP against a running server (h1's `echo`
//!   example, nginx, anything), responses read with h1-conn's client role.
//!
//! The [`client`] role is the mirror image: the suite plays the server,
//! and a client (h1's user agent on h1-conn's client role, in process;
//! h1's client example, curl, or any command over loopback) makes the
//! requests; its own judge decides from the case data, the client's
//! report and what the test server received.
//!
//! ```
//! use h1_conformance::{case, echo, inprocess, judge};
//!
//! let cases = case::all()?;
//! let c = cases.iter().find(|c| c.id == "basic-002").unwrap();
//! let obs = inprocess::run(c, &echo::config());
//! assert_eq!(judge::judge(c, &obs, judge::Server::H1), judge::Verdict::Pass);
//! # Ok::<(), String>(())
//! ```
#![forbid(unsafe_code)]

pub mod case;
pub mod client;
pub mod echo;
pub mod escape;
pub mod heads;
pub mod inprocess;
pub mod judge;
pub mod live;
pub mod observe;
pub mod reader;
pub mod report;
pub mod titles;
pub mod vectors;

use case::Case;
use client::case::ClientCase;

/// Whether `case` is selected by `filters` (none: every case). A filter
/// selects the cases whose id starts with it (`chunk-`, `te-011`) or whose
/// section contains it (`9112 §6`, `§7.1`).
pub fn selected(case: &Case, filters: &[String]) -> bool {
    matches(&case.id, &case.section, filters)
}

/// [`selected`] for a client case (`cli-` selects them all).
pub fn selected_client(case: &ClientCase, filters: &[String]) -> bool {
    matches(&case.id, &case.section, filters)
}

fn matches(id: &str, section: &str, filters: &[String]) -> bool {
    filters.is_empty()
        || filters
            .iter()
            .any(|f| id.starts_with(f.as_str()) || section.contains(f.as_str()))
}

// The workspace README's examples run as doc tests here: this crate is not
// published, so it may read a file outside its directory.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct WorkspaceReadmeDoctests;
