//! Reading one direction of an HTTP/1.1 connection as it passes, to show
//! it: the start line, the headers that matter, and the bodies (JSON-RPC
//! messages, SSE events, OAuth forms) with secrets redacted.
//!
//! The observer only watches: it never changes or holds back a byte, and
//! when the stream stops making sense to it (an oversized head, HTTP/2, a
//! TLS handshake) it says so once and goes quiet.

use crate::ui::Ui;
use crate::wire::{is_secret_key, redact_line};

/// The largest message head read (bytes).
const MAX_HEAD: usize = 64 * 1024;
/// The most body bytes held to show one body or one SSE line.
const MAX_BODY: usize = 1024 * 1024;
/// The longest body line shown whole.
const SHOW_MAX: usize = 4096;

/// Headers worth showing; any other is left out.
const SHOWN: [&str; 14] = [
    "content-type",
    "accept",
    "mcp-session-id",
    "mcp-protocol-version",
    "mcp-method",
    "mcp-name",
    "last-event-id",
    "www-authenticate",
    "authorization",
    "dpop",
    "dpop-nonce",
    "location",
    "retry-after",
    "cookie",
];
/// Headers whose value is a credential.
const SECRET_HEADERS: [&str; 3] = ["authorization", "dpop", "cookie"];

/// Where the observer is in the stream.
#[derive(Debug)]
enum State {
    /// Reading a head.
    Head,
    /// A body of a known length.
    Length(usize),
    /// A chunked body: the size line.
    ChunkSize,
    /// A chunked body: the chunk's data.
    ChunkData(usize),
    /// The CRLF after a chunk's data.
    ChunkEnd,
    /// The trailers after the last chunk.
    Trailers,
    /// A body that lasts until the connection closes.
    ToClose,
    /// Not HTTP/1.1 as we read it: watching stopped.
    Lost,
}

/// How the current body is shown.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    /// Server-sent events: each line as it completes.
    Events,
    /// Shown whole when it ends (JSON, forms, text).
    Whole,
}

/// One direction of one connection.
pub(crate) struct Observer {
    arrow: String,
    ui: Ui,
    state: State,
    buf: Vec<u8>,
    kind: Kind,
    form: bool,
    /// The body shown so far (for `Whole`) or the current SSE line.
    body: Vec<u8>,
    cut: usize,
}

impl Observer {
    /// An observer prefixing its lines with `arrow` (`->`, `<-`).
    pub(crate) fn new(arrow: String, ui: Ui) -> Observer {
        Observer {
            arrow,
            ui,
            state: State::Head,
            buf: Vec::new(),
            kind: Kind::Whole,
            form: false,
            body: Vec::new(),
            cut: 0,
        }
    }

    fn show(&self, text: &str) {
        self.ui.note(&format!("{} {text}", self.arrow));
    }

    /// Takes the next bytes of the stream.
    pub(crate) fn feed(&mut self, bytes: &[u8]) {
        if matches!(self.state, State::Lost) {
            return;
        }
        self.buf.extend_from_slice(bytes);
        while self.step() {}
    }

    /// The stream ended: shows a body that lasted until then.
    pub(crate) fn end(&mut self) {
        if matches!(self.state, State::ToClose) {
            let rest = std::mem::take(&mut self.buf);
            self.body_bytes(&rest);
            self.body_done();
        }
    }

    /// One step of parsing; `false` when more bytes are needed.
    fn step(&mut self) -> bool {
        match self.state {
            State::Lost => false,
            State::Head => self.head(),
            State::Length(0) => {
                self.body_done();
                self.state = State::Head;
                true
            }
            State::Length(n) => {
                let take = n.min(self.buf.len());
                if take == 0 {
                    return false;
                }
                let part: Vec<u8> = self.buf.drain(..take).collect();
                self.body_bytes(&part);
                self.state = State::Length(n - take);
                true
            }
            State::ChunkSize | State::ChunkEnd | State::Trailers => self.chunk_line(),
            State::ChunkData(n) => {
                let take = n.min(self.buf.len());
                if take == 0 {
                    return false;
                }
                let part: Vec<u8> = self.buf.drain(..take).collect();
                self.body_bytes(&part);
                self.state = if n == take {
                    State::ChunkEnd
                } else {
                    State::ChunkData(n - take)
                };
                true
            }
            State::ToClose => {
                let part = std::mem::take(&mut self.buf);
                self.body_bytes(&part);
                false
            }
        }
    }

    fn lose(&mut self, why: &str) {
        self.show(&format!(
            "({why}; the rest of this connection is not shown)"
        ));
        self.state = State::Lost;
        self.buf = Vec::new();
    }

    /// Reads a head when it is complete.
    fn head(&mut self) -> bool {
        if self.buf.first() == Some(&0x16) {
            self.lose("TLS");
            return false;
        }
        let Some(end) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") else {
            if self.buf.len() > MAX_HEAD {
                self.lose("a message head over 64 KiB");
            }
            return false;
        };
        let head: Vec<u8> = self.buf.drain(..end + 4).collect();
        let text = String::from_utf8_lossy(&head[..end]).into_owned();
        let mut lines = text.split("\r\n");
        let start = lines.next().unwrap_or_default();
        if start.starts_with("PRI * HTTP/2") {
            self.lose("HTTP/2");
            return false;
        }
        self.show(&redact_start_line(start));
        let (mut length, mut chunked, mut kind, mut form) = (None, false, Kind::Whole, false);
        for line in lines {
            let Some((name, value)) = line.split_once(':') else {
                continue;
            };
            let (name, value) = (name.trim().to_ascii_lowercase(), value.trim());
            match name.as_str() {
                "content-length" => length = value.parse::<usize>().ok(),
                "transfer-encoding" => chunked = value.to_ascii_lowercase().contains("chunked"),
                "content-type" => {
                    let v = value.to_ascii_lowercase();
                    if v.starts_with("text/event-stream") {
                        kind = Kind::Events;
                    }
                    form = v.starts_with("application/x-www-form-urlencoded");
                }
                _ => {}
            }
            if SHOWN.contains(&name.as_str()) {
                self.show(&format!("  {name}: {}", redact_header(&name, value)));
            }
        }
        (self.kind, self.form) = (kind, form);
        let is_response = start.starts_with("HTTP/");
        let bodyless = is_response
            && start
                .split(' ')
                .nth(1)
                .is_some_and(|s| s.starts_with('1') || s == "204" || s == "304");
        self.state = if chunked {
            State::ChunkSize
        } else if let Some(n) = length {
            State::Length(n)
        } else if is_response && !bodyless {
            State::ToClose
        } else {
            State::Length(0)
        };
        true
    }

    /// A chunk size line, the CRLF after data, or a trailer line.
    fn chunk_line(&mut self) -> bool {
        let Some(end) = self.buf.windows(2).position(|w| w == b"\r\n") else {
            if self.buf.len() > MAX_HEAD {
                self.lose("a chunk line over 64 KiB");
            }
            return false;
        };
        let line: Vec<u8> = self.buf.drain(..end + 2).collect();
        let line = String::from_utf8_lossy(&line[..end]).into_owned();
        self.state = match self.state {
            State::ChunkEnd => State::ChunkSize,
            State::Trailers if line.is_empty() => {
                self.body_done();
                State::Head
            }
            State::Trailers => State::Trailers,
            _ => {
                let hex = line.split(';').next().unwrap_or_default().trim();
                match usize::from_str_radix(hex, 16) {
                    Ok(0) => State::Trailers,
                    Ok(n) => State::ChunkData(n),
                    Err(_) => {
                        self.lose("a bad chunk size");
                        return false;
                    }
                }
            }
        };
        true
    }

    /// Body bytes: SSE lines are shown as they complete; other bodies are
    /// held (up to [`MAX_BODY`]) until they end.
    fn body_bytes(&mut self, bytes: &[u8]) {
        for part in bytes.split_inclusive(|b| *b == b'\n') {
            let room = MAX_BODY.saturating_sub(self.body.len());
            let keep = part.len().min(room);
            self.body.extend_from_slice(&part[..keep]);
            self.cut += part.len() - keep;
            if self.kind == Kind::Events && part.ends_with(b"\n") {
                let line = std::mem::take(&mut self.body);
                self.event_line(&String::from_utf8_lossy(&line));
                self.cut = 0;
            }
        }
    }

    fn event_line(&self, line: &str) {
        let line = line.trim_end_matches(['\r', '\n']);
        if let Some(data) = line.strip_prefix("data:") {
            self.show(&format!(
                "event data: {}",
                shown(&redact_line(data.trim_start()))
            ));
        } else if !line.is_empty() && !line.starts_with(':') {
            self.show(&format!("event {line}"));
        }
    }

    /// A body ended: shows what was held.
    fn body_done(&mut self) {
        let body = std::mem::take(&mut self.body);
        let cut = std::mem::take(&mut self.cut);
        if body.is_empty() {
            return;
        }
        if self.kind == Kind::Events {
            self.event_line(&String::from_utf8_lossy(&body));
            return;
        }
        let text = String::from_utf8_lossy(&body);
        let text = text.trim_end();
        let mut line = if self.form {
            redact_form(text)
        } else {
            redact_line(text)
        };
        line = shown(&line);
        if cut > 0 {
            line = format!("{line}… ({} bytes)", body.len() + cut);
        }
        self.show(&line);
    }
}

/// A line cut to [`SHOW_MAX`] characters.
fn shown(line: &str) -> String {
    if line.len() <= SHOW_MAX {
        return line.to_owned();
    }
    let cut: String = line.chars().take(SHOW_MAX).collect();
    format!("{cut}… ({} bytes)", line.len())
}

/// `POST /mcp?key=v HTTP/1.1` with its query values redacted (a status
/// line is kept as it is).
fn redact_start_line(line: &str) -> String {
    let mut parts = line.splitn(3, ' ');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(method), Some(target), Some(version)) if !method.starts_with("HTTP/") => {
            let target = mcp_types::redact::redact_url(target);
            format!("{method} {target} {version}")
        }
        _ => line.to_owned(),
    }
}

/// A header's value as shown: credentials keep only their scheme, URLs
/// (a redirect `Location` carries the authorization code) lose their query
/// values.
pub(crate) fn redact_header(name: &str, value: &str) -> String {
    if SECRET_HEADERS.contains(&name) {
        return match value.split_once(' ') {
            Some((scheme, _)) if name == "authorization" => format!("{scheme} <redacted>"),
            _ => "<redacted>".to_owned(),
        };
    }
    if name == "location" {
        return mcp_types::redact::redact_url(value);
    }
    value.to_owned()
}

/// A form body (OAuth token and registration requests) with the values of
/// secret fields redacted: codes, verifiers, tokens, secrets, assertions.
fn redact_form(body: &str) -> String {
    body.split('&')
        .map(|pair| match pair.split_once('=') {
            Some((k, _)) if is_secret_form_key(k) => format!("{k}=<redacted>"),
            _ => pair.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

fn is_secret_form_key(key: &str) -> bool {
    matches!(
        key,
        "code" | "code_verifier" | "assertion" | "client_assertion" | "subject_token"
    ) || is_secret_key(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_in_headers_forms_and_urls_are_redacted() {
        assert_eq!(
            redact_header("authorization", "Bearer s3cret"),
            "Bearer <redacted>"
        );
        assert_eq!(redact_header("dpop", "eyJ.x.y"), "<redacted>");
        assert_eq!(
            redact_header("location", "http://127.0.0.1:1/cb?code=abc&state=s"),
            "http://127.0.0.1:1/cb?code=<redacted>&state=<redacted>"
        );
        assert_eq!(
            redact_form("grant_type=authorization_code&code=abc&code_verifier=v&client_id=c"),
            "grant_type=authorization_code&code=<redacted>&code_verifier=<redacted>&client_id=c"
        );
        assert_eq!(
            redact_form("grant_type=refresh_token&refresh_token=rt"),
            "grant_type=refresh_token&refresh_token=<redacted>"
        );
        assert_eq!(
            redact_start_line("GET /mcp?api_key=k HTTP/1.1"),
            "GET /mcp?api_key=<redacted> HTTP/1.1"
        );
    }
}
