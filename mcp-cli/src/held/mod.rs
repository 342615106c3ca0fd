//! Held connections: `mcp connect NAME -- ...`, later commands with
//! `@NAME` (or the most recent connection), `mcp disconnect`.
//!
//! A small per-user background process (`mcp daemon`, started on the
//! first `connect`) owns the [`Client`](mcp_client::Client)s. `mcp` talks
//! to it over a Unix socket in a directory only the user can open (0700,
//! in `$XDG_RUNTIME_DIR/mcp-cli`, else `<tmp>/mcp-cli-<uid>`; the socket
//! itself is 0600): one JSON request line, then the command's output as
//! JSON lines and a final exit code. The holder runs the very same command
//! code as a one-shot run, so every command works both ways. It exits
//! when it holds no connection (after a short grace) or has been idle for
//! 30 minutes. Closing the socket (Ctrl-C in `mcp`) cancels the command
//! in flight. Server requests for input (elicitation, sampling) are
//! declined on held connections: there is no terminal to ask on.

pub(crate) mod daemon;
pub(crate) mod pending;

use std::io::ErrorKind;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;

use crate::exit::{CliError, Exit};

/// The longest request or frame line accepted (bytes).
pub(crate) const MAX_LINE: usize = 8 * 1024 * 1024;

/// The private directory of the socket, created 0700 when missing and
/// refused when someone else owns it or others may open it.
pub(crate) fn socket_dir() -> Result<PathBuf, CliError> {
    let uid = std::fs::metadata("/proc/self").map(|m| m.uid()).ok();
    let dir = match std::env::var_os("XDG_RUNTIME_DIR").filter(|v| !v.is_empty()) {
        Some(run) => PathBuf::from(run).join("mcp-cli"),
        None => std::env::temp_dir().join(format!("mcp-cli-{}", uid.unwrap_or(0))),
    };
    match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
        Err(e) => {
            return Err(CliError::transport(format!(
                "cannot create {}: {e}",
                dir.display()
            )));
        }
    }
    let meta = std::fs::symlink_metadata(&dir)
        .map_err(|e| CliError::transport(format!("cannot inspect {}: {e}", dir.display())))?;
    let foreign = uid.is_some_and(|u| meta.uid() != u);
    if !meta.is_dir() || foreign || meta.permissions().mode() & 0o077 != 0 {
        return Err(CliError::transport(format!(
            "{} is not a private directory of this user (it must be ours, mode 0700)",
            dir.display()
        )));
    }
    Ok(dir)
}

/// The socket path.
pub(crate) fn socket_path() -> Result<PathBuf, CliError> {
    Ok(socket_dir()?.join("daemon.sock"))
}

/// Sends one request to the holder and relays its output; returns the
/// command's exit code. `start` starts the holder when none runs.
pub(crate) async fn request(req: &Value, start: bool) -> Result<Exit, CliError> {
    let path = socket_path()?;
    let stream = match UnixStream::connect(&path).await {
        Ok(s) => s,
        Err(_) if start => spawn_daemon(&path).await?,
        Err(_) => {
            return Err(CliError::usage(
                "no held connection (none was made, or the holder exited): give a server \
                 (`-- SERVER...`, `--url URL`, `--server NAME`) or hold one with \
                 `mcp connect NAME -- SERVER...`",
            ));
        }
    };
    let (read, mut write) = stream.into_split();
    let mut line = serde_json::to_vec(req).map_err(|e| CliError::usage(e.to_string()))?;
    line.push(b'\n');
    write
        .write_all(&line)
        .await
        .map_err(|e| CliError::transport(format!("the connection holder: {e}")))?;
    let mut lines = BufReader::new(read).lines();
    while let Some(frame) = lines
        .next_line()
        .await
        .map_err(|e| CliError::transport(format!("the connection holder: {e}")))?
    {
        let frame: Value = serde_json::from_str(&frame).map_err(|e| {
            CliError::transport(format!("the connection holder sent bad output: {e}"))
        })?;
        if let Some(text) = frame.get("out").and_then(Value::as_str) {
            outln!("{text}");
        } else if let Some(text) = frame.get("err").and_then(Value::as_str) {
            errln!("{text}");
        } else if let Some(code) = frame.get("exit").and_then(Value::as_u64) {
            if let Some(message) = frame.get("error").and_then(Value::as_str) {
                return Err(CliError {
                    message: message.to_owned(),
                    exit: exit_of(code),
                });
            }
            return Ok(exit_of(code));
        }
    }
    Err(CliError::transport(
        "the connection holder ended without an answer",
    ))
}

fn exit_of(code: u64) -> Exit {
    match code {
        0 => Exit::Ok,
        1 => Exit::ToolError,
        2 => Exit::Usage,
        3 => Exit::Protocol,
        5 => Exit::Timeout,
        130 => Exit::Interrupted,
        _ => Exit::Transport,
    }
}

/// Starts `mcp daemon` detached and waits (5 s at most) for its socket.
async fn spawn_daemon(path: &std::path::Path) -> Result<UnixStream, CliError> {
    use std::os::unix::process::CommandExt;
    let exe = std::env::current_exe()
        .map_err(|e| CliError::transport(format!("cannot find the mcp binary: {e}")))?;
    std::process::Command::new(exe)
        .arg("daemon")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(|e| CliError::transport(format!("cannot start the connection holder: {e}")))?;
    let started = Instant::now();
    loop {
        if let Ok(s) = UnixStream::connect(path).await {
            return Ok(s);
        }
        if started.elapsed() > Duration::from_secs(5) {
            return Err(CliError::transport(format!(
                "the connection holder did not open {}",
                path.display()
            )));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Takes `@NAME` out of the arguments (not the value of `--args`; run
/// after [`split_target`](crate::args::split_target), which turns `--json
/// @FILE` after `call`/`get` into `--args @FILE`).
pub(crate) fn take_at_name(args: &mut Vec<String>) -> Option<String> {
    let pos = (1..args.len())
        .find(|&i| args[i].len() > 1 && args[i].starts_with('@') && args[i - 1] != "--args")?;
    Some(args.remove(pos)[1..].to_owned())
}

/// The request that runs `argv` on the held connection `name` (or the
/// most recent one).
pub(crate) fn run_request(name: Option<&str>, argv: &[String]) -> Value {
    json!({ "op": "run", "name": name, "argv": argv })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_name_is_taken_but_not_an_args_file() {
        let mut a: Vec<String> = [
            "mcp", "--json", "@dev", "tools", "call", "x", "--args", "@f.json",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        assert_eq!(take_at_name(&mut a), Some("dev".into()));
        assert_eq!(
            a,
            ["mcp", "--json", "tools", "call", "x", "--args", "@f.json"]
        );
        assert_eq!(take_at_name(&mut a), None);
    }
}
