//! The verdict on one case from what a runner observed.

use std::fmt::Write;

use crate::case::{Case, Outcome, Req};
use crate::escape::escape;
use crate::observe::{Answer, Ending, Observation};

/// A case's verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The server did what the case requires.
    Pass,
    /// It did not: why.
    Fail(String),
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
            Verdict::Fail(_) => "fail",
            Verdict::Deviation(_) => "deviation",
            Verdict::NotApplicable(_) => "n/a",
        }
    }
}

/// What the judge may assume of the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Server {
    /// It speaks the echo contract: bodies, targets and methods can be
    /// checked, and the cases that require it apply.
    pub echo: bool,
}

/// Judges `obs` against `case`.
pub fn judge(case: &Case, obs: &Observation, server: Server) -> Verdict {
    if case.requires_echo && !server.echo {
        return Verdict::NotApplicable("needs the echo contract".into());
    }
    match (mismatch(case, obs, server), &case.deviation) {
        (None, _) => Verdict::Pass,
        (Some(why), Some(_)) => Verdict::Deviation(why),
        (Some(why), None) => Verdict::Fail(why),
    }
}

/// Why the observation does not meet the case, if it does not.
fn mismatch(case: &Case, obs: &Observation, server: Server) -> Option<String> {
    let answers = &obs.answers;
    let broken = match &obs.ending {
        Ending::Broken(why) => Some(why.as_str()),
        _ => None,
    };
    match &case.outcome {
        Outcome::Accept { requests, close } => {
            for (i, req) in requests.iter().enumerate() {
                let Some(a) = answers.get(i) else {
                    return Some(format!(
                        "{} of {} requests answered{}",
                        answers.len(),
                        requests.len(),
                        ending_note(obs)
                    ));
                };
                if let Some(why) = check_request(case, i, req, a, obs, server) {
                    return Some(why);
                }
            }
            if answers.len() > requests.len() {
                return Some(format!(
                    "{} answers to {} requests: the server read a request that is not there ({})",
                    answers.len(),
                    requests.len(),
                    statuses(&answers[requests.len()..])
                ));
            }
            if let Some(why) = broken {
                return Some(why.to_string());
            }
            match close {
                Some(true) if obs.ending != Ending::Closed => {
                    return Some("the connection stayed open; it must close".into())
                }
                Some(false) => match obs.probe {
                    Some(Some(s)) if (200..300).contains(&s) => {}
                    Some(Some(s)) => return Some(format!("the keep-alive probe was answered {s}")),
                    _ => {
                        return Some(format!(
                            "the connection did not stay usable (no answer to a further request{})",
                            ending_note(obs)
                        ))
                    }
                },
                _ => {}
            }
            None
        }
        Outcome::Reject {
            status,
            before,
            close,
        } => {
            if let Some(why) = answered_before(answers, *before, obs) {
                return Some(why);
            }
            let Some(a) = answers.get(*before) else {
                return Some(format!(
                    "no error response (want {status}){}",
                    ending_note(obs)
                ));
            };
            if !status.allows(a.status) {
                return Some(if a.status < 400 {
                    format!("accepted: answered {}; want {status}", a.status)
                } else {
                    format!("answered {}; want {status}", a.status)
                });
            }
            if answers.len() > before + 1 {
                return Some(format!(
                    "answered {} more after the error ({})",
                    answers.len() - before - 1,
                    statuses(&answers[before + 1..])
                ));
            }
            if let Some(why) = broken {
                return Some(why.to_string());
            }
            if obs.ending == Ending::Switched {
                return Some("switched protocols after a rejection".into());
            }
            if *close && obs.ending != Ending::Closed {
                return Some(format!(
                    "answered {}, then kept the connection open; it must close",
                    a.status
                ));
            }
            None
        }
        Outcome::Incomplete { before } => {
            if let Some(why) = answered_before(answers, *before, obs) {
                return Some(why);
            }
            let rest = &answers[(*before).min(answers.len())..];
            if let Some(a) = rest.iter().find(|a| a.status != 400 && a.status != 408) {
                return Some(format!(
                    "answered {} to an incomplete message (allowed: 400, 408 or nothing)",
                    a.status
                ));
            }
            if rest.len() > 1 {
                return Some(format!("{} answers to one incomplete message", rest.len()));
            }
            if let Some(why) = broken {
                return Some(why.to_string());
            }
            if obs.ending != Ending::Closed {
                return Some("the connection stayed open after the client's end".into());
            }
            None
        }
    }
}

/// The first `before` answers must be normal ones.
fn answered_before(answers: &[Answer], before: usize, obs: &Observation) -> Option<String> {
    if answers.len() < before {
        return Some(format!(
            "{} of the {before} requests before the error answered{}",
            answers.len(),
            ending_note(obs)
        ));
    }
    answers[..before]
        .iter()
        .position(|a| a.status >= 400)
        .map(|i| {
            format!(
                "request {} (before the error) answered {}",
                i + 1,
                answers[i].status
            )
        })
}

/// Checks the answer `a` to the `i`th request.
fn check_request(
    case: &Case,
    i: usize,
    req: &Req,
    a: &Answer,
    obs: &Observation,
    server: Server,
) -> Option<String> {
    let n = i + 1;
    if !req.status.allows(a.status) {
        return Some(format!(
            "request {n} answered {}; want {}",
            a.status, req.status
        ));
    }
    if req.continue_first {
        let last = case.steps.len() - 1;
        if a.step >= last {
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
    if let Some(p) = obs.probe {
        match p {
            Some(st) => {
                let _ = write!(s, "probe {st}, ");
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
            if *close { ", then close" } else { "" }
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
