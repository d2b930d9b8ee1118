//! Property checks from an attacker's review of the receive buffer and
//! the head parser's value spans (what h1-tokio's one `unsafe` relies on):
//! random heads in random reads, with freezes and tiny buffers.
#![cfg(feature = "bytes")]

use h1_conn::headers::chars::is_field_value_byte;
use h1_conn::{Config, ServerConn, ServerEvent};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, xs: &[&'a [u8]]) -> &'a [u8] {
        xs[self.below(xs.len())]
    }
}

const NASTY: &[&[u8]] = &[
    b"\r",
    b"\n",
    b"\0",
    b"\x7f",
    b"\t",
    b" ",
    b"\x80",
    b"\xff",
    b"\r\n",
    b"\r\n ",
    b"\n ",
    b"\n\t",
    b"\r\r\n",
    b"\x0b",
    b"\x1f",
    b":",
    b"a",
    b"\r\n\r\n",
    b"\n\n",
];

fn random_head(r: &mut Rng) -> Vec<u8> {
    let mut h = Vec::new();
    if r.below(4) == 0 {
        h.extend_from_slice(r.pick(&[b"\r\n", b"\n"]));
    }
    h.extend_from_slice(r.pick(&[b"GET", b"POST", b"PUT", b"X"]));
    h.extend_from_slice(r.pick(&[b" ", b"  ", b"\t", b" \t"]));
    h.extend_from_slice(r.pick(&[b"/", b"/a?b", b"http://h/x", b"*"]));
    h.extend_from_slice(r.pick(&[b" ", b"  ", b"\t"]));
    h.extend_from_slice(b"HTTP/1.1");
    h.extend_from_slice(r.pick(&[b"\r\n", b"\n"]));
    h.extend_from_slice(b"Host: h\r\n");
    for _ in 0..r.below(6) {
        h.extend_from_slice(r.pick(&[b"X-A", b"x", b"Accept", b"Cookie", b"Content-Length"]));
        h.push(b':');
        for _ in 0..r.below(6) {
            if r.below(3) == 0 {
                h.extend_from_slice(r.pick(NASTY));
            } else {
                h.extend_from_slice(r.pick(&[b"v", b"0", b" ", b"\t", b"abc", b"\xc3\xa9"]));
            }
        }
        h.extend_from_slice(r.pick(&[b"\r\n", b"\r\n", b"\n", b"\r\n "]));
    }
    h.extend_from_slice(r.pick(&[b"\r\n", b"\n", b"\r\n"]));
    h
}

/// For every config without obs-fold, and every split of the input across
/// reads (with a tiny, growing, compacting, frozen buffer), every field
/// value span of every request h1-conn reports holds only field-value
/// bytes: the proof trusted.rs relies on.
#[test]
fn value_spans_hold_only_field_value_bytes_whatever_the_reads() {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let mut requests = 0;
    for _ in 0..300_000 {
        let mut config = Config::default();
        config.parse.allow_bare_lf = r.below(2) == 0;
        config.parse.allow_multiple_spaces_in_request_line = r.below(2) == 0;
        config.read_buf_len = [4, 5, 8, 16, 64, 8192][r.below(6)];
        config.parse.max_field_line_len = [8, 64, 8192][r.below(3)];
        config.parse.max_head_len = [40, 200, 65536][r.below(3)];
        let mut input = Vec::new();
        for _ in 0..1 + r.below(3) {
            input.extend_from_slice(&random_head(&mut r));
        }
        let mut conn = ServerConn::new(config);
        let mut at = 0;
        'outer: loop {
            match conn.next_event() {
                ServerEvent::Request(req) => {
                    requests += 1;
                    let recv = conn.received();
                    for e in &conn.field_entries()[..req.head.field_count] {
                        let v = e.value.get(recv).expect("span in buffer");
                        assert!(
                            v.iter().all(|&b| is_field_value_byte(b)),
                            "value {v:?} of {:?}",
                            String::from_utf8_lossy(&input)
                        );
                    }
                    let _ = conn.respond_with(200, [("a", "b")], b"");
                    let n = conn.out().len();
                    conn.written(n);
                    if r.below(2) == 0 {
                        drop(conn.freeze());
                    }
                }
                ServerEvent::NeedMore => {
                    if at == input.len() {
                        conn.eof();
                        continue;
                    }
                    let room = conn.read_buf();
                    if room.is_empty() {
                        break 'outer;
                    }
                    let n = (1 + r.below(7)).min(room.len()).min(input.len() - at);
                    room[..n].copy_from_slice(&input[at..at + n]);
                    conn.filled(n);
                    at += n;
                }
                ServerEvent::Data(_) | ServerEvent::End | ServerEvent::Trailers(_) => {}
                ServerEvent::Paused(_) => {
                    let n = conn.out().len();
                    if n == 0 {
                        break;
                    }
                    conn.written(n);
                }
                _ => break,
            }
        }
    }
    assert!(requests > 10_000, "{requests}");
    eprintln!("requests: {requests}");
}

/// recv_buf.rs (growth on full reads, `regain`, `freeze`): random
/// pipelined requests with bodies of both framings, fed in reads that
/// sometimes fill all the room lent (so the buffer grows) and sometimes
/// not, with the consumed bytes frozen out at random: every body byte
/// arrives once and in order, every head's spans are right, and
/// `read_buf` lends room whenever the connection waits for bytes.
#[test]
fn bodies_survive_growth_regain_and_freeze() {
    let mut r = Rng(0xdead_beef_cafe_f00d);
    for _ in 0..3000 {
        let mut config = Config::default();
        config.read_buf_len = [2, 3, 4, 7, 64, 512, 8192][r.below(7)];
        config.max_unanswered = 64;
        let mut input = Vec::new();
        let mut bodies = Vec::new();
        let mut targets = Vec::new();
        for i in 0..1 + r.below(5) {
            let len = [0usize, 1, 100, 3000, 70000][r.below(5)];
            let body: Vec<u8> = (0..len).map(|_| (r.next() & 0xff) as u8).collect();
            let target = format!("/{i}/{}", "x".repeat(r.below(200)));
            input.extend_from_slice(format!("POST {target} HTTP/1.1\r\nHost: h\r\n").as_bytes());
            if r.below(2) == 0 {
                input.extend_from_slice(b"Transfer-Encoding: chunked\r\n\r\n");
                let mut at = 0;
                while at < len {
                    let c = (len - at).min(1 + r.below(5000));
                    input.extend_from_slice(format!("{c:x}\r\n").as_bytes());
                    input.extend_from_slice(&body[at..at + c]);
                    input.extend_from_slice(b"\r\n");
                    at += c;
                }
                input.extend_from_slice(b"0\r\n\r\n");
            } else {
                input.extend_from_slice(format!("Content-Length: {len}\r\n\r\n").as_bytes());
                input.extend_from_slice(&body);
            }
            bodies.push(body);
            targets.push(target);
        }
        let mut conn = ServerConn::new(config);
        let mut at = 0;
        let mut got: Vec<Vec<u8>> = Vec::new();
        let mut held = Vec::new();
        loop {
            match conn.next_event() {
                ServerEvent::Request(req) => {
                    let t = req.head.target.get(conn.received()).unwrap();
                    assert_eq!(t, targets[got.len()].as_bytes());
                    got.push(Vec::new());
                }
                ServerEvent::Data(span) => {
                    if r.below(2) == 0 {
                        let frozen = conn.freeze();
                        got.last_mut()
                            .unwrap()
                            .extend_from_slice(&frozen[span.range()]);
                        if r.below(2) == 0 {
                            held.push(frozen);
                        }
                    } else {
                        let bytes = span.get(conn.received()).unwrap().to_vec();
                        got.last_mut().unwrap().extend_from_slice(&bytes);
                    }
                }
                ServerEvent::End => {
                    conn.respond_with(200, [("a", "b")], b"").unwrap();
                    let n = conn.out().len();
                    conn.written(n);
                }
                ServerEvent::Trailers(_) => {}
                ServerEvent::NeedMore => {
                    if at == input.len() {
                        conn.eof();
                        continue;
                    }
                    let limit = 64 * 1024 + 4 + conn.config().read_buf_len;
                    let kept = conn.buffered();
                    let room = conn.read_buf();
                    assert!(!room.is_empty(), "no room while waiting for bytes");
                    assert!(
                        kept + room.len() <= limit,
                        "{kept} + {} over {limit}",
                        room.len()
                    );
                    let n = if r.below(2) == 0 {
                        room.len()
                    } else {
                        1 + r.below(room.len())
                    }
                    .min(input.len() - at);
                    room[..n].copy_from_slice(&input[at..at + n]);
                    conn.filled(n);
                    at += n;
                    if held.len() > 8 {
                        held.clear();
                    }
                }
                ServerEvent::Closed => break,
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(got, bodies);
    }
}
