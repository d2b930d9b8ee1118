//! The client report contract: what a client under test prints on its
//! standard output so that the judge can see what it concluded (the live
//! client-role runner reads it; h1's client example writes it).
//!
//! One record per request the client was asked to make, in that order;
//! each line ends with LF:
//!
//! ```text
//! agent h1                  optional, before the first record: the client's name
//! request 1                 the record of request 1 begins (then 2, 3, ...)
//! interim 100               optional: a 1xx response it received
//! status 200                the final response's status code
//! field Content-Length: 5   a header field as it understood it (name: value)
//! trailer Digest: x         optional: a trailer field, kept apart
//! body 5                    the decoded content: its length, LF, the bytes, LF
//! hello
//! error connection closed   it refused the response or the exchange failed
//! ```
//!
//! A record holds `status` (with its `field`s and `body`) for a response,
//! `error` for a failure, or both for a response it began and then gave up
//! on (which counts as an error). Field values are written as they are,
//! except that `\` is written `\\`, and CR, LF and bytes outside printable
//! ASCII may be written `\r`, `\n`, `\t`, `\0` or `\xHH` (LF must be).
//! Empty lines and lines starting with `#` are ignored. A client that does
//! not make a request still writes its record, with an `error`.

use std::fmt::Write;

use crate::client::observe::Record;

/// A report's records and the agent it names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// The `agent` line's name, if any.
    pub agent: Option<String>,
    /// One record per request, in order.
    pub records: Vec<Record>,
}

/// Writes `records` as a report, naming `agent`.
pub fn write(agent: Option<&str>, records: &[Record]) -> Vec<u8> {
    let mut out = Vec::new();
    if let Some(a) = agent {
        out.extend_from_slice(format!("agent {a}\n").as_bytes());
    }
    for (i, r) in records.iter().enumerate() {
        out.extend_from_slice(format!("request {}\n", i + 1).as_bytes());
        for code in &r.interim {
            out.extend_from_slice(format!("interim {code}\n").as_bytes());
        }
        if let Some(code) = r.status {
            out.extend_from_slice(format!("status {code}\n").as_bytes());
        }
        for (kind, list) in [("field", &r.fields), ("trailer", &r.trailers)] {
            for (n, v) in list {
                out.extend_from_slice(kind.as_bytes());
                out.push(b' ');
                out.extend_from_slice(encode(n).as_bytes());
                out.extend_from_slice(b": ");
                out.extend_from_slice(encode(v).as_bytes());
                out.push(b'\n');
            }
        }
        if let Some(b) = &r.body {
            out.extend_from_slice(format!("body {}\n", b.len()).as_bytes());
            out.extend_from_slice(b);
            out.push(b'\n');
        }
        if let Some(e) = &r.error {
            // One line: the message's own line ends become spaces.
            let e: String = e.chars().map(|c| if c == '\n' { ' ' } else { c }).collect();
            out.extend_from_slice(format!("error {e}\n").as_bytes());
        }
    }
    out
}

/// Reads a report; the error says which line breaks the contract.
pub fn parse(mut text: &[u8]) -> Result<Report, String> {
    let mut report = Report::default();
    let mut line_no = 0;
    while !text.is_empty() {
        line_no += 1;
        let (line, rest) = match text.iter().position(|&b| b == b'\n') {
            Some(i) => (&text[..i], &text[i + 1..]),
            None => (text, &text[text.len()..]),
        };
        text = rest;
        let at = |e: String| format!("line {line_no}: {e}");
        if line.is_empty() || line[0] == b'#' {
            continue;
        }
        let (word, arg) = match line.iter().position(|&b| b == b' ') {
            Some(i) => (&line[..i], &line[i + 1..]),
            None => (line, &line[line.len()..]),
        };
        if word == b"agent" {
            if !report.records.is_empty() || report.agent.is_some() {
                return Err(at("`agent` comes once, before the first record".into()));
            }
            report.agent = Some(String::from_utf8_lossy(arg).into_owned());
            continue;
        }
        if word == b"request" {
            let n = number(arg).map_err(&at)?;
            if n != report.records.len() + 1 {
                return Err(at(format!(
                    "`request {n}` after {} records: records go 1, 2, 3, ...",
                    report.records.len()
                )));
            }
            report.records.push(Record::default());
            continue;
        }
        let Some(r) = report.records.last_mut() else {
            return Err(at("a line before the first `request N`".into()));
        };
        match word {
            b"interim" => r.interim.push(code(arg).map_err(&at)?),
            b"status" if r.status.is_some() => return Err(at("a second `status`".into())),
            b"status" => r.status = Some(code(arg).map_err(&at)?),
            b"field" | b"trailer" => {
                let colon = arg
                    .iter()
                    .position(|&b| b == b':')
                    .ok_or_else(|| at("a field without `:`".into()))?;
                let name = decode(&arg[..colon]).map_err(&at)?;
                let value = arg[colon + 1..]
                    .strip_prefix(b" ")
                    .unwrap_or(&arg[colon + 1..]);
                let value = decode(value).map_err(&at)?;
                if word == b"field" {
                    r.fields.push((name, value));
                } else {
                    r.trailers.push((name, value));
                }
            }
            b"body" => {
                if r.body.is_some() {
                    return Err(at("a second `body`".into()));
                }
                let n = number(arg).map_err(&at)?;
                if text.len() < n + 1 || text[n] != b'\n' {
                    return Err(at(format!(
                        "`body {n}` wants {n} bytes and LF; {} bytes follow",
                        text.len()
                    )));
                }
                r.body = Some(text[..n].to_vec());
                line_no += text[..n].iter().filter(|&&b| b == b'\n').count() + 1;
                text = &text[n + 1..];
            }
            b"error" => {
                let why = String::from_utf8_lossy(arg).into_owned();
                r.error = Some(if why.is_empty() { "error".into() } else { why });
            }
            _ => {
                return Err(at(format!(
                    "unknown line {:?}",
                    String::from_utf8_lossy(&line[..line.len().min(40)])
                )))
            }
        }
    }
    Ok(report)
}

fn number(arg: &[u8]) -> Result<usize, String> {
    std::str::from_utf8(arg)
        .ok()
        .filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("{:?} is not a number", String::from_utf8_lossy(arg)))
}

fn code(arg: &[u8]) -> Result<u16, String> {
    let n = number(arg)?;
    u16::try_from(n)
        .ok()
        .filter(|c| (100..=999).contains(c))
        .ok_or_else(|| format!("{n} is not a status code"))
}

/// A name or value for a report line: `\` doubled; CR, LF, NUL, HTAB and
/// bytes outside printable ASCII as escapes.
pub fn encode(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len());
    for &b in bytes {
        match b {
            b'\\' => s.push_str("\\\\"),
            b'\r' => s.push_str("\\r"),
            b'\n' => s.push_str("\\n"),
            b'\t' => s.push_str("\\t"),
            0 => s.push_str("\\0"),
            b' '..=b'~' => s.push(b as char),
            _ => {
                let _ = write!(s, "\\x{b:02x}");
            }
        }
    }
    s
}

/// The inverse of [`encode`]; raw bytes other than LF stand for themselves.
pub fn decode(text: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text[i] != b'\\' {
            out.push(text[i]);
            i += 1;
            continue;
        }
        let (b, len) = match text.get(i + 1) {
            Some(b'\\') => (b'\\', 2),
            Some(b'r') => (b'\r', 2),
            Some(b'n') => (b'\n', 2),
            Some(b't') => (b'\t', 2),
            Some(b'0') => (0, 2),
            Some(b'x') => {
                let hex = text
                    .get(i + 2..i + 4)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or("\\x wants two hex digits")?;
                (hex, 4)
            }
            _ => return Err("`\\` starts one of \\\\ \\r \\n \\t \\0 \\xHH".into()),
        };
        out.push(b);
        i += len;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_reads_back_as_written() {
        let records = vec![
            Record {
                interim: vec![100, 103],
                status: Some(200),
                fields: vec![
                    (b"Content-Length".to_vec(), b"7".to_vec()),
                    (b"X-Odd".to_vec(), b"a\\b\r\0\xff}{ c".to_vec()),
                ],
                trailers: vec![(b"Digest".to_vec(), b"x".to_vec())],
                body: Some(b"two\nlines".to_vec()),
                error: None,
            },
            Record::error("connection closed\nearly"),
            Record {
                status: Some(200),
                body: Some(Vec::new()),
                error: Some("incomplete".into()),
                ..Record::default()
            },
        ];
        let text = write(Some("h1"), &records);
        let report = parse(&text).unwrap();
        assert_eq!(report.agent.as_deref(), Some("h1"));
        let mut want = records;
        want[1].error = Some("connection closed early".into());
        assert_eq!(report.records, want);
    }

    #[test]
    fn a_plain_report_reads() {
        let text = b"# curl-like\nrequest 1\nstatus 204\nfield X-A: {a}\n\nrequest 2\nerror\n";
        let r = parse(text).unwrap();
        assert_eq!(r.records[0].status, Some(204));
        assert_eq!(r.records[0].fields, [(b"X-A".to_vec(), b"{a}".to_vec())]);
        assert_eq!(r.records[1].error.as_deref(), Some("error"));
    }

    #[test]
    fn reports_that_break_the_contract_are_refused() {
        for bad in [
            &b"status 200\n"[..],
            b"request 2\n",
            b"request 1\nrequest 1\n",
            b"request 1\nstatus 20\n",
            b"request 1\nstatus 200\nstatus 200\n",
            b"request 1\nbody 5\nabc\n",
            b"request 1\nfield novalue\n",
            b"request 1\nfield a: \\q\n",
            b"request 1\nresponse 200\n",
            b"request 1\nagent h1\n",
        ] {
            assert!(parse(bad).is_err(), "{:?}", String::from_utf8_lossy(bad));
        }
    }
}
