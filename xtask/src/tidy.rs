//! `cargo xtask tidy`: the repository's own rules, checked mechanically.
//!
//! * Every Rust module starts with a `//!` doc comment.
//! * No source file is longer than [`MAX_LINES`], outside tests and
//!   generated code.
//! * `mcp-types` and `mcp-core` depend (normally, transitively) on no I/O
//!   crate, as `cargo metadata` reports the resolved graph.
//! * `mcp-core/src` reads no clock, not even in tests or doc examples (its
//!   unit tests take their origin from `mcp-core/tests/support/origin.rs`);
//!   `mcp-client/src` reads the clock, sleeps and spawns only in its driver
//!   (`mcp-client/src/driver/`), a file's trailing test module exempt (a
//!   `#[cfg(test)]` at the start of a line, then an inline `mod` that ends
//!   the file).
//! * `mcp-client/tests` waits for events or runs on the paused clock: no
//!   `thread::sleep`, no `eventually*` polling helper, no real-clock tokio
//!   sleep without a stated reason ([`test_waits`]).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use crate::util;

mod test_waits;

/// The size budget of one source file.
const MAX_LINES: usize = 650;

/// Crates the sans-I/O crates must never pull in.
const IO_CRATES: &[&str] = &[
    "tokio",
    "hyper",
    "rustls",
    "mio",
    "socket2",
    "async-std",
    "smol",
];

/// Runs every tidy check and reports all failures together.
pub(crate) fn run() -> Result<(), String> {
    let mut problems = Vec::new();
    let root = util::root();
    let mut files = Vec::new();
    collect_rs(&root, &mut files);
    for file in &files {
        check_file(&root, file, &mut problems);
    }
    check_sans_io(&mut problems)?;
    if problems.is_empty() {
        println!("tidy: {} files checked, no problems", files.len());
        Ok(())
    } else {
        for p in &problems {
            eprintln!("tidy: {p}");
        }
        Err(format!("{} tidy problem(s)", problems.len()))
    }
}

fn collect_rs(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') || name == "target" || name == "node_modules" {
            continue;
        }
        if path.is_dir() {
            collect_rs(&path, out);
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

fn is_test_or_generated(rel: &str) -> bool {
    rel.contains("/tests/")
        || rel.contains("/benches/")
        || rel.contains("/generated/")
        || rel.ends_with("/tests.rs")
        || rel.ends_with("_tests.rs")
}

fn check_file(root: &Path, file: &Path, problems: &mut Vec<String>) {
    let rel = file
        .strip_prefix(root)
        .unwrap_or(file)
        .display()
        .to_string();
    let Ok(text) = std::fs::read_to_string(file) else {
        problems.push(format!("{rel}: not readable as UTF-8"));
        return;
    };
    let in_src = rel.contains("/src/");
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    if in_src && !first.starts_with("//!") {
        problems.push(format!(
            "{rel}: a module must start with a `//!` doc comment"
        ));
    }
    let lines = text.lines().count();
    if !is_test_or_generated(&rel) && lines > MAX_LINES {
        problems.push(format!(
            "{rel}: {lines} lines, over the {MAX_LINES}-line budget"
        ));
    }
    if test_waits::covered(&rel) {
        for (n, why) in test_waits::check(&text) {
            problems.push(format!("{rel}:{n}: {why}"));
        }
    }
    let tests_from = trailing_tests_start(&text);
    for (n, line) in text.lines().enumerate() {
        let in_tests = n >= tests_from;
        // Spelled in pieces so that this file does not match itself.
        let leftovers = [
            concat!("dbg", "!("),
            concat!("todo", "!("),
            concat!("unimplemented", "!("),
        ];
        // The core is sans-I/O down to its doc examples: time comes in
        // as an argument (clippy.toml does not see doc tests).
        let clock_reads = [concat!("Instant", "::now"), concat!("SystemTime", "::now")];
        if rel.starts_with("mcp-core/src/") && clock_reads.iter().any(|p| line.contains(p)) {
            problems.push(format!(
                "{rel}:{}: mcp-core reads no clock, not even in a doc example",
                n + 1
            ));
        }
        if !in_tests && driver_only(&rel) && DRIVER_ONLY.iter().any(|p| line.contains(p)) {
            problems.push(format!(
                "{rel}:{}: only mcp-client's driver (mcp-client/src/driver/) reads the \
                 clock, sleeps or spawns",
                n + 1
            ));
        }
        if leftovers.iter().any(|p| line.contains(p)) {
            problems.push(format!(
                "{rel}:{}: leftover dbg!/todo!/unimplemented!",
                n + 1
            ));
        }
    }
}

/// The line where a file's trailing test module starts (the line count
/// when it has none): a `#[cfg(test)]` at the start of a line, then an
/// inline `mod NAME {` whose closing `}` (at the start of a line, as
/// rustfmt writes it) is the file's last non-blank line. A `#[cfg(test)]`
/// on anything else (an indented item, a `fn`, `mod tests;`) exempts
/// nothing.
fn trailing_tests_start(text: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    let Some(last) = lines.iter().rposition(|l| !l.trim().is_empty()) else {
        return lines.len();
    };
    (0..lines.len())
        .rev()
        .find(|&i| {
            let opens = lines
                .get(i + 1)
                .is_some_and(|l| l.starts_with("mod ") && l.ends_with('{'));
            lines[i] == "#[cfg(test)]"
                && opens
                && lines[i + 2..].iter().position(|l| *l == "}") == Some(last - i - 2)
        })
        .unwrap_or(lines.len())
}

/// What only mcp-client's driver may do: read the clock, sleep, spawn a
/// task or a thread (spelled in pieces so that this file does not match
/// itself).
const DRIVER_ONLY: &[&str] = &[
    concat!("Instant", "::now"),
    concat!("SystemTime", "::now"),
    concat!("time::", "sleep"),
    concat!("tokio::", "spawn"),
    concat!("task::", "spawn"),
    concat!("thread::", "spawn"),
];

/// Whether `rel` is a file of mcp-client's library outside its driver.
fn driver_only(rel: &str) -> bool {
    let rel = rel.replace('\\', "/");
    rel.starts_with("mcp-client/src/") && !rel.starts_with("mcp-client/src/driver/")
}

fn check_sans_io(problems: &mut Vec<String>) -> Result<(), String> {
    let out = util::cargo()
        .args(["metadata", "--format-version", "1", "--locked"])
        .output()
        .map_err(|e| format!("cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let meta: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("cargo metadata output: {e}"))?;
    let names: HashMap<&str, &str> = meta["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| Some((p["id"].as_str()?, p["name"].as_str()?)))
        .collect();
    let nodes: HashMap<&str, Vec<&str>> = meta["resolve"]["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|n| {
            let id = n["id"].as_str()?;
            let deps = n["deps"]
                .as_array()?
                .iter()
                .filter(|d| {
                    d["dep_kinds"].as_array().is_some_and(|kinds| {
                        kinds
                            .iter()
                            .any(|k| k["kind"].is_null() && k["target"].is_null())
                    })
                })
                .filter_map(|d| d["pkg"].as_str())
                .collect();
            Some((id, deps))
        })
        .collect();
    for krate in ["mcp-types", "mcp-core"] {
        let Some(start) = names.iter().find(|(_, n)| **n == krate).map(|(id, _)| *id) else {
            return Err(format!("{krate} not found in cargo metadata"));
        };
        let mut seen = BTreeSet::new();
        let mut stack = vec![start];
        while let Some(id) = stack.pop() {
            if !seen.insert(id) {
                continue;
            }
            if let Some(name) = names.get(id).filter(|n| IO_CRATES.contains(n)) {
                problems.push(format!("{krate} depends on the I/O crate {name}"));
            }
            stack.extend(nodes.get(id).into_iter().flatten().copied());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::trailing_tests_start;

    #[test]
    fn only_a_trailing_inline_test_module_is_exempt() {
        let trailing = "fn a() {}\n\n#[cfg(test)]\nmod tests {\n    fn b() {}\n}\n";
        assert_eq!(trailing_tests_start(trailing), 2);
        let code_after = "#[cfg(test)]\nmod tests {\n}\n\nfn after() {}\n";
        assert_eq!(trailing_tests_start(code_after), 5);
        let file_module = "#[cfg(test)]\nmod tests;\nfn after() {}\n";
        assert_eq!(trailing_tests_start(file_module), 3);
        let on_an_item = "    #[cfg(test)]\n    fn helper() {}\n";
        assert_eq!(trailing_tests_start(on_an_item), 2);
    }
}
