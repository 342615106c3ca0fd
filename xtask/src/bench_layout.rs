//! `cargo xtask bench --table --hot-first`: two more columns, this SDK's
//! client linked with the functions a call runs placed next to each other,
//! to show what code layout alone is worth on the machine at hand: all of
//! them, and only this SDK's own (the most any arrangement of its crates'
//! source could give; the rest is the runtime's, the standard library's and
//! the host's code).
//!
//! A call of this SDK runs code on some 150-200 pages of 4 KiB, scattered
//! over its executable (`--icount` counts them); where every switch to the
//! server and back empties the TLB, each is a page walk on every call
//! (`PERFORMANCE.md`, stop 40). The column's client is the
//! same code as the SDK's: profiled with callgrind in the three sequential
//! scenarios (two run lengths, so that start-up drops out), the functions
//! that ran at least once per extra call are listed, hottest first, and the
//! client is linked again with that list as LLD's `--symbol-ordering-file`
//! (the linker rustc uses on x86-64 Linux); for the second column the list
//! keeps only the SDK's functions ([`is_sdk_symbol`]). It is a diagnosis, not a
//! figure the targets are judged by: an ordering is a property of the
//! final binary, which a host links, and is what profile-guided
//! optimization gives a host that wants it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::bench_icount::{LONG, Run, SHORT, extra_calls};

/// The scenarios profiled: the sequential ones (transport, era).
const PROFILED: [(&str, &str); 3] = [("stdio", "legacy"), ("http", "legacy"), ("http", "modern")];

/// The two clients [`link`] makes.
pub(crate) struct HotFirst {
    /// Every function a call runs first (`sdk-hot-first`).
    pub(crate) all: PathBuf,
    /// Only this SDK's functions a call runs first (`sdk-hot-own`).
    pub(crate) own: PathBuf,
}

/// Links `sdk` (built in `bench_target`) again with its per-call functions
/// first, and again with only the SDK's own of them first, and returns the
/// copies; the client at `sdk` is linked back as it was. `url` is the HTTP
/// server's, `server` the program a stdio client starts.
pub(crate) fn link(
    sdk: &Path,
    bench_target: &Path,
    url: &str,
    server: &Path,
) -> Result<HotFirst, String> {
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
    let hot = order.iter().map(|(f, _)| f.as_str());
    let made = linked_with(sdk, bench_target, "hot-first", hot.clone()).and_then(|all| {
        let own = linked_with(
            sdk,
            bench_target,
            "hot-own",
            hot.filter(|f| is_sdk_symbol(f)),
        )?;
        Ok(HotFirst { all, own })
    });
    // The plain link again, whatever the others did.
    relink(bench_target, &[])?;
    made
}

/// The crates a call of the bench's SDK client runs (the client's own
/// crate aside).
const SDK_CRATES: [&str; 5] = [
    "mcp_types",
    "mcp_core",
    "mcp_client",
    "mcp_transport_stdio",
    "mcp_transport_http",
];

/// Whether a mangled symbol is this SDK's: a function of one of its crates,
/// or an instance or drop glue made for one of their items or types,
/// whichever crate it was compiled in. Both manglings spell each crate's
/// name out whole in a symbol's path, so the name is enough.
fn is_sdk_symbol(symbol: &str) -> bool {
    SDK_CRATES.iter().any(|c| symbol.contains(c))
}

/// Writes `functions` (mangled names, in order) to `NAME.txt` in
/// `bench_target`, links the SDK's client with it as the linker's symbol
/// order, and copies the client to `sdk-NAME` beside it.
fn linked_with<'a>(
    sdk: &Path,
    bench_target: &Path,
    name: &str,
    functions: impl Iterator<Item = &'a str>,
) -> Result<PathBuf, String> {
    let list = bench_target.join(format!("{name}.txt"));
    let text: String = functions.map(|f| format!("{f}\n")).collect();
    std::fs::write(&list, &text).map_err(|e| format!("write {}: {e}", list.display()))?;
    println!(
        "bench: --hot-first: {} functions a call runs, listed in {}",
        text.lines().count(),
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
    let copy = sdk.with_file_name(format!("sdk-{name}{}", std::env::consts::EXE_SUFFIX));
    std::fs::copy(sdk, &copy).map_err(|e| format!("copy {}: {e}", sdk.display()))?;
    Ok(copy)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sdks_own_functions_are_told_from_the_rest() {
        let list = [
            "_ZN8mcp_core10connection4send9send_main17h0123456789abcdefE",
            "_ZN5tokio7runtime4task3raw4poll17h0123456789abcdefE",
            "_ZN4core3ptr53drop_in_place$LT$mcp_types..content..ContentBlock$GT$17h0123456789abcdefE",
            "_RNvNtCs1234_3std2io5stdio",
            "_RNvNtCs1234_10mcp_client6client9send_start",
            "__memcpy_avx_unaligned_erms",
            "_ZN11rmcp_macros4tool17h0123456789abcdefE",
        ];
        let own: Vec<&str> = list.into_iter().filter(|f| is_sdk_symbol(f)).collect();
        assert_eq!(own, [list[0], list[2], list[4]]);
    }
}
