//! `cargo xtask bench` (or `cargo bench -p mcp-client --bench calls`):
//! `tools/call` throughput, latency and client CPU, mcp-client next to a
//! floor, against the demo server running as a child process (so the
//! process's own CPU time is the client's alone).
//!
//! Scenarios, over stdio and Streamable HTTP (2026-07-28):
//! sequential small calls, 32 concurrent callers, 1 MiB results; plus
//! 10,000 calls in flight on one stdio connection and the memory an idle
//! HTTP connection costs.
//!
//! The floors: over stdio, a hand-written newline-delimited JSON-RPC client
//! (pre-serialized requests, a line reader, an id table); over HTTP, the
//! raw `mcp-transport-http` transport with pre-serialized requests and no
//! core (the same pooled hyper connection the facade uses).

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use demo_server::{DemoOptions, DemoServer};
use mcp_client::mcp_types::routing::HttpRouting;
use mcp_client::mcp_types::{ProtocolVersion, RequestId};
use mcp_client::{Client, EraPreference, ServerCommand};
use mcp_transport_http::{HttpConfig, HttpTransport, Reply};
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

const CONCURRENCY: usize = 32;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    if args.iter().any(|a| a == "--serve-stdio") {
        return rt.block_on(async {
            DemoServer::new(DemoOptions::default())
                .serve_stdio()
                .await?;
            Ok(())
        });
    }
    if args.iter().any(|a| a == "--serve-http") {
        return rt.block_on(serve_http());
    }
    // `cargo bench` passes `--bench`; `cargo test --all-targets` does not:
    // then run a small smoke version so the bench stays working.
    let scale = if !args.iter().any(|a| a == "--bench") {
        Scale {
            calls: 64,
            big: 2,
            in_flight: 200,
            idle: 5,
        }
    } else if args.iter().any(|a| a == "--quick") {
        Scale {
            calls: 500,
            big: 20,
            in_flight: 1_000,
            idle: 20,
        }
    } else {
        Scale {
            calls: 5_000,
            big: 100,
            in_flight: 10_000,
            idle: 50,
        }
    };
    rt.block_on(run(scale))
}

async fn serve_http() -> Result<(), Box<dyn std::error::Error>> {
    let server = DemoServer::new(DemoOptions::default());
    let handle = server.serve_http("127.0.0.1:0".parse()?).await?;
    println!("{}", handle.url());
    let mut sink = Vec::new();
    let _ = tokio::io::stdin().read_to_end(&mut sink).await;
    handle.shutdown().await;
    Ok(())
}

/// Figures of one run.
struct Figures {
    calls: usize,
    wall: Duration,
    cpu: Duration,
    latencies: Vec<Duration>,
}

impl Figures {
    fn line(&self, label: &str) -> String {
        let mut l = self.latencies.clone();
        l.sort();
        let pct = |p: f64| {
            let i = ((l.len() as f64 - 1.0) * p).round() as usize;
            l.get(i).copied().unwrap_or_default()
        };
        format!(
            "{label:<34} {:>9.0} calls/s  p50 {:>8.1?}  p99 {:>8.1?}  cpu/call {:>7.1?}",
            self.calls as f64 / self.wall.as_secs_f64(),
            pct(0.5),
            pct(0.99),
            self.cpu / self.calls.max(1) as u32,
        )
    }
}

/// CPU time of this process: the sum of its threads' on-CPU time from
/// `/proc/self/task/*/schedstat` (Linux, nanoseconds).
fn cpu_time() -> Duration {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return Duration::ZERO;
    };
    let ns: u64 = tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum();
    Duration::from_nanos(ns)
}

fn rss_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

async fn measure<F, Fut>(calls: usize, workers: usize, f: F) -> Figures
where
    F: Fn(usize) -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    let cpu0 = cpu_time();
    let start = Instant::now();
    let per = calls / workers;
    let tasks: Vec<_> = (0..workers)
        .map(|w| {
            let f = f.clone();
            tokio::spawn(async move {
                let mut lat = Vec::with_capacity(per);
                for i in 0..per {
                    let t = Instant::now();
                    f(w * per + i).await;
                    lat.push(t.elapsed());
                }
                lat
            })
        })
        .collect();
    let mut latencies = Vec::with_capacity(calls);
    for t in tasks {
        latencies.extend(t.await.unwrap_or_default());
    }
    Figures {
        calls: per * workers,
        wall: start.elapsed(),
        cpu: cpu_time().saturating_sub(cpu0),
        latencies,
    }
}

fn exe() -> std::path::PathBuf {
    std::env::current_exe().unwrap_or_else(|_| "calls".into())
}

/// How much work one run does.
struct Scale {
    calls: usize,
    big: usize,
    in_flight: usize,
    idle: u64,
}

async fn run(scale: Scale) -> Result<(), Box<dyn std::error::Error>> {
    let n = scale.calls;
    let big_n = scale.big;
    println!("mcp-client bench: {n} small calls, {big_n} x 1 MiB, {CONCURRENCY}-way concurrency\n");

    // ---- stdio ----
    let stdio = || ServerCommand::new(exe()).arg("--serve-stdio");
    let client = Client::builder()
        .stdio(stdio())
        .era(EraPreference::ModernOnly)
        .connect()
        .await?;
    let echo = json!({"text": "hello"});
    let big = json!({"bytes": 1_048_576});
    let mut rows = Vec::new();
    for (label, calls, workers, args) in [
        ("stdio  sequential", n, 1, echo.clone()),
        ("stdio  32 concurrent", n, CONCURRENCY, echo.clone()),
        ("stdio  1 MiB results", big_n, 1, big.clone()),
    ] {
        let tool = if args.get("bytes").is_some() {
            "big"
        } else {
            "echo"
        };
        let c = client.clone();
        let ours = measure(calls, workers, move |_| {
            let c = c.clone();
            let args = args.clone();
            async move {
                let r = c.call_tool(tool, args).await;
                assert!(r.is_ok(), "call failed: {r:?}");
            }
        })
        .await;
        let floor = stdio_floor(tool, calls, workers).await?;
        rows.push((label, ours, floor));
    }
    // 10,000 in flight on one connection.
    let in_flight = scale.in_flight;
    let start = Instant::now();
    let all = (0..in_flight).map(|i| {
        let c = client.clone();
        async move { c.call_tool("echo", json!({"text": i.to_string()})).await }
    });
    let results = futures::future::join_all(all).await;
    let failed = results.iter().filter(|r| r.is_err()).count();
    assert_eq!(failed, 0, "calls in flight failed");
    let in_flight_line = format!(
        "stdio  {in_flight} in flight: {failed} failed, {:.0?} total",
        start.elapsed()
    );
    client.close().await;

    // ---- HTTP ----
    let mut child = tokio::process::Command::new(exe())
        .arg("--serve-http")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut url = String::new();
    BufReader::new(stdout).read_line(&mut url).await?;
    let url = url.trim().to_owned();
    let client = Client::builder()
        .http(&url)
        .era(EraPreference::ModernOnly)
        .connect()
        .await?;
    for (label, calls, workers, args) in [
        ("HTTP   sequential", n, 1, echo.clone()),
        ("HTTP   32 concurrent", n, CONCURRENCY, echo.clone()),
        ("HTTP   1 MiB results", big_n, 1, big.clone()),
    ] {
        let tool = if args.get("bytes").is_some() {
            "big"
        } else {
            "echo"
        };
        let c = client.clone();
        let a = args.clone();
        let ours = measure(calls, workers, move |_| {
            let c = c.clone();
            let args = a.clone();
            async move {
                let r = c.call_tool(tool, args).await;
                assert!(r.is_ok(), "call failed: {r:?}");
            }
        })
        .await;
        let floor = http_floor(&url, tool, &args, calls, workers).await?;
        rows.push((label, ours, floor));
    }
    client.close().await;

    // Idle connections.
    let before = rss_kib("VmRSS:");
    let mut idle = Vec::new();
    for _ in 0..scale.idle {
        idle.push(
            Client::builder()
                .http(&url)
                .era(EraPreference::ModernOnly)
                .connect()
                .await?,
        );
    }
    let per_idle = rss_kib("VmRSS:").saturating_sub(before) / scale.idle;
    for c in idle {
        c.close().await;
    }
    drop(child.stdin.take());
    let _ = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;

    for (label, ours, floor) in &rows {
        println!("{}", ours.line(&format!("{label} (mcp-client)")));
        println!("{}", floor.line(&format!("{label} (floor)")));
        if floor.cpu.is_zero() {
            println!("{:<34} (too short to compare CPU)\n", "");
        } else {
            let ratio = ours.cpu.as_secs_f64() / floor.cpu.as_secs_f64();
            println!("{:<34} client CPU per call = {ratio:.2}x the floor\n", "");
        }
    }
    println!("{in_flight_line}");
    println!(
        "idle HTTP connection: ~{per_idle} KiB each (RSS delta over {})",
        scale.idle
    );
    println!("peak RSS: {} KiB", rss_kib("VmHWM:"));
    Ok(())
}

fn modern_request(id: u64, tool: &str, args: &serde_json::Value) -> Vec<u8> {
    let req = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": tool, "arguments": args, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "floor", "version": "0"}}}});
    serde_json::to_vec(&req).unwrap_or_default()
}

/// A hand-written stdio JSON-RPC client: write lines, read lines, match ids.
async fn stdio_floor(
    tool: &str,
    calls: usize,
    window: usize,
) -> Result<Figures, Box<dyn std::error::Error>> {
    let mut child = tokio::process::Command::new(exe())
        .arg("--serve-stdio")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()?;
    let mut stdin = child.stdin.take().ok_or("stdin")?;
    let mut lines = BufReader::new(child.stdout.take().ok_or("stdout")?);
    let args = if tool == "big" {
        json!({"bytes": 1_048_576})
    } else {
        json!({"text": "hello"})
    };
    let cpu0 = cpu_time();
    let start = Instant::now();
    let mut sent_at: HashMap<u64, Instant> = HashMap::new();
    let mut latencies = Vec::with_capacity(calls);
    let mut next = 0u64;
    let mut line = String::new();
    while latencies.len() < calls {
        while sent_at.len() < window && (next as usize) < calls {
            let mut bytes = modern_request(next, tool, &args);
            bytes.push(b'\n');
            stdin.write_all(&bytes).await?;
            sent_at.insert(next, Instant::now());
            next += 1;
        }
        stdin.flush().await?;
        line.clear();
        if lines.read_line(&mut line).await? == 0 {
            return Err("server closed".into());
        }
        #[derive(serde::Deserialize)]
        struct Reply {
            id: Option<u64>,
        }
        if let Ok(Reply { id: Some(id) }) = serde_json::from_str::<Reply>(&line)
            && let Some(t) = sent_at.remove(&id)
        {
            latencies.push(t.elapsed());
        }
    }
    let figures = Figures {
        calls,
        wall: start.elapsed(),
        cpu: cpu_time().saturating_sub(cpu0),
        latencies,
    };
    drop(stdin);
    let _ = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
    Ok(figures)
}

/// The raw HTTP transport with pre-serialized requests: no core, no facade.
async fn http_floor(
    url: &str,
    tool: &str,
    args: &serde_json::Value,
    calls: usize,
    workers: usize,
) -> Result<Figures, Box<dyn std::error::Error>> {
    let transport = Arc::new(HttpTransport::new(HttpConfig::new(url)?)?);
    let tool = tool.to_owned();
    let args = args.clone();
    Ok(measure(calls, workers, move |i| {
        let t = transport.clone();
        let body = Bytes::from(modern_request(i as u64, &tool, &args));
        let routing = HttpRouting::new(ProtocolVersion::V2026_07_28)
            .with_method("tools/call")
            .with_name(tool.clone())
            .with_request_id(RequestId::Number(i as i64));
        async move {
            match t.send(body, &routing).await {
                Ok(Reply::Stream(mut s)) => while s.next().await.is_some() {},
                Ok(_) => {}
                Err(e) => panic!("floor call failed: {e}"),
            }
        }
    })
    .await)
}
