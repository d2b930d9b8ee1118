//! The in-process runner: a case's bytes through h1's echo server in
//! memory, step by step, and its output read back as responses.

use h1_conn::Config;

use crate::case::{Case, Outcome};
use crate::echo::EchoServer;
use crate::observe::{Observation, PROBE};
use crate::reader::Reader;

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
    // The answers are read as answers to the requests the case declares,
    // as the live runner reads them.
    let mut reader = Reader::new(&case.heads);
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
