//! [`ServerCommand`]: how to start a server and how to treat it.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::error::SpawnError;
use crate::framed::DEFAULT_MAX_LINE_LENGTH;
use crate::stderr::StderrCallback;

/// Which variables of the client's environment the server inherits.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum EnvInherit {
    /// The whole environment (the default).
    #[default]
    All,
    /// Nothing: the server sees only the variables set explicitly.
    None,
    /// Only these variables, when set.
    Only(Vec<OsString>),
}

/// What happens to the server's stderr.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum StderrMode {
    /// Drained continuously into a ring of the last lines, forwarded to the
    /// callback and to `tracing` (the default).
    #[default]
    Capture,
    /// Written to the client's own stderr.
    Inherit,
    /// Thrown away.
    Discard,
}

/// The time limits of the staged shutdown.
///
/// The shutdown closes stdin and waits `after_stdin_close`; then (Unix)
/// sends SIGTERM to the process group and waits `after_terminate`; then
/// sends SIGKILL and waits `after_kill`. On Windows the terminate step is
/// the forced tree kill. The sum bounds the whole shutdown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ShutdownTimeouts {
    /// Grace period after stdin is closed. Default 2 s.
    pub after_stdin_close: Duration,
    /// Wait after SIGTERM. Default 2 s.
    pub after_terminate: Duration,
    /// Wait after SIGKILL for the process to be reaped. Default 1 s.
    pub after_kill: Duration,
}

impl Default for ShutdownTimeouts {
    fn default() -> Self {
        ShutdownTimeouts {
            after_stdin_close: Duration::from_secs(2),
            after_terminate: Duration::from_secs(2),
            after_kill: Duration::from_secs(1),
        }
    }
}

impl ShutdownTimeouts {
    /// Sets the grace period after stdin is closed.
    #[must_use]
    pub fn with_after_stdin_close(mut self, d: Duration) -> Self {
        self.after_stdin_close = d;
        self
    }

    /// Sets the wait after SIGTERM.
    #[must_use]
    pub fn with_after_terminate(mut self, d: Duration) -> Self {
        self.after_terminate = d;
        self
    }

    /// Sets the wait after SIGKILL.
    #[must_use]
    pub fn with_after_kill(mut self, d: Duration) -> Self {
        self.after_kill = d;
        self
    }

    /// The longest a shutdown can take.
    pub fn total(&self) -> Duration {
        self.after_stdin_close + self.after_terminate + self.after_kill
    }
}

/// How to start a server process, and how to handle it.
///
/// ```
/// use mcp_transport_stdio::{ServerCommand, StderrMode};
/// let cmd = ServerCommand::new("npx")
///     .args(["-y", "@modelcontextprotocol/server-everything"])
///     .env("API_KEY", "secret")
///     .stderr(StderrMode::Capture)
///     .on_stderr_line(|line| eprintln!("server: {line}"));
/// assert!(!format!("{cmd:?}").contains("secret"));
/// ```
///
/// `Debug` never shows environment values, and hides arguments that hold
/// credentials (see [`ServerCommand::secret_arg`]); the client's era cache
/// keys are built from it, so they hold no secret either.
#[derive(Clone)]
pub struct ServerCommand {
    pub(crate) program: OsString,
    pub(crate) args: Vec<OsString>,
    /// Indices of the arguments marked secret ([`ServerCommand::secret_arg`]).
    pub(crate) secret_args: Vec<usize>,
    pub(crate) inherit: EnvInherit,
    /// Explicit settings, in order: `Some` sets, `None` removes.
    pub(crate) env: Vec<(OsString, Option<OsString>)>,
    pub(crate) cwd: Option<PathBuf>,
    pub(crate) stderr: StderrMode,
    pub(crate) stderr_tail_lines: usize,
    pub(crate) on_stderr: Option<StderrCallback>,
    pub(crate) max_line_length: usize,
    pub(crate) shutdown: ShutdownTimeouts,
}

impl ServerCommand {
    /// A command running `program`. A bare name is looked up on the `PATH`
    /// the server will see (with `PATHEXT` on Windows, so `npx` finds
    /// `npx.cmd`); a name with a path separator is used as it is.
    pub fn new(program: impl Into<OsString>) -> Self {
        ServerCommand {
            program: program.into(),
            args: Vec::new(),
            secret_args: Vec::new(),
            inherit: EnvInherit::All,
            env: Vec::new(),
            cwd: None,
            stderr: StderrMode::Capture,
            stderr_tail_lines: 64,
            on_stderr: None,
            max_line_length: DEFAULT_MAX_LINE_LENGTH,
            shutdown: ShutdownTimeouts::default(),
        }
    }

    /// Adds an argument.
    #[must_use]
    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// Adds an argument that is a secret (a token, a password): it is
    /// passed as it is but never shown in `Debug` output, logs or the
    /// client's era cache keys. Arguments that look like credentials, or
    /// follow a flag naming one (`--token X`, `--api-key=X`), and URL query
    /// values are hidden anyway; this is for the ones no rule recognises.
    ///
    /// ```
    /// use mcp_transport_stdio::ServerCommand;
    /// let cmd = ServerCommand::new("my-server")
    ///     .args(["--token", "t0ps3cret", "https://api.example.com/?key=k3y"])
    ///     .arg("--as")
    ///     .secret_arg("hunter2");
    /// let shown = format!("{cmd:?}");
    /// assert!(!["t0ps3cret", "k3y", "hunter2"].iter().any(|s| shown.contains(s)), "{shown}");
    /// ```
    #[must_use]
    pub fn secret_arg(mut self, arg: impl Into<OsString>) -> Self {
        self.secret_args.push(self.args.len());
        self.args.push(arg.into());
        self
    }

    /// Adds arguments.
    #[must_use]
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets an environment variable for the server.
    #[must_use]
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.push((key.into(), Some(value.into())));
        self
    }

    /// Sets several environment variables.
    #[must_use]
    pub fn envs<I, K, V>(mut self, vars: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<OsString>,
        V: Into<OsString>,
    {
        self.env
            .extend(vars.into_iter().map(|(k, v)| (k.into(), Some(v.into()))));
        self
    }

    /// Removes a variable from the server's environment.
    #[must_use]
    pub fn env_remove(mut self, key: impl Into<OsString>) -> Self {
        self.env.push((key.into(), None));
        self
    }

    /// Chooses which variables of the client's environment are inherited.
    #[must_use]
    pub fn env_inherit(mut self, inherit: EnvInherit) -> Self {
        self.inherit = inherit;
        self
    }

    /// Inherits no variable: shorthand for `env_inherit(EnvInherit::None)`.
    #[must_use]
    pub fn env_clear(self) -> Self {
        self.env_inherit(EnvInherit::None)
    }

    /// Sets the server's working directory.
    #[must_use]
    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// Chooses what happens to stderr.
    #[must_use]
    pub fn stderr(mut self, mode: StderrMode) -> Self {
        self.stderr = mode;
        self
    }

    /// How many of the last stderr lines are kept (default 64).
    #[must_use]
    pub fn stderr_tail_lines(mut self, lines: usize) -> Self {
        self.stderr_tail_lines = lines;
        self
    }

    /// Calls `callback` with every stderr line (when captured). It runs on
    /// the task draining stderr: keep it short.
    #[must_use]
    pub fn on_stderr_line(mut self, callback: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.on_stderr = Some(Arc::new(callback));
        self
    }

    /// The longest stdout line accepted from this server, in bytes
    /// (default [`DEFAULT_MAX_LINE_LENGTH`], 16 MiB). A longer line is
    /// discarded and reported as [`Inbound::Oversized`](crate::Inbound::Oversized)
    /// ([`LineTooLong`](crate::LineTooLong) names this cap); the session
    /// goes on. Raise it for a server known to send larger results, lower
    /// it to bound a host that runs many servers.
    #[must_use]
    pub fn max_line_length(mut self, bytes: usize) -> Self {
        self.max_line_length = bytes;
        self
    }

    /// Sets the shutdown time limits.
    #[must_use]
    pub fn shutdown_timeouts(mut self, timeouts: ShutdownTimeouts) -> Self {
        self.shutdown = timeouts;
        self
    }

    /// The program as given.
    pub fn program(&self) -> &OsStr {
        &self.program
    }

    /// The `PATH` the server will see, if known.
    fn child_path(&self) -> Option<OsString> {
        let is_path = |k: &OsStr| {
            if cfg!(windows) {
                k.eq_ignore_ascii_case("PATH")
            } else {
                k == "PATH"
            }
        };
        if let Some((_, v)) = self.env.iter().rev().find(|(k, _)| is_path(k)) {
            return v.clone();
        }
        let inherited = match &self.inherit {
            EnvInherit::All => true,
            EnvInherit::None => false,
            EnvInherit::Only(names) => names.iter().any(|n| is_path(n)),
        };
        if inherited {
            std::env::var_os("PATH")
        } else {
            None
        }
    }

    /// Resolves the program to run.
    pub(crate) fn resolve_program(&self) -> Result<PathBuf, SpawnError> {
        let program = Path::new(&self.program);
        let has_separator = program.components().count() > 1
            || self
                .program
                .as_encoded_bytes()
                .iter()
                .any(|b| *b == b'/' || (cfg!(windows) && *b == b'\\'));
        if has_separator || self.program.is_empty() {
            return Ok(program.to_path_buf());
        }
        let Some(path) = self.child_path() else {
            // No PATH: leave the lookup to the operating system's default.
            return Ok(program.to_path_buf());
        };
        for dir in std::env::split_paths(&path) {
            if dir.as_os_str().is_empty() {
                continue;
            }
            let dir = match (&self.cwd, dir.is_relative()) {
                (Some(cwd), true) => cwd.join(dir),
                _ => dir,
            };
            if let Some(found) = executable_in(&dir, &self.program) {
                return Ok(found);
            }
        }
        Err(SpawnError::NotFound {
            program: self.program.clone(),
        })
    }
}

#[cfg(unix)]
fn executable_in(dir: &Path, program: &OsStr) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let candidate = dir.join(program);
    let meta = std::fs::metadata(&candidate).ok()?;
    (meta.is_file() && meta.permissions().mode() & 0o111 != 0).then_some(candidate)
}

#[cfg(not(unix))]
fn executable_in(dir: &Path, program: &OsStr) -> Option<PathBuf> {
    let candidate = dir.join(program);
    if Path::new(program).extension().is_some() && candidate.is_file() {
        return Some(candidate);
    }
    let exts = std::env::var_os("PATHEXT").unwrap_or_else(|| ".COM;.EXE;.BAT;.CMD".into());
    for ext in exts.to_string_lossy().split(';').filter(|e| !e.is_empty()) {
        let mut name = program.to_os_string();
        name.push(ext);
        let candidate = dir.join(name);
        if candidate.is_file() {
            return Some(candidate);
        }
    }
    None
}

impl fmt::Debug for ServerCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Environment values often hold credentials: show names only. The
        // arguments lose what looks secret (redact.rs).
        let env: Vec<String> = self
            .env
            .iter()
            .map(|(k, v)| match v {
                Some(_) => format!("{}=<redacted>", k.to_string_lossy()),
                None => format!("-{}", k.to_string_lossy()),
            })
            .collect();
        let args: Vec<(String, bool)> = self
            .args
            .iter()
            .enumerate()
            .map(|(i, a)| {
                (
                    a.to_string_lossy().into_owned(),
                    self.secret_args.contains(&i),
                )
            })
            .collect();
        f.debug_struct("ServerCommand")
            .field("program", &self.program)
            .field("args", &crate::redact::redact_args(&args))
            .field("inherit", &self.inherit)
            .field("env", &env)
            .field("cwd", &self.cwd)
            .field("stderr", &self.stderr)
            .field("max_line_length", &self.max_line_length)
            .field("shutdown", &self.shutdown)
            .finish_non_exhaustive()
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn finds_programs_on_the_childs_path() {
        let found = ServerCommand::new("sh").resolve_program();
        assert!(found.is_ok_and(|p| p.is_absolute()));
        let missing = ServerCommand::new("sh")
            .env("PATH", "/nonexistent-dir")
            .resolve_program();
        assert!(matches!(missing, Err(SpawnError::NotFound { .. })));
        let only = ServerCommand::new("sh")
            .env_inherit(EnvInherit::Only(vec!["PATH".into()]))
            .resolve_program();
        assert!(only.is_ok());
        let explicit = ServerCommand::new("./x").env("PATH", "").resolve_program();
        assert_eq!(explicit.ok(), Some(PathBuf::from("./x")));
    }
}
