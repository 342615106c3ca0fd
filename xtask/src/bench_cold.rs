//! `cargo xtask bench --table --cold-tlb`: the one-call-at-a-time rows
//! with the client's TLB empty at each of its turns, as it is after every
//! switch between two processes on a CPU without PCID (the 2-vCPU AMD EPYC
//! VM of stops 40-47, where this SDK measured 2.2-2.4x the floor one stdio
//! call at a time and 1.5-1.7x over HTTP while a CPU with PCID measured
//! 1.6-1.8x and 1.3-1.4x).
//!
//! The server is behind a chain of [`RELAYS`] relay processes
//! (`bench/clients/src/bin/relay.rs`) on its CPU: each stdio server behind
//! relays of its pipes, the HTTP server behind relays of its TCP
//! connections (each connection relayed on one of its own, without Nagle's
//! delay). A request and its reply pass through each, so between two of
//! the client's turns more address spaces run there than the kernel keeps
//! tagged TLB entries for (x86's PCIDs: six at most; on this project's
//! Intel VM five address spaces taking turns already emptied the
//! client's), and every page a call touches costs the client a page walk.
//! The relays' CPU time is theirs, not the client's. Only the rows where
//! the client waits for each reply run: with 32 calls in flight the
//! relays, which pass each read on at once, would hand the client its
//! replies one at a time where the server writes several together, a
//! harsher regime than any CPU's. `--hot-first` profiles its client
//! against the server itself.
//!
//! Every run of a client is from a fresh copy of its binary: in this
//! regime where the kernel keeps a file's pages moves its client's figure
//! (the linker's own output file measured 13-15% slower than a copy of the
//! same bytes, and no slower once the page cache was dropped; two copies
//! of one file differed by up to 4%), so each round's run draws its
//! placement anew and the median over the rounds is over as many.

use std::path::{Path, PathBuf};

/// How many relays the server is behind: with the client and the
/// server, six address spaces take turns on the CPU (a table's figures
/// were the same with three, four, five and six relays on the Intel VM).
pub(crate) const RELAYS: usize = 4;

/// Whether a row with `workers` callers runs in this regime.
pub(crate) fn runs(workers: usize) -> bool {
    workers == 1
}

/// The line the table's heading adds.
pub(crate) fn describe() -> String {
    format!(
        "--cold-tlb: one call at a time only, the server behind {RELAYS} relay processes on \
         its CPU (the client's TLB empty at each of its turns), each run from a fresh copy of \
         its client's binary"
    )
}

/// A fresh copy of the program at `path`, beside it (`NAME.cold-tlb`).
pub(crate) fn fresh_copy(path: &Path) -> Result<PathBuf, String> {
    let mut name = path.file_name().unwrap_or_default().to_owned();
    name.push(".cold-tlb");
    let copy = path.with_file_name(name);
    // A copy over itself would keep the old file's pages: remove it first.
    let _ = std::fs::remove_file(&copy);
    std::fs::copy(path, &copy).map_err(|e| format!("--cold-tlb: copy {}: {e}", path.display()))?;
    Ok(copy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_one_call_at_a_time_runs() {
        let rows: Vec<_> = crate::bench_table::ROWS
            .iter()
            .filter(|r| runs(r.3))
            .map(|r| r.0)
            .collect();
        assert_eq!(
            rows,
            [
                "stdio, sequential",
                "HTTP, sequential",
                "stdio, 256 KiB results"
            ]
        );
    }

    #[test]
    fn a_copy_is_fresh_and_beside_its_program() {
        let dir = std::env::temp_dir().join(format!("xtask-cold-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let program = dir.join("client");
        std::fs::write(&program, b"old").unwrap();
        std::fs::write(dir.join("client.cold-tlb"), b"stale copy").unwrap();
        let copy = fresh_copy(&program).unwrap();
        assert_eq!(copy, dir.join("client.cold-tlb"));
        assert_eq!(std::fs::read(&copy).unwrap(), b"old");
        assert!(
            fresh_copy(&dir.join("missing"))
                .unwrap_err()
                .contains("missing")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
