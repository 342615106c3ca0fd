//! The host benchmark (`cargo xtask bench`, or `cargo bench -p mcp-host
//! --bench host -- --server PATH`): 100 stdio demo servers from one
//! config, time until all are ready, memory per server (the host process's
//! growth and the servers' own resident size), and a `tools/call` routed
//! through the host against the same call on the server's `Client`
//! directly (the host's overhead per call). `--quick` makes fewer calls.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use mcp_host::config::{Config, Vars};
use mcp_host::{Host, HostOptions};
use serde_json::json;

const SERVERS: usize = 100;

struct Args {
    server: PathBuf,
    calls: usize,
    servers: usize,
}

fn args() -> Result<Args, String> {
    let mut server = None;
    let mut calls = 2000;
    let mut bench = false;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--server" => server = it.next().map(PathBuf::from),
            "--quick" => calls = 300,
            "--bench" => bench = true,
            _ => {}
        }
    }
    if bench {
        let server = server.ok_or("--server PATH (the demo-server binary) is required")?;
        return Ok(Args {
            server,
            calls,
            servers: SERVERS,
        });
    }
    // `cargo test --all-targets` runs this without `--bench`: a small smoke
    // run on the debug demo-server it built, so the bench stays working.
    let server = match server {
        Some(s) => s,
        None => std::env::current_exe()
            .map_err(|e| format!("own path: {e}"))?
            .parent()
            .and_then(|deps| deps.parent())
            .map(|dir| dir.join(format!("demo-server{}", std::env::consts::EXE_SUFFIX)))
            .filter(|p| p.is_file())
            .ok_or("no --server given and no demo-server binary beside this one")?,
    };
    Ok(Args {
        server,
        calls: 20,
        servers: 3,
    })
}

/// The resident set size of a process in KiB (Linux `/proc`), if known.
fn rss_kib(pid: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The summed RSS of this process's direct children, and how many there are.
fn children_rss_kib() -> Option<(u64, usize)> {
    let me = std::process::id().to_string();
    let mut total = 0;
    let mut count = 0;
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{name}/stat")) else {
            continue;
        };
        // Field 4 (ppid) follows the parenthesised command name.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1));
        if ppid == Some(me.as_str()) {
            total += rss_kib(&name).unwrap_or(0);
            count += 1;
        }
    }
    Some((total, count))
}

fn config(server: &std::path::Path, servers: usize) -> Config {
    let command = serde_json::to_string(&server.display().to_string()).unwrap_or_default();
    let entries: Vec<String> = (0..servers)
        .map(|i| format!(r#""s{i:03}": {{"command": {command}, "mcpHost": {{"era": "legacy"}}}}"#))
        .collect();
    let text = format!(r#"{{"mcpServers": {{{}}}}}"#, entries.join(","));
    Config::parse_with(&text, &Vars::from_map([("HOME", "/")])).unwrap_or_default()
}

/// The median of per-call latencies of `calls` calls made by `call`.
async fn median<F, Fut>(calls: usize, mut call: F) -> Duration
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let mut times = Vec::with_capacity(calls);
    for _ in 0..calls {
        let t = Instant::now();
        assert!(call().await, "a benchmark call failed");
        times.push(t.elapsed());
    }
    times.sort_unstable();
    times[times.len() / 2]
}

async fn run(args: Args) -> Result<(), String> {
    let config = config(&args.server, args.servers);
    if config.servers.len() != args.servers {
        return Err(format!("config has {} servers", config.servers.len()));
    }
    let rss_before = rss_kib("self");
    let mut options = HostOptions::default();
    options.startup_bound = Duration::from_secs(120);
    let started = Instant::now();
    let host = Host::builder().options(options).start(&config).await;
    let ready_after = started.elapsed();
    let ready = host.states().iter().filter(|(_, s)| s.is_ready()).count();
    println!(
        "host: {ready}/{} stdio demo servers ready in {ready_after:.2?}",
        args.servers
    );
    if ready != args.servers {
        let states = host.states();
        let other = states.iter().find(|(_, s)| !s.is_ready());
        return Err(format!("only {ready} servers ready; for example {other:?}"));
    }
    match (rss_before, rss_kib("self")) {
        (Some(b), Some(a)) => println!(
            "host: host process grew {} KiB, {:.1} KiB per server",
            a.saturating_sub(b),
            a.saturating_sub(b) as f64 / args.servers as f64
        ),
        _ => println!("host: host process RSS unavailable on this platform"),
    }
    if let Some((kib, n)) = children_rss_kib() {
        println!(
            "host: {n} server processes, {:.0} KiB RSS each",
            kib as f64 / n.max(1) as f64
        );
    }
    println!(
        "host: catalogue of {} tools, {} prompts, {} resources",
        host.catalogue().tools.len(),
        host.catalogue().prompts.len(),
        host.catalogue().resources.len()
    );

    // A server in the middle of the config.
    let label = format!("s{:03}", args.servers / 2);
    let qualified = format!("{label}__echo");
    let client = host
        .client(&label)
        .ok_or_else(|| format!("{label} has no client"))?;
    let arguments = json!({ "text": "x" });
    // Interleaved rounds on the same connection: the difference is the
    // host's catalogue lookup and routing.
    let mut routed = Vec::new();
    let mut direct = Vec::new();
    for _ in 0..5 {
        let a = arguments.clone();
        routed.push(
            median(args.calls / 5, || async {
                host.call_tool(&qualified, a.clone()).await.is_ok()
            })
            .await,
        );
        let a = arguments.clone();
        direct.push(
            median(args.calls / 5, || async {
                client.call_tool("echo", a.clone()).await.is_ok()
            })
            .await,
        );
    }
    routed.sort_unstable();
    direct.sort_unstable();
    let (r, d) = (routed[2], direct[2]);
    println!(
        "host: tools/call p50 routed {r:.1?}, direct {d:.1?}, host overhead {:.1?} per call ({} calls each)",
        r.saturating_sub(d),
        args.calls
    );
    let closing = Instant::now();
    host.close().await;
    println!(
        "host: closed {} servers in parallel in {:.2?}",
        args.servers,
        closing.elapsed()
    );
    Ok(())
}

fn main() {
    let args = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("bench host: {e}");
            std::process::exit(2);
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("runtime: {e}"));
    if let Err(e) = runtime.block_on(run(args)) {
        eprintln!("bench host: {e}");
        std::process::exit(1);
    }
}
