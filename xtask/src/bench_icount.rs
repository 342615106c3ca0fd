//! `cargo xtask bench --icount`: user-space instructions per `tools/call`,
//! counted by callgrind, for the floor (and over stdio its loop on tokio),
//! rmcp and this SDK, in the table's scenarios, against the workspace's
//! demo server (`--rmcp-server`: the table's, rmcp's).
//!
//! CPU time on a shared or virtual machine moves by ±20% between runs (see
//! `PERFORMANCE.md`), which hides a change of a few percent. An instruction
//! count does not depend on the machine's load: each client runs twice
//! under `valgrind --tool=callgrind`, with two numbers of calls, and the
//! difference of the two totals over the difference of calls is what one
//! more call costs (start-up, connecting and warm-up cancel out). It counts
//! user space only: the system calls' kernel time, which the CPU figures
//! include, is not in it, so its ratios to the floor are larger than the
//! CPU ratios. Under valgrind every thread runs in turn, so only the
//! current-thread SDK client is counted. Needs `valgrind` (Debian's package
//! of that name).
//!
//! The same runs count each client's atomic read-modify-writes per call
//! (`bench_atomics.rs`; needs `objdump`), printed as a second table, and
//! the code it executes on every call, in 4 KiB pages and 64-byte lines
//! (`bench_profile.rs`), as a third: what a call costs where each switch
//! to the server and back empties the TLB (`PERFORMANCE.md`, stop 40).
//! `--functions` (or `--functions=N`) names where this SDK's call is: for
//! each scenario, the N functions (20 by default) on the most of those
//! lines, with their instructions a call, and the N functions making the
//! most atomic writes a call. `--data` adds the data pages and
//! lines a call touches, one call at a time (`bench_data.rs`).

use std::path::Path;
use std::process::{Command, Stdio};

use crate::bench_atomics::AtomicSites;
use crate::bench_profile::{Executions, Footprint, FunctionCost, PerCallCode};
use crate::bench_report::Variant;
use crate::bench_table::{HttpServer, ROWS};

/// Calls of the shorter and the longer run of a row (results of 256 KiB:
/// fewer).
pub(crate) const SHORT: usize = 300;
pub(crate) const LONG: usize = 900;
const SHORT_BIG: usize = 20;
const LONG_BIG: usize = 60;

/// The columns, the floor first (each client counted on a current-thread
/// runtime: under valgrind every thread runs in turn; the floor on tokio
/// over stdio only, as in the table; with `parts`, this SDK's parts
/// without its engine, placed as in the table).
fn clients(parts: bool) -> Vec<Variant> {
    let v = |name, program, runtime| Variant {
        name,
        program,
        runtime,
        pooled: false,
    };
    let mut clients = vec![
        v("floor", "floor", "ct"),
        v("floor on tokio", "floor", "tokio"),
        v("rmcp (pooled over HTTP)", "rmcp", "ct"),
        v("this SDK (current-thread)", "sdk", "ct"),
    ];
    if parts {
        Variant::add_parts(&mut clients);
    }
    clients
}

/// Runs the count for both revisions and prints one table per revision.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let valgrind = Command::new("valgrind")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    if !valgrind.is_ok_and(|s| s.success()) {
        return Err("`--icount` needs valgrind (Debian's `valgrind` package)".into());
    }
    // The counts stay against the demo server by default (the figures in
    // `PERFORMANCE.md` were counted so); `--rmcp-server` counts against the
    // table's, whose 2025-11-25 replies over HTTP are event streams.
    let server = match args.iter().any(|a| a == "--rmcp-server") {
        true => crate::bench_table::ServerKind::Rmcp,
        false => crate::bench_table::ServerKind::Demo,
    };
    let functions = functions_wanted(args)?;
    let data = args.iter().any(|a| a == "--data");
    println!("{}", server.describe());
    let p = crate::bench_table::build(
        args.iter().any(|a| a == "--no-build"),
        server,
        crate::bench_table::Profile::Release,
    )?;
    let http = HttpServer::start(&p.server, crate::bench_table::Layout::Shared)?;
    let clients = clients(args.iter().any(|a| a == "--parts"));
    let sites: Vec<Option<AtomicSites>> = clients
        .iter()
        .map(|v| AtomicSites::of(p.client(v.program)))
        .collect();
    for era in ["legacy", "modern"] {
        let revision = if era == "modern" {
            "2026-07-28"
        } else {
            "2025-11-25"
        };
        println!("\n### Instructions per call (callgrind, user space), {revision}\n");
        let mut head = "| scenario |".to_owned();
        let mut rule = "| --- |".to_owned();
        for v in &clients {
            head.push_str(&format!(" {} |", v.name));
            rule.push_str(" --- |");
        }
        println!("{head}\n{rule}");
        let mut atomics_table = format!("{head}\n{rule}\n");
        let mut footprint_table = format!("{head}\n{rule}\n");
        let mut data_table = format!("{head}\n{rule}\n");
        let mut by_function = String::new();
        let mut atomics_by_function = String::new();
        for row in ROWS {
            let (label, via, bytes, workers, _) = row;
            let mut line = format!("| {label} |");
            let mut atomics_line = format!("| {label} |");
            let mut footprint_line = format!("| {label} |");
            let mut data_line = format!("| {label} |");
            let mut floor = None;
            for (column, (client, sites)) in clients.iter().zip(&sites).enumerate() {
                let program = client.program;
                if !client.runs_over(via, workers) {
                    line.push_str(" — |");
                    atomics_line.push_str(" — |");
                    footprint_line.push_str(" — |");
                    data_line.push_str(" — |");
                    continue;
                }
                // rmcp over HTTP is counted with its pooled client (the
                // fairer of its two).
                let pooled = program == "rmcp" && via == "http";
                let exe = p.client(program);
                let run = Run {
                    exe,
                    runtime: client.runtime,
                    via,
                    era,
                    bytes,
                    workers,
                    pooled,
                    url: &http.url,
                    server: &p.server,
                    sites: sites.as_ref(),
                };
                let named = functions.filter(|_| program == "sdk");
                let cell = match per_call(&run, named) {
                    Ok(PerCall {
                        instructions: n,
                        atomics,
                        atomic_functions,
                        footprint,
                        functions,
                    }) => {
                        if let Some(top) = &functions {
                            by_function.push_str(&function_table(label, top));
                        }
                        if let Some(top) = &atomic_functions {
                            atomics_by_function.push_str(&atomic_function_table(label, top));
                        }
                        atomics_line.push_str(&match atomics {
                            Some(a) => format!(" {a:.1} |"),
                            None => " — |".to_owned(),
                        });
                        footprint_line.push_str(&match footprint {
                            Some(f) => format!(" {} / {} ({}) |", f.pages, f.lines, f.packed),
                            None => " — |".to_owned(),
                        });
                        data_line.push_str(&data_cell(data && program != "rmcp", &run, n));
                        let ratio =
                            floor.map_or(String::new(), |f: f64| format!(" ({:.1}x)", n / f));
                        if column == 0 {
                            floor = Some(n);
                        }
                        format!(" {:.1}k{ratio} |", n / 1000.0)
                    }
                    Err(e) => {
                        eprintln!("bench --icount: {e}");
                        atomics_line.push_str(" — |");
                        footprint_line.push_str(" — |");
                        data_line.push_str(" — |");
                        " — |".to_owned()
                    }
                };
                line.push_str(&cell);
            }
            println!("{line}");
            atomics_table.push_str(&atomics_line);
            atomics_table.push('\n');
            footprint_table.push_str(&footprint_line);
            footprint_table.push('\n');
            data_table.push_str(&data_line);
            data_table.push('\n');
        }
        println!(
            "\n### Atomic read-modify-writes per call (lock-prefixed and xchg instructions \
             in the client's executable), {revision}\n\n{atomics_table}"
        );
        println!(
            "\n### Code a call executes: 4 KiB pages / 64-byte lines (every object's, \
             each executed at least once per call; in brackets the lines its \
             instructions would fill packed), {revision}\n\n{footprint_table}"
        );
        if data {
            println!(
                "\n### Data a call touches: 4 KiB pages / 64-byte lines (valgrind's lackey; \
                 one call at a time, rmcp not traced), {revision}\n\n{data_table}"
            );
        }
        if !by_function.is_empty() {
            println!(
                "\n### Where this SDK's call runs: the functions on the most of those lines \
                 (a line shared among the functions on it), {revision}\n{by_function}"
            );
        }
        if !atomics_by_function.is_empty() {
            println!(
                "\n### Where this SDK's call makes its atomic writes: per call, by the \
                 function whose code holds them (an inlined function's are its caller's), \
                 {revision}\n{atomics_by_function}"
            );
        }
    }
    Ok(())
}

/// The data cell of `run`'s client, whose call runs `per_call`
/// instructions: counted when `wanted` (`--data`, and not rmcp: its calls,
/// some 90-230 thousand instructions each, would make a trace of
/// gigabytes), for one call at a time and results of the usual size.
fn data_cell(wanted: bool, run: &Run<'_>, per_call: f64) -> String {
    if !wanted || run.workers != 1 || run.bytes != 0 {
        return " — |".to_owned();
    }
    match crate::bench_data::footprint(run, per_call) {
        Ok(d) => format!(" {:.0} / {:.0} |", d.pages, d.lines),
        Err(e) => {
            eprintln!("bench --icount --data: {e}");
            " — |".to_owned()
        }
    }
}

/// How many functions `--functions[=N]` asks for (`None`: not asked).
fn functions_wanted(args: &[String]) -> Result<Option<usize>, String> {
    crate::util::count_flag(args, "--functions", 20)
}

/// One scenario's functions, as a Markdown table under its label.
fn function_table(label: &str, top: &[FunctionCost]) -> String {
    let mut out =
        format!("\n{label}\n\n| lines | instructions | function |\n| --- | --- | --- |\n");
    for f in top {
        out.push_str(&format!(
            "| {:.1} | {:.0} | `{}` |\n",
            f.lines,
            f.instructions,
            shown_name(&f.name)
        ));
    }
    out
}

/// One scenario's functions by their atomic writes a call, as a Markdown
/// table under its label.
fn atomic_function_table(label: &str, top: &[(String, f64)]) -> String {
    let mut out = format!("\n{label}\n\n| atomic writes | function |\n| --- | --- |\n");
    for (name, writes) in top {
        out.push_str(&format!("| {writes:.2} | `{}` |\n", shown_name(name)));
    }
    out
}

/// A function's name for a table cell: a generic name runs long (its start
/// says where it is), and a `|` would end the cell.
fn shown_name(name: &str) -> String {
    let name: String = match name.char_indices().nth(140) {
        Some((cut, _)) => format!("{}…", &name[..cut]),
        None => name.to_owned(),
    };
    name.replace('|', "\\|")
}

/// One client in one scenario.
pub(crate) struct Run<'a> {
    pub(crate) exe: &'a Path,
    /// `--runtime`: `ct`, or `tokio` for the floor's stdio loop on tokio.
    pub(crate) runtime: &'a str,
    pub(crate) via: &'a str,
    pub(crate) era: &'a str,
    pub(crate) bytes: usize,
    pub(crate) workers: usize,
    pub(crate) pooled: bool,
    pub(crate) url: &'a str,
    pub(crate) server: &'a Path,
    /// The client's atomic instructions, when objdump found them.
    pub(crate) sites: Option<&'a AtomicSites>,
}

/// A file in the temporary directory for valgrind to write (named
/// `stem`, this process's id and `.out`), and `flag` naming it.
pub(crate) fn valgrind_output(flag: &str, stem: &str) -> (std::path::PathBuf, std::ffi::OsString) {
    let file = std::env::temp_dir().join(format!("{stem}-{}.out", std::process::id()));
    let mut named = std::ffi::OsString::from(flag);
    named.push(&file);
    (file, named)
}

impl Run<'_> {
    /// `valgrind` with `tool`'s flags running this client for `calls`
    /// calls (its server started by it over stdio, or at `url`).
    pub(crate) fn under_valgrind(&self, tool: &[std::ffi::OsString], calls: usize) -> Command {
        let mut cmd = Command::new("valgrind");
        cmd.args(tool)
            .arg(self.exe)
            .args([
                "--via",
                self.via,
                "--era",
                self.era,
                "--runtime",
                self.runtime,
            ])
            .args(["--bytes", &self.bytes.to_string()])
            .args(["--workers", &self.workers.to_string()])
            .args(["--calls", &calls.to_string(), "--reps", "1"])
            .args(["--url", self.url]);
        if self.pooled {
            cmd.arg("--pooled");
        }
        cmd.arg("--").arg(self.server).arg("--stdio");
        cmd
    }
}

/// The calls the longer of two runs of `workers` callers makes beyond the
/// shorter's: every client warms up with `measure.rs`'s rule (a quarter of
/// its calls, at least one per caller, at most 500) before its measured
/// calls, and the warm-up is in a profile's count.
pub(crate) fn extra_calls(short: usize, long: usize, workers: usize) -> usize {
    with_warm_up(long, workers)
        .saturating_sub(with_warm_up(short, workers))
        .max(1)
}

/// The calls a client process of `workers` callers makes for `calls`
/// measured ones: `measure.rs`'s warm-up first.
pub(crate) fn with_warm_up(calls: usize, workers: usize) -> usize {
    calls + (calls / 4).clamp(workers, 500)
}

/// What one more call costs: the difference of two runs.
struct PerCall {
    instructions: f64,
    /// Atomic writes, when counted.
    atomics: Option<f64>,
    /// The functions making the most atomic writes, when counted and the
    /// functions are asked for.
    atomic_functions: Option<Vec<(String, f64)>>,
    /// Code executed on every call, when the profile was read.
    footprint: Option<Footprint>,
    /// The functions on the most of those lines, when asked for.
    functions: Option<Vec<FunctionCost>>,
}

/// What one more call costs: two runs, the difference; with `functions`,
/// that many functions on the most lines a call.
fn per_call(run: &Run<'_>, functions: Option<usize>) -> Result<PerCall, String> {
    let (short, long) = if run.bytes > 0 {
        (SHORT_BIG, LONG_BIG)
    } else {
        (SHORT, LONG)
    };
    let a = sample(run, short)?;
    let b = sample(run, long)?;
    let extra = extra_calls(short, long, run.workers);
    let calls = extra as f64;
    let atomics = a
        .atomics
        .as_ref()
        .zip(b.atomics.as_ref())
        .map(|(a, b)| b.total.saturating_sub(a.total) as f64 / calls);
    let atomic_functions = functions
        .zip(a.atomics.as_ref().zip(b.atomics.as_ref()))
        .map(|(n, (a, b))| {
            let mut top = b.per_call_by_function(a, calls);
            top.truncate(n);
            top
        });
    let code = a
        .executions
        .zip(b.executions)
        .map(|(a, b)| b.per_call(&a, extra as u64));
    let (footprint, functions) = match code {
        Some(PerCallCode {
            footprint,
            functions: mut all,
        }) => (
            Some(footprint),
            functions.map(|n| {
                all.truncate(n);
                all
            }),
        ),
        None => (None, None),
    };
    Ok(PerCall {
        instructions: b.instructions.saturating_sub(a.instructions) as f64 / calls,
        atomics,
        atomic_functions,
        footprint,
        functions,
    })
}

/// One run's totals.
struct Sample {
    instructions: u64,
    atomics: Option<crate::bench_atomics::Executed>,
    executions: Option<Executions>,
}

/// Total instructions of one client process making `calls` calls, its
/// atomic writes when they are counted, and the executions of each of its
/// instructions.
fn sample(run: &Run<'_>, calls: usize) -> Result<Sample, String> {
    let (profile, stderr) = callgrind(run, calls, &[])?;
    let exe_name = run
        .exe
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    let atomics = match (run.sites, exe_name, &profile) {
        (Some(sites), Some(name), Some(profile)) => {
            Some(crate::bench_atomics::executed(profile, sites, &name))
        }
        _ => None,
    };
    let executions = profile.as_deref().map(crate::bench_profile::executions);
    stderr
        .lines()
        .find_map(|l| {
            l.split_once("Collected : ")
                .map(|(_, n)| n.trim().to_owned())
        })
        .and_then(|n| n.parse().ok())
        .map(|instructions| Sample {
            instructions,
            atomics,
            executions,
        })
        .ok_or_else(|| format!("no instruction count in valgrind's output: {stderr}"))
}

/// Runs `run`'s client for `calls` calls under callgrind (with
/// `--dump-instr=yes`, and `flags`): its profile (`None` when it could
/// not be read) and valgrind's report.
pub(crate) fn callgrind(
    run: &Run<'_>,
    calls: usize,
    flags: &[&str],
) -> Result<(Option<String>, String), String> {
    let (out_file, out_flag) = valgrind_output("--callgrind-out-file=", "mcp-icount");
    let mut tool = vec!["--tool=callgrind".into(), "--dump-instr=yes".into()];
    tool.extend(flags.iter().map(std::ffi::OsString::from));
    tool.push(out_flag);
    let out = run
        .under_valgrind(&tool, calls)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("start valgrind: {e}"))?;
    let profile = std::fs::read_to_string(&out_file).ok();
    let _ = std::fs::remove_file(&out_file);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() {
        return Err(format!(
            "{} ({}, {} {}): {}",
            run.exe.display(),
            run.era,
            run.via,
            run.workers,
            stderr.lines().last().unwrap_or("failed")
        ));
    }
    Ok((profile, stderr))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::args;

    #[test]
    fn functions_are_asked_for_with_an_optional_count() {
        assert_eq!(functions_wanted(&args(&["--icount"])), Ok(None));
        assert_eq!(functions_wanted(&args(&["--functions"])), Ok(Some(20)));
        assert_eq!(functions_wanted(&args(&["--functions=5"])), Ok(Some(5)));
        for bad in ["--functions=0", "--functions=x", "--functions5"] {
            let e = functions_wanted(&args(&[bad])).unwrap_err();
            assert!(e.contains(bad), "{e}");
        }
    }

    #[test]
    fn a_function_table_escapes_and_shortens_names() {
        let long = "f".repeat(200);
        let t = function_table(
            "stdio, sequential",
            &[
                FunctionCost {
                    name: "<a as b>::c|d".into(),
                    lines: 12.5,
                    instructions: 300.4,
                },
                FunctionCost {
                    name: long,
                    lines: 1.0,
                    instructions: 2.0,
                },
            ],
        );
        assert!(t.contains("| 12.5 | 300 | `<a as b>::c\\|d` |"), "{t}");
        assert!(t.contains(&format!("`{}…`", "f".repeat(140))), "{t}");
    }

    #[test]
    fn an_atomics_table_gives_two_decimals_and_escapes_names() {
        let t = atomic_function_table(
            "stdio, sequential",
            &[("<a as b>::c|d".to_owned(), 2.0), ("e".to_owned(), 0.125)],
        );
        assert!(t.contains("| atomic writes | function |"), "{t}");
        assert!(t.contains("| 2.00 | `<a as b>::c\\|d` |"), "{t}");
        assert!(t.contains("| 0.12 | `e` |"), "{t}");
    }
}
