//! The strict HTTP floor: a current-thread tokio runtime, one keep-alive
//! HTTP/1.1 connection per caller (`TCP_NODELAY`), each POST written in one
//! `write` from a fixed header block and the body template, the response
//! head parsed with `httparse` and the JSON body parsed in place in the
//! read buffer. A reply sent as an SSE stream (rmcp answers every request
//! of a 2025-11-25 session so: a priming event, then the reply) is read
//! whole like any chunked body, and the data of its one event with data is
//! parsed in place the same way.

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::measure::{self, Args, Caller, fail};
use crate::reply::{Template, check, push_decimal};

/// One caller's connection and buffers.
struct Conn {
    stream: TcpStream,
    /// The request line and headers up to `Content-Length: `.
    head: std::sync::Arc<Vec<u8>>,
    template: std::sync::Arc<Template>,
    expected: usize,
    req: Vec<u8>,
    buf: Vec<u8>,
}

/// A response: its status, whether the body is SSE, and the body's range
/// in the connection's buffer.
struct Response {
    status: u16,
    sse: bool,
    session: Option<String>,
    body: std::ops::Range<usize>,
}

impl Conn {
    async fn open(
        authority: &str,
        head: std::sync::Arc<Vec<u8>>,
        template: std::sync::Arc<Template>,
        expected: usize,
    ) -> Conn {
        let stream = TcpStream::connect(authority)
            .await
            .unwrap_or_else(|e| fail(&format!("connect {authority}: {e}")));
        stream
            .set_nodelay(true)
            .unwrap_or_else(|e| fail(&format!("nodelay: {e}")));
        Conn {
            stream,
            head,
            template,
            expected,
            req: Vec::with_capacity(1024),
            buf: vec![0; 16 * 1024],
        }
    }

    /// Sends `body` after `head` and reads the whole response.
    async fn post(
        &mut self,
        head: &[u8],
        body: impl FnOnce(&mut Vec<u8>),
        body_len: usize,
    ) -> Result<Response, String> {
        self.req.clear();
        self.req.extend_from_slice(head);
        push_decimal(body_len as u64, &mut self.req);
        self.req.extend_from_slice(b"\r\n\r\n");
        body(&mut self.req);
        self.stream
            .write_all(&self.req)
            .await
            .map_err(|e| format!("write: {e}"))?;
        self.read_response().await
    }

    /// Reads one response with a `Content-Length` body into `buf`.
    async fn read_response(&mut self) -> Result<Response, String> {
        let mut end = 0;
        loop {
            end += self.read_more(end).await?;
            let mut headers = [httparse::EMPTY_HEADER; 24];
            let mut resp = httparse::Response::new(&mut headers);
            let httparse::Status::Complete(head_len) = resp
                .parse(&self.buf[..end])
                .map_err(|e| format!("bad response head: {e}"))?
            else {
                continue;
            };
            let mut len = None;
            let (mut sse, mut session, mut chunked) = (false, None, false);
            for h in resp.headers.iter() {
                if h.name.eq_ignore_ascii_case("content-length") {
                    len = std::str::from_utf8(h.value)
                        .ok()
                        .and_then(|v| v.trim().parse::<usize>().ok());
                } else if h.name.eq_ignore_ascii_case("content-type") {
                    sse = h.value.starts_with(b"text/event-stream");
                } else if h.name.eq_ignore_ascii_case("transfer-encoding") {
                    chunked = h.value.eq_ignore_ascii_case(b"chunked");
                } else if h.name.eq_ignore_ascii_case("mcp-session-id") {
                    session = std::str::from_utf8(h.value).ok().map(str::to_owned);
                }
            }
            let status = resp.code.unwrap_or(0);
            let body = match len {
                Some(len) => self.read_exact_body(head_len, end, len).await?,
                None if chunked => self.read_chunked_body(head_len, end).await?,
                None => return Err("a response without Content-Length or chunked body".into()),
            };
            return Ok(Response {
                status,
                sse,
                session,
                body,
            });
        }
    }

    /// Reads a `Content-Length` body of `len` bytes after `head_len`.
    async fn read_exact_body(
        &mut self,
        head_len: usize,
        mut end: usize,
        len: usize,
    ) -> Result<std::ops::Range<usize>, String> {
        let total = head_len + len;
        if self.buf.len() < total {
            self.buf.resize(total, 0);
        }
        while end < total {
            let n = self
                .stream
                .read(&mut self.buf[end..total])
                .await
                .map_err(|e| format!("read: {e}"))?;
            if n == 0 {
                return Err("the server closed the connection mid-body".into());
            }
            end += n;
        }
        Ok(head_len..total)
    }

    /// Reads a chunked body after `head_len` and joins its chunks in place.
    async fn read_chunked_body(
        &mut self,
        head_len: usize,
        mut end: usize,
    ) -> Result<std::ops::Range<usize>, String> {
        loop {
            if chunks(&mut self.buf[head_len..end], false)?.is_some() {
                let len = chunks(&mut self.buf[head_len..end], true)?.unwrap_or(0);
                return Ok(head_len..head_len + len);
            }
            end += self.read_more(end).await?;
        }
    }

    /// Reads more of the response into `buf` after `end` (growing it when
    /// full); the number of bytes read, never 0.
    async fn read_more(&mut self, end: usize) -> Result<usize, String> {
        if end == self.buf.len() {
            self.buf.resize(self.buf.len() * 2, 0);
        }
        let n = self
            .stream
            .read(&mut self.buf[end..])
            .await
            .map_err(|e| format!("read: {e}"))?;
        if n == 0 {
            return Err("the server closed the connection".into());
        }
        Ok(n)
    }
}

/// Walks a chunked body: `None` while incomplete, else the joined data's
/// length. With `join`, moves the chunks' data together at the front.
fn chunks(body: &mut [u8], join: bool) -> Result<Option<usize>, String> {
    let (mut pos, mut out) = (0, 0);
    loop {
        let Some(eol) = memchr::memmem::find(&body[pos..], b"\r\n") else {
            return Ok(None);
        };
        let line = &body[pos..pos + eol];
        let hex = line.split(|b| *b == b';').next().unwrap_or(line);
        let size = std::str::from_utf8(hex)
            .ok()
            .and_then(|h| usize::from_str_radix(h.trim(), 16).ok())
            .ok_or("a bad chunk size")?;
        pos += eol + 2;
        if size == 0 {
            return Ok((body.len() >= pos + 2).then_some(out));
        }
        if body.len() < pos + size + 2 {
            return Ok(None);
        }
        if join && out != pos {
            body.copy_within(pos..pos + size, out);
        }
        out += size;
        pos += size + 2;
    }
}

/// The data of the one SSE event in `body` that carries data, as a range
/// of `body`: the reply is parsed in place. Events without data (such as a
/// priming event: `id:`, `retry:` and an empty `data:`) and comments are
/// passed over. Strict: an event of several `data:` lines (which would have
/// to be joined), a second event with data (a message besides the reply)
/// or a body without one is an error.
fn sse_reply(body: &[u8]) -> Result<std::ops::Range<usize>, String> {
    let mut reply = None;
    // The current event's `data:` lines: how many, and the last one's value.
    let (mut lines, mut value) = (0, 0..0);
    let mut pos = 0;
    while pos < body.len() {
        let eol = memchr::memchr(b'\n', &body[pos..]).map_or(body.len(), |i| pos + i);
        let end = if eol > pos && body[eol - 1] == b'\r' {
            eol - 1
        } else {
            eol
        };
        let line = &body[pos..end];
        if line.is_empty() {
            // The end of an event: one with data is a message.
            match lines {
                0 => {}
                1 if value.is_empty() => {}
                1 if reply.is_none() => reply = Some(value.clone()),
                1 => return Err("an SSE reply with more than one message".into()),
                _ => return Err("an SSE event of several data lines".into()),
            }
            lines = 0;
        } else if let Some(rest) = line.strip_prefix(b"data:") {
            let skip = usize::from(rest.first() == Some(&b' '));
            value = end - rest.len() + skip..end;
            lines += 1;
        }
        pos = eol + 1;
    }
    if lines > 0 {
        return Err("an SSE body ending inside an event".into());
    }
    reply.ok_or_else(|| "an SSE body without a reply".into())
}

impl Caller for Conn {
    async fn call(&mut self, i: usize) -> Result<(), String> {
        let id = i as u64 + 2;
        let (head, template) = (self.head.clone(), self.template.clone());
        let r = self
            .post(&head, |out| template.write(id, out), template.len(id))
            .await?;
        if r.status != 200 {
            return Err(format!("status {} (SSE: {})", r.status, r.sse));
        }
        // An SSE body (a 2025-11-25 session's reply from rmcp): the one
        // event with data in it is the reply.
        let body = if r.sse {
            let data = sse_reply(&self.buf[r.body.clone()])?;
            r.body.start + data.start..r.body.start + data.end
        } else {
            r.body
        };
        match check(&self.buf[body], self.expected)? {
            got if got == id => Ok(()),
            got => Err(format!("reply to id {got}, expected {id}")),
        }
    }
}

/// The header block up to `Content-Length: `.
fn head(args: &Args, host: &str, path: &str, session: Option<&str>) -> Vec<u8> {
    let mut h = format!(
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {}\r\n",
        args.revision()
    );
    if let Some(s) = session {
        h.push_str(&format!("Mcp-Session-Id: {s}\r\n"));
    }
    if args.era == "modern" {
        h.push_str(&format!(
            "Mcp-Method: tools/call\r\nMcp-Name: {}\r\n",
            args.tool()
        ));
    }
    h.push_str("Content-Length: ");
    h.into_bytes()
}

/// 2025-11-25: `initialize` and `notifications/initialized`; the session id.
async fn handshake(args: &Args, authority: &str, path: &str) -> Option<String> {
    let host = authority;
    let template = std::sync::Arc::new(Template::new(args, false));
    let mut c = Conn::open(authority, std::sync::Arc::new(Vec::new()), template, 0).await;
    let init = format!(
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: "
    );
    let r = c
        .post(
            init.as_bytes(),
            |o| o.extend_from_slice(crate::INITIALIZE.as_bytes()),
            crate::INITIALIZE.len(),
        )
        .await
        .unwrap_or_else(|e| fail(&e));
    let session = r
        .session
        .unwrap_or_else(|| fail(&format!("initialize: status {}, no session", r.status)));
    let note = format!(
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n\
         Mcp-Session-Id: {session}\r\nContent-Length: "
    );
    let r = c
        .post(
            note.as_bytes(),
            |o| o.extend_from_slice(crate::INITIALIZED.as_bytes()),
            crate::INITIALIZED.len(),
        )
        .await
        .unwrap_or_else(|e| fail(&e));
    if r.status != 202 {
        fail(&format!("notifications/initialized: status {}", r.status));
    }
    Some(session)
}

/// Runs the HTTP floor.
pub fn run(args: &Args) {
    let rest = args
        .url
        .strip_prefix("http://")
        .unwrap_or_else(|| fail("the floor speaks plain http://"));
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let path = if path.is_empty() { "/" } else { path };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| fail(&format!("runtime: {e}")));
    rt.block_on(async {
        let session = if args.era == "modern" {
            None
        } else {
            handshake(args, authority, path).await
        };
        let head = std::sync::Arc::new(head(args, authority, path, session.as_deref()));
        let template = std::sync::Arc::new(Template::new(args, false));
        let mut callers = Vec::new();
        for _ in 0..args.workers {
            callers.push(
                Conn::open(
                    authority,
                    head.clone(),
                    template.clone(),
                    args.expected_len(),
                )
                .await,
            );
        }
        measure::bench(args, callers).await;
    });
}
