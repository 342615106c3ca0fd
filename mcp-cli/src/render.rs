//! Output: JSON documents for machines (`--json`), text for people.
//!
//! Content blocks are rendered for people as text; images, audio and
//! binary resources are decoded and saved to a new file (in `--save-dir`,
//! else the temp dir) whose path is printed. File names are made here,
//! never taken from the server.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use base64::Engine as _;
use serde_json::Value;

use crate::exit::CliError;
use crate::ui::Ui;

/// One piece of output of a command run by the connection holder, sent
/// to the `mcp` process that asked for it.
#[derive(Debug)]
pub(crate) enum Frame {
    /// A line for stdout.
    Out(String),
    /// A line for stderr.
    Err(String),
}

/// Where and how results are written.
#[derive(Debug)]
pub(crate) struct Out {
    /// Colours and terminal facts.
    pub(crate) ui: Ui,
    /// `--json`.
    pub(crate) json: bool,
    /// Output goes here instead of stdout and stderr (held connections).
    remote: Option<tokio::sync::mpsc::UnboundedSender<Frame>>,
    /// Where binary contents go.
    save_dir: PathBuf,
    /// Files saved so far (for unique names).
    saved: AtomicU32,
}

impl Out {
    /// An output for this run.
    pub(crate) fn new(ui: Ui, json: bool, save_dir: Option<PathBuf>) -> Out {
        Out {
            ui,
            json,
            save_dir: save_dir.unwrap_or_else(std::env::temp_dir),
            saved: AtomicU32::new(0),
            remote: None,
        }
    }

    /// An output whose lines are sent as [`Frame`]s.
    pub(crate) fn remote(
        ui: Ui,
        json: bool,
        save_dir: Option<PathBuf>,
        tx: tokio::sync::mpsc::UnboundedSender<Frame>,
    ) -> Out {
        Out {
            remote: Some(tx),
            ..Out::new(ui, json, save_dir)
        }
    }

    /// A line for stderr (a status line is cleared first).
    pub(crate) fn note(&self, text: &str) {
        match &self.remote {
            Some(tx) => {
                let _ = tx.send(Frame::Err(text.to_owned()));
            }
            None => self.ui.note(text),
        }
    }

    /// Prints one JSON document (pretty) on stdout.
    pub(crate) fn json_doc(&self, value: &Value) {
        let text = serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string());
        self.line(&text);
    }

    /// Prints one JSON line on stdout (streams), flushed at once.
    pub(crate) fn json_line(&self, value: &Value) {
        self.line(&value.to_string());
    }

    /// Prints a line of text on stdout, flushed at once.
    pub(crate) fn line(&self, text: &str) {
        if let Some(tx) = &self.remote {
            let _ = tx.send(Frame::Out(text.to_owned()));
            return;
        }
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{text}");
        let _ = out.flush();
    }

    /// Renders content blocks (tool results, prompt messages).
    pub(crate) fn content(&self, blocks: &[Value]) -> Result<(), CliError> {
        for block in blocks {
            self.block(block)?;
        }
        Ok(())
    }

    fn block(&self, b: &Value) -> Result<(), CliError> {
        let s = |k: &str| b.get(k).and_then(Value::as_str);
        match s("type") {
            Some("text") => self.line(s("text").unwrap_or("")),
            Some(kind @ ("image" | "audio")) => {
                let mime = s("mimeType").unwrap_or("application/octet-stream");
                let path = self.save_base64(s("data").unwrap_or(""), mime)?;
                self.line(
                    &self
                        .ui
                        .dim(&format!("[{kind} {mime} saved to {}]", path.display())),
                );
            }
            Some("resource_link") => self.line(&self.ui.dim(&format!(
                "[resource link {} {}]",
                s("name").unwrap_or(""),
                s("uri").unwrap_or("")
            ))),
            Some("resource") => {
                let r = b.get("resource").cloned().unwrap_or(Value::Null);
                self.resource_contents(&r)?;
            }
            _ => self.line(&b.to_string()),
        }
        Ok(())
    }

    /// Renders one `contents` entry of a resource: text, or a blob saved.
    pub(crate) fn resource_contents(&self, r: &Value) -> Result<(), CliError> {
        let s = |k: &str| r.get(k).and_then(Value::as_str);
        let uri = s("uri").unwrap_or("?");
        let mime = s("mimeType");
        let header = match mime {
            Some(m) => format!("[resource {uri} ({m})]"),
            None => format!("[resource {uri}]"),
        };
        if let Some(text) = s("text") {
            self.line(&self.ui.dim(&header));
            self.line(text);
        } else if let Some(blob) = s("blob") {
            let path = self.save_base64(blob, mime.unwrap_or("application/octet-stream"))?;
            self.line(
                &self
                    .ui
                    .dim(&format!("{header} saved to {}", path.display())),
            );
        } else {
            self.line(&self.ui.dim(&header));
        }
        Ok(())
    }

    /// Decodes base64 `data` into a new file named for its MIME type.
    fn save_base64(&self, data: &str, mime: &str) -> Result<PathBuf, CliError> {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(data.trim())
            .map_err(|e| {
                CliError::protocol(format!("the server sent invalid base64 ({mime}): {e}"))
            })?;
        let n = self.saved.fetch_add(1, Ordering::Relaxed);
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        let name = format!("mcp-{}-{stamp}-{n}.{}", std::process::id(), extension(mime));
        let path = self.save_dir.join(name);
        write_new(&path, &bytes).map_err(|e| {
            CliError::usage(format!("cannot save {mime} to {}: {e}", path.display()))
        })?;
        Ok(path)
    }
}

fn write_new(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    f.write_all(bytes)
}

/// A file extension for a MIME type (never from the server's text).
fn extension(mime: &str) -> &'static str {
    match mime.split(';').next().unwrap_or("").trim() {
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "image/svg+xml" => "svg",
        "audio/wav" | "audio/x-wav" => "wav",
        "audio/mpeg" => "mp3",
        "audio/ogg" => "ogg",
        "application/pdf" => "pdf",
        "application/json" => "json",
        "text/plain" => "txt",
        _ => "bin",
    }
}

/// A tool's arguments in one line: `text: string, count?: integer`.
pub(crate) fn signature(schema: &serde_json::Map<String, Value>) -> String {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return String::new();
    };
    props
        .iter()
        .map(|(name, p)| {
            let t = match p.get("type") {
                Some(Value::String(t)) => t.clone(),
                Some(Value::Array(ts)) => ts
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join("|"),
                _ => "any".into(),
            };
            let opt = if required.contains(&name.as_str()) {
                ""
            } else {
                "?"
            };
            format!("{name}{opt}: {t}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The first line of a description, cut to `max` characters.
pub(crate) fn first_line(text: Option<&str>, max: usize) -> String {
    let line = text.unwrap_or("").lines().next().unwrap_or("").trim();
    if line.chars().count() > max {
        let cut: String = line.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    } else {
        line.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_signature_marks_optional_arguments() {
        let schema = json!({"properties": {"a": {"type": "integer"}, "b": {"type": ["string", "null"]}},
                            "required": ["a"]});
        let schema = schema.as_object().cloned().unwrap_or_default();
        assert_eq!(signature(&schema), "a: integer, b?: string|null");
    }

    #[test]
    fn images_are_saved_under_a_name_of_our_own() {
        let dir = std::env::temp_dir();
        let out = Out::new(Ui::detect(), false, Some(dir.clone()));
        let path = out.save_base64("aGVsbG8=", "image/png").expect("saved");
        assert!(path.starts_with(&dir));
        assert_eq!(path.extension().and_then(|e| e.to_str()), Some("png"));
        assert_eq!(std::fs::read(&path).expect("read"), b"hello");
        std::fs::remove_file(path).expect("cleanup");
        assert!(out.save_base64("!!", "image/png").is_err());
    }
}
