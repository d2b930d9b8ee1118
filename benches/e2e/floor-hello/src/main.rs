//! What a hello server costs with no HTTP in it: the loop of h1-conn's
//! `hello` example (one thread, mio, edge-triggered, a batch of pipelined
//! requests answered with one read and one write), where each request is
//! found by its first CR LF CR LF (`memchr::memmem`) and answered with the
//! same bytes every time. No parsing, no validation, no `Date` kept: the
//! instructions a request costs here are the floor under any server's in
//! `benches/e2e/callgrind.sh`, which counts this one as `floor`.
//!
//! ```text
//! cargo run --release -- --addr 127.0.0.1:0
//! ```
//!
//! It prints `listening on ADDR` once bound. Any head gets the answer.

#[path = "../../../../h1-conn/examples/common/listen.rs"]
mod listen;

use std::collections::HashMap;
use std::io::{self, Read, Write};

use memchr::memmem::Finder;
use mio::net::{TcpListener, TcpStream};
use mio::{Events, Interest, Poll, Token};

/// The bytes `hello` sends for `GET /plaintext`, with a fixed date.
const ANSWER: &[u8] = b"HTTP/1.1 200 OK\r\nServer: h1\r\nContent-Type: text/plain\r\n\
Content-Length: 13\r\nDate: Thu, 03 Dec 2026 16:00:00 GMT\r\n\r\nHello, World!";
const LISTENER: Token = Token(usize::MAX);

struct Client {
    stream: TcpStream,
    input: Vec<u8>,
    filled: usize,
    out: Vec<u8>,
}

fn main() -> io::Result<()> {
    let listener = listen::listen("floor-hello");
    listener.set_nonblocking(true)?;
    let mut listener = TcpListener::from_std(listener);
    let mut poll = Poll::new()?;
    poll.registry()
        .register(&mut listener, LISTENER, Interest::READABLE)?;
    let mut events = Events::with_capacity(1024);
    let mut clients: HashMap<usize, Client> = HashMap::new();
    let mut next = 0;
    let end = Finder::new(b"\r\n\r\n");
    loop {
        poll.poll(&mut events, None)?;
        for event in events.iter() {
            if event.token() == LISTENER {
                while let Ok((mut stream, _)) = listener.accept() {
                    stream.set_nodelay(true)?;
                    poll.registry().register(
                        &mut stream,
                        Token(next),
                        Interest::READABLE | Interest::WRITABLE,
                    )?;
                    let input = vec![0; 16 * 1024];
                    let out = Vec::with_capacity(16 * 1024);
                    clients.insert(
                        next,
                        Client {
                            stream,
                            input,
                            filled: 0,
                            out,
                        },
                    );
                    next += 1;
                }
                continue;
            }
            let i = event.token().0;
            let Some(c) = clients.get_mut(&i) else {
                continue;
            };
            if !serve(c, &end) {
                let mut c = clients.remove(&i).expect("present");
                poll.registry().deregister(&mut c.stream)?;
            }
        }
    }
}

/// Reads and answers until the socket would block: false when the
/// connection is done.
fn serve(c: &mut Client, end: &Finder) -> bool {
    loop {
        while !c.out.is_empty() {
            match c.stream.write(&c.out) {
                Ok(n) => drop(c.out.drain(..n)),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return true,
                Err(_) => return false,
            }
        }
        match c.stream.read(&mut c.input[c.filled..]) {
            Ok(0) => return false,
            Ok(n) => c.filled += n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return true,
            Err(_) => return false,
        }
        let mut at = 0;
        while let Some(i) = end.find(&c.input[at..c.filled]) {
            at += i + 4;
            c.out.extend_from_slice(ANSWER);
        }
        c.input.copy_within(at..c.filled, 0);
        c.filled -= at;
        if c.filled == c.input.len() {
            return false;
        }
    }
}
