//! What both example servers do before serving: take `--addr`, bind, and
//! say where they listen.

use std::io::{self, Write};
use std::net::{SocketAddr, TcpListener};

/// Binds the address of the command line (`--addr HOST:PORT`, default
/// `127.0.0.1:8080`) and prints `listening on ADDR`, the address bound
/// (`--addr 127.0.0.1:0` picks a free port; a script reads it there).
/// Exits with 2 on a bad argument, 1 when the address cannot be bound.
pub(crate) fn listen(name: &str) -> TcpListener {
    let addr = match parse_addr(std::env::args().skip(1)) {
        Ok(addr) => addr,
        Err(e) => {
            eprintln!("{name}: {e}\nusage: {name} [--addr HOST:PORT]");
            std::process::exit(2);
        }
    };
    let listener = match TcpListener::bind(addr) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("{name}: cannot listen on {addr}: {e}");
            std::process::exit(1);
        }
    };
    if let Err(e) = announce(&listener) {
        eprintln!("{name}: {e}");
        std::process::exit(1);
    }
    listener
}

/// `--addr HOST:PORT` (or `--addr=HOST:PORT`); 127.0.0.1:8080 without it.
pub(crate) fn parse_addr(mut args: impl Iterator<Item = String>) -> Result<SocketAddr, String> {
    let mut addr = String::from("127.0.0.1:8080");
    while let Some(arg) = args.next() {
        if arg == "--addr" {
            addr = args.next().ok_or("--addr needs a value")?;
        } else if let Some(value) = arg.strip_prefix("--addr=") {
            addr = value.to_owned();
        } else {
            return Err(format!("unknown argument {arg:?}"));
        }
    }
    addr.parse()
        .map_err(|e| format!("bad address {addr:?}: {e}"))
}

/// Prints the bound address.
pub(crate) fn announce(listener: &TcpListener) -> io::Result<()> {
    let mut stdout = io::stdout().lock();
    writeln!(stdout, "listening on {}", listener.local_addr()?)?;
    stdout.flush()
}
