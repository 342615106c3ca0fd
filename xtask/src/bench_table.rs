//! The side-by-side part of `cargo xtask bench`: client CPU per
//! `tools/call` of the strict floor, rmcp and this SDK, in one run, against
//! the same server, printed as the table of issue 18.
//!
//! Builds, in release mode: the server ([`ServerKind`]: the rmcp-based
//! bench server, `bench/rmcp-server`, or with `--demo-server` the
//! workspace's demo server), the floor and this SDK's client
//! (`bench/clients`, not a workspace member) and the rmcp client
//! (`bench/rmcp-client`), the bench programs into
//! `$XDG_CACHE_HOME/mcp-client-rs/bench-target` (or `$MCP_BENCH_TARGET`), so neither rmcp nor the
//! bench programs' own feature set of shared dependencies touches the
//! project's `target/` (building them there made the next release build
//! of the demo server recompile `ring`); the demo server into `target/`. Every client is a process of its own that
//! connects, warms up and then prints one `BENCH` line per measured run
//! (`bench/common/measure.rs`): its own CPU time per call over the
//! measured calls only, so start-up is not in it.
//!
//! Where the two run ([`Layout`]): as issue 18 measures, the client and the
//! server pinned to one CPU, the same one (`taskset -c 0` for both), so a
//! call's cost is the client's own work and the switches between the two
//! processes; `--split` pins the server to CPU 1 instead, where every reply
//! wakes the client from idle across CPUs (on a virtual machine that wake
//! costs the client more than its own work: the floor's sequential stdio
//! call goes from ~2 to ~20 µs) and the ratios shrink toward 1.
//!
//! One server serves every client (both eras on one process): its cost is
//! outside the client's CPU figure, and one server for all keeps the
//! clients' figures comparable. As issue 18 has it, that server is by
//! default an rmcp-based one (`bench/rmcp-server`, rmcp's crates.io
//! release: over HTTP it answers a 2026-07-28 request with JSON and a
//! 2025-11-25 session's requests with SSE); `--demo-server` serves the
//! clients from the workspace's demo server instead (JSON for both).
//!
//! `--cold-tlb` runs the one-call-at-a-time rows with the client's TLB
//! empty at each of its turns, the server behind relays (`bench_cold.rs`).
//!
//! The clients are built with cargo's default `release` profile, the one
//! the figures are judged by; `--lto` builds every client (the floor and
//! rmcp's too) with `lto = "fat"` and `codegen-units = 1` instead, into a
//! target directory of their own (the server as always), to show what a
//! build tuned for speed gives.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::bench_report::{Cell, Row, Variant, render};
use crate::util;

/// How much work each client process does, and how many rounds.
struct Scale {
    calls: usize,
    big_calls: usize,
    /// Each round runs every client once per scenario (one process, one
    /// measured run); a cell is the median over the rounds.
    rounds: usize,
}

/// A scenario row: label, transport, result bytes (0: `echo`), callers,
/// and the target as a multiple of the floor.
pub(crate) const ROWS: [(&str, &str, usize, usize, f64); 5] = [
    ("stdio, sequential", "stdio", 0, 1, 2.0),
    ("stdio, 32 in flight", "stdio", 0, 32, 2.0),
    ("HTTP, sequential", "http", 0, 1, 1.5),
    ("HTTP, 32 in flight", "http", 0, 32, 1.5),
    ("stdio, 256 KiB results", "stdio", 262_144, 1, 1.1),
];

/// Which server the clients of a run talk to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ServerKind {
    /// `bench/rmcp-server`: rmcp's crates.io release (issue 18's set-up).
    Rmcp,
    /// The workspace's demo server (`--demo-server`).
    Demo,
}

impl ServerKind {
    /// The server `args` ask for: rmcp's unless `--demo-server`.
    pub(crate) fn from_args(args: &[String]) -> ServerKind {
        if args.iter().any(|a| a == "--demo-server") {
            ServerKind::Demo
        } else {
            ServerKind::Rmcp
        }
    }

    /// How the table's heading says it.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            ServerKind::Rmcp => "server: rmcp 3.11.0 (bench/rmcp-server)",
            ServerKind::Demo => "server: the workspace's demo server",
        }
    }
}

/// How the clients are built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Profile {
    /// Cargo's default `release` profile (what the figures are judged by).
    Release,
    /// `release` with `lto = "fat"` and `codegen-units = 1` for every
    /// client (`--lto`): what a build tuned for speed gives. The clients
    /// are built into a target directory of their own (the server is not
    /// built again).
    Lto,
}

impl Profile {
    /// The profile `args` ask for.
    pub(crate) fn from_args(args: &[String]) -> Profile {
        match args.iter().any(|a| a == "--lto") {
            true => Profile::Lto,
            false => Profile::Release,
        }
    }

    /// How the table's heading says it.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Profile::Release => "clients built with the default release profile",
            Profile::Lto => {
                "clients built with lto = \"fat\", codegen-units = 1 (--lto), every one alike"
            }
        }
    }

    /// Sets the profile on a client's build.
    fn apply(self, cargo: &mut Command) {
        if self == Profile::Lto {
            cargo.env("CARGO_PROFILE_RELEASE_LTO", "fat");
            cargo.env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "1");
        }
    }
}

/// The built programs.
pub(crate) struct Programs {
    /// The server that was asked for.
    pub(crate) server: PathBuf,
    pub(crate) floor: PathBuf,
    pub(crate) sdk: PathBuf,
    /// The SDK's parts without its engine (`--parts`).
    pub(crate) parts: PathBuf,
    pub(crate) rmcp: PathBuf,
    /// `bench/clients`' relay (`--cold-tlb`).
    pub(crate) relay: PathBuf,
}

impl Programs {
    /// The client a column's [`Variant::program`] names (`sdk` for any
    /// other name).
    pub(crate) fn client(&self, program: &str) -> &Path {
        match program {
            "floor" => &self.floor,
            "rmcp" => &self.rmcp,
            "parts" => &self.parts,
            _ => &self.sdk,
        }
    }
}

/// `cargo` for the bench's builds, without the variables `cargo run` set
/// for the xtask itself (`CARGO_MANIFEST_DIR`, `CARGO_PKG_*`, ...): build
/// scripts that track them (`ring`'s tracks `CARGO_MANIFEST_DIR`) would
/// otherwise see them change between this build and a plain `cargo build`,
/// and each would rebuild `ring` and everything above it.
pub(crate) fn plain_cargo() -> Command {
    let mut cmd = util::cargo();
    for (name, _) in std::env::vars_os() {
        let Some(name) = name.to_str() else { continue };
        let set_by_cargo_run = name.starts_with("CARGO_MANIFEST_")
            || name.starts_with("CARGO_PKG_")
            || matches!(
                name,
                "CARGO_CRATE_NAME" | "CARGO_BIN_NAME" | "CARGO_PRIMARY_PACKAGE"
            );
        if set_by_cargo_run {
            cmd.env_remove(name);
        }
    }
    cmd
}

/// Builds the workspace's demo server in release mode (with [`plain_cargo`],
/// so the project's next release build reuses what this one built) and
/// returns its path; `label` names the step in the output.
pub(crate) fn build_demo_server(label: &str) -> Result<PathBuf, String> {
    let mut server = plain_cargo();
    server.args([
        "build",
        "--release",
        "-p",
        "demo-server",
        "--bin",
        "demo-server",
    ]);
    util::run(label, &mut server)?;
    Ok(util::root()
        .join("target/release")
        .join(format!("demo-server{}", std::env::consts::EXE_SUFFIX)))
}

/// Where the bench's own programs are built. `MCP_BENCH_TARGET` gives a
/// checkout its own (several worktrees benchmarking at once must not
/// overwrite each other's programs).
pub(crate) fn bench_target() -> PathBuf {
    std::env::var_os("MCP_BENCH_TARGET").map_or_else(
        || crate::install::cache_dir().join("bench-target"),
        PathBuf::from,
    )
}

/// The programs the table needs with the server `server`, built unless
/// `skip_build` (`--no-build`: re-run with the binaries of the last build).
pub(crate) fn build(
    skip_build: bool,
    server: ServerKind,
    profile: Profile,
) -> Result<Programs, String> {
    let root = util::root();
    let bench_target = bench_target();
    // The clients of another profile build into a directory of their own;
    // the server is the same in every run.
    let clients_target = match profile {
        Profile::Release => bench_target.clone(),
        Profile::Lto => {
            let mut dir = bench_target.clone().into_os_string();
            dir.push("-lto");
            PathBuf::from(dir)
        }
    };
    let exe = |dir: &Path, name: &str| {
        dir.join("release")
            .join(format!("{name}{}", std::env::consts::EXE_SUFFIX))
    };
    let target = root.join("target");
    let programs = Programs {
        server: match server {
            ServerKind::Rmcp => exe(&bench_target, "rmcp-bench-server"),
            ServerKind::Demo => exe(&target, "demo-server"),
        },
        floor: exe(&clients_target, "floor"),
        sdk: exe(&clients_target, "sdk"),
        parts: exe(&clients_target, "parts"),
        rmcp: exe(&clients_target, "rmcp-bench-client"),
        relay: exe(&clients_target, "relay"),
    };
    if skip_build {
        return Ok(programs);
    }
    match server {
        ServerKind::Rmcp => build_package(
            "bench: build the rmcp server",
            "bench/rmcp-server/Cargo.toml",
            &bench_target,
            Profile::Release,
        )?,
        ServerKind::Demo => {
            build_demo_server("bench: build the demo server")?;
        }
    }
    build_package(
        "bench: build the floor and the SDK client",
        "bench/clients/Cargo.toml",
        &clients_target,
        profile,
    )?;
    build_package(
        "bench: build the rmcp client",
        "bench/rmcp-client/Cargo.toml",
        &clients_target,
        profile,
    )?;
    Ok(programs)
}

/// Builds one of the bench's own packages (not workspace members, each
/// with its own lockfile) in release mode with `profile`, into `target`;
/// `label` names the step in the output.
fn build_package(
    label: &str,
    manifest: &str,
    target: &Path,
    profile: Profile,
) -> Result<(), String> {
    let mut cargo = plain_cargo();
    cargo.args([
        "build",
        "--release",
        "--manifest-path",
        manifest,
        "--target-dir",
    ]);
    cargo.arg(target);
    profile.apply(&mut cargo);
    util::run(label, &mut cargo)
}

/// Which CPUs the client and the server are pinned to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Layout {
    /// Both on CPU 0: issue 18's measurement.
    Shared,
    /// The client on CPU 0, the server on CPU 1 (`--split`).
    Split,
}

impl Layout {
    /// The layout `args` ask for.
    pub(crate) fn from_args(args: &[String]) -> Layout {
        if args.iter().any(|a| a == "--split") {
            Layout::Split
        } else {
            Layout::Shared
        }
    }

    /// The server's CPU.
    fn server_cpu(self) -> usize {
        match self {
            Layout::Shared => 0,
            Layout::Split => 1,
        }
    }

    /// How the table's heading says it.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Layout::Shared => "client and server pinned to CPU 0",
            Layout::Split => "client pinned to CPU 0, server to CPU 1",
        }
    }
}

/// `taskset -c CPU` before a command line, when the machine has two CPUs
/// and `taskset` exists.
fn pinned(cpu: usize, program: &Path) -> Vec<String> {
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    let has_taskset = Command::new("taskset")
        .arg("-V")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let mut v = Vec::new();
    if cpus >= 2 && has_taskset {
        v.extend(["taskset".to_owned(), "-c".to_owned(), cpu.to_string()]);
    }
    v.push(program.display().to_string());
    v
}

/// The HTTP server (either kind: both print `listening URL` first), on a
/// free loopback port, perhaps behind relays (`--cold-tlb`); killed on
/// drop.
pub(crate) struct HttpServer {
    /// The server, then each relay in front of it.
    children: Vec<std::process::Child>,
    pub(crate) url: String,
}

impl HttpServer {
    pub(crate) fn start(server: &Path, layout: Layout) -> Result<HttpServer, String> {
        let mut http = HttpServer {
            children: Vec::new(),
            url: String::new(),
        };
        http.url = http.listen(
            pinned(layout.server_cpu(), server),
            &["--http", "127.0.0.1:0"],
        )?;
        Ok(http)
    }

    /// The same server behind `relays` of `relay`'s TCP relays on its CPU,
    /// the client's URL the first relay's (`--cold-tlb`).
    pub(crate) fn behind_relays(
        mut self,
        relay: &Path,
        relays: usize,
        layout: Layout,
    ) -> Result<HttpServer, String> {
        for _ in 0..relays {
            let upstream = self.url.clone();
            self.url = self.listen(pinned(layout.server_cpu(), relay), &["--tcp", &upstream])?;
        }
        Ok(self)
    }

    /// Starts `argv` with `args`, keeps it, and returns the URL its first
    /// line gives.
    fn listen(&mut self, argv: Vec<String>, args: &[&str]) -> Result<String, String> {
        let mut child = Command::new(&argv[0])
            .args(&argv[1..])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("start {}: {e}", argv.join(" ")))?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        self.children.push(child);
        let mut line = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line)
            .map_err(|e| format!("read the address of {}: {e}", argv.join(" ")))?;
        Ok(line
            .trim()
            .strip_prefix("listening ")
            .ok_or_else(|| format!("unexpected first line from {}: {line:?}", argv.join(" ")))?
            .to_owned())
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The server every client of a run talks to, and where it runs.
#[derive(Clone, Copy)]
struct Peer<'a> {
    /// The HTTP server's URL.
    url: &'a str,
    /// The server's program (each stdio client starts one).
    server: &'a Path,
    layout: Layout,
    /// `--cold-tlb`: the relay a stdio server is started behind,
    /// [`RELAYS`](crate::bench_cold::RELAYS) times over.
    relay: Option<&'a Path>,
}

impl Peer<'_> {
    /// The command line that starts a stdio server, pinned.
    fn stdio_server(&self) -> Vec<String> {
        let cpu = self.layout.server_cpu();
        let Some(relay) = self.relay else {
            return pinned(cpu, self.server);
        };
        let mut argv = pinned(cpu, relay);
        argv.extend((1..crate::bench_cold::RELAYS).map(|_| relay.display().to_string()));
        argv.push(self.server.display().to_string());
        argv
    }
}

/// Runs one client process and reads its figures.
fn measure(
    program: &Path,
    variant: &Variant,
    row: (&str, &str, usize, usize, f64),
    era: &str,
    scale: &Scale,
    peer: &Peer<'_>,
) -> Result<Cell, String> {
    let url = peer.url;
    let (_, via, bytes, workers, _) = row;
    let calls = if bytes > 0 {
        scale.big_calls
    } else {
        scale.calls
    };
    let argv = pinned(0, program);
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..]);
    cmd.args(["--via", via, "--era", era, "--runtime", variant.runtime]);
    cmd.args([
        "--bytes",
        &bytes.to_string(),
        "--workers",
        &workers.to_string(),
    ]);
    cmd.args(["--calls", &calls.to_string(), "--reps", "1"]);
    cmd.args(["--url", url]);
    if variant.pooled {
        cmd.arg("--pooled");
    }
    cmd.arg("--");
    cmd.args(peer.stdio_server());
    cmd.arg("--stdio");
    let out = cmd
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("start {}: {e}", program.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "{} ({era}, {}) failed: {}",
            variant.name,
            row.0,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Cell::parse(&text).ok_or_else(|| format!("{}: no BENCH lines in {text:?}", variant.name))
}

/// Runs the side-by-side table; `args` may hold `--quick`, `--no-build`,
/// `--split`, `--demo-server`, `--lto`, `--hot-first`, `--parts` and
/// `--cold-tlb`.
///
/// The clients do not run one after the other, each its runs in a row: a
/// virtual machine's speed drifts by tens of percent over minutes, and a
/// client measured in a slow minute would look worse against a floor
/// measured in a fast one. Instead every scenario runs in rounds, each
/// round running every client once (in an order that rotates from round to
/// round), and a client's ratio to the floor is the median of the rounds'
/// ratios: a slow stretch slows both sides of most of them.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let mut scale = if args.iter().any(|a| a == "--quick") {
        Scale {
            calls: 600,
            big_calls: 60,
            rounds: 3,
        }
    } else {
        Scale {
            calls: 1500,
            big_calls: 150,
            rounds: 11,
        }
    };
    // More rounds for a steadier median where the machine's speed drifts.
    scale.rounds = crate::util::count_flag(args, "--rounds", scale.rounds)?.unwrap_or(scale.rounds);
    let server = ServerKind::from_args(args);
    let profile = Profile::from_args(args);
    let p = build(args.iter().any(|a| a == "--no-build"), server, profile)?;
    let layout = Layout::from_args(args);
    let cold_tlb = args.iter().any(|a| a == "--cold-tlb");
    let mut http = HttpServer::start(&p.server, layout)?;
    println!(
        "bench: {}; {}; {}",
        layout.describe(),
        server.describe(),
        profile.describe()
    );
    if cold_tlb {
        println!("bench: {}", crate::bench_cold::describe());
    }
    let mut variants = Variant::all();
    // `--parts`: this SDK's per-call parts without its engine (one call at
    // a time).
    if args.iter().any(|a| a == "--parts") {
        Variant::add_parts(&mut variants);
    }
    // `--hot-first`: the SDK's client linked with a call's functions
    // together, and with only the SDK's own of them together, beside the
    // plain one (`bench_layout.rs`; release profile). Without valgrind or
    // LLD the table runs without the columns.
    let hot_first = match args.iter().any(|a| a == "--hot-first") && profile == Profile::Release {
        true => match crate::bench_layout::link(&p.sdk, &bench_target(), &http.url, &p.server) {
            Ok(links) => {
                for (name, program) in [
                    ("SDK current-thread, its own functions first", "sdk-hot-own"),
                    ("SDK current-thread, hot-first link", "sdk-hot-first"),
                ] {
                    variants.push(Variant {
                        name,
                        program,
                        runtime: "ct",
                        pooled: false,
                    });
                }
                Some(links)
            }
            Err(e) => {
                eprintln!("bench: no hot-first columns: {e}");
                None
            }
        },
        false => None,
    };
    // After the hot-first link, which profiles its client against the
    // server itself.
    if cold_tlb {
        http = http.behind_relays(&p.relay, crate::bench_cold::RELAYS, layout)?;
    }
    let peer = Peer {
        url: &http.url,
        server: &p.server,
        layout,
        relay: cold_tlb.then_some(p.relay.as_path()),
    };
    for era in ["legacy", "modern"] {
        let mut rows = Vec::new();
        for row in ROWS
            .into_iter()
            .filter(|r| !cold_tlb || crate::bench_cold::runs(r.3))
        {
            // runs[v][round]: client v's figures in that round.
            let mut runs: Vec<Vec<Option<Cell>>> = vec![Vec::new(); variants.len()];
            for round in 0..scale.rounds {
                for k in 0..variants.len() {
                    let i = (k + round) % variants.len();
                    let v = &variants[i];
                    if !v.runs_over(row.1, row.3) {
                        continue;
                    }
                    let program = match (v.program, &hot_first) {
                        ("sdk-hot-first", Some(links)) => &links.all,
                        ("sdk-hot-own", Some(links)) => &links.own,
                        (program, _) => p.client(program),
                    };
                    let copy = match cold_tlb {
                        true => Some(crate::bench_cold::fresh_copy(program)?),
                        false => None,
                    };
                    let program = copy.as_deref().unwrap_or(program);
                    let cell = measure(program, v, row, era, &scale, &peer)
                        .map_err(|e| eprintln!("bench: {e}"))
                        .ok();
                    runs[i].push(cell);
                }
            }
            rows.push(Row::measured(row.0, row.4, &variants, &runs));
        }
        println!("{}", render(era, &variants, &rows, scale.rounds));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cold_stdio_server_starts_behind_every_relay() {
        let peer = |relay| Peer {
            url: "",
            server: Path::new("/bin/server"),
            layout: Layout::Shared,
            relay,
        };
        let plain = peer(None).stdio_server();
        assert_eq!(plain.last().map(String::as_str), Some("/bin/server"));
        let argv = peer(Some(Path::new("/bin/relay"))).stdio_server();
        let relays = argv.iter().filter(|a| *a == "/bin/relay").count();
        assert_eq!(relays, crate::bench_cold::RELAYS);
        assert_eq!(argv.len(), plain.len() + relays);
        assert_eq!(argv.last().map(String::as_str), Some("/bin/server"));
    }
}
