//! `--verbose` on stdio: the wire, line by line, on stderr (HTTP:
//! [`crate::http_tap`]).
//!
//! The server is started here (own process group, so the terminal's
//! Ctrl-C does not reach it) and its stdin and stdout are handed to the
//! client through [`Tap`]s, which copy every complete line to stderr as
//! `-> ` (sent) or `<- ` (received), with secrets redacted: the values of
//! JSON keys that name tokens, secrets, passwords, API keys or
//! authorization. The framing stays the SDK's (`ClientBuilder::io`).

use std::pin::Pin;
use std::task::{Context, Poll};

use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::ui::Ui;

/// The longest line shown whole; longer ones are cut.
const SHOW_MAX: usize = 4096;
/// The most bytes of one line held while waiting for its end.
const HOLD_MAX: usize = 1024 * 1024;

/// A reader or writer that shows the lines passing through it.
pub(crate) struct Tap<T> {
    inner: T,
    arrow: &'static str,
    line: Vec<u8>,
    /// Bytes of the current line dropped past [`HOLD_MAX`].
    dropped: usize,
    ui: Ui,
}

impl<T> Tap<T> {
    /// Wraps `inner`; `arrow` prefixes its lines.
    pub(crate) fn new(inner: T, arrow: &'static str, ui: Ui) -> Tap<T> {
        Tap {
            inner,
            arrow,
            line: Vec::new(),
            dropped: 0,
            ui,
        }
    }

    fn feed(&mut self, bytes: &[u8]) {
        for chunk in bytes.split_inclusive(|b| *b == b'\n') {
            let room = HOLD_MAX.saturating_sub(self.line.len());
            let body = chunk.strip_suffix(b"\n").unwrap_or(chunk);
            let keep = body.len().min(room);
            self.line.extend_from_slice(&body[..keep]);
            self.dropped += body.len() - keep;
            if chunk.ends_with(b"\n") {
                let text = String::from_utf8_lossy(&self.line);
                let mut shown = redact_line(&text);
                if shown.len() > SHOW_MAX || self.dropped > 0 {
                    let total = self.line.len() + self.dropped;
                    let cut: String = shown.chars().take(SHOW_MAX).collect();
                    shown = format!("{cut}… ({total} bytes)");
                }
                self.ui.note(&format!("{} {shown}", self.arrow));
                self.line.clear();
                self.dropped = 0;
            }
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Tap<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let r = Pin::new(&mut this.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = &r {
            let new = buf.filled()[before..].to_vec();
            this.feed(&new);
        }
        r
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Tap<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = &r {
            this.feed(&buf[..*n]);
        }
        r
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

/// Whether a JSON key names a secret (`progressToken` does not).
pub(crate) fn is_secret_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase().replace(['-', '_'], "");
    let named = [
        "secret",
        "password",
        "apikey",
        "authorization",
        "cookie",
        "credential",
    ]
    .iter()
    .any(|s| k.contains(s));
    named || (k.ends_with("token") && k != "progresstoken")
}

/// A line with secret values replaced; a line that is not JSON is shown
/// as it is.
pub(crate) fn redact_line(text: &str) -> String {
    match serde_json::from_str::<Value>(text) {
        Ok(mut v) => {
            redact(&mut v);
            v.to_string()
        }
        Err(_) => text.to_owned(),
    }
}

fn redact(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for (k, child) in map.iter_mut() {
                if is_secret_key(k) && !child.is_object() && !child.is_array() {
                    *child = Value::String("<redacted>".into());
                } else {
                    redact(child);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_values_are_redacted_and_the_rest_kept() {
        let line = r#"{"params":{"accessToken":"abc","arguments":{"api_key":"k","text":"hi"}}}"#;
        let shown = redact_line(line);
        assert!(
            !shown.contains("abc") && !shown.contains("\"k\""),
            "{shown}"
        );
        assert!(shown.contains("\"text\":\"hi\""), "{shown}");
        assert_eq!(redact_line("not json"), "not json");
        assert!(redact_line(r#"{"progressToken":7}"#).contains('7'));
    }
}
