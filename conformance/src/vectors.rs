//! The shared conformance vectors (the repository's copy,
//! `testdata/conformance/vectors.jsonl`, which CI keeps equal to the
//! project's shared original), read as they are and turned into [`Case`]s.
//!
//! The mapping (the vector format is described in
//! `testdata/conformance/README.md`):
//!
//! - `level`: MUST is MUST; SHOULD is SHOULD; MAY, PROFILE (a hardened
//!   choice the RFC leaves open) and MUST-EITHER (the RFC mandates reject
//!   or repair, the vector encodes the reject: a server that repairs
//!   conforms) are MAY.
//! - `expect: accept` with `requests: N`: N requests answered normally, the
//!   first with the vector's `body`. An answer is normal when it is 2xx;
//!   for a request that asks to upgrade 101 is normal too, for CONNECT
//!   405 and 501 (a server that is not a proxy, RFC 9110 §9.1), and for an
//!   `https` target 421 (the runner's connection is not secured for it,
//!   RFC 9110 §7.4).
//! - `expect: reject` with a `status`: that status or one of `alt_status`,
//!   after `requests` normal answers, then the connection closes: a MUST
//!   where the sentence says so (9112 §6.1, §6.3 rules 4 and 5), otherwise
//!   9112 §2.2's SHOULD. A 417 (an expectation the server declines) is the
//!   server's policy, so such a vector requires the echo contract.
//! - The `limits` vectors encode h1's limits, and a vector with bytes after
//!   a head that asks to upgrade assumes the server switches: both require
//!   the echo contract.
//! - `expect: reject` with `status: null`: the message cannot complete;
//!   the client closes its side after the bytes ([`Outcome::Incomplete`]).

use serde_json::Value;

use crate::case::{Case, CloseRule, Level, Origin, Outcome, Req, StatusPat, Statuses};

/// The vector file, compiled in.
pub const VECTORS: &str = include_str!("../../testdata/conformance/vectors.jsonl");

/// The cases of a vector file.
pub fn parse(text: &str) -> Result<Vec<Case>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            let v: Value =
                serde_json::from_str(l).map_err(|e| format!("vectors.jsonl:{}: {e}", i + 1))?;
            vector(&v).map_err(|e| format!("vectors.jsonl:{}: {e}", i + 1))
        })
        .collect()
}

fn vector(v: &Value) -> Result<Case, String> {
    let s = |key: &str| -> Result<&str, String> {
        v[key]
            .as_str()
            .ok_or_else(|| format!("`{key}` is not a string"))
    };
    let latin1 = |s: &str| -> Result<Vec<u8>, String> {
        s.chars()
            .map(|c| u8::try_from(u32::from(c)).map_err(|_| format!("{c:?} is not ISO-8859-1")))
            .collect()
    };
    let id = s("id")?.to_string();
    let raw = latin1(s("raw")?)?;
    let level = match s("level")? {
        "MUST" => Level::Must,
        "SHOULD" => Level::Should,
        // The RFC mandates reject OR repair; the vector encodes reject, the
        // hardened choice, which a conforming server need not make.
        "MUST-EITHER" | "MAY" | "PROFILE" => Level::May,
        other => return Err(format!("{id}: unknown level {other:?}")),
    };
    let requests = v["requests"]
        .as_u64()
        .ok_or_else(|| format!("{id}: `requests` is not a number"))? as usize;
    let mut requires_echo = false;
    let outcome = match (s("expect")?, v["status"].as_u64()) {
        ("accept", _) => {
            let mut reqs = vec![normal(&raw); requests.max(1)];
            if let Some(body) = v["body"].as_str() {
                reqs[0].body = Some(latin1(body)?);
            }
            // An accepted vector's `alt_status`: the other answers the RFC
            // allows (9110 §8.6: an identical Content-Length list "MAY
            // either reject the message as invalid or replace" it).
            for alt in v["alt_status"].as_array().into_iter().flatten() {
                let alt = alt
                    .as_u64()
                    .and_then(|a| u16::try_from(a).ok())
                    .ok_or_else(|| format!("{id}: bad alt_status"))?;
                reqs[0].status.0.push(StatusPat::Code(alt));
            }
            Outcome::Accept {
                requests: reqs,
                close: None,
            }
        }
        ("reject", Some(status)) => {
            let status = u16::try_from(status).map_err(|_| format!("{id}: bad status"))?;
            let mut pats = vec![StatusPat::Code(status)];
            for alt in v["alt_status"].as_array().into_iter().flatten() {
                let alt = alt
                    .as_u64()
                    .ok_or_else(|| format!("{id}: bad alt_status"))?;
                pats.push(StatusPat::Code(alt as u16));
            }
            requires_echo = status == 417;
            Outcome::Reject {
                status: Statuses(pats),
                before: requests,
                close: close_rule(s("rfc")?),
            }
        }
        ("reject", None) => Outcome::Incomplete { before: requests },
        (other, _) => return Err(format!("{id}: unknown expect {other:?}")),
    };
    let category = s("category")?;
    // The limits vectors encode h1's limits (8 KiB target and field line,
    // 100 fields), not the RFC's: another server's may differ legally.
    requires_echo |= category == "limits";
    // Bytes after a head that asks to upgrade belong to the new protocol
    // only if the server switches; one that declines (as it may) reads
    // them as HTTP/1.1. The echo contract switches to websocket.
    requires_echo |= upgrade_asked(&raw) && after_head(&raw);
    let note = s("note")?;
    let source = s("source")?;
    let mut case = Case {
        area: format!("vectors: {category}"),
        section: s("rfc")?.to_string(),
        level,
        sentence: source.to_string(),
        eof: matches!(outcome, Outcome::Incomplete { .. }),
        steps: vec![raw],
        outcome,
        requires_echo,
        deviation: None,
        note: note.to_string(),
        origin: Origin::Vector,
        heads: Vec::new(),
        id,
    };
    reviewed(&mut case);
    Ok(case)
}

/// The vectors whose expectation the RFC sentence does not require, read
/// as the sentence allows (the file is the shared original and stays as it
/// is; issue 16's review). Each names the sentence that decides it.
fn reviewed(case: &mut Case) {
    let either = |n: usize| {
        let mut r = Req::any();
        r.status.0.push(StatusPat::Code(400));
        let mut reqs = vec![Req::any(); n];
        reqs[0] = r;
        reqs
    };
    match case.id.as_str() {
        // 9112 §2.2: "a recipient MAY recognize a single LF as a line
        // terminator and ignore any preceding CR": refusing and accepting
        // both conform; accepted, the requests are read as LF-terminated.
        "le-001" | "le-002" | "host-009" => {
            // host-009, 9112 §3.3: with an empty Host "the server can
            // reject the request or determine whether a configured
            // default applies".
            case.outcome = Outcome::Accept {
                requests: either(1),
                close: None,
            }
        }
        "le-003" => {
            case.outcome = Outcome::Accept {
                requests: either(1),
                close: Some(true),
            }
        }
        "le-010" => {
            // Accepted, Content-Length: 23 takes `GET / HTTP/1.1\r\nDummy: `
            // as the body and GET /admin is a second request.
            let mut reqs = either(2);
            reqs[0].body = Some(b"GET / HTTP/1.1\r\nDummy: ".to_vec());
            reqs[1].target = Some(b"/admin".to_vec());
            case.outcome = Outcome::Accept {
                requests: reqs,
                close: None,
            }
        }
        "le-011" => {
            // Accepted, `Useless:\n\n` ends the head; the GET after it has
            // no Host: 400 (9112 §3.2 MUST).
            let mut reqs = either(2);
            reqs[1].status = Statuses(vec![StatusPat::Code(400)]);
            case.outcome = Outcome::Accept {
                requests: reqs,
                close: None,
            }
        }
        // 9110 §9.3.6: "A server MUST reject a CONNECT request that targets
        // an empty or invalid port number, typically by responding with a
        // 400": any 4xx rejects it, and so does a 501 from a server that
        // does not implement CONNECT (9110 §9.1).
        "conn-002" | "conn-003" => {
            if let Outcome::Reject { status, .. } = &mut case.outcome {
                *status = Statuses(vec![StatusPat::Class(4), StatusPat::Code(501)]);
            }
        }
        // 9112 §3.2's SHOULD 400 for an invalid request-line, or the 405 or
        // 501 of a server that does not implement CONNECT (9110 §9.1,
        // §15.5.6): a CONNECT with an origin-form target is refused either way.
        "conn-004" => {
            if let Outcome::Reject { status, .. } = &mut case.outcome {
                status
                    .0
                    .extend([StatusPat::Code(405), StatusPat::Code(501)]);
            }
        }
        _ => {}
    }
}

/// The close a rejection needs: required by the sentence for the framing
/// rules that say so (RFC 9112 §6.1: `Transfer-Encoding` with
/// `Content-Length`; §6.3 rules 4 and 5: an invalid `Transfer-Encoding` or
/// `Content-Length`), otherwise 9112 §2.2's SHOULD.
fn close_rule(rfc: &str) -> CloseRule {
    let must = rfc.contains("§6.1") || rfc.contains("rule 4") || rfc.contains("rule 5");
    if must {
        CloseRule::Must
    } else {
        CloseRule::Should
    }
}

/// What a normal answer to the vector's requests is (see the module docs).
fn normal(raw: &[u8]) -> Req {
    let mut req = Req::any();
    let start = raw
        .iter()
        .position(|&b| b != b'\r' && b != b'\n')
        .unwrap_or(0);
    if raw[start..].starts_with(b"CONNECT ") {
        req.status
            .0
            .extend([StatusPat::Code(405), StatusPat::Code(501)]);
    }
    if contains_ignore_case(raw, b"\nupgrade:") {
        req.status.0.push(StatusPat::Code(101));
    }
    // The first request's target: an "https" one gets 421 over a
    // connection not secured for it (RFC 9110 §7.4).
    let target = raw[start..].split(|&b| b == b' ').nth(1).unwrap_or(&[]);
    if target.len() >= 8 && target[..8].eq_ignore_ascii_case(b"https://") {
        req.status.0.push(StatusPat::Code(421));
    }
    req
}

/// The first head holds `Connection: ...upgrade...` and an `Upgrade`
/// field.
fn upgrade_asked(raw: &[u8]) -> bool {
    let head = &raw[..head_end(raw).unwrap_or(raw.len())];
    head.split(|&b| b == b'\n').any(|l| {
        l.len() > 11
            && l[..11].eq_ignore_ascii_case(b"connection:")
            && contains_ignore_case(l, b"upgrade")
    }) && contains_ignore_case(head, b"\nupgrade:")
}

/// Bytes follow the first head.
fn after_head(raw: &[u8]) -> bool {
    head_end(raw).is_some_and(|end| end < raw.len())
}

fn head_end(raw: &[u8]) -> Option<usize> {
    raw.windows(4).position(|w| w == b"\r\n\r\n").map(|p| p + 4)
}

fn contains_ignore_case(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_vector_imports() {
        let cases = parse(VECTORS).unwrap();
        assert_eq!(cases.len(), VECTORS.lines().count());
        assert!(cases.len() >= 265);
        let must = cases.iter().filter(|c| c.level == Level::Must).count();
        // 150 MUST in the file's own count (its 17 MUST-EITHER are MAY here).
        assert_eq!(must, 150);
        let incomplete = cases
            .iter()
            .filter(|c| matches!(c.outcome, Outcome::Incomplete { .. }))
            .count();
        assert!(incomplete >= 3, "{incomplete}");
    }

    #[test]
    fn a_vector_maps() {
        let line = r#"{"id": "x-1", "category": "c", "rfc": "9112 §6.1", "source": "s", "level": "MUST", "layer": "codec", "raw": "CONNECT a:1 HTTP/1.1\r\nHost: a:1\r\n\r\n\u00ff", "expect": "accept", "status": null, "requests": 1, "body": "", "note": "n"}"#;
        let c = parse(line).unwrap().remove(0);
        assert_eq!(c.level, Level::Must);
        assert_eq!(c.steps[0].last(), Some(&0xff));
        let Outcome::Accept { requests, .. } = &c.outcome else {
            panic!()
        };
        assert!(requests[0].status.allows(501) && !requests[0].status.allows(400));
        assert_eq!(requests[0].body.as_deref(), Some(&b""[..]));
    }
}
