//! `h1-conformance`: runs the RFC 9112 suite in process against h1, or
//! over loopback TCP against a running server or with a client under test,
//! and prints the report.

use std::io::{IsTerminal, Write};
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use h1_conformance::case::{self, Case, Outcome, Req};
use h1_conformance::client::case::ClientCase;
use h1_conformance::client::live::{Client, ClientLive};
use h1_conformance::client::{self as client_role, agent};
use h1_conformance::judge::{judge, Server};
use h1_conformance::live::Live;
use h1_conformance::observe::{Observation, PROBE};
use h1_conformance::report::{self, CaseResult, ClientResult, Reported};
use h1_conformance::{echo, inprocess, selected, selected_client};

const USAGE: &str = "\
h1-conformance: an RFC 9112 conformance suite for HTTP/1.1 servers and clients

USAGE:
    h1-conformance [OPTIONS]

With no --target and no client, every case runs in process against h1: the
server cases against h1-conn's server role (answering as the echo contract
says), the client cases against h1's user agent on h1-conn's client role.
With --target, every server case runs on a fresh TCP connection to a server
on this machine. With --client or --client-cmd, the suite plays the server
to a client under test: for each client case it listens on 127.0.0.1 (a
port of its own), runs the client once with the case's requests, and judges
the client's report and the requests it made.

OPTIONS:
    --role ROLE        server, client or all: which cases run (default: all
                       in process; server with --target; client with a
                       client)
    --target ADDR      a running server, e.g. 127.0.0.1:8080 (loopback only)
    --client curl      the client under test is curl (the built-in adapter
                       runs it and reads its output); --client curl=PATH for
                       another curl binary
    --client-cmd CMD   the client under test is CMD, run by /bin/sh -c once
                       per case, with {url} (the first request's URL),
                       {method} (its method) and {requests} (every request
                       as METHOD URL BODY, BODY a file or -) replaced; it
                       prints the client report contract (README.md), e.g.
                       'target/release/examples/client {requests}'
    --pause-ms MS      client role: the pause between the steps of an
                       answer (default 20)
    --echo MODE        the server speaks the echo contract: yes, no or auto
                       (default auto: asks the server once and looks for
                       x-echo-method in the answer)
    --filter PAT       only cases whose id starts with PAT or whose section
                       contains PAT (e.g. chunk-, te-011, \"9112 §6.1\");
                       may be given several times
    --format FMT       text (default) or json
    --verbose          list every case, not only failures
    --only-failures    list only the failed cases (text and json), not the
                       declared deviations; the totals still count all
    --junit FILE       also write the results as JUnit XML to FILE, for CI
                       systems (failures, and skipped for not applicable
                       and declared deviations)
    --list             list the selected cases and exit
    --write-heads      print cases/heads.jsonl (the requests each case holds,
                       as h1 reads them; a case declaring a deviation keeps
                       its declared heads) for every case and exit; review
                       the difference before committing it
    --timeout SECS     the longest one case may take (live, both roles;
                       default 5)
    --trickle N        write each step in pieces of N bytes (1 to 64), pausing
                       after each within a step's first 2 KiB, so the server
                       gets heads in small reads (live)
    --quiet-ms MS      how long a server must be silent to be done with a
                       step (live; default 200)
    --jobs N           cases run at once (live, both roles; default 1, fair
                       to a server that serves one connection at a time;
                       raise it for servers that serve connections
                       concurrently, or to run a client faster)
    -h, --help         this text

EXIT STATUS:
    0 no MUST case failed, 1 a MUST case failed, 2 bad usage or no server.
";

/// Which cases a run holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Roles {
    Server,
    Client,
    All,
}

impl Roles {
    fn server(self) -> bool {
        self != Roles::Client
    }

    fn client(self) -> bool {
        self != Roles::Server
    }
}

struct Args {
    roles: Option<Roles>,
    target: Option<SocketAddr>,
    client: Option<Client>,
    pause: Duration,
    echo: Option<bool>,
    filters: Vec<String>,
    json: bool,
    verbose: bool,
    only_failures: bool,
    junit: Option<std::path::PathBuf>,
    list: bool,
    write_heads: bool,
    timeout: Duration,
    quiet: Duration,
    trickle: Option<usize>,
    jobs: usize,
}

fn parse_args() -> Result<Option<Args>, String> {
    let mut a = Args {
        roles: None,
        target: None,
        client: None,
        pause: Duration::from_millis(20),
        echo: None,
        filters: Vec::new(),
        json: false,
        verbose: false,
        only_failures: false,
        junit: None,
        list: false,
        write_heads: false,
        timeout: Duration::from_secs(5),
        quiet: Duration::from_millis(200),
        trickle: None,
        jobs: 1,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        match arg.as_str() {
            "-h" | "--help" => return Ok(None),
            "--role" => {
                a.roles = Some(match value("--role")?.as_str() {
                    "server" => Roles::Server,
                    "client" => Roles::Client,
                    "all" => Roles::All,
                    v => return Err(format!("--role {v}: want server, client or all")),
                })
            }
            "--client" => {
                let v = value("--client")?;
                let program = match v.split_once('=') {
                    None if v == "curl" => "curl".to_string(),
                    Some(("curl", path)) if !path.is_empty() => path.to_string(),
                    _ => return Err(format!("--client {v}: want curl or curl=PATH")),
                };
                a.client = Some(Client::Curl(program.into()));
            }
            "--client-cmd" => {
                let v = value("--client-cmd")?;
                if !["{url}", "{requests}"].iter().any(|p| v.contains(p)) {
                    return Err(format!(
                        "--client-cmd {v:?}: name the request with {{url}} or {{requests}}"
                    ));
                }
                a.client = Some(Client::Command(v));
            }
            "--pause-ms" => {
                let v = value("--pause-ms")?;
                let ms: u64 = v
                    .parse()
                    .ok()
                    .filter(|m| *m <= 5_000)
                    .ok_or_else(|| format!("--pause-ms {v}: want 0 to 5000"))?;
                a.pause = Duration::from_millis(ms);
            }
            "--target" => {
                let v = value("--target")?;
                a.target = Some(
                    v.parse()
                        .map_err(|_| format!("--target {v}: want IP:PORT, e.g. 127.0.0.1:8080"))?,
                );
            }
            "--echo" => {
                a.echo = match value("--echo")?.as_str() {
                    "yes" => Some(true),
                    "no" => Some(false),
                    "auto" => None,
                    v => return Err(format!("--echo {v}: want yes, no or auto")),
                }
            }
            "--filter" => a.filters.push(value("--filter")?),
            "--format" => {
                a.json = match value("--format")?.as_str() {
                    "json" => true,
                    "text" => false,
                    v => return Err(format!("--format {v}: want text or json")),
                }
            }
            "--verbose" => a.verbose = true,
            "--only-failures" => a.only_failures = true,
            "--junit" => a.junit = Some(value("--junit")?.into()),
            "--list" => a.list = true,
            "--write-heads" => a.write_heads = true,
            "--timeout" => {
                let v = value("--timeout")?;
                let secs: f64 = v
                    .parse()
                    .ok()
                    .filter(|s: &f64| *s > 0.0 && *s <= 600.0)
                    .ok_or_else(|| format!("--timeout {v}: want seconds, 0 to 600"))?;
                a.timeout = Duration::from_secs_f64(secs);
            }
            "--quiet-ms" => {
                let v = value("--quiet-ms")?;
                let ms: u64 = v
                    .parse()
                    .ok()
                    .filter(|m| (1..=60_000).contains(m))
                    .ok_or_else(|| format!("--quiet-ms {v}: want 1 to 60000"))?;
                a.quiet = Duration::from_millis(ms);
            }
            "--trickle" => {
                let v = value("--trickle")?;
                a.trickle = Some(
                    v.parse::<usize>()
                        .ok()
                        .filter(|n| (1..=64).contains(n))
                        .ok_or_else(|| format!("--trickle {v}: want 1 to 64 bytes"))?,
                );
            }
            "--jobs" => {
                let v = value("--jobs")?;
                a.jobs = v
                    .parse()
                    .ok()
                    .filter(|j| (1..=64).contains(j))
                    .ok_or_else(|| format!("--jobs {v}: want 1 to 64"))?;
            }
            other => return Err(format!("unknown argument {other:?} (see --help)")),
        }
    }
    let implied = match (a.target, &a.client) {
        (Some(_), Some(_)) => {
            return Err("--target tests a server, --client a client: not both".into())
        }
        (Some(_), None) => Roles::Server,
        (None, Some(_)) => Roles::Client,
        (None, None) => Roles::All,
    };
    match a.roles {
        None => a.roles = Some(implied),
        Some(r) if implied != Roles::All && r != implied => {
            return Err(format!(
                "--role {}: {} runs only {} cases",
                if r == Roles::Server {
                    "server"
                } else {
                    "client"
                },
                if a.target.is_some() {
                    "--target"
                } else {
                    "a client"
                },
                if implied == Roles::Server {
                    "server"
                } else {
                    "client"
                }
            ))
        }
        Some(_) => {}
    }
    Ok(Some(a))
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(Some(a)) => a,
        Ok(None) => {
            emit(USAGE);
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("h1-conformance: {e}");
            return ExitCode::from(2);
        }
    };
    if args.write_heads {
        return write_heads();
    }
    let roles = args.roles.unwrap_or(Roles::All);
    let all = match case::all() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("h1-conformance: the case files: {e}");
            return ExitCode::from(2);
        }
    };
    let all_client = match client_role::case::all() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("h1-conformance: the client case files: {e}");
            return ExitCode::from(2);
        }
    };
    let cases: Vec<&Case> = all
        .iter()
        .filter(|c| roles.server() && selected(c, &args.filters))
        .collect();
    let client_cases: Vec<&ClientCase> = all_client
        .iter()
        .filter(|c| roles.client() && selected_client(c, &args.filters))
        .collect();
    if cases.is_empty() && client_cases.is_empty() {
        eprintln!("h1-conformance: no case matches {:?}", args.filters);
        return ExitCode::from(2);
    }
    if args.list {
        let mut list = String::new();
        for c in &cases {
            list.push_str(&format!(
                "{:<14} {:<6} {:<20} {}\n",
                c.id,
                c.level.as_str(),
                c.section,
                c.sentence
            ));
        }
        for c in &client_cases {
            list.push_str(&format!(
                "{:<14} {:<6} {:<20} {}\n",
                c.id,
                c.level.as_str(),
                c.section,
                c.sentence
            ));
        }
        emit(&list);
        return ExitCode::SUCCESS;
    }
    let mut against = Vec::new();
    let results: Vec<CaseResult<'_>> = match args.target {
        _ if cases.is_empty() => Vec::new(),
        None => {
            let config = echo::config();
            let server = Server {
                echo: args.echo.unwrap_or(true),
                h1: true,
            };
            against.push("h1 (in process, echo contract)".to_string());
            cases
                .iter()
                .map(|c| {
                    let obs = inprocess::run(c, &config);
                    let verdict = judge(c, &obs, server);
                    CaseResult {
                        case: c,
                        obs,
                        verdict,
                    }
                })
                .collect()
        }
        Some(addr) => {
            let mut live = match Live::new(addr) {
                Ok(l) => l,
                Err(e) => {
                    eprintln!("h1-conformance: {e}");
                    return ExitCode::from(2);
                }
            };
            live.timeout = args.timeout;
            live.quiet = args.quiet;
            live.trickle = args.trickle;
            // One plain request first: a target that does not answer it
            // cannot be judged at all.
            let detected = match identify(&live) {
                Ok(d) => d,
                Err(e) => {
                    eprintln!("h1-conformance: {addr}: {e}");
                    return ExitCode::from(2);
                }
            };
            let server = Server {
                echo: args.echo.unwrap_or(detected.echo),
                h1: detected.h1,
            };
            let contract = if server.echo {
                "echo contract"
            } else {
                "no echo contract"
            };
            let who = if server.h1 { ", h1" } else { "" };
            against.push(format!("{addr} ({contract}{who})"));
            run_live(&live, &cases, server, args.jobs)
        }
    };
    let client_results: Vec<ClientResult<'_>> = match &args.client {
        _ if client_cases.is_empty() => Vec::new(),
        None => {
            against.push("h1's user agent (in process, h1-conn's client role)".to_string());
            let config = agent::config();
            client_cases
                .iter()
                .map(|c| {
                    let obs = client_role::inprocess::run(c, &config);
                    let verdict = client_role::judge::judge(c, &obs);
                    ClientResult {
                        case: c,
                        obs,
                        verdict,
                    }
                })
                .collect()
        }
        Some(client) => {
            let name = match describe_client(client) {
                Ok(n) => n,
                Err(e) => {
                    eprintln!("h1-conformance: {e}");
                    return ExitCode::from(2);
                }
            };
            against.push(name);
            let mut live = ClientLive::new(client.clone());
            live.timeout = args.timeout;
            live.pause = args.pause;
            run_client_live(&live, &client_cases, args.jobs)
        }
    };
    let against = against.join("; ");
    let mut notes = Vec::new();
    if args.target.is_some() {
        let with_fields = cases
            .iter()
            .filter(|c| match &c.outcome {
                Outcome::Accept { requests, .. } => requests.iter().any(|r| !r.fields.is_empty()),
                _ => false,
            })
            .count();
        if with_fields > 0 {
            notes.push(format!(
                "{with_fields} cases also name fields the server must see; a live server does not \
                 show them, so those expectations are checked only in process"
            ));
        }
    }
    let rows: Vec<&dyn Reported> = results
        .iter()
        .map(|r| r as &dyn Reported)
        .chain(client_results.iter().map(|r| r as &dyn Reported))
        .collect();
    let summary = report::Summary::of(&rows);
    let listing = if args.only_failures {
        report::Listing::Failures
    } else if args.verbose || args.json {
        report::Listing::All
    } else {
        report::Listing::Problems
    };
    if let Some(path) = &args.junit {
        if let Err(e) = std::fs::write(path, report::junit(&rows, &against)) {
            eprintln!("h1-conformance: --junit {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    if args.json {
        emit(&format!(
            "{}\n",
            report::json(&rows, &against, &notes, listing)
        ));
    } else {
        emit(&report::text(&rows, &against, &notes, listing));
    }
    if summary.must_failed() > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// `--write-heads`: every case's heads as h1's echo server reads them, in
/// the format of `cases/heads.jsonl`.
fn write_heads() -> ExitCode {
    let cases = match case::undeclared() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("h1-conformance: the case files: {e}");
            return ExitCode::from(2);
        }
    };
    // A case whose deviation h1 declares keeps the heads the file declares:
    // they are what a conforming server reads, and h1 reading others is the
    // deviation. A new such case is declared by hand.
    let declared = h1_conformance::heads::parse(h1_conformance::heads::HEADS).unwrap_or_default();
    let mut out = String::new();
    for c in &cases {
        let heads = match declared.get(&c.id) {
            Some(d) if c.deviation.is_some() => d.clone(),
            None if c.deviation.is_some() => {
                eprintln!(
                    "h1-conformance: {} declares a deviation: h1's reading is written; \
                     replace it with what a conforming server reads",
                    c.id
                );
                echo::heads_read(c)
            }
            _ => echo::heads_read(c),
        };
        out.push_str(&h1_conformance::heads::line(&c.id, &heads));
        out.push('\n');
    }
    emit(&out);
    ExitCode::SUCCESS
}

/// Writes `text` to standard output; a reader that went away (`| head`)
/// ends the output, not the program with a panic.
fn emit(text: &str) {
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

/// Asks the server one plain request: it speaks the echo contract when
/// the answer carries `x-echo-method`, and it is h1's echo when its
/// `Server` field says so.
fn identify(live: &Live) -> Result<Server, String> {
    let probe = Case {
        id: "probe".into(),
        area: String::new(),
        section: "9112 §3".into(),
        level: case::Level::May,
        sentence: String::new(),
        steps: vec![PROBE.to_vec()],
        eof: false,
        outcome: Outcome::Accept {
            requests: vec![Req::any()],
            close: None,
        },
        requires_echo: false,
        deviation: None,
        note: String::new(),
        origin: case::Origin::Suite,
        heads: vec![h1_conformance::heads::Sent {
            method: b"GET".to_vec(),
            target: b"/keep-alive-probe".to_vec(),
            http10: false,
            upgrade: false,
            close: false,
            step: 0,
        }],
    };
    let obs: Observation = live.run(&probe);
    match obs.answers.first() {
        Some(a) => Ok(Server {
            echo: a.echo.is_some(),
            h1: a.server.as_deref() == Some(echo::SERVER),
        }),
        None => Err(format!(
            "no answer to a plain GET ({})",
            h1_conformance::judge::describe(&obs)
        )),
    }
}

/// Names the client under test for the report; an error when it cannot
/// run at all (curl missing).
fn describe_client(client: &Client) -> Result<String, String> {
    match client {
        Client::Command(cmd) => Ok(format!("the client command `{cmd}`")),
        Client::Curl(program) => {
            let out = std::process::Command::new(program)
                .arg("--version")
                .stdin(std::process::Stdio::null())
                .output()
                .map_err(|e| format!("--client curl: cannot run {}: {e}", program.display()))?;
            let version = String::from_utf8_lossy(&out.stdout);
            let first = version.lines().next().unwrap_or("curl").split(" (").next();
            Ok(format!(
                "{} (the built-in curl adapter)",
                first.unwrap_or("curl")
            ))
        }
    }
}

/// Runs the client `cases` live, `jobs` at a time; results in case order.
fn run_client_live<'c>(
    live: &ClientLive,
    cases: &[&'c ClientCase],
    jobs: usize,
) -> Vec<ClientResult<'c>> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let slots: Mutex<Vec<Option<_>>> = Mutex::new(vec![None; cases.len()]);
    let progress = std::io::stderr().is_terminal();
    std::thread::scope(|s| {
        for _ in 0..jobs.min(cases.len()) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(c) = cases.get(i) else { break };
                let obs = live.run(c);
                slots.lock().expect("no worker panics holding it")[i] = Some(obs);
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                if progress {
                    eprint!("\r\x1b[K{n}/{} {}", cases.len(), c.id);
                }
            });
        }
    });
    if progress {
        eprint!("\r\x1b[K");
    }
    let slots = slots.into_inner().expect("workers done");
    cases
        .iter()
        .zip(slots)
        .map(|(c, obs)| {
            let obs = obs.expect("every case ran");
            let verdict = client_role::judge::judge(c, &obs);
            ClientResult {
                case: c,
                obs,
                verdict,
            }
        })
        .collect()
}

/// Runs `cases` live, `jobs` at a time; results in case order.
fn run_live<'c>(
    live: &Live,
    cases: &[&'c Case],
    server: Server,
    jobs: usize,
) -> Vec<CaseResult<'c>> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let slots: Mutex<Vec<Option<Observation>>> = Mutex::new(vec![None; cases.len()]);
    // A live run takes minutes: on a terminal, a progress line on stderr
    // (never in the report, and never when stderr is a file or a pipe).
    let progress = std::io::stderr().is_terminal();
    std::thread::scope(|s| {
        for _ in 0..jobs.min(cases.len()) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(c) = cases.get(i) else { break };
                let obs = live.run(c);
                slots.lock().expect("no worker panics holding it")[i] = Some(obs);
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                if progress {
                    eprint!("\r\x1b[K{n}/{} {}", cases.len(), c.id);
                }
            });
        }
    });
    if progress {
        eprint!("\r\x1b[K");
    }
    let slots = slots.into_inner().expect("workers done");
    cases
        .iter()
        .zip(slots)
        .map(|(c, obs)| {
            let obs = obs.expect("every case ran");
            let verdict = judge(c, &obs, server);
            CaseResult {
                case: c,
                obs,
                verdict,
            }
        })
        .collect()
}
