//! Parses the HTTP/1.1 messages in a file (or standard input) and prints what
//! the parser recorded.
//!
//! ```text
//! cargo run --release -p h1-parse --example parse -- testdata/inputs/2_chrome12.http
//! printf 'GET / HTTP/1.1\r\nHost: a\r\n\r\n' | cargo run -p h1-parse --example parse
//! ```
//!
//! Input starting with `HTTP/` is read as a response (a `1xx` response is
//! followed by the next one); anything else as requests, pipelined ones one
//! after another. Bodies are skipped by their framing: `Content-Length` bytes,
//! or chunk by chunk (chunk-size lines, data, CRLF, trailers) with
//! `parse_chunk_size` and `parse_trailers`. After a request that closes the
//! connection, the rest is reported and not parsed, as a server would do.
//!
//! Exit status: 0 when every head in the input was complete and valid (an
//! input that ends inside a body, like the head-only reference inputs, is
//! reported but not an error), 1 on a parse error (printed with its byte
//! offset and the status a server should answer) or when the input ends
//! inside a head, 2 on a usage or I/O error.

use std::io::Read;
use std::process::ExitCode;

use h1_parse::{
    Config, Entry, Error, ErrorKind, FieldFacts, HeadersView, RequestHead, ResponseHead, Status,
    TransferEncoding, Version,
};

/// How reading the input ended, other than cleanly.
enum Stop {
    /// A parse error at an absolute offset.
    Invalid(Error),
    /// The input ended inside a message; the text says where.
    Incomplete(String),
}

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let path = args.next();
    if args.next().is_some() {
        eprintln!("usage: parse [FILE]   (reads standard input without FILE or with -)");
        return ExitCode::from(2);
    }
    let data = match &path {
        Some(p) if p != "-" => std::fs::read(p),
        _ => {
            let mut buf = Vec::new();
            std::io::stdin().read_to_end(&mut buf).map(|_| buf)
        }
    };
    let data = match data {
        Ok(d) => d,
        Err(e) => {
            eprintln!("cannot read input: {e}");
            return ExitCode::from(2);
        }
    };

    let config = Config::default();
    let result = if data.starts_with(b"HTTP/") {
        responses(&data, &config)
    } else {
        requests(&data, &config)
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Stop::Invalid(e)) => {
            println!(
                "error: {} ({:?}) at byte {}: a server answers {} and closes",
                e.kind().as_str(),
                e.kind(),
                e.offset(),
                e.status()
            );
            println!("  near: {}", context(&data, e.offset()));
            ExitCode::from(1)
        }
        Err(Stop::Incomplete(what)) => {
            println!("incomplete: {what}");
            ExitCode::from(1)
        }
    }
}

/// Every request in `data`, pipelined ones one after another.
fn requests(data: &[u8], config: &Config) -> Result<(), Stop> {
    let mut head = RequestHead::EMPTY;
    let mut fields = vec![Entry::EMPTY; config.max_fields];
    let mut pos = 0;
    let mut n = 0;
    while pos < data.len() {
        let buf = &data[pos..];
        let len = match h1_parse::parse_request(buf, &mut head, &mut fields, config) {
            Ok(Status::Complete(len)) => len,
            Ok(Status::Partial) => {
                return Err(Stop::Incomplete(format!(
                    "request head at byte {pos} ({} bytes) has no end yet",
                    buf.len()
                )))
            }
            Err(e) => return Err(Stop::Invalid(shift(e, pos))),
        };
        n += 1;
        print_request(n, pos, buf, &head, &fields);
        pos += len;
        pos = body(data, pos, &head.facts, true, config)?;
        if closes(&head) {
            if pos < data.len() {
                println!(
                    "the connection closes after request {n}: {} more bytes are not processed",
                    data.len() - pos
                );
            }
            break;
        }
    }
    if n == 0 {
        return Err(Stop::Incomplete(String::from("no request in the input")));
    }
    println!("{n} request(s), {pos} bytes");
    Ok(())
}

/// A response, and the next one after each `1xx`.
fn responses(data: &[u8], config: &Config) -> Result<(), Stop> {
    let mut head = ResponseHead::EMPTY;
    let mut fields = vec![Entry::EMPTY; config.max_fields];
    let mut pos = 0;
    loop {
        let buf = &data[pos..];
        let len = match h1_parse::parse_response(buf, &mut head, &mut fields, config) {
            Ok(Status::Complete(len)) => len,
            Ok(Status::Partial) => {
                return Err(Stop::Incomplete(format!(
                    "response head at byte {pos} ({} bytes) has no end yet",
                    buf.len()
                )))
            }
            Err(e) => return Err(Stop::Invalid(shift(e, pos))),
        };
        print_response(pos, buf, &head, &fields);
        pos += len;
        if (100..200).contains(&head.status) && head.status != 101 {
            continue;
        }
        if matches!(head.status, 101 | 204 | 304) {
            println!("  body: none ({})", head.status);
        } else if head.facts.transfer_encoding == TransferEncoding::NotChunked
            || (head.facts.transfer_encoding == TransferEncoding::Absent
                && head.facts.content_length.is_none())
        {
            println!(
                "  body: until the connection closes ({} bytes here)",
                data.len() - pos
            );
            pos = data.len();
        } else {
            pos = body(data, pos, &head.facts, false, config)?;
        }
        if pos < data.len() {
            println!("{} bytes after the response", data.len() - pos);
        }
        return Ok(());
    }
}

/// Skips the body that `framing` announces, starting at `pos`; returns where
/// the next message starts.
fn body(
    data: &[u8],
    pos: usize,
    framing: &FieldFacts,
    request: bool,
    config: &Config,
) -> Result<usize, Stop> {
    if framing.transfer_encoding == TransferEncoding::Chunked {
        return chunked(data, pos, config);
    }
    let len = match framing.content_length {
        Some(n) => n,
        None if request => {
            println!("  body: none (no Content-Length or Transfer-Encoding)");
            return Ok(pos);
        }
        None => return Ok(data.len()),
    };
    let have = (data.len() - pos) as u64;
    if have < len {
        println!("  body: {len} bytes (Content-Length); the input ends after {have} of them");
        return Ok(data.len());
    }
    println!("  body: {len} bytes (Content-Length)");
    Ok(pos + len as usize)
}

/// Walks a chunked body: chunk-size lines, data and CRLF, the last chunk and
/// the trailer section.
fn chunked(data: &[u8], mut pos: usize, config: &Config) -> Result<usize, Stop> {
    let mut total: u64 = 0;
    let mut chunks = 0;
    let mut trailer_fields = vec![Entry::EMPTY; config.max_fields];
    loop {
        let line = match h1_parse::parse_chunk_size(&data[pos..], config) {
            Ok(Status::Complete(line)) => line,
            Ok(Status::Partial) => return Ok(body_ends(data, total, chunks)),
            Err(e) => return Err(Stop::Invalid(shift(e, pos))),
        };
        if !line.extensions.is_empty() {
            let ext = line.extensions.slice(&data[pos..]);
            println!("  chunk extensions: {}", show(ext));
        }
        pos += line.len;
        if line.size == 0 {
            break;
        }
        let rest = (data.len() - pos) as u64;
        if rest < line.size {
            return Ok(body_ends(data, total, chunks));
        }
        let end = pos + line.size as usize;
        match data.get(end..end + 2) {
            Some(b"\r\n") => {}
            Some(_) => {
                return Err(Stop::Invalid(Error::new(
                    ErrorKind::InvalidChunkDataEnd,
                    end,
                )))
            }
            None => return Ok(body_ends(data, total, chunks)),
        }
        chunks += 1;
        total += line.size;
        pos = end + 2;
    }
    match h1_parse::parse_trailers(&data[pos..], &mut trailer_fields, config) {
        Ok(Status::Complete(t)) => {
            println!("  body: {total} bytes in {chunks} chunk(s) (chunked)");
            for e in &trailer_fields[..t.field_count] {
                println!(
                    "  trailer {}: {}",
                    show(e.name.slice(&data[pos..])),
                    show(e.value.slice(&data[pos..]))
                );
            }
            Ok(pos + t.len)
        }
        Ok(Status::Partial) => Ok(body_ends(data, total, chunks)),
        Err(e) => Err(Stop::Invalid(shift(e, pos))),
    }
}

/// Reports a chunked body the input ends inside of; returns the input length.
fn body_ends(data: &[u8], total: u64, chunks: usize) -> usize {
    println!(
        "  body: chunked; the input ends inside it, at byte {}, after {total} bytes in {chunks} complete chunk(s)",
        data.len()
    );
    data.len()
}

/// Whether the connection closes after this request (RFC 9112 §9.3).
fn closes(head: &RequestHead) -> bool {
    let c = head.facts.connection;
    c.close() || (head.version == Version::Http10 && !c.keep_alive())
}

fn print_request(n: usize, pos: usize, buf: &[u8], head: &RequestHead, fields: &[Entry]) {
    println!("request {n} at byte {pos}: {} bytes of head", head.len);
    println!(
        "  method:  {} ({:?})",
        show(head.method.slice(buf)),
        head.method_kind
    );
    println!(
        "  target:  {} ({:?} form)",
        show(head.target.slice(buf)),
        head.target_form
    );
    println!("  version: {}", head.version.as_str());
    print_framing(buf, &head.facts, head.obs_fold);
    print_fields(head.fields(buf, fields));
}

fn print_response(pos: usize, buf: &[u8], head: &ResponseHead, fields: &[Entry]) {
    println!("response at byte {pos}: {} bytes of head", head.len);
    println!("  version: {}", head.version.as_str());
    println!(
        "  status:  {} {}",
        head.status,
        show(head.reason.slice(buf))
    );
    print_framing(buf, &head.facts, head.obs_fold);
    print_fields(head.fields(buf, fields));
}

fn print_framing(buf: &[u8], f: &FieldFacts, obs_fold: bool) {
    let c = f.connection;
    let tokens: Vec<&str> = [
        (c.close(), "close"),
        (c.keep_alive(), "keep-alive"),
        (c.upgrade(), "upgrade"),
        (c.other(), "other"),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .map(|(_, name)| *name)
    .collect();
    println!("  framing:");
    match f.content_length {
        Some(n) => println!("    content-length:    {n}"),
        None => println!("    content-length:    none"),
    }
    println!("    transfer-encoding: {:?}", f.transfer_encoding);
    println!("    connection:        [{}]", tokens.join(", "));
    if let Some(host) = f.host {
        println!("    host:              {}", show(host.slice(buf)));
    }
    println!("    expect:            {:?}", f.expect);
    println!("    upgrade:           {}", f.upgrade);
    if obs_fold {
        println!("    obs-fold accepted (values keep their line breaks until unfolded)");
    }
}

fn print_fields(view: HeadersView<'_>) {
    println!("  fields ({}):", view.len());
    for (name, value) in view.iter() {
        println!("    {}: {}", show(name), show(value));
    }
}

/// An error from parsing `data[pos..]`, with its offset made absolute.
fn shift(e: Error, pos: usize) -> Error {
    Error::new(e.kind(), pos + e.offset())
}

/// Bytes as text: printable ASCII as is, everything else escaped.
fn show(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len());
    for &b in bytes {
        match b {
            b'\r' => s.push_str("\\r"),
            b'\n' => s.push_str("\\n"),
            b'\t' => s.push_str("\\t"),
            0x20..=0x7e => s.push(char::from(b)),
            _ => s.push_str(&format!("\\x{b:02x}")),
        }
    }
    s
}

/// The bytes around an offset, escaped, with `>>` marking the offset.
fn context(data: &[u8], offset: usize) -> String {
    let offset = offset.min(data.len());
    let start = offset.saturating_sub(24);
    let end = (offset + 24).min(data.len());
    format!(
        "{}>>{}",
        show(&data[start..offset]),
        show(&data[offset..end])
    )
}
