//! Memory under attack: many connections, each sending the largest head
//! the config allows and then a large body, slowly, to a service that
//! never reads the body. What the process holds per connection must stay
//! within what the config lets a connection hold, whatever the clients
//! send: the receive buffer at most `max_head_len`, one body chunk waiting
//! for its reader, and a fixed overhead, never the body itself.
//!
//! One test in this file: the measure is the whole process's live heap
//! (`counting_alloc::live_bytes`), which other tests running beside it
//! would disturb.

use std::convert::Infallible;
use std::time::Duration;

use bytes::Bytes;
use counting_alloc::{live_bytes, Counting};
use h1_tokio::{serve_connection, service_fn, Body, Config};
use http::{Request, Response};
use http_body_util::Full;
use tokio::io::{AsyncWriteExt, DuplexStream};

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Connections at once.
const CONNS: usize = 64;

/// Bytes each direction of an in-memory socket buffers.
const PIPE: usize = 4096;

/// What a connection may hold beyond its buffers: the task, the machine
/// with its field storage, the timer, the service's future, both ends of
/// the pipe. Generous; the buffers are what could grow without bound.
const OVERHEAD: usize = 24 * 1024;

/// What the `http` types' field map takes a field, at most.
const FIELD: usize = 128;

/// A head of exactly `len` bytes but for its final CR LF (so it is not
/// complete): a request line and padding fields, each line within
/// `max_field_line_len`.
fn padded_head(len: usize, line_max: usize) -> Vec<u8> {
    let mut head = b"POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: 8388608\r\n".to_vec();
    let mut n = 0;
    while head.len() + 2 < len {
        let room = (len - 2 - head.len()).min(line_max - 16);
        let name = format!("X-Pad-{n}: ");
        n += 1;
        if room < name.len() + 3 {
            break;
        }
        head.extend_from_slice(name.as_bytes());
        head.resize(head.len() + room - name.len() - 2, b'p');
        head.extend_from_slice(b"\r\n");
    }
    head
}

/// Runs the tasks until they have done what they can.
async fn settle() {
    for _ in 0..20 {
        tokio::task::yield_now().await;
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
}

#[test]
fn connections_sending_maximal_heads_and_bodies_slowly_hold_only_what_the_config_allows() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let config = Config::default();
        let head_max = config.conn.parse.max_head_len;
        let head = padded_head(head_max - 64, config.conn.parse.max_field_line_len);
        assert!(head.len() > head_max - 200 && head.len() <= head_max - 64);
        let before = live_bytes();

        let mut clients: Vec<DuplexStream> = Vec::new();
        let mut served = Vec::new();
        for _ in 0..CONNS {
            let (client, server) = tokio::io::duplex(PIPE);
            // The service holds each request, its body unread, for ever.
            let service = service_fn(|req: Request<Body>| async move {
                let _held = req;
                std::future::pending::<()>().await;
                Ok::<_, Infallible>(Response::new(Full::new(Bytes::new())))
            });
            served.push(tokio::spawn(serve_connection(
                server,
                service,
                config.clone(),
            )));
            clients.push(client);
        }

        // The heads, 512 bytes at a time to each connection in turn.
        for piece in head.chunks(512) {
            for client in &mut clients {
                client
                    .write_all(piece)
                    .await
                    .expect("the server reads the head");
            }
            tokio::task::yield_now().await;
        }
        settle().await;
        let heads = live_bytes().saturating_sub(before) / CONNS;
        assert!(
            heads >= head.len(),
            "the measure does not see the heads buffered: {heads} bytes a connection"
        );
        assert!(
            heads <= head_max + OVERHEAD,
            "{heads} bytes a connection while its head arrives (allowed {})",
            head_max + OVERHEAD
        );

        // The heads end; each client then pushes a body far larger than
        // what a connection may hold, as fast as the server takes it.
        let mut pushers = Vec::new();
        for mut client in clients {
            pushers.push(tokio::spawn(async move {
                client.write_all(b"\r\n").await.expect("the head ends");
                let chunk = vec![b'b'; 16 * 1024];
                for _ in 0..64 {
                    if client.write_all(&chunk).await.is_err() {
                        break;
                    }
                }
                client
            }));
        }
        settle().await;
        settle().await;
        let bodies = live_bytes().saturating_sub(before) / CONNS;
        // The receive buffer (grown to the head's limit); the request the
        // service holds: its head copied once (the `http` types' values
        // share it) and a field map entry per field; one chunk of the body
        // waiting for its reader (one read's worth, here the pipe's); the
        // pushing client's 16 KiB; the overhead.
        let fields = config.conn.parse.max_fields * FIELD;
        let allowed = 2 * head_max + fields + PIPE + 16 * 1024 + OVERHEAD;
        assert!(
            bodies <= allowed,
            "{bodies} bytes a connection while 1 MiB bodies are pushed (allowed {allowed})"
        );
        assert!(
            pushers.iter().all(|p| !p.is_finished()),
            "a client pushed its whole 1 MiB body: nothing held it back"
        );

        for p in pushers {
            p.abort();
        }
        for s in served {
            s.abort();
        }
    });
}
