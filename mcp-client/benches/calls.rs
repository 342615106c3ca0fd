//! `cargo xtask bench` (or `cargo bench -p mcp-client --bench calls`):
//! `tools/call` throughput, latency, client CPU and memory, mcp-client next
//! to a floor, against the demo server running as a separate process.
//!
//! Scenarios, over stdio and Streamable HTTP (2026-07-28): sequential small
//! calls, 32 concurrent callers, 1 MiB results. Each scenario runs several
//! times, alternating mcp-client and the floor, and the median of every
//! figure is printed. Then: 10,000 calls in flight on one stdio connection,
//! and the memory an idle connection costs (stdio and HTTP), measured in a
//! fresh process.
//!
//! **CPU** is the bench process's own CPU time (`CLOCK_PROCESS_CPUTIME_ID`,
//! every thread, exited ones included); the server always runs in another
//! process, so it is the client's alone. The ratio to the floor is the
//! median over pairs of runs (mcp-client, then the floor right after), which
//! keeps a shared machine's load swings out of it. Each line also shows the
//! RSS growth during the run and, per call, the read and write system calls
//! (`/proc/self/io`) and context switches of the client.
//!
//! `--quick` runs less; `--only TEXT` keeps the scenarios whose label
//! contains TEXT and `--no-floor` skips the floor (for profiling).
//!
//! **The floors** are minimal hand-written JSON-RPC clients on the same
//! server, doing what a caller needs (the parsed result) and nothing more:
//! - stdio: spawn the server, write one request line per call (built with
//!   `serde_json::json!`), read lines with a `BufReader`, parse each with
//!   `serde_json` into a `Value`, match its id in a table;
//! - HTTP: one hyper HTTP/1.1 connection per concurrent caller, a POST per
//!   call with the 2026-07-28 headers, the body collected and parsed with
//!   `serde_json` into a `Value` (the `data:` line of an SSE body), its id
//!   checked.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use demo_server::{DemoOptions, DemoServer};
use http_body_util::{BodyExt, Full};
use mcp_client::{Client, EraPreference, ServerCommand};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

const CONCURRENCY: usize = 32;
const PROTOCOL: &str = "2026-07-28";

type BoxError = Box<dyn std::error::Error + Send + Sync>;

fn main() -> Result<(), BoxError> {
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
    if let Some(i) = args.iter().position(|a| a == "--idle") {
        let kind = args.get(i + 1).cloned().unwrap_or_default();
        let n = args.get(i + 2).and_then(|n| n.parse().ok()).unwrap_or(10);
        let url = args.get(i + 3).cloned().unwrap_or_default();
        return rt.block_on(idle_child(&kind, n, &url));
    }
    // `cargo bench` passes `--bench`; `cargo test --all-targets` does not:
    // then run a small smoke version so the bench stays working.
    let scale = if !args.iter().any(|a| a == "--bench") {
        Scale {
            calls: 64,
            big: 2,
            reps: 1,
            in_flight: 200,
            idle: 3,
        }
    } else if args.iter().any(|a| a == "--quick") {
        Scale {
            calls: 1_000,
            big: 20,
            reps: 5,
            in_flight: 10_000,
            idle: 20,
        }
    } else {
        Scale {
            calls: 3_000,
            big: 50,
            reps: 11,
            in_flight: 10_000,
            idle: 100,
        }
    };
    // `--only TEXT` keeps the scenarios whose label contains TEXT, and
    // `--no-floor` skips the floor (both for profiling).
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1).cloned());
    let with_floor = !args.iter().any(|a| a == "--no-floor");
    rt.block_on(run(scale, only, with_floor))
}

/// How much work one run does.
struct Scale {
    calls: usize,
    big: usize,
    reps: usize,
    in_flight: usize,
    idle: usize,
}

async fn serve_http() -> Result<(), BoxError> {
    let server = DemoServer::new(DemoOptions::default());
    let handle = server.serve_http("127.0.0.1:0".parse()?).await?;
    println!("{}", handle.url());
    let mut sink = Vec::new();
    let _ = tokio::io::stdin().read_to_end(&mut sink).await;
    handle.shutdown().await;
    Ok(())
}

// ---- measuring ----

/// CPU time of this process, every thread included (exited ones too).
fn cpu_time() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    Duration::new(
        u64::try_from(t.tv_sec).unwrap_or(0),
        u32::try_from(t.tv_nsec).unwrap_or(0),
    )
}

/// A field of `/proc/self/status`, in KiB.
fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Resets the peak RSS (`VmHWM`) to the current RSS (Linux) and returns
/// the current RSS, in KiB.
fn reset_peak() -> u64 {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    status_kib("VmRSS:")
}

/// Counters of this process: read and write system calls
/// (`/proc/self/io`) and context switches of all its threads.
#[derive(Clone, Copy, Default)]
struct Counters {
    reads: u64,
    writes: u64,
    switches: u64,
}

impl Counters {
    fn now() -> Counters {
        let io = std::fs::read_to_string("/proc/self/io").unwrap_or_default();
        let field = |name: &str| {
            io.lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0)
        };
        let switches = std::fs::read_dir("/proc/self/task")
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|t| std::fs::read_to_string(t.path().join("status")).ok())
            .flat_map(|s| {
                s.lines()
                    .filter(|l| l.contains("ctxt_switches:"))
                    .filter_map(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
                    .collect::<Vec<_>>()
            })
            .sum();
        Counters {
            reads: field("syscr:"),
            writes: field("syscw:"),
            switches,
        }
    }

    /// Per call since `self`: (reads, writes, context switches).
    fn per_call(&self, calls: usize) -> [f64; 3] {
        let now = Counters::now();
        let n = calls.max(1) as f64;
        [
            now.reads.saturating_sub(self.reads) as f64 / n,
            now.writes.saturating_sub(self.writes) as f64 / n,
            now.switches.saturating_sub(self.switches) as f64 / n,
        ]
    }
}

/// Figures of one run.
#[derive(Clone, Copy, Default)]
struct Run {
    calls_per_s: f64,
    p50: Duration,
    p99: Duration,
    cpu_per_call: Duration,
    peak_kib: u64,
    /// Read and write system calls and context switches per call.
    sys: [f64; 3],
}

impl Run {
    fn new(
        calls: usize,
        wall: Duration,
        cpu: Duration,
        rss0: u64,
        counters: Counters,
        mut latencies: Vec<Duration>,
    ) -> Run {
        latencies.sort();
        let pct = |p: f64| {
            let i = ((latencies.len() as f64 - 1.0) * p).round() as usize;
            latencies.get(i).copied().unwrap_or_default()
        };
        Run {
            calls_per_s: calls as f64 / wall.as_secs_f64(),
            p50: pct(0.5),
            p99: pct(0.99),
            cpu_per_call: cpu / u32::try_from(calls.max(1)).unwrap_or(u32::MAX),
            peak_kib: status_kib("VmHWM:").saturating_sub(rss0),
            sys: counters.per_call(calls),
        }
    }
}

fn median<T: Copy + PartialOrd>(mut v: Vec<T>) -> T {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    v[v.len() / 2]
}

/// The per-figure medians of several runs.
fn medians(runs: &[Run]) -> Run {
    Run {
        calls_per_s: median(runs.iter().map(|r| r.calls_per_s).collect()),
        p50: median(runs.iter().map(|r| r.p50).collect()),
        p99: median(runs.iter().map(|r| r.p99).collect()),
        cpu_per_call: median(runs.iter().map(|r| r.cpu_per_call).collect()),
        peak_kib: median(runs.iter().map(|r| r.peak_kib).collect()),
        sys: [0, 1, 2].map(|i| median(runs.iter().map(|r| r.sys[i]).collect())),
    }
}

fn line(label: &str, r: &Run) -> String {
    format!(
        "{label:<34} {:>8.0} calls/s  p50 {:>8.1?}  p99 {:>8.1?}  cpu/call {:>8.1?}  peak +{:>5} KiB  \
         [per call: {:.2} reads, {:.2} writes, {:.2} context switches]",
        r.calls_per_s, r.p50, r.p99, r.cpu_per_call, r.peak_kib, r.sys[0], r.sys[1], r.sys[2],
    )
}

/// Runs `calls` calls from `workers` concurrent tasks; `f(worker, i)`
/// makes one call.
async fn measure<F, Fut>(calls: usize, workers: usize, f: F) -> Run
where
    F: Fn(usize, usize) -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    let rss0 = reset_peak();
    let counters = Counters::now();
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
                    f(w, w * per + i).await;
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
    Run::new(
        per * workers,
        start.elapsed(),
        cpu_time().saturating_sub(cpu0),
        rss0,
        counters,
        latencies,
    )
}

fn exe() -> std::path::PathBuf {
    std::env::current_exe().unwrap_or_else(|_| "calls".into())
}

// ---- the scenarios ----

#[derive(Clone, Copy, PartialEq)]
enum Via {
    Stdio,
    Http,
}

struct Scenario {
    via: Via,
    tool: &'static str,
    workers: usize,
}

impl Scenario {
    fn args(&self) -> Value {
        if self.tool == "big" {
            json!({"bytes": 1_048_576})
        } else {
            json!({"text": "hello"})
        }
    }
}

async fn run(scale: Scale, only: Option<String>, with_floor: bool) -> Result<(), BoxError> {
    let (n, big, reps) = (scale.calls, scale.big, scale.reps);
    println!(
        "mcp-client bench: {n} small calls, {big} x 1 MiB, {CONCURRENCY}-way concurrency, \
         median of {reps} runs each\n(cpu/call: this process's CPU time per call, the server runs \
         apart; peak: RSS growth during a run)\n"
    );
    let mut http_server = tokio::process::Command::new(exe())
        .arg("--serve-http")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()?;
    let stdout = http_server.stdout.take().ok_or("no stdout")?;
    let mut url = String::new();
    BufReader::new(stdout).read_line(&mut url).await?;
    let url = url.trim().to_owned();

    let stdio_client = Client::builder()
        .stdio(ServerCommand::new(exe()).arg("--serve-stdio"))
        .era(EraPreference::ModernOnly)
        .connect()
        .await?;
    let http_client = Client::builder()
        .http(&url)
        .era(EraPreference::ModernOnly)
        .connect()
        .await?;
    let scenarios = [
        ("stdio  sequential", Via::Stdio, "echo", n, 1),
        ("stdio  32 concurrent", Via::Stdio, "echo", n, CONCURRENCY),
        ("stdio  1 MiB results", Via::Stdio, "big", big, 1),
        ("HTTP   sequential", Via::Http, "echo", n, 1),
        ("HTTP   32 concurrent", Via::Http, "echo", n, CONCURRENCY),
        ("HTTP   1 MiB results", Via::Http, "big", big, 1),
    ];
    let mut report = Vec::new();
    for (label, via, tool, calls, workers) in scenarios {
        if only.as_deref().is_some_and(|o| !label.contains(o)) {
            continue;
        }
        let s = Scenario { via, tool, workers };
        let client = match via {
            Via::Stdio => &stdio_client,
            Via::Http => &http_client,
        };
        // Warm both sides up (connections, allocator, caches).
        let warm = calls.min(200).max(workers);
        ours(client, &s, warm, workers).await;
        if with_floor {
            floor(&s, &url, warm).await?;
        }
        let (mut o, mut f) = (Vec::new(), Vec::new());
        for _ in 0..reps {
            o.push(ours(client, &s, calls, workers).await);
            if with_floor {
                f.push(floor(&s, &url, calls).await?);
            }
        }
        if f.is_empty() {
            f.push(Run::default());
        }
        // Each run of mcp-client is paired with the floor run right after
        // it (same machine load); the ratio is the median of the pairs'.
        let ratio = median(
            o.iter()
                .zip(&f)
                .map(|(o, f)| o.cpu_per_call.as_secs_f64() / f.cpu_per_call.as_secs_f64().max(1e-9))
                .collect(),
        );
        let (o, f) = (medians(&o), medians(&f));
        report.push(line(&format!("{label} (mcp-client)"), &o));
        report.push(line(&format!("{label} (floor)"), &f));
        report.push(format!(
            "{:<34} client CPU per call = {ratio:.2}x the floor (median of {reps} paired runs)\n",
            ""
        ));
        println!("{}", report[report.len() - 3..].join("\n"));
    }

    if only.is_some() {
        stdio_client.close().await;
        http_client.close().await;
        return Ok(());
    }
    // 10,000 calls in flight on one connection.
    let in_flight = scale.in_flight;
    let start = Instant::now();
    let all = (0..in_flight).map(|i| {
        let c = stdio_client.clone();
        async move { c.call_tool("echo", json!({"text": i.to_string()})).await }
    });
    let results = futures::future::join_all(all).await;
    let failed = results.iter().filter(|r| r.is_err()).count();
    assert_eq!(failed, 0, "calls in flight failed");
    let in_flight_line = format!(
        "stdio  {in_flight} calls in flight on one connection: {failed} failed, {:.0?} total",
        start.elapsed()
    );
    stdio_client.close().await;
    http_client.close().await;

    // Idle connections, each kind in a fresh process.
    let mut idle = Vec::new();
    for kind in ["stdio", "http"] {
        let out = tokio::process::Command::new(exe())
            .args(["--idle", kind, &scale.idle.to_string(), &url])
            .stdin(Stdio::null())
            .output()
            .await?;
        let text = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        if !out.status.success() || text.is_empty() {
            return Err(format!("idle measurement ({kind}) failed: {text}").into());
        }
        idle.push(text);
    }
    drop(http_server.stdin.take());
    let _ = tokio::time::timeout(Duration::from_secs(5), http_server.wait()).await;

    println!("{in_flight_line}");
    for l in idle {
        println!("{l}");
    }
    Ok(())
}

/// One run of mcp-client.
async fn ours(client: &Client, s: &Scenario, calls: usize, workers: usize) -> Run {
    let c = client.clone();
    let (tool, args) = (s.tool, s.args());
    measure(calls, workers, move |_, _| {
        let c = c.clone();
        let args = args.clone();
        async move {
            let r = c.call_tool(tool, args).await;
            assert!(r.is_ok(), "call failed: {r:?}");
        }
    })
    .await
}

/// One run of the floor client.
async fn floor(s: &Scenario, url: &str, calls: usize) -> Result<Run, BoxError> {
    match s.via {
        Via::Stdio => stdio_floor(s, calls).await,
        Via::Http => http_floor(s, url, calls).await,
    }
}

fn request(id: usize, tool: &str, args: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": tool, "arguments": args, "_meta": {
            "io.modelcontextprotocol/protocolVersion": PROTOCOL,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "floor", "version": "0"}}}})
}

/// The hand-written stdio client: write lines, read lines, parse them with
/// `serde_json`, match ids. Keeps `s.workers` calls in flight.
async fn stdio_floor(s: &Scenario, calls: usize) -> Result<Run, BoxError> {
    let mut child = tokio::process::Command::new(exe())
        .arg("--serve-stdio")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()?;
    let mut stdin = child.stdin.take().ok_or("stdin")?;
    let mut lines = BufReader::new(child.stdout.take().ok_or("stdout")?);
    let args = s.args();
    let rss0 = reset_peak();
    let counters = Counters::now();
    let cpu0 = cpu_time();
    let start = Instant::now();
    let mut sent_at: HashMap<u64, Instant> = HashMap::new();
    let mut latencies = Vec::with_capacity(calls);
    let mut next = 0usize;
    let mut line = String::new();
    while latencies.len() < calls {
        while sent_at.len() < s.workers && next < calls {
            let mut bytes = serde_json::to_vec(&request(next, s.tool, &args))?;
            bytes.push(b'\n');
            stdin.write_all(&bytes).await?;
            sent_at.insert(next as u64, Instant::now());
            next += 1;
        }
        line.clear();
        if lines.read_line(&mut line).await? == 0 {
            return Err("server closed".into());
        }
        let reply: Value = serde_json::from_str(&line)?;
        let id = reply.get("id").and_then(Value::as_u64);
        if reply.get("result").is_none() {
            return Err(format!("floor call failed: {line}").into());
        }
        if let Some(t) = id.and_then(|id| sent_at.remove(&id)) {
            latencies.push(t.elapsed());
        }
    }
    let run = Run::new(
        calls,
        start.elapsed(),
        cpu_time().saturating_sub(cpu0),
        rss0,
        counters,
        latencies,
    );
    drop(stdin);
    let _ = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
    Ok(run)
}

type Sender = hyper::client::conn::http1::SendRequest<Full<Bytes>>;

/// One HTTP/1.1 connection of the floor.
async fn http_connection(authority: &str) -> Result<Sender, BoxError> {
    let stream = tokio::net::TcpStream::connect(authority).await?;
    stream.set_nodelay(true)?;
    let io = hyper_util::rt::TokioIo::new(stream);
    let (sender, conn) = hyper::client::conn::http1::handshake(io).await?;
    tokio::spawn(conn);
    Ok(sender)
}

/// One POST of the floor: the parsed reply.
async fn http_call(
    sender: &mut Sender,
    url: &http::Uri,
    id: usize,
    tool: &str,
    args: &Value,
) -> Result<Value, BoxError> {
    let body = serde_json::to_vec(&request(id, tool, args))?;
    let req = http::Request::post(url.clone())
        .header(
            http::header::HOST,
            url.authority().map_or("", |a| a.as_str()),
        )
        .header(http::header::CONTENT_TYPE, "application/json")
        .header(http::header::ACCEPT, "application/json, text/event-stream")
        .header("mcp-protocol-version", PROTOCOL)
        .header("mcp-method", "tools/call")
        .header("mcp-name", tool)
        .body(Full::new(Bytes::from(body)))?;
    sender.ready().await?;
    let resp = sender.send_request(req).await?;
    let sse = resp
        .headers()
        .get(http::header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
    let body = resp.into_body().collect().await?.to_bytes();
    let json = if sse {
        let text = std::str::from_utf8(&body)?;
        let data = text
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(str::trim_start)
            .rfind(|d| d.contains("\"result\"") || d.contains("\"error\""))
            .ok_or("no data line")?;
        serde_json::from_str(data)?
    } else {
        serde_json::from_slice::<Value>(&body)?
    };
    if json.get("id").and_then(Value::as_u64) != Some(id as u64) || json.get("result").is_none() {
        return Err(format!("floor call failed: {json}").into());
    }
    Ok(json)
}

/// The hand-written HTTP client: one hyper connection per caller.
async fn http_floor(s: &Scenario, url: &str, calls: usize) -> Result<Run, BoxError> {
    let uri: http::Uri = url.parse()?;
    let authority = uri.authority().ok_or("no authority")?.to_string();
    let mut senders = Vec::new();
    for _ in 0..s.workers {
        senders.push(Arc::new(tokio::sync::Mutex::new(
            http_connection(&authority).await?,
        )));
    }
    let (tool, args) = (s.tool, Arc::new(s.args()));
    let uri = Arc::new(uri);
    Ok(measure(calls, s.workers, move |w, i| {
        let sender = senders[w].clone();
        let (uri, args) = (uri.clone(), args.clone());
        async move {
            // Each worker owns its connection: the lock is never contended.
            let mut sender = sender.lock().await;
            if let Err(e) = http_call(&mut sender, &uri, i, tool, &args).await {
                panic!("floor call failed: {e}");
            }
        }
    })
    .await)
}

// ---- idle connections ----

/// In a fresh process: RSS growth per idle connected client.
async fn idle_child(kind: &str, n: usize, url: &str) -> Result<(), BoxError> {
    let connect = || async {
        let b = Client::builder().era(EraPreference::ModernOnly);
        let b = match kind {
            "stdio" => b.stdio(ServerCommand::new(exe()).arg("--serve-stdio")),
            _ => b.http(url),
        };
        let c = b.connect().await?;
        // One call, so the connection has done real work before idling.
        c.call_tool("echo", json!({"text": "warm"})).await?;
        Ok::<_, mcp_client::Error>(c)
    };
    // The first client pays for one-time setup (statics, the runtime's
    // growth); it is not counted.
    let first = connect().await?;
    tokio::time::sleep(Duration::from_millis(100)).await;
    let before = status_kib("RssAnon:");
    let mut clients = Vec::with_capacity(n);
    for _ in 0..n {
        clients.push(connect().await?);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let after = status_kib("RssAnon:");
    let per = after.saturating_sub(before) * 1024 / n.max(1) as u64;
    println!(
        "idle {kind:<5} connection: {:.1} KiB each (anonymous RSS growth over {n} connected clients)",
        per as f64 / 1024.0
    );
    for c in clients {
        c.close().await;
    }
    first.close().await;
    Ok(())
}
