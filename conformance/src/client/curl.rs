//! The ready adapter for curl: the command line that makes a case's
//! requests with one curl process (`--next` between them, so curl may
//! reuse its connection as it would), and its output read as records.
//!
//! For each request curl gets `-sS -H 'Expect:' -D HEADERS -o BODY -w
//! FORMAT` and the method's options (`-I` for HEAD, `--data-binary @FILE`
//! for content, `-X METHOD` otherwise). The write-out (`%{json}`, then
//! `%{header_json}`) says, per transfer, the exit code and error message
//! (a non-zero exit code is an error: curl refused the response or the
//! transfer failed), the final status, and the header fields as curl
//! understood them; the interim statuses come from the `-D` dump, the
//! content from the `-o` file (empty for HEAD: `-I` reads no content).

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::client::contract::Report;
use crate::client::live::Invocation;
use crate::client::observe::Record;

/// Marks the start of one transfer's write-out.
const BEGIN: &str = "<<h1-conformance>>";
/// Between `%{json}` and `%{header_json}`.
const HEADERS: &str = "<<h1-headers>>";
/// The end of one transfer's write-out.
const END: &str = "<<h1-end>>";

/// The curl command (`program`) that makes `requests`, its files in `dir`.
pub fn command(program: &Path, requests: &[Invocation], dir: &Path) -> Command {
    let mut cmd = Command::new(program);
    cmd.args(args(requests, dir));
    cmd
}

/// The arguments of [`command`].
pub fn args(requests: &[Invocation], dir: &Path) -> Vec<String> {
    let write_out = format!("\n{BEGIN}%{{json}}{HEADERS}%{{header_json}}{END}\n");
    let mut args = Vec::new();
    for (i, r) in requests.iter().enumerate() {
        if i > 0 {
            args.push("--next".to_string());
        }
        args.extend(["-sS", "-H", "Expect:"].map(String::from));
        match (r.method.as_str(), &r.body) {
            ("HEAD", None) => args.push("-I".into()),
            ("GET", None) => {}
            (m, body) => {
                if m != "POST" || body.is_none() {
                    args.extend(["-X".into(), m.to_string()]);
                }
                if let Some(b) = body {
                    args.extend(["--data-binary".into(), format!("@{}", b.display())]);
                }
            }
        }
        let file = |what: &str| {
            dir.join(format!("curl-{what}-{}", i + 1))
                .display()
                .to_string()
        };
        args.extend(["-D".into(), file("headers"), "-o".into(), file("body")]);
        args.extend(["-w".into(), write_out.clone(), r.url.clone()]);
    }
    args
}

/// curl's output for `requests` as a report: one record per transfer it
/// wrote out.
pub fn report(stdout: &[u8], dir: &Path, requests: &[Invocation]) -> Result<Report, String> {
    let text = String::from_utf8_lossy(stdout);
    let mut records = Vec::new();
    for (i, chunk) in text.split(BEGIN).skip(1).enumerate() {
        let Some(r) = requests.get(i) else {
            return Err(format!(
                "curl wrote out {} transfers for {} requests",
                i + 1,
                requests.len()
            ));
        };
        let (json, rest) = chunk
            .split_once(HEADERS)
            .ok_or("a write-out without its header part")?;
        let (headers, _) = rest.split_once(END).ok_or("a write-out without its end")?;
        let t: Value = serde_json::from_str(json).map_err(|e| format!("curl's %{{json}}: {e}"))?;
        let file = |what: &str| dir.join(format!("curl-{what}-{}", i + 1));
        let dump = std::fs::read(file("headers")).unwrap_or_default();
        let mut rec = Record {
            interim: heads(&dump),
            ..Record::default()
        };
        let code = t["http_code"].as_u64().unwrap_or(0);
        if (100..=999).contains(&code) {
            // The last head in the dump is the final response's.
            rec.interim.pop();
            rec.status = Some(code as u16);
            rec.fields = fields(headers).unwrap_or_else(|| last_block_fields(&dump));
            rec.body = Some(if r.method == "HEAD" {
                Vec::new()
            } else {
                std::fs::read(file("body")).unwrap_or_default()
            });
        }
        let exit = t["exitcode"].as_i64().unwrap_or(-1);
        if exit != 0 {
            rec.error = Some(format!(
                "curl: ({exit}) {}",
                t["errormsg"].as_str().unwrap_or("")
            ));
        }
        records.push(rec);
    }
    Ok(Report {
        agent: Some("curl".into()),
        records,
    })
}

/// `%{header_json}`: each name with its values, in curl's order; `None`
/// when it is not valid JSON (curl 7.88 escapes obs-text wrongly).
fn fields(json: &str) -> Option<Vec<(Vec<u8>, Vec<u8>)>> {
    let v: Value = serde_json::from_str(json).ok()?;
    let mut out = Vec::new();
    for (name, values) in v.as_object()? {
        for value in values.as_array()? {
            out.push((name.as_bytes().to_vec(), latin1(value.as_str()?)));
        }
    }
    Some(out)
}

/// A JSON string's characters as the bytes curl read (it writes each
/// byte of a value as one character).
fn latin1(s: &str) -> Vec<u8> {
    s.chars()
        .flat_map(|c| match u8::try_from(u32::from(c)) {
            Ok(b) => vec![b],
            Err(_) => c.to_string().into_bytes(),
        })
        .collect()
}

/// The status of every head in a `-D` dump, in order.
fn heads(dump: &[u8]) -> Vec<u16> {
    dump.split(|&b| b == b'\n')
        .filter_map(|line| {
            let rest = line.strip_prefix(b"HTTP/")?;
            let code = rest.split(|&b| b == b' ').nth(1)?;
            std::str::from_utf8(code).ok()?.trim().parse().ok()
        })
        .collect()
}

/// The fields of the last head in a `-D` dump, for when `%{header_json}`
/// is unreadable: each `name: value` line, whitespace around the value
/// trimmed.
fn last_block_fields(dump: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    for line in dump.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.starts_with(b"HTTP/") {
            out.clear();
            continue;
        }
        if let Some(colon) = line.iter().position(|&b| b == b':') {
            let value = line[colon + 1..].trim_ascii();
            out.push((line[..colon].to_ascii_lowercase(), value.to_vec()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inv(method: &str, body: Option<&str>) -> Invocation {
        Invocation {
            method: method.into(),
            url: "http://127.0.0.1:1/cli-x-001/1".into(),
            body: body.map(Into::into),
        }
    }

    #[test]
    fn each_method_gets_its_options() {
        let dir = Path::new("/tmp/d");
        let a = args(
            &[
                inv("HEAD", None),
                inv("POST", Some("/tmp/b")),
                inv("PUT", None),
            ],
            dir,
        );
        let joined = a.join(" ");
        assert_eq!(a.iter().filter(|x| *x == "--next").count(), 2);
        assert!(joined.contains("-I -D /tmp/d/curl-headers-1"), "{joined}");
        assert!(
            joined.contains("--data-binary @/tmp/b -D /tmp/d/curl-headers-2"),
            "{joined}"
        );
        assert!(
            joined.contains("-X PUT -D /tmp/d/curl-headers-3"),
            "{joined}"
        );
    }

    #[test]
    fn a_dump_gives_interim_statuses_and_fields() {
        let dump = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nX-A:  b \r\n\r\n";
        assert_eq!(heads(dump), [100, 103, 200]);
        assert_eq!(last_block_fields(dump), [(b"x-a".to_vec(), b"b".to_vec())]);
    }
}
