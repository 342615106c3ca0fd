//! The CLI part of `cargo xtask bench`: the `mcp` binary next to the MCP
//! Inspector's `mcpdo` (npm `@modelcontextprotocol/inspector`
//! [`INSPECTOR_VERSION`], installed by this bench into the peers cache and
//! run with its Node 22), both against the release `demo-server` over stdio.
//!
//! Two figures, each the median and p90 of N runs (20, `--quick` 5), wall
//! time of real processes as a user's shell would see them:
//!
//! * **Start-up to first output of a tool list.** `mcp tools list --
//!   demo-server`: from spawning `mcp` to the first byte on its stdout.
//!   `mcpdo` has no one-shot mode, so it does the nearest thing, `mcpdo
//!   connect demo` then `mcpdo @demo tools/list`, timed from the first spawn
//!   to the first byte of the list: once with no daemon running (what a
//!   fresh shell pays) and once with its daemon already up.
//! * **`tools/call` on a held connection.** After `mcp connect bench --
//!   demo-server` (resp. `mcpdo connect demo`), one `mcp @bench tools call
//!   echo text=hi` (resp. `mcpdo @demo tools/call echo text:=hi`) process,
//!   spawn to exit.
//!
//! Every run's output is checked (the tool list names `echo`, the call
//! prints `hi`), so a failing client cannot post a fast time. Each client
//! gets private state: `mcp` a fresh `XDG_RUNTIME_DIR`, `mcpdo` its own
//! daemon dir, catalog, `HOME` and an in-memory secret store. There are no
//! timing assertions: the table is for people.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::{install, util};

/// The Inspector release measured (the first 2.x line that ships `mcpdo`
/// with held connections and `--era`).
const INSPECTOR_VERSION: &str = "2.12.0";

/// Runs the CLI benchmark; `--quick` makes 5 runs per figure instead of 20.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let runs = if args.iter().any(|a| a == "--quick") {
        5
    } else {
        20
    };
    let mut build = util::cargo();
    build.args([
        "build",
        "--release",
        "-p",
        "mcp-cli",
        "-p",
        "demo-server",
        "--bin",
        "mcp",
        "--bin",
        "demo-server",
    ]);
    util::run("bench cli: build mcp and the demo server", &mut build)?;
    let release = util::root().join("target").join("release");
    let exe = |name: &str| release.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    let (mcp, demo) = (exe("mcp"), exe("demo-server"));
    let peers = install::ensure()?;
    let mcpdo = Mcpdo::install(&peers)?;
    let scratch = std::env::temp_dir().join(format!("xtask-bench-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).map_err(|e| format!("cannot create scratch dir: {e}"))?;
    let ours = Ours {
        exe: mcp,
        demo: demo.clone(),
        runtime: scratch.join("mcp-runtime"),
    };
    let theirs = mcpdo.isolated(&scratch.join("mcpdo"), &demo)?;
    println!("==> bench cli: {runs} runs per figure (mcp vs mcpdo {INSPECTOR_VERSION})");
    let mut rows = Vec::new();
    rows.push(row(
        "tools list, start to first output",
        "mcp",
        runs,
        || ours.one_shot_list(),
    )?);
    rows.push(row(
        "tools list, start to first output",
        "mcpdo (connect + tools/list, no daemon)",
        runs,
        || theirs.cold_list(),
    )?);
    theirs.start_daemon()?;
    rows.push(row(
        "tools list, start to first output",
        "mcpdo (connect + tools/list, daemon up)",
        runs,
        || theirs.warm_list(),
    )?);
    theirs.connect()?;
    rows.push(row(
        "tools/call on a held connection",
        "mcpdo",
        runs,
        || theirs.held_call(),
    )?);
    theirs.stop();
    ours.connect()?;
    rows.push(row("tools/call on a held connection", "mcp", runs, || {
        ours.held_call()
    })?);
    ours.disconnect();
    print_table(&rows);
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(())
}

/// One line of the table.
struct Row {
    what: &'static str,
    client: &'static str,
    median: Duration,
    p90: Duration,
    runs: usize,
}

/// Times `once` `runs` times (after one unmeasured warm-up run).
fn row(
    what: &'static str,
    client: &'static str,
    runs: usize,
    mut once: impl FnMut() -> Result<Duration, String>,
) -> Result<Row, String> {
    once().map_err(|e| format!("{client}: {what}: {e}"))?;
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        times.push(once().map_err(|e| format!("{client}: {what}: {e}"))?);
    }
    times.sort();
    let at = |q: f64| {
        // Nearest rank; the index is within 0..runs.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let i = ((q * times.len() as f64).ceil() as usize).clamp(1, times.len()) - 1;
        times[i]
    };
    let r = Row {
        what,
        client,
        median: at(0.5),
        p90: at(0.9),
        runs,
    };
    println!(
        "    {what} | {client}: median {:.1} ms",
        r.median.as_secs_f64() * 1e3
    );
    Ok(r)
}

fn print_table(rows: &[Row]) {
    println!();
    println!(
        "| {:<34} | {:<40} | {:>10} | {:>10} | {:>4} |",
        "figure", "client", "median ms", "p90 ms", "runs"
    );
    println!(
        "|{:-<36}|{:-<42}|{:->12}|{:->12}|{:->6}|",
        "", "", "", "", ""
    );
    for r in rows {
        println!(
            "| {:<34} | {:<40} | {:>10.1} | {:>10.1} | {:>4} |",
            r.what,
            r.client,
            r.median.as_secs_f64() * 1e3,
            r.p90.as_secs_f64() * 1e3,
            r.runs
        );
    }
}

/// Spawns `cmd` and returns the time to the first stdout byte whose output
/// (read to the end) contains `expect`; fails on a bad exit or output.
fn first_output(cmd: &mut Command, started: Instant, expect: &str) -> Result<Duration, String> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {cmd:?}: {e}"))?;
    let mut stdout = child.stdout.take().ok_or("no stdout pipe")?;
    let mut first = [0u8; 1];
    let n = stdout.read(&mut first).map_err(|e| e.to_string())?;
    let at = started.elapsed();
    let mut rest = Vec::new();
    let _ = stdout.read_to_end(&mut rest);
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&first[..n]),
        String::from_utf8_lossy(&rest)
    );
    if !out.status.success() || !text.contains(expect) {
        return Err(format!(
            "{cmd:?} exited {} without {expect:?} on stdout: {}{}",
            out.status,
            text.trim(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(at)
}

/// Runs `cmd` to its end, failing on a bad exit.
fn quiet(cmd: &mut Command) -> Result<(), String> {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot start {cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{cmd:?} failed ({}): {}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout).trim(),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// This repository's `mcp`.
struct Ours {
    exe: PathBuf,
    demo: PathBuf,
    runtime: PathBuf,
}

impl Ours {
    fn cmd(&self) -> Command {
        let mut c = Command::new(&self.exe);
        c.env("XDG_RUNTIME_DIR", &self.runtime).env("NO_COLOR", "1");
        c
    }

    fn one_shot_list(&self) -> Result<Duration, String> {
        let mut c = self.cmd();
        c.args(["tools", "list", "--"]).arg(&self.demo);
        first_output(&mut c, Instant::now(), "echo(")
    }

    fn connect(&self) -> Result<(), String> {
        std::fs::create_dir_all(&self.runtime).map_err(|e| e.to_string())?;
        quiet(self.cmd().args(["connect", "bench", "--"]).arg(&self.demo))
    }

    fn held_call(&self) -> Result<Duration, String> {
        let started = Instant::now();
        first_output(
            self.cmd()
                .args(["@bench", "tools", "call", "echo", "text=hi"]),
            started,
            "hi",
        )?;
        Ok(started.elapsed())
    }

    fn disconnect(&self) {
        let _ = quiet(self.cmd().args(["disconnect", "bench"]));
    }
}

/// The Inspector's `mcpdo`, installed.
struct Mcpdo {
    node: PathBuf,
    script: PathBuf,
}

impl Mcpdo {
    /// Installs `@modelcontextprotocol/inspector@INSPECTOR_VERSION` into
    /// `<cache>/inspector` (skipped when its stamp matches).
    fn install(peers: &install::Peers) -> Result<Mcpdo, String> {
        let dir = install::cache_dir().join("inspector");
        let package = format!("@modelcontextprotocol/inspector@{INSPECTOR_VERSION}");
        let stamp_file = dir.join(".mcp-client-rs-stamp");
        let script =
            dir.join("node_modules/@modelcontextprotocol/inspector/clients/mcpdo/build/mcp-bin.js");
        let stamp = format!("{package}\n");
        let current = std::fs::read_to_string(&stamp_file).is_ok_and(|s| s == stamp);
        if !current || !script.is_file() {
            std::fs::create_dir_all(&dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            util::run(
                "bench cli: install the MCP Inspector (mcpdo)",
                Command::new("npm")
                    .args(["install", "--no-audit", "--no-fund", "--prefix"])
                    .arg(&dir)
                    .arg(&package)
                    .env("PATH", peers.path_env()?),
            )?;
            std::fs::write(&stamp_file, &stamp)
                .map_err(|e| format!("cannot write {}: {e}", stamp_file.display()))?;
        }
        if !script.is_file() {
            return Err(format!("installed, but {} is missing", script.display()));
        }
        Ok(Mcpdo {
            node: peers.node.clone(),
            script,
        })
    }

    /// An `mcpdo` with all its state under `dir` and a catalog naming the
    /// demo server `demo`.
    fn isolated(&self, dir: &Path, demo: &Path) -> Result<Isolated, String> {
        let home = dir.join("home");
        std::fs::create_dir_all(&home).map_err(|e| e.to_string())?;
        let catalog = dir.join("catalog.json");
        let entry = serde_json::json!({ "mcpServers": { "demo": { "command": demo } } });
        std::fs::write(&catalog, entry.to_string()).map_err(|e| e.to_string())?;
        Ok(Isolated {
            node: self.node.clone(),
            script: self.script.clone(),
            home,
            catalog,
            daemon: dir.join("daemon"),
        })
    }
}

/// `mcpdo` with private state.
struct Isolated {
    node: PathBuf,
    script: PathBuf,
    home: PathBuf,
    catalog: PathBuf,
    daemon: PathBuf,
}

impl Isolated {
    fn cmd(&self) -> Command {
        let mut c = Command::new(&self.node);
        c.arg(&self.script)
            .env("HOME", &self.home)
            .env("MCP_CATALOG_PATH", &self.catalog)
            .env("MCP_INSPECTOR_DAEMON_DIR", &self.daemon)
            .env("MCP_INSPECTOR_SECRET_STORE", "memory")
            .env("NO_COLOR", "1");
        c
    }

    fn connect(&self) -> Result<(), String> {
        quiet(self.cmd().args(["connect", "--era", "auto", "demo"]))
    }

    fn list(&self, started: Instant) -> Result<Duration, String> {
        self.connect()?;
        let at = first_output(self.cmd().args(["@demo", "tools/list"]), started, "echo(")?;
        quiet(self.cmd().args(["disconnect", "demo"]))?;
        Ok(at)
    }

    /// Connect and list with no daemon running (it is stopped after).
    fn cold_list(&self) -> Result<Duration, String> {
        let at = self.list(Instant::now())?;
        self.stop();
        Ok(at)
    }

    fn start_daemon(&self) -> Result<(), String> {
        self.connect()?;
        quiet(self.cmd().args(["disconnect", "demo"]))
    }

    fn warm_list(&self) -> Result<Duration, String> {
        self.list(Instant::now())
    }

    fn held_call(&self) -> Result<Duration, String> {
        let started = Instant::now();
        first_output(
            self.cmd().args(["@demo", "tools/call", "echo", "text:=hi"]),
            started,
            "hi",
        )?;
        Ok(started.elapsed())
    }

    /// Stops the daemon (waits for it to go).
    fn stop(&self) {
        let _ = quiet(self.cmd().args(["daemon", "stop"]));
    }
}
