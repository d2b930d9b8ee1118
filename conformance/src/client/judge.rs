//! The verdict on one client case from what the client reported and what
//! the test server received. It decides from the case data and the
//! observation alone: it uses no part of h1, so a bug in h1's client role
//! cannot make it lenient where that role is wrong.

use std::fmt::Write;

use crate::case::Level;
use crate::client::case::{ClientCase, ConnRule, Expect, Want};
use crate::client::observe::{ClientObservation, Received, Record};
use crate::escape::escape;
use crate::judge::Verdict;

/// Judges `obs` against `case`.
pub fn judge(case: &ClientCase, obs: &ClientObservation) -> Verdict {
    match mismatch(case, obs) {
        Miss::None => Verdict::Pass,
        Miss::NotApplicable(why) => Verdict::NotApplicable(why),
        Miss::Fail(_, why) if case.deviation.is_some() && obs.h1 => Verdict::Deviation(why),
        Miss::Fail(level, why) => Verdict::Fail(level, why),
    }
}

enum Miss {
    None,
    Fail(Level, String),
    NotApplicable(String),
}

fn mismatch(case: &ClientCase, obs: &ClientObservation) -> Miss {
    let fail = |why: String| Miss::Fail(case.level, why);
    if let Some(p) = &obs.problem {
        return fail(p.clone());
    }
    for (i, x) in case.exchanges.iter().enumerate() {
        let n = i + 1;
        let target = case.target(i);
        let tries: Vec<(usize, &Received)> = obs
            .received
            .iter()
            .enumerate()
            .filter(|(_, r)| r.target == target.as_bytes())
            .collect();
        // A client that cannot make the request the case needs (a command
        // that only makes GET requests, say) cannot be judged on it.
        if let Some((_, r)) = tries.iter().find(|(_, r)| r.method != x.ask.method) {
            return Miss::NotApplicable(format!(
                "the client sent {} for request {n}; the case needs {}",
                escape(&r.method, 20),
                escape(&x.ask.method, 20)
            ));
        }
        let Some(record) = obs.records.get(i) else {
            return fail(format!(
                "the client reported nothing for request {n} ({} records)",
                obs.records.len()
            ));
        };
        if let Some(why) = outcome(n, record, &x.expect) {
            return fail(why);
        }
        let Some(&(first_at, first)) = tries.first() else {
            if record.error.is_none() {
                return fail(format!(
                    "the client reported a response to request {n}, which the server never received"
                ));
            }
            continue;
        };
        if let Some(body) = &x.ask.body {
            if &first.body != body {
                return fail(format!(
                    "request {n}: the server received the content {:?}; the client was asked to send {:?} (RFC 9112 §6.3: a valid Content-Length or chunked)",
                    escape(&first.body, 60),
                    escape(body, 60)
                ));
            }
        }
        for name in &x.ask.carries {
            if !first
                .fields
                .iter()
                .any(|(f, _)| f.eq_ignore_ascii_case(name))
            {
                return fail(format!(
                    "request {n} came without a {} field",
                    escape(name, 40)
                ));
            }
        }
        let before = &obs.received[..first_at];
        match x.connection {
            ConnRule::Any => {}
            ConnRule::New if before.iter().any(|r| r.conn == first.conn) => {
                return fail(format!(
                    "request {n} came on connection {}, which an earlier request used; it must come on a new connection",
                    first.conn + 1
                ));
            }
            ConnRule::Same if before.last().is_some_and(|r| r.conn != first.conn) => {
                return fail(format!(
                    "request {n} came on a new connection ({}); the previous one could persist",
                    first.conn + 1
                ));
            }
            _ => {}
        }
        if let Some(max) = x.attempts {
            if tries.len() > max {
                return fail(format!(
                    "the server received request {n} {} times; at most {max} (automatic retries)",
                    tries.len()
                ));
            }
        }
    }
    Miss::None
}

/// Why `record` is not what `expect` allows, if it is not.
fn outcome(n: usize, record: &Record, expect: &Expect) -> Option<String> {
    match (&record.error, expect) {
        (Some(_), Expect::Error | Expect::Either(_)) => None,
        (Some(e), Expect::Response(w)) => Some(format!(
            "request {n}: the client reported an error ({}); want {}",
            clip(e),
            want_text(w)
        )),
        (None, Expect::Error) => Some(format!(
            "request {n}: the client accepted the answer ({}); it must treat it as an error",
            record_text(record)
        )),
        (None, Expect::Response(w) | Expect::Either(w)) => response_mismatch(n, record, w),
    }
}

/// Why the response `record` is not `want`, if it is not.
fn response_mismatch(n: usize, record: &Record, want: &Want) -> Option<String> {
    let Some(status) = record.status else {
        return Some(format!(
            "request {n}: the client reported neither a response nor an error"
        ));
    };
    if !want.status.contains(&status) {
        return Some(format!(
            "request {n}: status {status}; want {}",
            codes(&want.status)
        ));
    }
    if let Some(body) = &want.body {
        let got = record.body.as_deref().unwrap_or_default();
        if got != body.as_slice() {
            return Some(format!(
                "request {n}: content {:?} ({} bytes); want {:?} ({} bytes)",
                escape(got, 80),
                got.len(),
                escape(body, 80),
                body.len()
            ));
        }
    }
    for rule in &want.fields {
        let values: Vec<&[u8]> = record
            .fields
            .iter()
            .filter(|(f, _)| f.eq_ignore_ascii_case(&rule.name))
            .map(|(_, v)| v.as_slice())
            .collect();
        let combined = values.join(&b", "[..]);
        let matches = |v: &[u8]| {
            if rule.any_spaces {
                squeeze(v) == squeeze(&rule.value)
            } else {
                v == rule.value.as_slice()
            }
        };
        if !values.iter().any(|v| matches(v)) && !matches(&combined) {
            let got: Vec<String> = values.iter().map(|v| escape(v, 60)).collect();
            return Some(format!(
                "request {n}: field {}: {:?} not reported (reported: {got:?})",
                escape(&rule.name, 40),
                escape(&rule.value, 60)
            ));
        }
    }
    for name in &want.absent {
        if let Some((f, v)) = record
            .fields
            .iter()
            .find(|(f, _)| f.eq_ignore_ascii_case(name))
        {
            return Some(format!(
                "request {n}: reported a field {}: {:?}, which must not be taken as a header field",
                escape(f, 40),
                escape(v, 60)
            ));
        }
    }
    for (name, value) in &want.forbid {
        if record
            .fields
            .iter()
            .any(|(f, v)| f.eq_ignore_ascii_case(name) && v == value)
        {
            return Some(format!(
                "request {n}: reported the field {}: {:?} as received; it must be refused or repaired",
                escape(name, 40),
                escape(value, 60)
            ));
        }
    }
    None
}

/// Runs of SP and HTAB as one SP, without leading and trailing ones.
fn squeeze(v: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.len());
    for &b in v {
        let ws = b == b' ' || b == b'\t';
        if ws {
            if out.last().is_some_and(|&l| l != b' ') {
                out.push(b' ');
            }
        } else {
            out.push(b);
        }
    }
    while out.last() == Some(&b' ') {
        out.pop();
    }
    out
}

fn codes(list: &[u16]) -> String {
    list.iter()
        .map(u16::to_string)
        .collect::<Vec<_>>()
        .join(" or ")
}

fn clip(s: &str) -> String {
    match s.char_indices().nth(120) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

fn want_text(w: &Want) -> String {
    let mut s = format!("response {}", codes(&w.status));
    if let Some(b) = &w.body {
        let _ = write!(s, " with content \"{}\"", escape(b, 40));
    }
    for f in &w.fields {
        let _ = write!(
            s,
            ", {}: \"{}\"{}",
            escape(&f.name, 30),
            escape(&f.value, 40),
            if f.any_spaces { " (any spaces)" } else { "" }
        );
    }
    for a in &w.absent {
        let _ = write!(s, ", no {}", escape(a, 30));
    }
    for (n, v) in &w.forbid {
        let _ = write!(s, ", not {}: \"{}\"", escape(n, 30), escape(v, 30));
    }
    s
}

fn record_text(r: &Record) -> String {
    let mut s = String::new();
    for i in &r.interim {
        let _ = write!(s, "{i}+");
    }
    match (r.status, &r.error) {
        (Some(c), _) => {
            let _ = write!(s, "{c}");
            if let Some(b) = &r.body {
                let _ = write!(s, " \"{}\"", escape(b, 40));
            }
            if let Some(e) = &r.error {
                let _ = write!(s, " then error: {}", clip(e));
            }
        }
        (None, Some(e)) => {
            if !r.interim.is_empty() {
                s.pop();
                s.push_str(", then ");
            }
            let _ = write!(s, "error: {}", clip(e));
        }
        (None, None) => s.push_str("nothing"),
    }
    s
}

/// What the case's test server sends, in one line: each exchange's request
/// and its answer's steps (`|` between steps).
pub fn sent(case: &ClientCase, max: usize) -> String {
    let mut s = String::new();
    for (i, x) in case.exchanges.iter().enumerate() {
        if i > 0 {
            s.push_str(" ;; ");
        }
        let _ = write!(s, "{} {} => ", escape(&x.ask.method, 20), case.target(i));
        let steps: Vec<String> = x.respond.iter().map(|r| escape(r, max)).collect();
        s.push_str(&steps.join(" | "));
        if x.respond.is_empty() {
            s.push_str("(no answer)");
        }
        if x.close {
            s.push_str(" <server closes>");
        }
    }
    s
}

/// What the case wants, in one line.
pub fn expected(case: &ClientCase) -> String {
    let mut s = String::new();
    for (i, x) in case.exchanges.iter().enumerate() {
        if i > 0 {
            s.push_str("; ");
        }
        let _ = write!(s, "#{}: ", i + 1);
        match &x.expect {
            Expect::Response(w) => s.push_str(&want_text(w)),
            Expect::Error => s.push_str("an error"),
            Expect::Either(w) => {
                let _ = write!(s, "an error, or {}", want_text(w));
            }
        }
        if x.connection != ConnRule::Any {
            let _ = write!(s, ", on {}", x.connection);
        }
        if let Some(max) = x.attempts {
            let _ = write!(s, ", sent at most {max} times");
        }
    }
    s
}

/// What came back, in one line: each record, and the connection each
/// request came on.
pub fn describe(case: &ClientCase, obs: &ClientObservation) -> String {
    let mut s = String::new();
    for (i, r) in obs.records.iter().enumerate() {
        if i > 0 {
            s.push_str("; ");
        }
        let _ = write!(s, "#{}: {}", i + 1, record_text(r));
        let target = case.target(i);
        let conns: Vec<String> = obs
            .received
            .iter()
            .filter(|q| q.target == target.as_bytes())
            .map(|q| (q.conn + 1).to_string())
            .collect();
        match conns.len() {
            0 => s.push_str(" (not received)"),
            _ => {
                let _ = write!(s, " (conn {})", conns.join(", "));
            }
        }
    }
    if obs.records.is_empty() {
        s.push_str("no report");
    }
    if let Some(p) = &obs.problem {
        let _ = write!(s, "; {}", clip(p));
    }
    if obs.records.len() < case.exchanges.len() && !obs.stderr.is_empty() {
        let _ = write!(s, "; stderr: {}", clip(&obs.stderr));
    }
    for u in &obs.unreadable {
        let _ = write!(s, "; server: {}", clip(u));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spaces_squeeze() {
        assert_eq!(squeeze(b"a   b\t c "), b"a b c");
        assert_eq!(squeeze(b" a"), b"a");
    }
}
