//! `cargo xtask bench --icount --data`: the data a call touches, in 4 KiB
//! pages and 64-byte lines, beside the code `bench_profile.rs` counts.
//!
//! On a machine whose every switch between the client and the server
//! empties the TLB (no PCID: the AMD EPYC VM of `PERFORMANCE.md`, stops
//! 40-47), a call pays a page walk for every page it touches, data as well
//! as code: the heap's, the stack's, and the executable's constants, jump
//! tables, vtables and GOT wherever the linker put them. callgrind counts
//! instructions only, so this runs the client once more under valgrind's
//! lackey, which reports every load and store (`--trace-mem=yes`).
//!
//! A call's footprint is read off the trace without marking where a call
//! starts: the steady state repeats one call's work, so a window of one
//! call's instructions (callgrind's count a call, from the same `--icount`
//! run) holds one call's accesses, whatever its phase. The pages and lines
//! each window touches are counted, and averaged over the windows of the
//! calls' middle: after the start-up and the first quarter of the calls
//! (the warm-up among them), before the last fifth and the shut-down.

use std::collections::HashSet;
use std::io::BufRead;
use std::process::Stdio;

use crate::bench_icount::Run;

/// Calls of the traced run (lackey's trace of this SDK's 300 stdio calls,
/// its warm-up and its start-up is some 130 MB, in the temporary directory
/// while it is read).
pub(crate) const CALLS: usize = 300;

/// Distinct data pages and lines a call touches (means over the steady
/// windows).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct DataFootprint {
    pub(crate) pages: f64,
    pub(crate) lines: f64,
}

/// Traces `run`'s client for [`CALLS`] calls under lackey and counts the
/// data a window of `per_call` instructions touches.
pub(crate) fn footprint(run: &Run<'_>, per_call: f64) -> Result<DataFootprint, String> {
    let width = per_call.round().max(1.0) as u64;
    let (trace, log) = crate::bench_icount::valgrind_output("--log-file=", "mcp-lackey");
    let tool = ["--tool=lackey".into(), "--trace-mem=yes".into(), log];
    let status = run
        .under_valgrind(&tool, CALLS)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("start valgrind: {e}"))?;
    let counted = match status.success() {
        true => std::fs::File::open(&trace)
            .map_err(|e| format!("read lackey's trace: {e}"))
            .and_then(|f| {
                windows(std::io::BufReader::new(f), width)
                    .map_err(|e| format!("read lackey's trace: {e}"))
            }),
        false => Err(format!(
            "{} ({}, {}) under lackey: {status}",
            run.exe.display(),
            run.era,
            run.via
        )),
    };
    let _ = std::fs::remove_file(&trace);
    steady(
        &counted?,
        crate::bench_icount::with_warm_up(CALLS, run.workers),
    )
    .ok_or_else(|| "lackey's trace held too few calls".to_owned())
}

/// The distinct data pages and lines each window of `width` instructions
/// of a lackey trace touches, in order (the last, partial window left
/// out). A trace line is an instruction (`I  addr,size`) or a data access
/// (` L`, ` S` or ` M addr,size`); anything else (valgrind's own lines) is
/// skipped.
fn windows(mut trace: impl BufRead, width: u64) -> std::io::Result<Vec<(u32, u32)>> {
    let mut out = Vec::new();
    let (mut pages, mut lines) = (HashSet::new(), HashSet::new());
    let mut executed = 0u64;
    // One buffer for every line (a trace has millions): no allocation and
    // no UTF-8 check a line.
    let mut line = Vec::new();
    while trace.read_until(b'\n', &mut line)? > 0 {
        let (kind, rest) = match line.as_slice() {
            [b'I', b' ', rest @ ..] => (Access::Instruction, rest),
            [b' ', b'L' | b'S' | b'M', b' ', rest @ ..] => (Access::Data, rest),
            _ => {
                line.clear();
                continue;
            }
        };
        let address = address(rest);
        line.clear();
        let Some(address) = address else {
            continue;
        };
        match kind {
            Access::Instruction => {
                if executed > 0 && executed.is_multiple_of(width) {
                    out.push((pages.len() as u32, lines.len() as u32));
                    pages.clear();
                    lines.clear();
                }
                executed += 1;
            }
            Access::Data => {
                pages.insert(address >> 12);
                lines.insert(address >> 6);
            }
        }
    }
    Ok(out)
}

/// The address a trace line's fields start with (hexadecimal, before the
/// comma and the size).
fn address(fields: &[u8]) -> Option<u64> {
    let start = fields.iter().position(|&b| b != b' ')?;
    let digits = fields[start..].split(|&b| b == b',').next()?;
    u64::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
}

/// What a trace line is.
enum Access {
    Instruction,
    Data,
}

/// The means over the steady windows: of the last `calls` windows (one a
/// call, the start-up before them), those after the first quarter and
/// before the last fifth. `None` when there are too few.
fn steady(windows: &[(u32, u32)], calls: usize) -> Option<DataFootprint> {
    let end = windows.len().checked_sub(calls / 5)?;
    let start = windows.len().checked_sub(calls * 3 / 4)?;
    let steady = windows.get(start..end).filter(|w| !w.is_empty())?;
    let n = steady.len() as f64;
    Some(DataFootprint {
        pages: steady.iter().map(|w| f64::from(w.0)).sum::<f64>() / n,
        lines: steady.iter().map(|w| f64::from(w.1)).sum::<f64>() / n,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_window_counts_the_pages_and_lines_its_instructions_touch() {
        let trace = "==1== Lackey, an example Valgrind tool\n\
            I  04000000,3\n L 1fff000010,8\n S 1fff000018,8\n\
            I  04000003,2\n M 00500000,4\n L 00500040,8\n\
            I  04000005,5\n L 00600000,8\n\
            I  04000008,3\n L 00600008,8\n S 00700000,8\n\
            I  0400000b,3\n\
            ==1== Counted 1 call to main()\n";
        // Two instructions a window: the first touches one stack line and
        // a heap page in two lines, the second two pages (three lines);
        // the fifth instruction's window is partial and left out.
        let w = windows(trace.as_bytes(), 2).unwrap();
        assert_eq!(w, vec![(2, 3), (2, 2)]);
    }

    #[test]
    fn malformed_lines_are_skipped() {
        let trace = "I  zz,3\n L ,8\nI  10,1\n L 40,8\nX 1,1\nI  11,1\n";
        assert_eq!(windows(trace.as_bytes(), 1).unwrap(), vec![(1, 1)]);
    }

    #[test]
    fn the_steady_state_is_the_middle_of_the_calls() {
        // Ten start-up windows touching many pages, then twenty calls of
        // four pages each, then a shut-down of many again.
        let mut w = vec![(100, 900); 10];
        w.extend(std::iter::repeat_n((4, 30), 20));
        w.extend([(50, 400), (60, 500)]);
        let f = steady(&w, 22).unwrap();
        assert_eq!(
            f,
            DataFootprint {
                pages: 4.0,
                lines: 30.0
            }
        );
        assert_eq!(steady(&w[..3], 22), None);
    }
}
