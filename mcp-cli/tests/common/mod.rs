//! Running the real binaries: `mcp` (this package's) and `demo-server`
//! (built once when missing), with a deadline so a hang fails the test
//! instead of stalling it.

#![allow(dead_code, unreachable_pub, reason = "each test file uses a part")]

pub mod loopback;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::sync::mpsc;

use std::time::Duration;

/// The longest one `mcp` run may take in a test.
const DEADLINE: Duration = Duration::from_secs(60);

/// The `mcp` binary.
pub fn mcp_exe() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_mcp"))
}

/// The `demo-server` binary of this workspace, built once per test process
/// (a no-op when fresh, so never a stale copy).
pub fn demo_exe() -> PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let dir = mcp_exe()
            .parent()
            .map(PathBuf::from)
            .expect("the target directory");
        let exe = dir.join(format!("demo-server{}", std::env::consts::EXE_SUFFIX));
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = Command::new(cargo)
            .args(["build", "-q", "-p", "demo-server"])
            .status()
            .expect("run cargo build");
        assert!(status.success(), "building demo-server failed");
        exe
    })
    .clone()
}

/// Runs `mcp ARGS` with no stdin and waits (at most [`DEADLINE`]). Held
/// connections live in a runtime dir of this test process.
pub fn mcp(args: &[&str]) -> Output {
    static RUNTIME: OnceLock<PathBuf> = OnceLock::new();
    let runtime = RUNTIME.get_or_init(|| temp_dir("runtime"));
    mcp_in(runtime, args)
}

/// `mcp ARGS` with `XDG_RUNTIME_DIR=runtime`, no stdin, stdout and stderr
/// piped, and no `NO_COLOR` or `MCP_BEARER_TOKEN` from the test's caller.
pub fn mcp_command(runtime: &std::path::Path, args: &[&str]) -> Command {
    let mut c = Command::new(mcp_exe());
    c.args(args)
        .env("XDG_RUNTIME_DIR", runtime)
        .env_remove("NO_COLOR")
        .env_remove("MCP_BEARER_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

/// Runs `mcp ARGS` with `XDG_RUNTIME_DIR=runtime`.
pub fn mcp_in(runtime: &std::path::Path, args: &[&str]) -> Output {
    let child = mcp_command(runtime, args).spawn().expect("start mcp");
    wait(child)
}

/// Runs `mcp ARGS -- demo-server SERVER_ARGS`.
pub fn mcp_stdio(args: &[&str], server_args: &[&str]) -> Output {
    let demo = demo_exe();
    let mut all: Vec<&str> = args.to_vec();
    all.push("--");
    all.push(demo.to_str().expect("a UTF-8 path"));
    all.extend_from_slice(server_args);
    mcp(&all)
}

/// Waits for a child's output; kills it and fails after [`DEADLINE`].
pub fn wait(child: Child) -> Output {
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(DEADLINE) {
        Ok(out) => out.expect("wait for mcp"),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("mcp did not finish within {DEADLINE:?}");
        }
    }
}

/// A fresh private directory under the target dir.
pub fn temp_dir(name: &str) -> PathBuf {
    let base = mcp_exe()
        .parent()
        .map(|d| d.join("mcp-cli-tests"))
        .expect("the target directory");
    let dir = base.join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the test dir");
    dir
}

/// `demo-server --http 127.0.0.1:0`, stopped on drop.
pub struct HttpServer {
    child: Child,
    /// The endpoint, `http://127.0.0.1:PORT/mcp`.
    pub url: String,
}

impl HttpServer {
    /// Starts the server and reads its `listening URL` line.
    pub fn start(exe: PathBuf) -> HttpServer {
        let mut child = Command::new(exe)
            .args(["--http", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start demo-server --http");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("read the listening line");
        let url = line
            .trim()
            .strip_prefix("listening ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_owned();
        HttpServer { child, url }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
