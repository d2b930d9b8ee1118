//! h1's HTTP/1.1 client for the conformance suite's client role: a small
//! blocking `std::net` client on h1-conn's client role (the suite's user
//! agent, `h1_conformance::client::agent`), which makes the requests it is
//! given, one after another, on one connection while it may persist, and
//! prints what it concluded as the client report contract says
//! (`conformance/README.md`).
//!
//! ```text
//! client METHOD URL BODY [METHOD URL BODY ...]
//! ```
//!
//! BODY is a file holding the request's content, or `-` for none; every
//! URL is `http://HOST:PORT/PATH` with the same HOST:PORT. The suite runs
//! it as
//!
//! ```sh
//! cargo build --release -p h1-conformance --example client
//! cargo run --release -p h1-conformance -- --client-cmd 'target/release/examples/client {requests}'
//! ```

use std::io::{self, ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::process::ExitCode;
use std::time::Duration;

use h1_conformance::client::agent::{self, Agent, Dial, Request, Transport};
use h1_conformance::client::contract;

/// How long a read waits for the server.
const READ_TIMEOUT: Duration = Duration::from_secs(3);

fn main() -> ExitCode {
    match run() {
        Ok(report) => {
            let _ = io::stdout().lock().write_all(&report);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("client: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<Vec<u8>, String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() || args.len() % 3 != 0 {
        return Err(
            "usage: client METHOD URL BODY [METHOD URL BODY ...] (BODY a file or -)".into(),
        );
    }
    let mut authority = None;
    let mut requests = Vec::new();
    for triple in args.chunks(3) {
        let (method, url, body) = (&triple[0], &triple[1], &triple[2]);
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| format!("{url}: want an http:// URL"))?;
        let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        match &authority {
            None => authority = Some(host.to_string()),
            Some(a) if a == host => {}
            Some(a) => return Err(format!("{url}: every URL must name {a}")),
        }
        let body = match body.as_str() {
            "-" => None,
            file => Some(std::fs::read(file).map_err(|e| format!("{file}: {e}"))?),
        };
        requests.push(Request {
            method: method.as_bytes().to_vec(),
            target: if path.is_empty() {
                b"/".to_vec()
            } else {
                path.as_bytes().to_vec()
            },
            body,
        });
    }
    let authority = authority.expect("at least one request");
    let addr = authority
        .to_socket_addrs()
        .map_err(|e| format!("{authority}: {e}"))?
        .next()
        .ok_or_else(|| format!("{authority}: no address"))?;
    let mut agent = Agent::new(Tcp { addr }, authority.as_bytes(), agent::config());
    let records: Vec<_> = requests.iter().map(|r| agent.fetch(r)).collect();
    Ok(contract::write(Some("h1"), &records))
}

/// Connects to one address.
struct Tcp {
    addr: SocketAddr,
}

impl Dial for Tcp {
    type Conn = Conn;

    fn dial(&mut self) -> io::Result<Conn> {
        let stream = TcpStream::connect_timeout(&self.addr, READ_TIMEOUT)?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(READ_TIMEOUT))?;
        Ok(Conn { stream })
    }
}

/// One TCP connection.
struct Conn {
    stream: TcpStream,
}

impl Transport for Conn {
    fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.stream.write_all(bytes)
    }

    fn recv(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.stream.read(buf) {
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                // A reset ends the connection as a close does.
                Err(e) if e.kind() == ErrorKind::ConnectionReset => return Ok(0),
                other => return other,
            }
        }
    }

    fn poll(&mut self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        self.stream.set_nonblocking(true)?;
        let got = match self.stream.read(buf) {
            Ok(n) => Ok(Some(n)),
            Err(e) if e.kind() == ErrorKind::WouldBlock => Ok(None),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => Ok(Some(0)),
            Err(e) => Err(e),
        };
        self.stream.set_nonblocking(false)?;
        got
    }
}
