//! The in-process runner: a case's bytes through h1's echo server in
//! memory, step by step, and its output read back as responses.

use h1_conn::Config;

use crate::case::{Case, Outcome};
use crate::echo::EchoServer;
use crate::observe::{Observation, Reader, PROBE};

/// Runs `case` against an [`EchoServer`] with `config`; each step is given
/// whole.
pub fn run(case: &Case, config: &Config) -> Observation {
    run_split(case, config, usize::MAX)
}

/// Runs `case` with every step given to the server in pieces of at most
/// `piece` bytes (1: one byte at a time). A correct server's observation
/// does not depend on `piece`.
pub fn run_split(case: &Case, config: &Config, piece: usize) -> Observation {
    let mut server = EchoServer::new(config.clone());
    // The server runs first, so the reader can be told the requests it
    // read (a response to HEAD has no body).
    let mut outputs = Vec::new();
    for (i, step) in case.steps.iter().enumerate() {
        server.set_step(i);
        let mut out = Vec::new();
        for chunk in step.chunks(piece.max(1)) {
            out.extend(server.input(chunk));
        }
        outputs.push(out);
    }
    let mut last = Vec::new();
    if case.eof {
        last.extend(server.eof());
    }
    let wants_probe = matches!(
        case.outcome,
        Outcome::Accept {
            close: Some(false),
            ..
        }
    );
    let mut probe_out = None;
    let mut reader = Reader::new(server.sent());
    for (i, out) in outputs.iter().enumerate() {
        reader.set_step(i);
        reader.feed(out);
    }
    reader.feed(&last);
    let mut probed = None;
    if wants_probe && !server.closed() && !reader.stopped() {
        let before = reader.finals();
        if before == case.answers_wanted() && reader.probe_sent() {
            probed = Some(before);
            probe_out = Some(server.input(PROBE));
        }
    }
    if let Some(out) = probe_out {
        reader.set_step(case.steps.len());
        reader.feed(&out);
    }
    if server.closed() {
        reader.eof();
    }
    let mut obs = reader.finish(probed);
    let mut seen = server.seen().to_vec();
    if probed.is_some()
        && seen
            .last()
            .is_some_and(|s| s.target == b"/keep-alive-probe")
    {
        seen.pop();
    }
    obs.seen = Some(seen);
    obs
}
