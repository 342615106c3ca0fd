//! The terminal side: colours, the connecting spinner, the progress bar
//! and a lock that keeps prompts and status lines apart.
//!
//! Colours and status lines go to stderr, and only when stderr is a
//! terminal; `NO_COLOR` (any value) turns colours off. Nothing here draws
//! on stdout, so stdout stays the command's result.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use mcp_client::Progress;

/// How the CLI talks to people. Cheap to clone.
#[derive(Clone, Debug)]
pub(crate) struct Ui {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    /// stdout is a terminal and colours are allowed.
    color_out: bool,
    /// stderr is a terminal: spinners, bars and prompts may draw there.
    stderr_tty: bool,
    /// stdin is a terminal: questions can be asked.
    stdin_tty: bool,
    /// Whether a status line is on screen.
    status: Mutex<bool>,
    /// A prompt owns the terminal: status lines wait.
    prompting: AtomicBool,
}

impl Ui {
    /// Looks at the real terminal and the environment.
    pub(crate) fn detect() -> Ui {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Ui {
            inner: Arc::new(Inner {
                color_out: !no_color && std::io::stdout().is_terminal(),
                stderr_tty: std::io::stderr().is_terminal(),
                stdin_tty: std::io::stdin().is_terminal(),
                status: Mutex::new(false),
                prompting: AtomicBool::new(false),
            }),
        }
    }

    /// Whether questions can be asked (stdin and stderr are terminals).
    pub(crate) fn interactive(&self) -> bool {
        self.inner.stdin_tty && self.inner.stderr_tty
    }

    /// Bold text on stdout, when colours are on.
    pub(crate) fn bold(&self, text: &str) -> String {
        self.paint("1", text)
    }

    /// Dim text on stdout, when colours are on.
    pub(crate) fn dim(&self, text: &str) -> String {
        self.paint("2", text)
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.inner.color_out {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    /// Draws one status line on stderr (terminal only), replacing the last.
    pub(crate) fn status(&self, line: &str) {
        if !self.inner.stderr_tty || self.inner.prompting.load(Ordering::Acquire) {
            return;
        }
        let mut shown = self
            .inner
            .status
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K{line}");
        let _ = err.flush();
        *shown = true;
    }

    /// Clears the status line, if any.
    pub(crate) fn clear_status(&self) {
        let mut shown = self
            .inner
            .status
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if *shown {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
            *shown = false;
        }
    }

    /// Prints a line on stderr, clearing any status line first.
    pub(crate) fn note(&self, line: &str) {
        self.clear_status();
        errln!("{line}");
    }

    /// Draws the progress of a call as a bar (terminal only).
    pub(crate) fn progress(&self, p: &Progress) {
        let message = p.message.as_deref().unwrap_or("");
        let line = match p.total {
            Some(total) if total > 0.0 => {
                let width = 24usize;
                let ratio = (p.progress / total).clamp(0.0, 1.0);
                // Truncation is intended: whole cells.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                let filled = (ratio * width as f64) as usize;
                format!(
                    "[{}{}] {}/{} {message}",
                    "#".repeat(filled),
                    "-".repeat(width - filled),
                    p.progress,
                    total
                )
            }
            _ => format!("[{}] {message}", p.progress),
        };
        self.status(&line);
    }

    /// Starts a spinner with `label` until the returned guard drops
    /// (terminal only).
    pub(crate) fn spinner(&self, label: String) -> Spinner {
        if !self.inner.stderr_tty {
            return Spinner {
                task: None,
                ui: self.clone(),
            };
        }
        let ui = self.clone();
        let task = tokio::spawn(async move {
            const FRAMES: [char; 4] = ['|', '/', '-', '\\'];
            let mut i = 0usize;
            loop {
                ui.status(&format!("{} {label}", FRAMES[i % FRAMES.len()]));
                i = i.wrapping_add(1);
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        });
        Spinner {
            task: Some(task),
            ui: self.clone(),
        }
    }

    /// Runs `f` with the status line cleared and kept off the screen
    /// (for prompts); blocking, so call it from a blocking thread.
    pub(crate) fn prompt_lock<T>(&self, f: impl FnOnce() -> T) -> T {
        self.inner.prompting.store(true, Ordering::Release);
        self.clear_status();
        let out = f();
        self.inner.prompting.store(false, Ordering::Release);
        out
    }
}

/// A running spinner; dropping it stops and clears it.
#[derive(Debug)]
pub(crate) struct Spinner {
    task: Option<tokio::task::JoinHandle<()>>,
    ui: Ui,
}

impl Drop for Spinner {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
            self.ui.clear_status();
        }
    }
}
