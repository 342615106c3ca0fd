//! What every bench client shares (included with `#[path]` by the clients in
//! `bench/clients` and `bench/rmcp-client`, which are separate packages):
//! the command line `cargo xtask bench` passes, the CPU clock, and the
//! `BENCH` lines it reads back.
//!
//! A client connects, warms up, then makes `--reps` measured runs of
//! `--calls` calls from `--workers` concurrent callers, printing one line
//! per run:
//!
//! ```text
//! BENCH cpu_ns=<client CPU per call> wall_ns=<wall per call> p50_ns=<latency> allocs=<per call>
//! ```
//!
//! and last `BENCH rss_kib=<peak RSS>`. CPU is this process's CPU time
//! (`CLOCK_PROCESS_CPUTIME_ID`, all threads) over the measured calls only, so
//! start-up, connecting and warm-up are not in it.

#![allow(dead_code)]

use std::future::Future;
use std::time::{Duration, Instant};

/// The command line of a bench client.
#[derive(Debug, Clone)]
pub struct Args {
    /// `stdio` or `http`.
    pub via: String,
    /// `legacy` (2025-11-25) or `modern` (2026-07-28).
    pub era: String,
    /// Result size: 0 calls `echo` with `hello`, more calls `big` with that
    /// many bytes.
    pub bytes: usize,
    /// Concurrent callers.
    pub workers: usize,
    /// Calls per measured run.
    pub calls: usize,
    /// Measured runs.
    pub reps: usize,
    /// `ct` (current-thread) or `mt` (multi-thread) tokio runtime.
    pub runtime: String,
    /// rmcp: one reused `reqwest::Client` (connection pool) over HTTP.
    pub pooled: bool,
    /// The server's URL (HTTP).
    pub url: String,
    /// The server's command line (stdio), after `--`.
    pub server: Vec<String>,
}

impl Args {
    /// Parses `std::env::args()`; exits with a message on a bad one.
    pub fn parse() -> Args {
        let mut a = Args {
            via: "stdio".into(),
            era: "legacy".into(),
            bytes: 0,
            workers: 1,
            calls: 1000,
            reps: 3,
            runtime: "ct".into(),
            pooled: false,
            url: String::new(),
            server: Vec::new(),
        };
        let mut it = std::env::args().skip(1);
        while let Some(flag) = it.next() {
            if flag == "--" {
                a.server = it.by_ref().collect();
                break;
            }
            if flag == "--pooled" {
                a.pooled = true;
                continue;
            }
            let value = it
                .next()
                .unwrap_or_else(|| fail(&format!("{flag} needs a value")));
            let num = || {
                value
                    .parse::<usize>()
                    .unwrap_or_else(|_| fail(&format!("bad {flag} {value:?}")))
            };
            match flag.as_str() {
                "--via" if value == "stdio" || value == "http" => a.via = value.clone(),
                "--via" => fail(&format!("--via is `stdio` or `http`, not {value:?}")),
                // Anything else would silently measure the other revision.
                "--era" if value == "legacy" || value == "modern" => a.era = value.clone(),
                "--era" => fail(&format!("--era is `legacy` or `modern`, not {value:?}")),
                "--bytes" => a.bytes = num(),
                "--workers" => a.workers = num().max(1),
                "--calls" => a.calls = num().max(1),
                "--reps" => a.reps = num().max(1),
                "--runtime" if ["ct", "mt", "tokio"].contains(&value.as_str()) => {
                    a.runtime = value.clone()
                }
                "--runtime" => fail(&format!("--runtime is `ct`, `mt` or `tokio`, not {value:?}")),
                "--url" => a.url = value.clone(),
                other => fail(&format!("unknown argument {other:?}")),
            }
        }
        if a.via == "stdio" && a.server.is_empty() {
            fail("stdio needs the server's command line after `--`");
        }
        a
    }

    /// The protocol revision string of `--era`.
    pub fn revision(&self) -> &'static str {
        if self.era == "modern" {
            "2026-07-28"
        } else {
            "2025-11-25"
        }
    }

    /// The tool's arguments as JSON text.
    pub fn arguments_json(&self) -> String {
        if self.bytes == 0 {
            r#"{"text":"hello"}"#.to_owned()
        } else {
            format!(r#"{{"bytes":{}}}"#, self.bytes)
        }
    }

    /// The tool's name.
    pub fn tool(&self) -> &'static str {
        if self.bytes == 0 { "echo" } else { "big" }
    }

    /// The text a correct result carries, by length.
    pub fn expected_len(&self) -> usize {
        if self.bytes == 0 { 5 } else { self.bytes }
    }

    /// Warm-up calls before the measured runs.
    pub fn warm(&self) -> usize {
        (self.calls / 4).clamp(self.workers, 500)
    }

    /// A tokio runtime of the kind `--runtime` names.
    pub fn runtime(&self) -> tokio::runtime::Runtime {
        let mut b = if self.runtime == "mt" {
            tokio::runtime::Builder::new_multi_thread()
        } else {
            tokio::runtime::Builder::new_current_thread()
        };
        b.enable_all()
            .build()
            .unwrap_or_else(|e| fail(&format!("runtime: {e}")))
    }
}

/// A call's result checked by the length of its first content block's
/// text (`len`; `None`: it has no text block first) against `expected`.
pub fn check_text_len(len: Option<usize>, expected: usize) -> Result<(), String> {
    if len == Some(expected) {
        Ok(())
    } else {
        Err(format!("unexpected result: {len:?} bytes of text"))
    }
}

/// Prints `message` to stderr and exits with status 2.
pub fn fail(message: &str) -> ! {
    eprintln!("bench client: {message}");
    std::process::exit(2)
}

/// CPU time of this process, every thread included.
pub fn cpu_time() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    Duration::new(
        u64::try_from(t.tv_sec).unwrap_or(0),
        u32::try_from(t.tv_nsec).unwrap_or(0),
    )
}

/// One measured run in progress: started at construction.
pub struct Meter {
    cpu0: Duration,
    start: Instant,
    allocs0: u64,
}

impl Meter {
    /// Starts the clocks.
    pub fn start() -> Meter {
        Meter {
            cpu0: cpu_time(),
            start: Instant::now(),
            allocs0: crate::counting_alloc::allocations(),
        }
    }

    /// Stops the clocks and prints the run's `BENCH` line.
    pub fn finish(self, calls: usize, mut latencies: Vec<Duration>) {
        let cpu = cpu_time().saturating_sub(self.cpu0);
        let allocs = crate::counting_alloc::allocations().saturating_sub(self.allocs0);
        let wall = self.start.elapsed();
        latencies.sort_unstable();
        let p50 = latencies
            .get(latencies.len() / 2)
            .copied()
            .unwrap_or_default();
        let n = calls.max(1) as u128;
        println!(
            "BENCH cpu_ns={} wall_ns={} p50_ns={} allocs={:.1}",
            cpu.as_nanos() / n,
            wall.as_nanos() / n,
            p50.as_nanos(),
            allocs as f64 / n as f64
        );
    }
}

/// Prints the peak RSS line (`VmHWM`).
pub fn print_rss() {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .unwrap_or("0");
    println!("BENCH rss_kib={kib}");
}

/// One concurrent caller of an async client.
pub trait Caller: Send + 'static {
    /// Makes call number `i`; checks the result is the expected one.
    fn call(&mut self, i: usize) -> impl Future<Output = Result<(), String>> + Send;
}

/// Runs `calls` calls spread over `callers` (each on its own task) and
/// returns the callers and each call's latency.
pub async fn drive<C: Caller>(callers: Vec<C>, calls: usize) -> (Vec<C>, Vec<Duration>) {
    let per = calls / callers.len().max(1);
    let tasks: Vec<_> = callers
        .into_iter()
        .enumerate()
        .map(|(w, mut c)| {
            tokio::spawn(async move {
                let mut lat = Vec::with_capacity(per);
                for i in 0..per {
                    let t = Instant::now();
                    if let Err(e) = c.call(w * per + i).await {
                        fail(&format!("call failed: {e}"));
                    }
                    lat.push(t.elapsed());
                }
                (c, lat)
            })
        })
        .collect();
    let mut back = Vec::new();
    let mut all = Vec::with_capacity(calls);
    for t in tasks {
        let (c, lat) = t
            .await
            .unwrap_or_else(|e| fail(&format!("caller task: {e}")));
        back.push(c);
        all.extend(lat);
    }
    (back, all)
}

/// Warms `callers` up, then makes `args.reps` measured runs, printing a
/// `BENCH` line each, then the RSS line.
pub async fn bench<C: Caller>(args: &Args, callers: Vec<C>) {
    let (callers, _) = drive(callers, args.warm()).await;
    let mut callers = callers;
    for _ in 0..args.reps {
        let meter = Meter::start();
        let (back, lat) = drive(callers, args.calls).await;
        let n = lat.len();
        meter.finish(n, lat);
        callers = back;
    }
    print_rss();
}
