//! The requests a case's bytes hold, declared as data: for every case, the
//! heads a conforming server reads from them (method, target, HTTP/1.0 or
//! not, whether it asks to upgrade or closes the connection, and the step
//! whose bytes complete it), in `cases/heads.jsonl`.
//!
//! A head is declared when a conforming server reads it and does not refuse
//! its message on the head alone: not one refused for its syntax, its
//! framing fields, its `Host`, its target (an `https` target on a plain
//! connection, RFC 9110 §7.4) or its expectation (417), and none after a
//! message that ends the connection. So a refused message whose head is
//! declared is refused for what follows its head (its body), which a server
//! may answer early, from the head, by closing (see [`crate::judge`]).
//!
//! The judge and the response reader work from these facts, never from a
//! parser: were they worked out by running h1 over the case, a parser bug
//! would make the judge lenient exactly where h1 is wrong, and for every
//! other server too. The file is generated once by a tool
//! (`h1-conformance --write-heads`, which reads each case with h1's echo
//! server), reviewed against the RFC like the case itself, and committed;
//! a test checks that h1 still reads what the file declares, so a change in
//! either shows as a failure to look at, not as a silent change of verdicts.
//!
//! One line per case, in the order of [`crate::case::all`]:
//!
//! ```text
//! {"id":"rl-001","heads":[{"method":"GET","target":"/","http10":false,"upgrade":false,"close":false,"step":0}]}
//! ```
//!
//! `method` and `target` are written with the case-file escapes
//! ([`crate::escape`]).

use std::collections::HashMap;

use serde_json::Value;

use crate::case::Case;
use crate::escape::{escape, unescape};

/// A request the client sends, as a conforming server reads it and as the
/// response reader needs to know it (a response to HEAD has no body; a 101
/// ends HTTP/1.1; a request that closes is answered last).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sent {
    /// The method.
    pub method: Vec<u8>,
    /// The request-target.
    pub target: Vec<u8>,
    /// An HTTP/1.0 request.
    pub http10: bool,
    /// It asks to upgrade: an `Upgrade` field naming a protocol, with
    /// `upgrade` listed in `Connection`, on HTTP/1.1 (RFC 9110 §7.8).
    pub upgrade: bool,
    /// It closes the connection (`Connection: close`, or HTTP/1.0 without
    /// keep-alive; RFC 9112 §9.3).
    pub close: bool,
    /// The step whose bytes complete its head.
    pub step: usize,
}

/// The declared heads, compiled in.
pub const HEADS: &str = include_str!("../cases/heads.jsonl");

/// The heads declared in `text`, by case id.
pub fn parse(text: &str) -> Result<HashMap<String, Vec<Sent>>, String> {
    let mut out = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = |e: String| format!("heads.jsonl:{}: {e}", i + 1);
        let v: Value = serde_json::from_str(line).map_err(|e| at(e.to_string()))?;
        let id = v["id"]
            .as_str()
            .ok_or_else(|| at("no \"id\"".into()))?
            .to_string();
        let heads = v["heads"]
            .as_array()
            .ok_or_else(|| at(format!("{id}: no \"heads\" list")))?
            .iter()
            .map(sent)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| at(format!("{id}: {e}")))?;
        if out.insert(id.clone(), heads).is_some() {
            return Err(at(format!("{id} appears twice")));
        }
    }
    Ok(out)
}

fn sent(v: &Value) -> Result<Sent, String> {
    let bytes = |k: &str| {
        v[k].as_str()
            .ok_or_else(|| format!("a head without \"{k}\""))
            .and_then(unescape)
    };
    let flag = |k: &str| {
        v[k].as_bool()
            .ok_or_else(|| format!("a head without \"{k}\" (true or false)"))
    };
    let step = v["step"]
        .as_u64()
        .and_then(|s| usize::try_from(s).ok())
        .ok_or_else(|| "a head without \"step\"".to_string())?;
    Ok(Sent {
        method: bytes("method")?,
        target: bytes("target")?,
        http10: flag("http10")?,
        upgrade: flag("upgrade")?,
        close: flag("close")?,
        step,
    })
}

/// Gives every case its declared heads; a case the file does not declare,
/// or a declaration of no case, is an error.
pub fn attach(cases: &mut [Case], declared: &HashMap<String, Vec<Sent>>) -> Result<(), String> {
    for case in cases.iter_mut() {
        case.heads = declared.get(&case.id).cloned().ok_or_else(|| {
            format!(
                "case {} has no declared heads in cases/heads.jsonl: run \
                 `cargo run -p h1-conformance -- --write-heads > conformance/cases/heads.jsonl` \
                 and review the difference",
                case.id
            )
        })?;
    }
    if declared.len() > cases.len() {
        let ids: std::collections::HashSet<&str> = cases.iter().map(|c| c.id.as_str()).collect();
        let stale: Vec<&str> = declared
            .keys()
            .map(String::as_str)
            .filter(|id| !ids.contains(id))
            .collect();
        return Err(format!(
            "cases/heads.jsonl declares heads for cases that do not exist: {}",
            stale.join(", ")
        ));
    }
    Ok(())
}

/// The file's line for `id` with `heads`, its keys in the order above.
pub fn line(id: &str, heads: &[Sent]) -> String {
    let text = |b: &[u8]| Value::String(escape(b, usize::MAX)).to_string();
    let heads: Vec<String> = heads
        .iter()
        .map(|h| {
            format!(
                "{{\"method\":{},\"target\":{},\"http10\":{},\"upgrade\":{},\"close\":{},\"step\":{}}}",
                text(&h.method),
                text(&h.target),
                h.http10,
                h.upgrade,
                h.close,
                h.step
            )
        })
        .collect();
    format!(
        "{{\"id\":{},\"heads\":[{}]}}",
        Value::String(id.to_string()),
        heads.join(",")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(target: &[u8], step: usize) -> Sent {
        Sent {
            method: b"GET".to_vec(),
            target: target.to_vec(),
            http10: false,
            upgrade: false,
            close: false,
            step,
        }
    }

    #[test]
    fn a_line_reads_back_as_written() {
        let heads = vec![
            get(b"/a", 0),
            Sent {
                method: b"POST".to_vec(),
                target: b"/\xff\\x".to_vec(),
                http10: true,
                upgrade: true,
                close: true,
                step: 2,
            },
        ];
        let text = line("x-1", &heads) + "\n" + &line("x-2", &[]);
        let back = parse(&text).unwrap();
        assert_eq!(back["x-1"], heads);
        assert_eq!(back["x-2"], Vec::<Sent>::new());
    }

    #[test]
    fn a_bad_line_names_its_place() {
        let e = parse("{\"id\":\"x\",\"heads\":[{\"method\":\"GET\"}]}").unwrap_err();
        assert!(e.starts_with("heads.jsonl:1: x: "), "{e}");
        let twice = line("x", &[]) + "\n" + &line("x", &[]);
        assert!(parse(&twice).unwrap_err().contains("twice"));
    }
}
