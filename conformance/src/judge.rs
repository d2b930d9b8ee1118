//! The verdict on one case from what a runner observed.

use std::fmt::Write;

use crate::case::{Case, CloseRule, Level, Outcome, Req};
use crate::escape::escape;
use crate::heads::Sent;
use crate::observe::{Answer, Ending, Observation};

/// A case's verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The server did what the case requires.
    Pass,
    /// It did not: why, and the level of the requirement it missed (the
    /// case's, or SHOULD when only 9112 §2.2's close was missing).
    Fail(Level, String),
    /// It did not, as h1 declares it intends (the case's `deviation`); the
    /// mismatch is given.
    Deviation(String),
    /// The case cannot be judged against this server: why.
    NotApplicable(String),
}

impl Verdict {
    /// `pass`, `fail`, `deviation` or `n/a`.
    pub fn label(&self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail(..) => "fail",
            Verdict::Deviation(_) => "deviation",
            Verdict::NotApplicable(_) => "n/a",
        }
    }

    /// The level a verdict counts at: a failure's own, else the case's.
    pub fn level(&self, case: &Case) -> Level {
        self.counts_at(case.level)
    }

    /// The level a verdict on a case of level `case_level` counts at: a
    /// failure's own, else the case's.
    pub fn counts_at(&self, case_level: Level) -> Level {
        match self {
            Verdict::Fail(level, _) => *level,
            _ => case_level,
        }
    }
}

/// What the judge may assume of the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Server {
    /// It speaks the echo contract: bodies, targets and methods can be
    /// checked, the cases that require it apply, and it reads a request's
    /// body before answering.
    pub echo: bool,
    /// It is h1 (in process, or h1's `echo` example): the deviations the
    /// cases declare for h1 are excused; for any other server they are
    /// failures like the rest.
    pub h1: bool,
}

impl Server {
    /// h1 itself: the in-process runner, or h1's `echo` example.
    pub const H1: Server = Server {
        echo: true,
        h1: true,
    };
    /// A server known only by its answers.
    pub const OTHER: Server = Server {
        echo: false,
        h1: false,
    };
}

/// Answers that say a server could not parse or frame a request, as
/// opposed to a policy answer (404, 405, 411, 421, 501...) that a server
/// without the echo contract may give to a request it read correctly.
const REFUSALS: [u16; 6] = [400, 408, 413, 414, 431, 505];

/// Judges `obs` against `case`.
pub fn judge(case: &Case, obs: &Observation, server: Server) -> Verdict {
    if case.requires_echo && !server.echo {
        return Verdict::NotApplicable("needs the echo contract".into());
    }
    // The requests the case's bytes hold, as declared with the case: what
    // the rules below need to know of them (their methods, targets, the
    // step that completed each head).
    match (mismatch(case, &case.heads, obs, server), &case.deviation) {
        (Miss::None, _) => Verdict::Pass,
        (Miss::NotApplicable(why), _) => Verdict::NotApplicable(why),
        (Miss::Fail(_, why), Some(_)) if server.h1 => Verdict::Deviation(why),
        (Miss::Fail(level, why), _) => Verdict::Fail(level, why),
    }
}

enum Miss {
    None,
    Fail(Level, String),
    NotApplicable(String),
}

/// Why the observation does not meet the case, if it does not.
fn mismatch(case: &Case, heads: &[Sent], obs: &Observation, server: Server) -> Miss {
    let level = case.level;
    let fail = |why: String| Miss::Fail(level, why);
    let answers = &obs.answers;
    if let Some(why) = answers.iter().find_map(|a| bad_switch(case, a)) {
        return fail(why);
    }
    // RFC 9112 §9.6: a server that sends "close", or answers a request
    // that did, MUST close, and MUST NOT process further requests (answers
    // after it show as extra bytes).
    if let Some(i) = answers.iter().position(|a| a.closes) {
        if obs.ending == Ending::Open {
            return Miss::Fail(
                Level::Must,
                format!(
                    "the connection closes after answer {} (its request or the answer said so), \
                     and the server kept it open (9112 §9.6)",
                    i + 1
                ),
            );
        }
    }
    // RFC 9112 §9.3: persistence is a SHOULD; a server that closes after an
    // answer marked "close" cannot be judged on the requests after it.
    let stopped_early = |wanted: usize| {
        answers.len() < wanted
            && answers.last().is_some_and(|a| a.closes)
            && obs.ending == Ending::Closed
    };
    let not_persistent = || {
        Miss::NotApplicable(
            "the server closes after each response (persistent connections are a SHOULD, 9112 §9.3)"
                .into(),
        )
    };
    let broken = match &obs.ending {
        Ending::Broken(why) => Some(why.as_str()),
        _ => None,
    };
    match &case.outcome {
        Outcome::Accept { requests, close } => {
            // A request the case lets the server refuse (its statuses
            // allow a refusal to parse or frame it, e.g. `["2xx", 400]` for
            // a MAY the RFC leaves open) ends the sequence when refused:
            // the server cannot read past a message it did not parse.
            let refused = answers
                .iter()
                .zip(requests)
                .position(|(a, r)| REFUSALS.contains(&a.status) && r.status.allows(a.status));
            if refused.is_none()
                && stopped_early(requests.len())
                && answers
                    .iter()
                    .zip(requests)
                    .all(|(a, r)| accepted(case, r, a.status, server))
            {
                return not_persistent();
            }
            if let Some(why) = optional_feature_refused(heads, answers, server) {
                return Miss::NotApplicable(why);
            }
            let expected = refused.map_or(requests.len(), |i| i + 1);
            for (i, req) in requests.iter().enumerate().take(expected) {
                let Some(a) = answers.get(i) else {
                    return fail(format!(
                        "{} of {} requests answered{}",
                        answers.len(),
                        requests.len(),
                        ending_note(obs)
                    ));
                };
                if let Some(why) = check_request(case, heads, i, req, a, obs, server) {
                    return fail(why);
                }
            }
            if answers.len() > expected {
                return fail(format!(
                    "{} answers to {} requests: the server read a request that is not there ({})",
                    answers.len(),
                    expected,
                    statuses(&answers[expected..])
                ));
            }
            if let Some(why) = broken {
                return fail(why.to_string());
            }
            if let Some(i) = refused {
                // Refused as the case allows: the close is the sentence's
                // where the case says so, else 9112 §2.2's SHOULD.
                if obs.ending != Ending::Closed {
                    let why = format!(
                        "answered {} to request {}, then kept the connection open; it must close",
                        answers[i].status,
                        i + 1
                    );
                    return match close {
                        Some(true) => fail(why),
                        _ => Miss::Fail(level.max(Level::Should), why),
                    };
                }
                return Miss::None;
            }
            match close {
                Some(true) if !matches!(obs.ending, Ending::Closed | Ending::Switched) => {
                    return fail("the connection stayed open; it must close".into())
                }
                Some(false) if answers.last().is_some_and(|a| a.closes) => return not_persistent(),
                Some(false) => match &obs.probe {
                    // With the echo contract the answer shows it is the
                    // probe's, not one to a request read where there is none.
                    Some(Some(p))
                        if server.echo
                            && p.echo.as_ref().map(|e| e.target.as_slice())
                                != Some(b"/keep-alive-probe") =>
                    {
                        return fail(format!(
                            "the answer after the requests is not the keep-alive probe's ({}{})",
                            p.status,
                            p.echo
                                .as_ref()
                                .map(|e| format!(" to {}", escape(&e.target, 60)))
                                .unwrap_or_default()
                        ))
                    }
                    Some(Some(p)) if (200..300).contains(&p.status) => {}
                    Some(Some(p)) => {
                        return fail(format!("the keep-alive probe was answered {}", p.status))
                    }
                    _ => {
                        return fail(format!(
                            "the connection did not stay usable (no answer to a further request{})",
                            ending_note(obs)
                        ))
                    }
                },
                _ => {}
            }
            Miss::None
        }
        Outcome::Reject {
            status,
            before,
            close,
        } => {
            if stopped_early(*before) {
                return not_persistent();
            }
            if let Some(why) = answered_before(heads, answers, *before, obs) {
                return fail(why);
            }
            let Some(a) = answers.get(*before) else {
                return fail(format!(
                    "no error response (want {status}){}",
                    ending_note(obs)
                ));
            };
            // A server without the echo contract may answer a request from
            // its head alone (RFC 9110 §10.1.1, 9112 §9.3): when the refused
            // request's head is declared (a conforming server accepts it,
            // see `heads`), the defect is in a body such a server may never
            // read, and the close alone meets it.
            let early = !server.echo && heads.len() > *before;
            if !status.allows(a.status) && !early {
                return fail(if a.status < 400 {
                    format!("accepted: answered {}; want {status}", a.status)
                } else {
                    format!("answered {}; want {status}", a.status)
                });
            }
            if answers.len() > before + 1 {
                return fail(format!(
                    "answered {} more after the error ({})",
                    answers.len() - before - 1,
                    statuses(&answers[before + 1..])
                ));
            }
            if let Some(why) = broken {
                return fail(why.to_string());
            }
            if obs.ending == Ending::Switched {
                return fail("switched protocols after a rejection".into());
            }
            let rule = if early { CloseRule::Must } else { *close };
            if obs.ending != Ending::Closed && rule != CloseRule::No {
                let why = format!(
                    "answered {}, then kept the connection open; it must close",
                    a.status
                );
                return match rule {
                    CloseRule::Must => fail(why),
                    _ => Miss::Fail(level.max(Level::Should), why),
                };
            }
            Miss::None
        }
        Outcome::Incomplete { before } => {
            if stopped_early(*before) {
                return not_persistent();
            }
            if let Some(why) = answered_before(heads, answers, *before, obs) {
                return fail(why);
            }
            let rest = &answers[(*before).min(answers.len())..];
            let early = !server.echo && heads.len() > *before;
            if let Some(a) = rest
                .iter()
                .find(|a| a.status != 400 && a.status != 408 && !early)
            {
                return fail(format!(
                    "answered {} to an incomplete message (allowed: 400, 408 or nothing)",
                    a.status
                ));
            }
            if rest.len() > 1 {
                return fail(format!("{} answers to one incomplete message", rest.len()));
            }
            if let Some(why) = broken {
                return fail(why.to_string());
            }
            if obs.ending != Ending::Closed {
                return fail("the connection stayed open after the client's end".into());
            }
            Miss::None
        }
    }
}

/// A server without the echo contract that answers CONNECT or a
/// server-wide `OPTIONS *` with 400 does not implement that optional
/// feature (RFC 9110 §9.1: only GET and HEAD are required): what the case
/// checks of it cannot be seen.
fn optional_feature_refused(heads: &[Sent], answers: &[Answer], server: Server) -> Option<String> {
    if server.echo {
        return None;
    }
    heads.iter().zip(answers).find_map(|(h, a)| {
        let feature = if h.method == b"CONNECT" {
            "CONNECT"
        } else if h.target == b"*" {
            "OPTIONS *"
        } else {
            return None;
        };
        (a.status == 400).then(|| format!("the server refuses {feature} (optional) with 400"))
    })
}

/// Whether `status` answers `req` normally: one of its statuses, or for a
/// server without the echo contract any policy answer (not a refusal to
/// parse or frame it).
///
/// A 501 to a request framed by `Transfer-Encoding` is the server saying
/// it does not understand the coding (RFC 9112 §6.1: "A server that
/// receives a request message with a transfer coding it does not
/// understand SHOULD respond with 501"): a refusal of the framing, not a
/// policy answer, unless the method is one such a server may not
/// implement (only GET and HEAD are required, 9110 §9.1; POST is assumed).
fn accepted(case: &Case, req: &Req, status: u16, server: Server) -> bool {
    req.status.allows(status)
        || (!server.echo
            && (300..600).contains(&status)
            && !REFUSALS.contains(&status)
            && (status != 501 || !te_framed(case)))
}

/// The case's first request is a GET, HEAD or POST with a
/// `Transfer-Encoding` field line in its head.
fn te_framed(case: &Case) -> bool {
    let Some(raw) = case.steps.first() else {
        return false;
    };
    let start = raw
        .iter()
        .position(|&b| b != b'\r' && b != b'\n')
        .unwrap_or(0);
    let raw = &raw[start..];
    let head = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map_or(raw, |p| &raw[..p + 2]);
    ["GET ", "HEAD ", "POST "]
        .iter()
        .any(|m| head.starts_with(m.as_bytes()))
        && head
            .windows(19)
            .any(|w| w.eq_ignore_ascii_case(b"\ntransfer-encoding:"))
}

/// RFC 9110 §15.2.2 and §7.8: a 101 names the protocol switched to, one
/// the client offered.
fn bad_switch(case: &Case, a: &Answer) -> Option<String> {
    if a.status != 101 {
        return None;
    }
    let Some(upgrade) = a.upgrade.as_deref().filter(|u| !u.is_empty()) else {
        return Some("a 101 without an Upgrade field (9110 §15.2.2)".into());
    };
    let raw = case.raw();
    let offered: Vec<&[u8]> = raw
        .split(|&b| b == b'\n')
        .filter_map(|line| {
            let colon = line.iter().position(|&b| b == b':')?;
            let value = &line[colon + 1..];
            line[..colon]
                .eq_ignore_ascii_case(b"upgrade")
                .then(|| value.strip_suffix(b"\r").unwrap_or(value))
        })
        .collect();
    let named = |p: &[u8]| {
        offered
            .iter()
            .any(|o| list(o).any(|e| e.eq_ignore_ascii_case(p)))
    };
    if list(upgrade).all(named) {
        None
    } else {
        Some(format!(
            "a 101 to {:?}, which the client did not offer (9110 §7.8)",
            escape(upgrade, 60)
        ))
    }
}

/// The elements of a comma-separated field value (RFC 9110 §5.6.1), without
/// the whitespace around them and without empty ones. The judge's own, so
/// that it relies on no part of h1.
fn list(value: &[u8]) -> impl Iterator<Item = &[u8]> {
    value
        .split(|&b| b == b',')
        .map(|e| {
            let start = e.iter().position(|&b| b != b' ' && b != b'\t');
            let end = e.iter().rposition(|&b| b != b' ' && b != b'\t');
            match (start, end) {
                (Some(s), Some(t)) => &e[s..=t],
                _ => &e[..0],
            }
        })
        .filter(|e| !e.is_empty())
}

/// The first `before` answers must be normal ones, each after its head.
fn answered_before(
    heads: &[Sent],
    answers: &[Answer],
    before: usize,
    obs: &Observation,
) -> Option<String> {
    if answers.len() < before {
        return Some(format!(
            "{} of the {before} requests before the error answered{}",
            answers.len(),
            ending_note(obs)
        ));
    }
    answers[..before].iter().enumerate().find_map(|(i, a)| {
        if a.status >= 400 {
            return Some(format!(
                "request {} (before the error) answered {}",
                i + 1,
                a.status
            ));
        }
        before_head(i + 1, a, heads.get(i).map_or(0, |s| s.step))
    })
}

/// RFC 9110 §5.3: "A server MUST NOT apply a request to the target resource
/// until it receives the entire request header section". An answer to
/// request `n` (interim or final) whose first byte came before the step
/// that completes its head (`head_step`, as declared) answered a request
/// the server had not yet received: one it dispatched from part of a head.
fn before_head(n: usize, a: &Answer, head_step: usize) -> Option<String> {
    (a.step < head_step).then(|| {
        format!(
            "request {n} answered after step {} was sent, before its head was complete (step {})",
            a.step + 1,
            head_step + 1
        )
    })
}

/// Checks the answer `a` to the `i`th request.
fn check_request(
    case: &Case,
    heads: &[Sent],
    i: usize,
    req: &Req,
    a: &Answer,
    obs: &Observation,
    server: Server,
) -> Option<String> {
    let n = i + 1;
    if !accepted(case, req, a.status, server) {
        return Some(format!(
            "request {n} answered {}; want {}",
            a.status, req.status
        ));
    }
    let head_step = heads.get(i).map_or(0, |s| s.step);
    if let Some(why) = before_head(n, a, head_step) {
        return Some(why);
    }
    if req.continue_first {
        // Before the step after the one that completed its head was sent.
        if a.step > head_step {
            return Some(format!(
                "request {n}: no 100 (Continue) or final answer before the client sent the rest"
            ));
        }
    }
    if server.echo && (200..300).contains(&a.status) {
        let Some(echo) = &a.echo else {
            return Some(format!("request {n}: the answer has no x-echo fields"));
        };
        // A response to HEAD has no content to echo the body in.
        let body = (echo.method != b"HEAD").then_some(a.body.as_slice());
        let view = View {
            method: &echo.method,
            target: &echo.target,
            version: &echo.version,
            body,
        };
        if let Some(why) = check_view(n, "", req, &view) {
            return Some(why);
        }
    }
    // What the server saw, where the runner can know it.
    if let Some(seen) = obs.seen.as_ref().and_then(|s| s.get(i)) {
        let view = View {
            method: &seen.method,
            target: &seen.target,
            version: seen.version.as_bytes(),
            body: Some(&seen.body),
        };
        if let Some(why) = check_view(n, "the server saw ", req, &view) {
            return Some(why);
        }
        for (name, value) in &req.fields {
            let found = seen
                .fields
                .iter()
                .any(|(n, v)| n.eq_ignore_ascii_case(name) && v == value);
            if !found {
                let got: Vec<String> = seen
                    .fields
                    .iter()
                    .filter(|(n, _)| n.eq_ignore_ascii_case(name))
                    .map(|(_, v)| escape(v, 60))
                    .collect();
                return Some(format!(
                    "request {n}: field {}: {:?} not seen (the server saw {got:?})",
                    escape(name, 40),
                    escape(value, 60)
                ));
            }
        }
    }
    None
}

/// One request as the server showed it: echoed back, or seen in process.
struct View<'a> {
    method: &'a [u8],
    target: &'a [u8],
    version: &'a [u8],
    /// `None` when it cannot be shown (a response to HEAD).
    body: Option<&'a [u8]>,
}

fn check_view(n: usize, who: &str, req: &Req, view: &View<'_>) -> Option<String> {
    let version = req.version.as_ref().map(|v| v.as_bytes());
    let checks = [
        ("method", req.method.as_deref(), Some(view.method)),
        ("target", req.target.as_deref(), Some(view.target)),
        ("version", version, Some(view.version)),
        ("body", req.body.as_deref(), view.body),
    ];
    checks
        .into_iter()
        .find_map(|(what, want, got)| match (want, got) {
            (Some(want), Some(got)) if want != got => Some(format!(
                "request {n}: {who}{what} {:?}, want {:?}",
                escape(got, 80),
                escape(want, 80)
            )),
            _ => None,
        })
}

fn statuses(answers: &[Answer]) -> String {
    let mut s = String::new();
    for (i, a) in answers.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        let _ = write!(s, "{}", a.status);
    }
    s
}

fn ending_note(obs: &Observation) -> String {
    match &obs.ending {
        Ending::Closed => "; then the server closed".into(),
        Ending::Open => "; the connection is open (timed out waiting)".into(),
        Ending::Switched => "; then the server switched protocols".into(),
        Ending::Broken(why) => format!("; {why}"),
    }
}

/// What came back, in one line: each answer's interim and final statuses,
/// then the ending.
pub fn describe(obs: &Observation) -> String {
    let mut s = String::new();
    for a in &obs.answers {
        for i in &a.interim {
            let _ = write!(s, "{i}+");
        }
        let _ = write!(s, "{}", a.status);
        if let Some(e) = &a.echo {
            let _ = write!(s, " ({} {})", escape(&e.method, 20), escape(&e.target, 40));
        }
        s.push_str(", ");
    }
    if obs.answers.is_empty() {
        s.push_str("no answer, ");
    }
    if let Some(p) = &obs.probe {
        match p {
            Some(a) => {
                let _ = write!(s, "probe {}, ", a.status);
            }
            None => s.push_str("probe unanswered, "),
        }
    }
    match &obs.ending {
        Ending::Closed => s.push_str("closed"),
        Ending::Open => s.push_str("open"),
        Ending::Switched => s.push_str("switched protocols"),
        Ending::Broken(why) => s.push_str(why),
    }
    s
}

/// What the case wants, in one line.
pub fn expected(case: &Case) -> String {
    match &case.outcome {
        Outcome::Accept { requests, close } => {
            let mut s = format!("accept {} request(s)", requests.len());
            for (i, r) in requests.iter().enumerate() {
                let _ = write!(s, "; #{}: {}", i + 1, r.status);
                if let Some(m) = &r.method {
                    let _ = write!(s, " {}", escape(m, 20));
                }
                if let Some(t) = &r.target {
                    let _ = write!(s, " {}", escape(t, 40));
                }
                if let Some(b) = &r.body {
                    let _ = write!(s, " body {:?}", escape(b, 40));
                }
            }
            match close {
                Some(true) => s.push_str("; then close"),
                Some(false) => s.push_str("; keep the connection open"),
                None => {}
            }
            s
        }
        Outcome::Reject {
            status,
            before,
            close,
        } => format!(
            "{}reject with {status}{}",
            if *before > 0 {
                format!("answer {before}, then ")
            } else {
                String::new()
            },
            match close {
                CloseRule::Must => ", then close",
                CloseRule::Should => ", then close (SHOULD)",
                CloseRule::No => "",
            }
        ),
        Outcome::Incomplete { before } => format!(
            "{}no answer to the incomplete message (or 400/408), then close",
            if *before > 0 {
                format!("answer {before}, then ")
            } else {
                String::new()
            }
        ),
    }
}
