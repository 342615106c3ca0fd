//! The atomic read-modify-writes a client makes per call, for
//! `cargo xtask bench --icount`: counted from the same callgrind runs as
//! the instructions (`--dump-instr=yes`), by matching each executed
//! instruction's address against the client's `lock`-prefixed and `xchg`
//! (with a memory operand) instructions, found with `objdump -d`.
//!
//! An atomic write costs some 20 cycles where most instructions cost a
//! fraction of one, so two clients with the same instruction count can
//! differ in CPU by what they lock and count (`PERFORMANCE.md`). Only the
//! client's own executable is counted (Rust's std, tokio and every crate
//! are linked into it); the C library's allocator takes no lock in a
//! single-threaded process.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::Command;

/// The addresses of a program's atomic read-modify-write instructions.
pub(crate) struct AtomicSites(HashSet<u64>);

impl AtomicSites {
    /// Disassembles `exe` with `objdump`; `None` when objdump is missing
    /// or fails (the count is then left out).
    pub(crate) fn of(exe: &Path) -> Option<AtomicSites> {
        let out = Command::new("objdump")
            .args(["-d", "--no-show-raw-insn"])
            .arg(exe)
            .output()
            .ok()
            .filter(|o| o.status.success())?;
        let text = String::from_utf8_lossy(&out.stdout);
        Some(AtomicSites(text.lines().filter_map(atomic_site).collect()))
    }
}

/// The address of one disassembled line when its instruction is atomic: a
/// `lock` prefix, or an `xchg` with memory (implicitly locked; `xchg
/// %ax,%ax` is a no-op used as padding).
fn atomic_site(line: &str) -> Option<u64> {
    let (address, rest) = line.trim_start().split_once(":\t")?;
    let rest = rest.trim_start();
    let atomic = rest.starts_with("lock ") || (rest.starts_with("xchg") && rest.contains('('));
    atomic
        .then(|| u64::from_str_radix(address, 16).ok())
        .flatten()
}

/// How often a run executed a client's atomic instructions.
pub(crate) struct Executed {
    /// In all.
    pub(crate) total: u64,
    /// By the function callgrind names for each: the one whose code holds
    /// it (an inlined function's count is its caller's).
    by_function: HashMap<String, u64>,
}

impl Executed {
    /// Per call, what this run (the longer) executed beyond `shorter`, which
    /// made `calls` calls fewer: by function, the most first.
    pub(crate) fn per_call_by_function(
        &self,
        shorter: &Executed,
        calls: f64,
    ) -> Vec<(String, f64)> {
        let mut by_function: Vec<(String, f64)> = self
            .by_function
            .iter()
            .filter_map(|(function, &n)| {
                let before = shorter.by_function.get(function).copied().unwrap_or(0);
                let more = n.saturating_sub(before);
                (more > 0).then(|| (function.clone(), more as f64 / calls))
            })
            .collect();
        by_function.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        by_function
    }
}

/// Executions of `sites` in a callgrind profile made with
/// `--dump-instr=yes`, in the object whose file name ends with `exe_name`.
pub(crate) fn executed(profile: &str, sites: &AtomicSites, exe_name: &str) -> Executed {
    let mut executed = Executed {
        total: 0,
        by_function: HashMap::new(),
    };
    crate::bench_profile::walk(profile, |object, address, cost| {
        if object.name.ends_with(exe_name) && sites.0.contains(&address) {
            executed.total += cost;
            match executed.by_function.get_mut(object.function) {
                Some(n) => *n += cost,
                None => {
                    executed
                        .by_function
                        .insert(object.function.to_owned(), cost);
                }
            }
        }
    });
    executed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_prefixes_and_memory_exchanges_are_atomic_padding_is_not() {
        assert_eq!(
            atomic_site("  37a44f:\tlock cmpxchg %ecx,0x10(%r15)"),
            Some(0x37a44f)
        );
        assert_eq!(
            atomic_site("  37a5c6:\txchg   %eax,0x0(%r13)"),
            Some(0x37a5c6)
        );
        assert_eq!(
            atomic_site("  2b8a80:\tlock incq 0x547fe0(%rip)"),
            Some(0x2b8a80)
        );
        assert_eq!(atomic_site("  40cc60:\txchg   %ax,%ax"), None);
        assert_eq!(atomic_site("  40cc66:\tmov    %rax,(%rbx)"), None);
        assert_eq!(atomic_site("0000000000284aa0 <main>:"), None);
    }

    #[test]
    fn counts_executions_in_the_executable_only_and_skips_call_costs() {
        let sites = AtomicSites([0x1004, 0x2000, 0x3000].into_iter().collect());
        let profile = crate::bench_profile::tests::PROFILE;
        // 0x1004 five times and seven more, 0x3000 twice in the client;
        // libc's 0x2000 and the call's inclusive cost are not counted.
        let counted = executed(profile, &sites, "client");
        assert_eq!(counted.total, 14);
        // By function, per call against a run that executed none of them.
        let none = Executed {
            total: 0,
            by_function: HashMap::new(),
        };
        assert_eq!(
            counted.per_call_by_function(&none, 2.0),
            [("a".to_owned(), 6.0), ("c".to_owned(), 1.0)]
        );
        // Against a shorter run: only what this one made more.
        assert_eq!(
            counted.per_call_by_function(&counted, 2.0),
            Vec::<(String, f64)>::new()
        );
    }
}
