//! `cargo xtask bench --table --hot-first`: one more column, this SDK's
//! client linked with the functions a call runs placed next to each other,
//! to show what code layout alone is worth on the machine at hand.
//!
//! A call of this SDK runs code on some 150-200 pages of 4 KiB, scattered
//! over its executable (`--icount` counts them); where every switch to the
//! server and back empties the TLB, each is a page walk on every call
//! (`PERFORMANCE.md`, stop 40). The column's client is the
//! same code as the SDK's: profiled with callgrind in the three sequential
//! scenarios (two run lengths, so that start-up drops out), the functions
//! that ran at least once per extra call are listed, hottest first, and the
//! client is linked again with that list as LLD's `--symbol-ordering-file`
//! (the linker rustc uses on x86-64 Linux). It is a diagnosis, not a
//! figure the targets are judged by: an ordering is a property of the
//! final binary, which a host links, and is what profile-guided
//! optimization gives a host that wants it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::bench_icount::{LONG, Run, SHORT, extra_calls};

/// The scenarios profiled: the sequential ones (transport, era).
const PROFILED: [(&str, &str); 3] = [("stdio", "legacy"), ("http", "legacy"), ("http", "modern")];

/// Links `sdk` (built in `bench_target`) again with its per-call functions
/// first and returns the copy's path (`sdk-hot-first`); the client at
/// `sdk` is linked back as it was. `url` is the HTTP server's, `server` the
/// program a stdio client starts.
pub(crate) fn link(
    sdk: &Path,
    bench_target: &Path,
    url: &str,
    server: &Path,
) -> Result<PathBuf, String> {
    let mut per_call: HashMap<String, f64> = HashMap::new();
    for (via, era) in PROFILED {
        let run = Run {
            exe: sdk,
            runtime: "ct",
            via,
            era,
            bytes: 0,
            workers: 1,
            pooled: false,
            url,
            server,
            sites: None,
        };
        let short = self_costs(&run, SHORT)?;
        let long = self_costs(&run, LONG)?;
        let extra = extra_calls(SHORT, LONG, 1) as f64;
        for (function, cost) in long {
            let more = cost.saturating_sub(short.get(&function).copied().unwrap_or(0)) as f64;
            if more >= extra {
                *per_call.entry(function).or_default() += more / extra;
            }
        }
    }
    if per_call.is_empty() {
        return Err("--hot-first: the profiles name no function a call runs".into());
    }
    let mut order: Vec<(String, f64)> = per_call.into_iter().collect();
    order.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let list = bench_target.join("hot-first.txt");
    let text: String = order.iter().map(|(f, _)| format!("{f}\n")).collect();
    std::fs::write(&list, text).map_err(|e| format!("write {}: {e}", list.display()))?;
    println!(
        "bench: --hot-first: {} functions a call runs, listed in {}",
        order.len(),
        list.display()
    );
    let mut ordered = std::ffi::OsString::from("link-arg=-Wl,--symbol-ordering-file=");
    ordered.push(&list);
    relink(
        bench_target,
        &[
            ordered.as_os_str(),
            "link-arg=-Wl,--no-warn-symbol-ordering".as_ref(),
        ],
    )?;
    let hot_first = sdk.with_file_name(format!("sdk-hot-first{}", std::env::consts::EXE_SUFFIX));
    let copied = std::fs::copy(sdk, &hot_first);
    // The plain link again, whatever the copy did.
    relink(bench_target, &[])?;
    copied.map_err(|e| format!("copy {}: {e}", sdk.display()))?;
    Ok(hot_first)
}

/// `cargo rustc` for the SDK's bench client with `-C` arguments `codegen`:
/// only the client's own crate is built again (its link with them). Cargo
/// does not tell one `cargo rustc`'s arguments from another's, so the
/// client's source is marked as changed first (its time set to now).
fn relink(bench_target: &Path, codegen: &[&std::ffi::OsStr]) -> Result<(), String> {
    let source = crate::util::root().join("bench/clients/src/bin/sdk.rs");
    std::fs::File::options()
        .append(true)
        .open(&source)
        .and_then(|f| f.set_modified(std::time::SystemTime::now()))
        .map_err(|e| format!("mark {} as changed: {e}", source.display()))?;
    let mut cargo = crate::bench_table::plain_cargo();
    cargo
        .args(["rustc", "--quiet", "--release", "--manifest-path"])
        .arg(crate::util::root().join("bench/clients/Cargo.toml"))
        .arg("--target-dir")
        .arg(bench_target)
        .args(["--bin", "sdk", "--"]);
    for arg in codegen {
        cargo.arg("-C").arg(arg);
    }
    crate::util::run("bench: link the SDK client", &mut cargo)
}

/// Each function's own instructions in one run of `calls` calls of `run`
/// under callgrind (mangled names: what the linker's list wants).
fn self_costs(run: &Run<'_>, calls: usize) -> Result<HashMap<String, u64>, String> {
    let (profile, _) = crate::bench_icount::callgrind(run, calls, &["--demangle=no"])
        .map_err(|e| format!("--hot-first needs valgrind: {e}"))?;
    let profile = profile.ok_or("--hot-first: callgrind wrote no profile")?;
    let mut costs: HashMap<String, u64> = HashMap::new();
    let exe_name = run
        .exe
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    crate::bench_profile::walk(&profile, |at, _, cost| {
        // The client's own functions: the only ones its link orders.
        if exe_name.as_deref().is_some_and(|n| at.name.ends_with(n)) {
            *costs.entry(at.function.to_owned()).or_default() += cost;
        }
    });
    Ok(costs)
}
