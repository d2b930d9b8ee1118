//! Zero heap allocations per request in steady state (DESIGN.md principle
//! 2): a keep-alive connection and a 16-deep pipelined one, server role and
//! client role, measured by a counting global allocator once the buffers
//! have grown. The requests have a body (`Content-Length` and chunked, with
//! trailers) and the responses fields, a `Date` and a body, so every path a
//! request takes is inside the measurement.

use std::hint::black_box;

use counting_alloc::{allocations, Counting};
use h1_conn::{ClientConn, ClientEvent, Config, ServerConn, ServerEvent};
use h1_encode::{DateLine, Framing, PreEncoded};

#[global_allocator]
static GLOBAL: Counting = Counting;

const REQUESTS: [&[u8]; 3] = [
    b"GET /plaintext HTTP/1.1\r\nHost: localhost\r\nAccept: text/plain\r\nConnection: keep-alive\r\n\r\n",
    b"POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n{\"hello\":\"w\"}",
    b"PUT /up HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n6\r\n world\r\n0\r\nDigest: abc\r\n\r\n",
];

/// Serves every request buffered in `conn`; returns the body bytes seen and
/// the number of requests answered.
fn serve(conn: &mut ServerConn, server: &PreEncoded) -> (usize, usize) {
    let (mut body, mut answered) = (0, 0);
    loop {
        match conn.next_event() {
            ServerEvent::Request(req) => {
                black_box(req.head.target.slice(conn.received()));
                black_box(conn.fields().and_then(|f| f.get(b"host")));
            }
            ServerEvent::Data(span) => body += span.len(),
            ServerEvent::Trailers(_) => {
                black_box(conn.trailers().and_then(|t| t.get(b"digest")));
            }
            ServerEvent::End => {
                let mut r = conn.respond(200, Framing::Length(13)).expect("respond");
                r.pre_encoded(server);
                r.field(b"Content-Type", b"text/plain").expect("field");
                r.finish().expect("head");
                conn.send_data(b"Hello, World!").expect("body");
                conn.send_end().expect("end");
                answered += 1;
            }
            ServerEvent::NeedMore => return (body, answered),
            other => panic!("unexpected {other:?}"),
        }
    }
}

fn server_round(conn: &mut ServerConn, server: &PreEncoded, batch: &[u8]) -> (usize, usize) {
    assert_eq!(conn.feed(batch), batch.len());
    let r = serve(conn, server);
    let n = conn.out().len();
    black_box(conn.out());
    conn.written(n);
    r
}

#[test]
fn counter_counts() {
    let ((), n) = allocations(|| {
        black_box(vec![1u8; 100]);
    });
    assert!(n >= 1);
}

#[test]
fn keep_alive_server_allocates_nothing_per_request() {
    let server = PreEncoded::new([("Server", "h1")]).unwrap();
    let mut conn = ServerConn::new(Config::default());
    conn.set_date(DateLine::new(b"Sun, 06 Nov 1994 08:49:37 GMT").unwrap());
    for _ in 0..10 {
        for r in REQUESTS {
            server_round(&mut conn, &server, r);
        }
    }
    let ((body, answered), n) = allocations(|| {
        let mut total = (0, 0);
        for _ in 0..1000 {
            for r in REQUESTS {
                let (b, a) = server_round(&mut conn, &server, r);
                total = (total.0 + b, total.1 + a);
            }
        }
        total
    });
    assert_eq!(answered, 3000);
    assert_eq!(body, 1000 * (13 + 11));
    assert_eq!(n, 0, "allocations over 3000 keep-alive requests");
}

#[test]
fn pipelined_server_allocates_nothing_per_request() {
    let server = PreEncoded::new([("Server", "h1")]).unwrap();
    let mut batch = Vec::new();
    for i in 0..16 {
        batch.extend_from_slice(REQUESTS[i % 3]);
    }
    let mut conn = ServerConn::new(Config::default());
    conn.set_date(DateLine::new(b"Sun, 06 Nov 1994 08:49:37 GMT").unwrap());
    for _ in 0..10 {
        server_round(&mut conn, &server, &batch);
    }
    let (answered, n) = allocations(|| {
        (0..500)
            .map(|_| server_round(&mut conn, &server, &batch).1)
            .sum::<usize>()
    });
    assert_eq!(answered, 500 * 16);
    assert_eq!(
        n, 0,
        "allocations over 500 batches of 16 pipelined requests"
    );
}

#[test]
fn client_allocates_nothing_per_exchange() {
    let response: &[u8] =
        b"HTTP/1.1 200 OK\r\nContent-Length: 13\r\nServer: x\r\n\r\nHello, World!HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nd\r\nHello, World!\r\n0\r\n\r\n";
    let mut conn = ClientConn::new(Config::default());
    let exchange = |conn: &mut ClientConn| {
        for _ in 0..2 {
            conn.request(b"GET", b"/", Some(b"localhost"), Framing::Empty)
                .expect("request")
                .finish()
                .expect("head");
        }
        let n = conn.out().len();
        conn.written(n);
        conn.feed(response);
        let mut body = 0;
        loop {
            match conn.next_event() {
                ClientEvent::Response(r) => assert_eq!(r.status(), 200),
                ClientEvent::Data(s) => body += s.len(),
                ClientEvent::End => {}
                ClientEvent::NeedMore => break,
                other => panic!("unexpected {other:?}"),
            }
        }
        body
    };
    for _ in 0..10 {
        exchange(&mut conn);
    }
    let (body, n) = allocations(|| (0..1000).map(|_| exchange(&mut conn)).sum::<usize>());
    assert_eq!(body, 1000 * 26);
    assert_eq!(n, 0, "allocations over 2000 client exchanges");
}
