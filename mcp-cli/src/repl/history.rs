//! The repl's history file: `$XDG_STATE_HOME/mcp-cli/repl_history`, else
//! `~/.local/state/mcp-cli/repl_history`; the directory is created 0700
//! and the file is kept 0600 (a line may name a resource or carry an
//! argument the user would not share).
//!
//! Lines are appended as they are entered; the last [`KEEP`] are loaded at
//! start (a longer file is rewritten to them). Lines that give `--bearer`
//! or `--header` are never written, nor is a line repeating the last one.

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::PathBuf;

/// The most lines kept.
pub(crate) const KEEP: usize = 1000;
/// The largest history file read (bytes); a bigger one is ignored.
const MAX_READ: u64 = 4 * 1024 * 1024;

/// The history file.
#[derive(Debug)]
pub(crate) struct History {
    path: PathBuf,
    last: Option<String>,
}

impl History {
    /// The file under the user's state dir; `None` when there is no
    /// `XDG_STATE_HOME` or `HOME`, or the directory cannot be made private.
    pub(crate) fn open() -> Option<History> {
        let var = |k: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let base = var("XDG_STATE_HOME").or_else(|| var("HOME").map(|h| h.join(".local/state")))?;
        let dir = base.join("mcp-cli");
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)
            .ok()?;
        Some(History {
            path: dir.join("repl_history"),
            last: None,
        })
    }

    /// Where the history lives.
    pub(crate) fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// The last [`KEEP`] lines, oldest first (none when the file is
    /// missing, too big or unreadable).
    pub(crate) fn load(&mut self) -> Vec<String> {
        let fits = std::fs::metadata(&self.path).is_ok_and(|m| m.len() <= MAX_READ);
        let text = if fits {
            std::fs::read_to_string(&self.path).unwrap_or_default()
        } else {
            String::new()
        };
        let all: Vec<String> = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_owned)
            .collect();
        let kept = all[all.len().saturating_sub(KEEP)..].to_vec();
        if kept.len() < all.len() {
            let mut body = kept.join("\n");
            body.push('\n');
            let _ = self.write_all(body.as_bytes(), false);
        }
        self.last = kept.last().cloned();
        kept
    }

    /// Appends `line` when it is worth keeping; returns whether it was kept
    /// (and so belongs in the editor's history too).
    pub(crate) fn add(&mut self, line: &str) -> bool {
        let line = line.trim();
        let secret = line
            .split_whitespace()
            .any(|w| w.starts_with("--bearer") || w.starts_with("--header") || w == "-H");
        if line.is_empty() || secret || self.last.as_deref() == Some(line) {
            return false;
        }
        let _ = self.write_all(format!("{line}\n").as_bytes(), true);
        self.last = Some(line.to_owned());
        true
    }

    /// Writes (or appends) to the file, 0600 whatever mode it had.
    fn write_all(&self, bytes: &[u8], append: bool) -> std::io::Result<()> {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .write(true)
            .append(append)
            .truncate(!append)
            .mode(0o600)
            .open(&self.path)?;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        file.write_all(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    #[test]
    fn lines_are_kept_0600_without_secrets_or_repeats() {
        let dir = std::env::temp_dir().join(format!("mcp-cli-history-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("repl_history");
        // A file left world-readable is made private on the next write.
        std::fs::write(&path, "tools list\n").expect("seed");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        let mut h = History {
            path: path.clone(),
            last: None,
        };
        assert_eq!(h.load(), ["tools list"]);
        assert!(!h.add("tools list"), "a repeat of the last line");
        assert!(h.add("tools call echo text=hi"));
        assert!(!h.add("ping --bearer s3cret"));
        assert!(!h.add("  "));
        let text = std::fs::read_to_string(&path).expect("read");
        assert_eq!(text, "tools list\ntools call echo text=hi\n");
        let mode = std::fs::metadata(&path).expect("meta").mode() & 0o777;
        assert_eq!(mode, 0o600);

        // A long file is cut to the last KEEP lines.
        let long: String = (0..KEEP + 5).map(|i| format!("ping {i}\n")).collect();
        std::fs::write(&path, long).expect("write");
        let loaded = h.load();
        assert_eq!(loaded.len(), KEEP);
        assert_eq!(loaded[0], "ping 5");
        let on_disk = std::fs::read_to_string(&path).expect("read");
        assert_eq!(on_disk.lines().count(), KEEP);
        std::fs::remove_dir_all(&dir).expect("cleanup");
    }
}
