//! A client case: the requests a client under test is asked to make, the
//! bytes the suite's test server answers each with, and what a conforming
//! client concludes from them; and the loader of the client case files
//! (`role = "client"`, format in `cases/README.md`).
//!
//! Like the server cases, a client case is data tied to one sentence of
//! RFC 9112 or RFC 9110, and what it expects is decided from the case
//! alone ([`crate::client::judge`]).

use std::fmt;

use toml::{Table, Value};

use crate::case::{file_role, parse_toml, Fields, Level, Role};
use crate::escape::unescape;

/// A client case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientCase {
    /// Unique id, `cli-` and the file's prefix: `cli-len-004`.
    pub id: String,
    /// The file's area, e.g. `Client: message body length`.
    pub area: String,
    /// The governing section as written: `9112 §6.3 rule 5`.
    pub section: String,
    /// The requirement level.
    pub level: Level,
    /// The sentence checked.
    pub sentence: String,
    /// The requests, in the order the client is asked to make them, each
    /// with the test server's answer and what the client must conclude.
    pub exchanges: Vec<Exchange>,
    /// h1 intentionally does otherwise, for this reason (never on MUST).
    pub deviation: Option<String>,
    /// Why the case exists, where clients differ.
    pub note: String,
}

/// One request the client is asked to make, and its answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exchange {
    /// The request.
    pub ask: Ask,
    /// The test server's answer to it, in steps: each is written once the
    /// previous one went out (live: after a short pause), so a client gets
    /// them in separate reads. Empty: no answer at all.
    pub respond: Vec<Vec<u8>>,
    /// The server closes the connection after its last step; otherwise it
    /// keeps it open for the next request.
    pub close: bool,
    /// What the client must conclude.
    pub expect: Expect,
    /// Which connection the request must travel on.
    pub connection: ConnRule,
    /// The server may receive the request at most this many times
    /// (automatic retries, RFC 9110 §9.2.2); `None`: not checked.
    pub attempts: Option<usize>,
}

/// The request a client is asked to make.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ask {
    /// Its method (`GET` unless the case says otherwise).
    pub method: Vec<u8>,
    /// Its content, if any; the server must receive exactly these bytes
    /// (RFC 9112 §6.3: a user agent sends a valid `Content-Length` or the
    /// chunked coding).
    pub body: Option<Vec<u8>>,
    /// Field names the request must carry (e.g. `host`, RFC 9112 §3.2).
    pub carries: Vec<Vec<u8>>,
}

/// What a conforming client concludes from the answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expect {
    /// It reports this response.
    Response(Want),
    /// It treats the answer as invalid or incomplete: it reports an error.
    Error,
    /// Either, where the RFC leaves the choice: an error, or this response.
    Either(Want),
}

impl Expect {
    /// The response wanted, if a response may be reported.
    pub fn want(&self) -> Option<&Want> {
        match self {
            Expect::Response(w) | Expect::Either(w) => Some(w),
            Expect::Error => None,
        }
    }

    /// Whether an error may be reported.
    pub fn allows_error(&self) -> bool {
        !matches!(self, Expect::Response(_))
    }
}

/// A response the client must report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Want {
    /// The final status, one of these (a client that does not recognise a
    /// status may report the class's x00, RFC 9110 §15).
    pub status: Vec<u16>,
    /// The content, decoded; `None`: not checked.
    pub body: Option<Vec<u8>>,
    /// Header fields the client must report.
    pub fields: Vec<FieldRule>,
    /// Field names it must not report among the header fields (a line it
    /// must not take as a field, a trailer it must not merge).
    pub absent: Vec<Vec<u8>>,
    /// Field values it must not report (a value it must reject or repair).
    pub forbid: Vec<(Vec<u8>, Vec<u8>)>,
}

/// A header field the client must report: its name (case-insensitive) and
/// value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldRule {
    /// The name, lower case.
    pub name: Vec<u8>,
    /// The value.
    pub value: Vec<u8>,
    /// Runs of SP and HTAB in the reported value compare as one SP (an
    /// obs-fold is replaced by "one or more SP octets", RFC 9112 §5.2).
    pub any_spaces: bool,
}

/// Which connection a request must travel on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConnRule {
    /// Not checked.
    Any,
    /// A connection no earlier request of the case used (the previous one
    /// cannot persist).
    New,
    /// The previous request's connection (persistence, a SHOULD).
    Same,
}

impl ClientCase {
    /// The section key the report groups by (`9112 §6.3 rule 5` →
    /// `9112 §6.3`).
    pub fn section_key(&self) -> String {
        crate::case::section_key(&self.section)
    }

    /// The request-target of exchange `i` (from 0): `/{id}/{i + 1}`, by
    /// which the test server knows which answer a request wants (a retry
    /// gets its own answer again).
    pub fn target(&self, i: usize) -> String {
        format!("/{}/{}", self.id, i + 1)
    }

    /// The exchange a request-target names, by [`ClientCase::target`].
    pub fn exchange_of(&self, target: &[u8]) -> Option<usize> {
        let rest = target
            .strip_prefix(b"/")?
            .strip_prefix(self.id.as_bytes())?;
        let n: usize = std::str::from_utf8(rest.strip_prefix(b"/")?)
            .ok()?
            .parse()
            .ok()?;
        (1..=self.exchanges.len()).contains(&n).then(|| n - 1)
    }
}

impl fmt::Display for ConnRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ConnRule::Any => "any connection",
            ConnRule::New => "a new connection",
            ConnRule::Same => "the same connection",
        })
    }
}

// The case files, compiled in (see build.rs).
use crate::case::CASE_FILES;

/// Every client case, from the files whose `role` is `"client"`. Ids are
/// unique and start with `cli-`.
pub fn all() -> Result<Vec<ClientCase>, String> {
    let mut cases = Vec::new();
    for (name, text) in CASE_FILES {
        let table = parse_toml(name, text)?;
        if file_role(name, &table)? == Role::Client {
            cases.extend(cases_of(name, &table)?);
        }
    }
    let mut ids: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    ids.sort_unstable();
    if let Some(w) = ids.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!("client case id {} appears twice", w[0]));
    }
    Ok(cases)
}

/// The cases of one client case file; `name` is used in errors.
pub fn parse_file(name: &str, text: &str) -> Result<Vec<ClientCase>, String> {
    let table = parse_toml(name, text)?;
    match file_role(name, &table)? {
        Role::Client => cases_of(name, &table),
        Role::Server => Err(format!(
            "{name}: not a file of client cases (role = \"client\")"
        )),
    }
}

fn cases_of(name: &str, table: &Table) -> Result<Vec<ClientCase>, String> {
    let mut top = Fields::new(table, name.to_string());
    let _ = top.take("role");
    let area = top.string("area")?;
    let none = Vec::new();
    let list = match top.take("case") {
        Some(Value::Array(a)) => a,
        Some(_) => return Err(format!("{name}: `case` must be an array of tables")),
        None => &none,
    };
    top.done()?;
    list.iter()
        .enumerate()
        .map(|(i, v)| {
            let Value::Table(t) = v else {
                return Err(format!("{name}: case {} is not a table", i + 1));
            };
            let id = t
                .get("id")
                .and_then(Value::as_str)
                .map_or_else(|| format!("case {}", i + 1), str::to_string);
            parse_case(t, &area, format!("{name}: {id}"))
        })
        .collect()
}

/// The keys of an exchange: written in the case itself when it has one
/// exchange, in `[[case.exchange]]` tables when it has several.
const EXCHANGE_KEYS: [&str; 7] = [
    "request",
    "respond",
    "close",
    "expect",
    "response",
    "connection",
    "attempts",
];

fn parse_case(t: &Table, area: &str, ctx: String) -> Result<ClientCase, String> {
    let mut f = Fields::new(t, ctx.clone());
    let id = f.string("id")?;
    if !id.starts_with("cli-") || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
        return Err(f.err("`id` must start with `cli-` and be letters, digits and `-`"));
    }
    let section = f.string("section")?;
    if !(section.starts_with("9112 §") || section.starts_with("9110 §")) {
        return Err(f.err("`section` must start with `9112 §` or `9110 §`"));
    }
    let level = match f.string("level")?.as_str() {
        "MUST" => Level::Must,
        "SHOULD" => Level::Should,
        "MAY" => Level::May,
        other => return Err(f.err(format!("`level` {other:?}: want MUST, SHOULD or MAY"))),
    };
    let sentence = f.string("sentence")?;
    let deviation = f.opt_string("deviation")?;
    if deviation.is_some() && level == Level::Must {
        return Err(f.err("a MUST case cannot declare a deviation"));
    }
    let note = f.opt_string("note")?.unwrap_or_default();
    let exchanges = match f.take("exchange") {
        Some(Value::Array(list)) if !list.is_empty() => {
            if let Some(k) = EXCHANGE_KEYS.iter().find(|k| t.contains_key(**k)) {
                return Err(f.err(format!(
                    "`{k}` belongs in an `[[case.exchange]]` table when the case has them"
                )));
            }
            list.iter()
                .enumerate()
                .map(|(i, v)| match v {
                    Value::Table(x) => {
                        let mut xf = Fields::new(x, format!("{ctx} exchange {}", i + 1));
                        let exchange = parse_exchange(&mut xf)?;
                        xf.done()?;
                        Ok(exchange)
                    }
                    _ => Err(f.err("`exchange` entries must be tables")),
                })
                .collect::<Result<Vec<_>, _>>()?
        }
        Some(_) => return Err(f.err("`exchange` must be a non-empty array of tables")),
        None => vec![parse_exchange(&mut f)?],
    };
    f.done()?;
    if exchanges[0].connection != ConnRule::Any {
        return Err(format!(
            "{ctx}: the first exchange has no earlier connection to compare with"
        ));
    }
    Ok(ClientCase {
        id,
        area: area.to_string(),
        section,
        level,
        sentence,
        exchanges,
        deviation,
        note,
    })
}

/// One exchange's keys from `f` (the case's own table, or an
/// `[[case.exchange]]` table, which must then hold nothing else).
fn parse_exchange(f: &mut Fields<'_>) -> Result<Exchange, String> {
    let ask = match f.take("request") {
        None => Ask {
            method: b"GET".to_vec(),
            body: None,
            carries: Vec::new(),
        },
        Some(Value::Table(t)) => parse_ask(t, f)?,
        Some(_) => return Err(f.err("`request` must be a table")),
    };
    let respond = match f.take("respond") {
        Some(Value::String(s)) => vec![unescape(s).map_err(|e| f.err(format!("`respond`: {e}")))?],
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| match v {
                Value::String(s) => unescape(s).map_err(|e| f.err(format!("`respond`: {e}"))),
                _ => Err(f.err("`respond` steps must be strings")),
            })
            .collect::<Result<Vec<_>, _>>()?,
        _ => return Err(f.err("`respond` must be a string or a list of strings")),
    };
    if respond.iter().any(Vec::is_empty) {
        return Err(f.err("a step of `respond` is empty"));
    }
    let close = f.bool("close")?.unwrap_or(false);
    if respond.is_empty() && !close {
        return Err(f.err("an exchange without an answer must close (`close = true`)"));
    }
    let want = match f.take("response") {
        None => None,
        Some(Value::Table(t)) => Some(parse_want(t, f)?),
        Some(_) => return Err(f.err("`response` must be a table")),
    };
    let expect = match (f.opt_string("expect")?.as_deref(), want) {
        (Some("response") | None, Some(w)) => Expect::Response(w),
        (Some("either"), Some(w)) => Expect::Either(w),
        (Some("error"), None) => Expect::Error,
        (Some("error"), Some(_)) => {
            return Err(f.err("`expect = \"error\"` has no `response`"));
        }
        (Some("response" | "either") | None, None) => {
            return Err(f.err("a response is expected: give `response = { status = ... }`"));
        }
        (Some(other), _) => {
            return Err(f.err(format!(
                "`expect` {other:?}: want response, error or either"
            )))
        }
    };
    let connection = match f.opt_string("connection")?.as_deref() {
        None | Some("any") => ConnRule::Any,
        Some("new") => ConnRule::New,
        Some("same") => ConnRule::Same,
        Some(other) => return Err(f.err(format!("`connection` {other:?}: want new, same or any"))),
    };
    let attempts = f.count("attempts")?;
    if attempts == Some(0) {
        return Err(f.err("`attempts` is at least 1"));
    }
    Ok(Exchange {
        ask,
        respond,
        close,
        expect,
        connection,
        attempts,
    })
}

fn parse_ask(t: &Table, outer: &Fields<'_>) -> Result<Ask, String> {
    let mut f = Fields::new(t, outer.err("`request`"));
    let method = f
        .opt_string("method")?
        .unwrap_or_else(|| "GET".to_string())
        .into_bytes();
    if method.is_empty() || !method.iter().all(u8::is_ascii_uppercase) {
        return Err(f.err("`method` is an upper-case token"));
    }
    let body = f.bytes("body")?;
    let carries = names(&mut f, "carries")?;
    f.done()?;
    Ok(Ask {
        method,
        body,
        carries,
    })
}

fn parse_want(t: &Table, outer: &Fields<'_>) -> Result<Want, String> {
    let mut f = Fields::new(t, outer.err("`response`"));
    let ctx = f.err("`status`");
    let code = |v: &Value| match v {
        Value::Integer(n) if (100..=999).contains(n) => Ok(*n as u16),
        _ => Err(format!("{ctx}: {v} is not a status code")),
    };
    let status = match f.take("status") {
        Some(Value::Array(a)) if !a.is_empty() => a.iter().map(code).collect::<Result<_, _>>()?,
        Some(v @ Value::Integer(_)) => vec![code(v)?],
        _ => return Err(f.err("`status` is a code or a list of codes")),
    };
    let body = f.bytes("body")?;
    let fields = match f.take("fields") {
        None => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|rule| field_rule(rule).map_err(|e| f.err(format!("`fields`: {e}"))))
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(f.err("`fields` is a list of [name, value] pairs")),
    };
    let absent = names(&mut f, "absent")?;
    let forbid = match f.take("forbid") {
        None => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|rule| match field_rule(rule) {
                Ok(r) if !r.any_spaces => Ok((r.name, r.value)),
                Ok(_) => Err(f.err("`forbid`: a [name, value] pair")),
                Err(e) => Err(f.err(format!("`forbid`: {e}"))),
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(f.err("`forbid` is a list of [name, value] pairs")),
    };
    f.done()?;
    Ok(Want {
        status,
        body,
        fields,
        absent,
        forbid,
    })
}

/// `[name, value]`, or `[name, value, "any-spaces"]`.
fn field_rule(v: &Value) -> Result<FieldRule, String> {
    let parts = v.as_array().map(Vec::as_slice);
    let (n, value, any_spaces) = match parts {
        Some([Value::String(n), Value::String(v)]) => (n, v, false),
        Some([Value::String(n), Value::String(v), Value::String(m)]) if m == "any-spaces" => {
            (n, v, true)
        }
        _ => {
            return Err(format!(
                "{v} is not [name, value] or [name, value, \"any-spaces\"]"
            ))
        }
    };
    Ok(FieldRule {
        name: unescape(n)?.to_ascii_lowercase(),
        value: unescape(value)?,
        any_spaces,
    })
}

/// A list of field names, lower case.
fn names(f: &mut Fields<'_>, key: &'static str) -> Result<Vec<Vec<u8>>, String> {
    match f.take(key) {
        None => Ok(Vec::new()),
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| match v {
                Value::String(s) if !s.is_empty() => Ok(s.to_ascii_lowercase().into_bytes()),
                _ => Err(f.err(format!("`{key}` is a list of field names"))),
            })
            .collect(),
        Some(_) => Err(f.err(format!("`{key}` is a list of field names"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(case: &str) -> Result<ClientCase, String> {
        let text = format!("area = \"T\"\nrole = \"client\"\n[[case]]\n{case}");
        parse_file("t.toml", &text).map(|mut v| v.remove(0))
    }

    const HEAD: &str =
        "id = \"cli-t-001\"\nsection = \"9112 §6.3\"\nlevel = \"MUST\"\nsentence = \"s\"\n";

    #[test]
    fn a_case_with_one_exchange_reads() {
        let c = one(&format!(
            "{HEAD}request = {{ method = \"HEAD\" }}\nrespond = ['HTTP/1.1 200 OK\\r\\n', 'Content-Length: 5\\r\\n\\r\\n']\n\
             response = {{ status = 200, body = '', fields = [[\"Content-Length\", \"5\"]], absent = [\"X-A\"] }}\n"
        ))
        .unwrap();
        assert_eq!(c.exchanges.len(), 1);
        let x = &c.exchanges[0];
        assert_eq!(x.ask.method, b"HEAD");
        assert_eq!(x.respond.len(), 2);
        assert!(!x.close);
        let Expect::Response(w) = &x.expect else {
            panic!("{:?}", x.expect)
        };
        assert_eq!(w.status, [200]);
        assert_eq!(w.body.as_deref(), Some(&b""[..]));
        assert_eq!(w.fields[0].name, b"content-length");
        assert_eq!(w.absent, [b"x-a".to_vec()]);
        assert_eq!(c.target(0), "/cli-t-001/1");
        assert_eq!(c.exchange_of(b"/cli-t-001/1"), Some(0));
        assert_eq!(c.exchange_of(b"/cli-t-001/2"), None);
        assert_eq!(c.exchange_of(b"/cli-t-0011/1"), None);
    }

    #[test]
    fn a_case_with_several_exchanges_reads() {
        let c = one(&format!(
            "{HEAD}[[case.exchange]]\nrespond = 'x'\nexpect = \"error\"\n\
             [[case.exchange]]\nrespond = 'y'\nclose = true\nconnection = \"new\"\nattempts = 2\n\
             expect = \"either\"\nresponse = {{ status = [200, 299] }}\n"
        ))
        .unwrap();
        assert_eq!(c.exchanges.len(), 2);
        assert_eq!(c.exchanges[0].expect, Expect::Error);
        assert_eq!(c.exchanges[1].connection, ConnRule::New);
        assert_eq!(c.exchanges[1].attempts, Some(2));
        assert!(c.exchanges[1].expect.allows_error());
        assert_eq!(c.exchanges[1].expect.want().unwrap().status, [200, 299]);
    }

    #[test]
    fn the_client_case_files_load_apart_from_the_server_cases() {
        let cases = all().unwrap();
        assert!(cases.len() >= 60, "{} client cases", cases.len());
        let server = crate::case::all().unwrap();
        assert!(server.iter().all(|c| !c.id.starts_with("cli-")));
        assert!(cases.iter().all(|c| server.iter().all(|s| s.id != c.id)));
    }

    #[test]
    fn mistakes_in_a_client_case_are_refused() {
        let ok = "respond = 'x'\nexpect = \"error\"\n";
        assert!(one(&format!("{HEAD}{ok}")).is_ok());
        for bad in [
            format!("{HEAD}{ok}respnse = {{ status = 200 }}\n"),
            format!("{HEAD}respond = 'x'\n"),
            format!("{HEAD}respond = 'x'\nexpect = \"error\"\nresponse = {{ status = 200 }}\n"),
            format!("{HEAD}respond = 'x'\nresponse = {{ status = 200, bdy = '' }}\n"),
            format!("{HEAD}respond = 'x'\nresponse = {{ status = \"2xx\" }}\n"),
            format!("{HEAD}respond = []\nexpect = \"error\"\n"),
            format!("{HEAD}{ok}connection = \"new\"\n"),
            format!("{HEAD}{ok}request = {{ method = \"get\" }}\n"),
            format!("{HEAD}{ok}deviation = \"no\"\n"),
            format!("{HEAD}{ok}[[case.exchange]]\n{ok}"),
            format!("{}{ok}", HEAD.replace("cli-t-001", "t-001")),
        ] {
            assert!(one(&bad).is_err(), "accepted:\n{bad}");
        }
    }
}
