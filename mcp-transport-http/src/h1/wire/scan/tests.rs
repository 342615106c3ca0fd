//! The head read here against `httparse`: whatever this reads, `httparse`
//! reads the same (length, version, code, each field where it lies), and
//! the heads servers write are read here, not handed on.

use super::*;
use proptest::prelude::*;

/// A head as read: its status line and each field as its name and its
/// value's place in the buffer.
type Reading = (Top, Vec<(Vec<u8>, std::ops::Range<usize>)>);

fn place(buf: &[u8], part: &[u8]) -> std::ops::Range<usize> {
    if part.is_empty() {
        // An empty value's place is not read.
        return 0..0;
    }
    let from = part.as_ptr() as usize - buf.as_ptr() as usize;
    from..from + part.len()
}

fn here(buf: &[u8]) -> Option<Reading> {
    let mut fields = [NO_FIELD; FIELDS];
    let (top, count) = scan(buf, &mut fields)?;
    let fields = fields[..count]
        .iter()
        .map(|(name, value)| (name.to_vec(), place(buf, value)))
        .collect();
    Some((top, fields))
}

fn httparse_reading(buf: &[u8]) -> Option<Reading> {
    let mut headers = [httparse::EMPTY_HEADER; 100];
    let mut response = httparse::Response::new(&mut headers);
    let httparse::Status::Complete(len) = response.parse(buf).ok()? else {
        return None;
    };
    let top = Top {
        len,
        http11: response.version == Some(1),
        code: response.code?,
    };
    let fields = response
        .headers
        .iter()
        .map(|h| (h.name.as_bytes().to_vec(), place(buf, h.value)))
        .collect();
    Some((top, fields))
}

/// What this reads, `httparse` reads the same; `true` when this read it.
fn agrees(buf: &[u8]) -> bool {
    let Some(read) = here(buf) else {
        return false;
    };
    assert_eq!(
        Some(&read),
        httparse_reading(buf).as_ref(),
        "read otherwise than httparse: {:?}",
        String::from_utf8_lossy(buf)
    );
    true
}

/// Heads as servers send them (rmcp's axum, uvicorn, Express, a proxy).
const USUAL: [&[u8]; 7] = [
    b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 87\r\n\
     date: Mon, 07 Dec 2026 08:59:11 GMT\r\n\r\n",
    b"HTTP/1.1 200 OK\r\ndate: Mon, 07 Dec 2026 08:59:11 GMT\r\nserver: uvicorn\r\n\
     content-type: text/event-stream\r\nmcp-session-id: 5f0c1e\r\n\
     cache-control: no-cache, no-transform\r\nconnection: keep-alive\r\n\
     transfer-encoding: chunked\r\n\r\n",
    b"HTTP/1.1 202 Accepted\r\nX-Powered-By: Express\r\nContent-Length: 0\r\n\
     ETag: W/\"0-2jmj7l5rSw0yVb/vlWAYkK/YBwk\"\r\nKeep-Alive: timeout=5\r\n\r\n",
    b"HTTP/1.0 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n",
    b"HTTP/1.1 204\r\n\r\n",
    b"HTTP/1.1 200 \r\nx-empty:\r\nx-spaces: \t a \t \r\nx-obs: caf\xc3\xa9\t!\r\n\r\nbody",
    b"HTTP/1.1 500 Internal\tServer Error \xff\r\nwww-authenticate: Bearer realm=\"mcp\", \
     error=\"invalid_token\"\r\n\r\n",
];

#[test]
fn the_token_table_is_mcp_types_tchar() {
    for b in 0..=255u8 {
        assert_eq!(
            TOKEN[usize::from(b)],
            mcp_types::routing::is_tchar(b),
            "{b:#x}"
        );
    }
}

#[test]
fn the_heads_servers_write_are_read_here_as_httparse_reads_them() {
    for head in USUAL {
        let text = String::from_utf8_lossy(head);
        assert!(agrees(head), "not read here: {text:?}");
    }
    // As many fields as there is room for; one more goes to httparse.
    let fields: String = (0..FIELDS).map(|i| format!("x-{i}: {i}\r\n")).collect();
    assert!(agrees(
        format!("HTTP/1.1 200 OK\r\n{fields}\r\n").as_bytes()
    ));
    let more = format!("HTTP/1.1 200 OK\r\n{fields}x-more: 1\r\n\r\n");
    assert!(here(more.as_bytes()).is_none());
    assert!(httparse_reading(more.as_bytes()).is_some());
}

/// Every head cut short, with a byte changed to each of 256 values at
/// every place, or with one left out: this reads it as httparse does, or
/// hands it on. The unchanged ones are read here.
#[test]
fn every_change_to_a_head_is_read_as_httparse_reads_it_or_handed_on() {
    let (mut read, mut changes) = (0, 0);
    for head in USUAL {
        for len in 0..head.len() {
            agrees(&head[..len]);
        }
        let mut changed = head.to_vec();
        for at in 0..head.len() {
            for b in 0..=255u8 {
                changed[at] = b;
                read += usize::from(agrees(&changed));
                changes += 1;
            }
            changed[at] = head[at];
            let mut short = head.to_vec();
            short.remove(at);
            agrees(&short);
        }
    }
    // Most changes (a letter for a letter) leave a head read here.
    assert!(
        read > changes / 2,
        "only {read} of {changes} changed heads read here"
    );
}

#[test]
fn heads_httparse_reads_otherwise_are_handed_on() {
    for head in [
        // A bare LF, an empty line first, a folded line, a space before
        // the colon, two spaces after the version, a two-digit code.
        "HTTP/1.1 200 OK\ncontent-length: 1\r\n\r\n",
        "HTTP/1.1 200 OK\r\ncontent-length: 1\n\r\n",
        "\r\nHTTP/1.1 200 OK\r\n\r\n",
        "HTTP/1.1 200 OK\r\nx-a: 1\r\n folded\r\n\r\n",
        "HTTP/1.1 200 OK\r\nx-a : 1\r\n\r\n",
        "HTTP/1.1  200 OK\r\n\r\n",
        "HTTP/1.1 20 OK\r\n\r\n",
        "HTTP/2.0 200 OK\r\n\r\n",
        "HTTP/1.1 200 OK\r\nx-a: \x7f\r\n\r\n",
        "HTTP/1.1 200 OK\r\nx-a: a\x00b\r\n\r\n",
        "HTTP/1.1 200 OK\r\n\r",
    ] {
        assert!(here(head.as_bytes()).is_none(), "read here: {head:?}");
    }
}

proptest! {
    /// Heads of lines made of the bytes that matter to the grammar.
    #[test]
    fn made_up_heads_are_read_as_httparse_reads_them(
        lines in prop::collection::vec(
            prop::collection::vec(
                prop::sample::select(
                    b"aZ09-:;, \t\r\n\x00\x1f\x7f\x80\xff\"!~".to_vec()
                ),
                0..12,
            ),
            0..6,
        ),
        status in prop::sample::select(vec![
            "HTTP/1.1 200 OK", "HTTP/1.0 404", "HTTP/1.1 101 x", "HTTP/1.1 999 ",
        ]),
    ) {
        let mut head = format!("{status}\r\n").into_bytes();
        for line in &lines {
            head.extend_from_slice(line);
            head.extend_from_slice(b"\r\n");
        }
        head.extend_from_slice(b"\r\n");
        agrees(&head);
    }
}
