//! The figures of the side-by-side bench ([`crate::bench_table`]): the
//! columns (clients), one measured cell per client and scenario, and the
//! Markdown tables printed from them.

use std::fmt::Write;

/// A column of the table: which client program, on which runtime.
pub(crate) struct Variant {
    /// Column heading.
    pub(crate) name: &'static str,
    /// `floor`, `rmcp` or `sdk`.
    pub(crate) program: &'static str,
    /// `ct` or `mt` (tokio runtime; the floor picks its own), or `tokio`:
    /// the stdio floor's loop on tokio (stdio rows only).
    pub(crate) runtime: &'static str,
    /// rmcp with one reused HTTP client (HTTP rows only).
    pub(crate) pooled: bool,
}

impl Variant {
    /// Every column, in table order: the floor, the stdio floor on tokio
    /// (what the runtime alone adds; over HTTP the floor is on tokio
    /// already), rmcp (default and pooled HTTP, on `#[tokio::main]`'s
    /// multi-thread runtime), this SDK on both runtimes.
    pub(crate) fn all() -> Vec<Variant> {
        let v = |name, program, runtime, pooled| Variant {
            name,
            program,
            runtime,
            pooled,
        };
        vec![
            v("floor", "floor", "ct", false),
            v("floor on tokio", "floor", "tokio", false),
            v("rmcp", "rmcp", "mt", false),
            v("rmcp pooled", "rmcp", "mt", true),
            v("SDK current-thread", "sdk", "ct", false),
            v("SDK multi-thread", "sdk", "mt", false),
        ]
    }

    /// `--parts`' column: this SDK's per-call parts without its engine
    /// (`bench/clients/src/bin/parts.rs`), one call at a time.
    pub(crate) fn parts() -> Variant {
        Variant {
            name: "SDK's parts, no engine",
            program: "parts",
            runtime: "ct",
            pooled: false,
        }
    }

    /// Puts [`Variant::parts`] among `columns` right after the floor on
    /// tokio, so that a table reads the runtime's cost (over stdio), then
    /// the parts', then (the SDK's own columns) the engine's.
    pub(crate) fn add_parts(columns: &mut Vec<Variant>) {
        let at = columns
            .iter()
            .position(|v| v.runtime == "tokio")
            .map_or(columns.len(), |i| i + 1);
        columns.insert(at, Variant::parts());
    }

    fn is_sdk(&self) -> bool {
        self.program == "sdk"
    }

    /// Whether rmcp's cost is set against this column's: this SDK's (the
    /// bar), and its parts' (what the bar leaves the engine).
    fn faces_rmcp(&self) -> bool {
        self.is_sdk() || self.program == "parts"
    }

    /// Whether this column has a figure for a row over `via` (`stdio` or
    /// `http`) with `callers` callers: pooled rmcp is HTTP's, the floor on
    /// tokio stdio's, the SDK's parts those with one caller.
    pub(crate) fn runs_over(&self, via: &str, callers: usize) -> bool {
        if self.program == "parts" {
            return callers == 1;
        }
        match via {
            "http" => self.runtime != "tokio",
            _ => !self.pooled,
        }
    }
}

/// One client's figures in one scenario: medians over its runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Cell {
    /// CPU per call as a multiple of the floor's: the median, over the
    /// rounds, of this client's figure over the floor's of the same round
    /// (`None` for one process's runs, before they are paired).
    pub(crate) ratio: Option<f64>,
    /// Client CPU per call, µs.
    pub(crate) cpu_us: f64,
    /// Median latency, µs.
    pub(crate) p50_us: f64,
    /// Allocations per call.
    pub(crate) allocs: f64,
    /// Peak RSS of the client process, MiB.
    pub(crate) rss_mib: f64,
}

impl Cell {
    /// Reads a client's `BENCH` lines (`bench/common/measure.rs`).
    pub(crate) fn parse(output: &str) -> Option<Cell> {
        let mut cpu = Vec::new();
        let mut p50 = Vec::new();
        let mut allocs = Vec::new();
        let mut rss = 0.0;
        for line in output.lines().filter_map(|l| l.strip_prefix("BENCH ")) {
            for field in line.split_whitespace() {
                let (key, value) = field.split_once('=')?;
                let value: f64 = value.parse().ok()?;
                match key {
                    "cpu_ns" => cpu.push(value / 1000.0),
                    "p50_ns" => p50.push(value / 1000.0),
                    "allocs" => allocs.push(value),
                    "rss_kib" => rss = value / 1024.0,
                    _ => {}
                }
            }
        }
        Some(Cell {
            ratio: None,
            cpu_us: median(cpu)?,
            p50_us: median(p50)?,
            allocs: median(allocs).unwrap_or(0.0),
            rss_mib: rss,
        })
    }
}

impl Cell {
    /// One client's cell from its runs in each round (`None`: that round's
    /// run failed), paired with the floor's runs of the same rounds: each
    /// figure is the median over the rounds, and the ratio the median of
    /// the rounds' ratios, so a machine that slows down for a while slows
    /// a ratio's both sides.
    pub(crate) fn paired(runs: &[Option<Cell>], floor: &[Option<Cell>]) -> Option<Cell> {
        let all = |f: fn(&Cell) -> f64| median(runs.iter().flatten().map(f).collect());
        Some(Cell {
            ratio: median_ratio(cpus(runs), cpus(floor)),
            cpu_us: all(|c| c.cpu_us)?,
            p50_us: all(|c| c.p50_us)?,
            allocs: all(|c| c.allocs)?,
            rss_mib: all(|c| c.rss_mib)?,
        })
    }
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied()
}

/// The median of the rounds' ratios `top / bottom` (CPU per call, round by
/// round), over the rounds in which both ran: a machine that slows down
/// for a while slows both sides of a ratio.
fn median_ratio(
    top: impl IntoIterator<Item = Option<f64>>,
    bottom: impl IntoIterator<Item = Option<f64>>,
) -> Option<f64> {
    let ratios = top
        .into_iter()
        .zip(bottom)
        .filter_map(|(t, b)| match (t, b) {
            (Some(t), Some(b)) if b > 0.0 => Some(t / b),
            _ => None,
        });
    median(ratios.collect())
}

/// Each round's CPU per call of a column's runs (`None`: that round's run
/// failed).
fn cpus(runs: &[Option<Cell>]) -> impl Iterator<Item = Option<f64>> + '_ {
    runs.iter().map(|r| r.map(|c| c.cpu_us))
}

/// A scenario's cells, one per [`Variant`] (`None`: not applicable or failed).
pub(crate) struct Row {
    pub(crate) label: &'static str,
    /// The target, as a multiple of the floor's CPU per call.
    pub(crate) target: f64,
    pub(crate) cells: Vec<Option<Cell>>,
    /// Per column, how many times this SDK's CPU per call the cheaper
    /// rmcp column's is (pooled, over HTTP), the median of the rounds'
    /// ratios ([`Row::measured`]); the same for the SDK's parts without
    /// its engine (`--parts`), the most the SDK could reach; `None` for
    /// the other columns.
    pub(crate) versus_rmcp: Vec<Option<f64>>,
}

impl Row {
    /// A row from every column's runs, `runs[column][round]` (the floor's
    /// first): each cell paired with the floor round by round, and each of
    /// this SDK's columns with the cheaper of rmcp's columns in the same
    /// round, as the target is with the floor.
    pub(crate) fn measured(
        label: &'static str,
        target: f64,
        variants: &[Variant],
        runs: &[Vec<Option<Cell>>],
    ) -> Row {
        let floor = runs.first().map_or(&[][..], Vec::as_slice);
        let rounds = runs.iter().map(Vec::len).max().unwrap_or(0);
        // The cheaper rmcp client's CPU per call in each round.
        let rmcp: Vec<Option<f64>> = (0..rounds)
            .map(|round| {
                variants
                    .iter()
                    .zip(runs)
                    .filter(|(v, _)| v.program == "rmcp")
                    .filter_map(|(_, r)| r.get(round).copied().flatten())
                    .map(|c| c.cpu_us)
                    .min_by(f64::total_cmp)
            })
            .collect();
        let versus_rmcp = variants
            .iter()
            .zip(runs)
            .map(|(v, r)| {
                v.faces_rmcp()
                    .then(|| median_ratio(rmcp.iter().copied(), cpus(r)))
                    .flatten()
            })
            .collect();
        Row {
            label,
            target,
            cells: runs.iter().map(|r| Cell::paired(r, floor)).collect(),
            versus_rmcp,
        }
    }
}

/// A ratio to rmcp as the table shows it: two decimals, rounded down, so
/// that 1.999 reads 1.99x, as its verdict says.
fn times_shown(times: f64) -> String {
    // The nudge keeps a ratio that is two decimals exactly (29.4 / 15)
    // from reading one hundredth under itself.
    format!("{:.2}x", ((times * 100.0) + 1e-6).floor() / 100.0)
}

/// The Markdown tables for one revision: CPU per call with ratios to the
/// floor and the target, then latency and peak RSS.
pub(crate) fn render(era: &str, variants: &[Variant], rows: &[Row], rounds: usize) -> String {
    let revision = if era == "modern" {
        "2026-07-28"
    } else {
        "2025-11-25"
    };
    let mut s = String::new();
    let names: Vec<&str> = variants.iter().map(|v| v.name).collect();
    let _ = writeln!(
        s,
        "\n{revision}: client CPU µs per tools/call, start-up excluded (median of {rounds} \
         rounds, each running every client once; x = the median of the rounds' ratios to the \
         floor; rmcp / SDK = the median of the rounds' ratios of the cheaper rmcp client's CPU \
         to this SDK's, issue 18's other bar; with --parts, the same for the SDK's parts \
         without its engine: the most this SDK could reach)\n\n| scenario | {} | target | SDK meets target | rmcp / SDK (≥ 2x) |\n|{}",
        names.join(" | "),
        " --- |".repeat(names.len() + 4)
    );
    for row in rows {
        let floor = row.cells.first().copied().flatten().map(|c| c.cpu_us);
        let mut line = format!("| {} |", row.label);
        for (i, cell) in row.cells.iter().enumerate() {
            let text = match (cell, floor) {
                (None, _) => "—".to_owned(),
                (Some(c), Some(f)) if i > 0 && f > 0.0 => {
                    let ratio = c.ratio.unwrap_or(c.cpu_us / f);
                    format!("{:.1} ({ratio:.1}x)", c.cpu_us)
                }
                (Some(c), _) => format!("{:.1}", c.cpu_us),
            };
            let _ = write!(line, " {text} |");
        }
        let target = floor.map(|f| f * row.target);
        let ratio = |c: &Cell| floor.map(|f| c.ratio.unwrap_or(c.cpu_us / f));
        let sdk: Vec<(usize, &str, Option<f64>)> = variants
            .iter()
            .zip(&row.cells)
            .enumerate()
            .filter(|(_, (v, _))| v.is_sdk())
            .map(|(i, (v, c))| (i, v.runtime, c.as_ref().and_then(ratio)))
            .collect();
        let meets: Vec<String> = sdk
            .iter()
            .map(|(_, runtime, r)| {
                let yes = r.is_some_and(|r| r <= row.target);
                format!("{runtime} {}", if yes { "yes" } else { "no" })
            })
            .collect();
        let mut cheaper: Vec<String> = sdk
            .iter()
            .map(
                |(i, runtime, _)| match row.versus_rmcp.get(*i).copied().flatten() {
                    Some(times) => {
                        let verdict = if times >= 2.0 { "yes" } else { "no" };
                        format!("{runtime} {} {verdict}", times_shown(times))
                    }
                    _ => format!("{runtime} —"),
                },
            )
            .collect();
        // The parts' figure, where they ran: the bar's ceiling (no verdict).
        if let Some(times) = variants
            .iter()
            .zip(&row.versus_rmcp)
            .find_map(|(v, t)| (v.program == "parts").then_some(*t).flatten())
        {
            cheaper.push(format!("parts {}", times_shown(times)));
        }
        let target = target.map_or("—".to_owned(), |t| format!("≤ {t:.1} ({}x)", row.target));
        let _ = writeln!(
            s,
            "{line} {target} | {} | {} |",
            meets.join(", "),
            cheaper.join(", ")
        );
    }
    let _ = writeln!(
        s,
        "\n{revision}: p50 latency µs / allocations per call / client peak RSS MiB\n\n| scenario | {} |\n|{}",
        names.join(" | "),
        " --- |".repeat(names.len() + 1)
    );
    for row in rows {
        let cells: Vec<String> = row
            .cells
            .iter()
            .map(|c| {
                c.map_or("—".to_owned(), |c| {
                    format!("{:.0} / {:.0} / {:.1}", c.p50_us, c.allocs, c.rss_mib)
                })
            })
            .collect();
        let _ = writeln!(s, "| {} | {} |", row.label, cells.join(" | "));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_is_the_median_of_the_runs() {
        let out = "noise\nBENCH cpu_ns=30000 wall_ns=1 p50_ns=90000 allocs=12.5\n\
                   BENCH cpu_ns=10000 wall_ns=1 p50_ns=70000 allocs=10\n\
                   BENCH cpu_ns=20000 wall_ns=1 p50_ns=80000 allocs=11\nBENCH rss_kib=2048\n";
        let c = Cell::parse(out).expect("cell");
        assert_eq!(
            c,
            Cell {
                ratio: None,
                cpu_us: 20.0,
                p50_us: 80.0,
                allocs: 11.0,
                rss_mib: 2.0
            }
        );
    }

    #[test]
    fn a_paired_ratio_is_the_median_of_the_rounds_ratios() {
        let run = |cpu| {
            Some(Cell {
                ratio: None,
                cpu_us: cpu,
                p50_us: cpu,
                allocs: 3.0,
                rss_mib: 1.0,
            })
        };
        // The machine ran twice as slow in the second round: the ratios
        // are 1.5, 1.5 and (a failed floor run) none.
        let floor = [run(10.0), run(20.0), None];
        let client = [run(15.0), run(30.0), run(99.0)];
        let c = Cell::paired(&client, &floor).expect("cell");
        assert_eq!(c.ratio, Some(1.5));
        assert_eq!(c.cpu_us, 30.0);
        // The medians of separate runs would have said 2x (30 / 15).
        let f = Cell::paired(&floor, &floor).expect("floor");
        assert_eq!((f.cpu_us, f.ratio), (20.0, Some(1.0)));
        assert_eq!(Cell::paired(&[None, None], &floor), None);
    }

    #[test]
    fn pooled_rmcp_runs_over_http_and_the_floor_on_tokio_over_stdio() {
        let runs = |via| -> Vec<&str> {
            Variant::all()
                .into_iter()
                .filter(|v| v.runs_over(via, 1))
                .map(|v| v.name)
                .collect()
        };
        assert_eq!(
            runs("stdio"),
            [
                "floor",
                "floor on tokio",
                "rmcp",
                "SDK current-thread",
                "SDK multi-thread"
            ]
        );
        assert_eq!(
            runs("http"),
            [
                "floor",
                "rmcp",
                "rmcp pooled",
                "SDK current-thread",
                "SDK multi-thread"
            ]
        );
    }

    #[test]
    fn the_sdks_parts_run_one_call_at_a_time_and_are_not_judged() {
        let parts = Variant::parts();
        assert!(parts.runs_over("stdio", 1));
        assert!(parts.runs_over("http", 1));
        assert!(!parts.runs_over("stdio", 32));
        assert!(!parts.runs_over("http", 32));
        // Every other column runs with any number of callers.
        assert!(
            Variant::all()
                .iter()
                .all(|v| v.runs_over("stdio", 32) == v.runs_over("stdio", 1))
        );
        // Not a column of this SDK's: no "meets target" verdict of its own.
        assert!(!parts.is_sdk());
        // Placed right after the floor on tokio.
        let mut columns = Variant::all();
        Variant::add_parts(&mut columns);
        assert_eq!(columns[1].name, "floor on tokio");
        assert_eq!(columns[2].program, "parts");
    }

    #[test]
    fn output_without_runs_or_with_a_bad_number_is_no_cell() {
        assert_eq!(Cell::parse("BENCH rss_kib=10\n"), None);
        assert_eq!(Cell::parse("BENCH cpu_ns=x p50_ns=1\n"), None);
    }

    #[test]
    fn the_table_shows_ratios_to_the_floor_and_the_target() {
        // One round of each column's run (`None`: it does not run here),
        // rendered as one row of a revision's table.
        let table = |era, label, target, cpus: [Option<f64>; 6]| {
            let runs: Vec<Vec<Option<Cell>>> = cpus
                .iter()
                .map(|c| c.map(run).into_iter().map(Some).collect())
                .collect();
            let row = Row::measured(label, target, &Variant::all(), &runs);
            render(era, &Variant::all(), &[row], 5)
        };
        let cpus = [
            Some(10.0),
            Some(13.0),
            Some(60.0),
            None,
            Some(15.0),
            Some(25.0),
        ];
        let t = table("legacy", "stdio, sequential", 2.0, cpus);
        assert!(t.contains("2025-11-25"), "{t}");
        assert!(
            t.contains("| stdio, sequential | 10.0 | 13.0 (1.3x) | 60.0 (6.0x) | — | 15.0 (1.5x) | 25.0 (2.5x) | ≤ 20.0 (2x) | ct yes, mt no | ct 4.00x yes, mt 2.40x yes |"),
            "{t}"
        );
        // Over HTTP the cheaper rmcp (pooled) is the bar; 1.96x is under
        // it.
        let cpus = [Some(10.0), None, Some(60.0), Some(29.4), Some(15.0), None];
        let t = table("modern", "HTTP, sequential", 1.5, cpus);
        assert!(
            t.contains("| ≤ 15.0 (1.5x) | ct yes, mt no | ct 1.96x no, mt — |"),
            "{t}"
        );
        assert!(t.contains("| 50 / 7 / 4.0 |"), "{t}");
    }

    /// A column's runs, one a round, of these CPUs per call.
    fn rounds(cpus: &[f64]) -> Vec<Option<Cell>> {
        cpus.iter().map(|&c| Some(run(c))).collect()
    }

    /// A run of `cpu` µs per call.
    fn run(cpu: f64) -> Cell {
        Cell {
            ratio: None,
            cpu_us: cpu,
            p50_us: 50.0,
            allocs: 7.0,
            rss_mib: 4.0,
        }
    }

    #[test]
    fn the_rmcp_bar_is_paired_by_round() {
        // This SDK ran slow in the round rmcp ran fast: each round's ratio
        // is 1.8, 1.3 and 5.3 (median 1.8x: under the bar), though the
        // medians of the runs (rmcp 40, this SDK 19) would say 2.1x.
        let runs = vec![
            rounds(&[10.0, 10.0, 10.0]),
            vec![],
            rounds(&[20.0, 40.0, 100.0]),
            vec![],
            rounds(&[11.0, 30.0, 19.0]),
            vec![Some(run(5.0)), None, Some(run(5.0))],
        ];
        let row = Row::measured("stdio, sequential", 2.0, &Variant::all(), &runs);
        let times = |i: usize| row.versus_rmcp[i].map(|t| (t * 100.0).round() / 100.0);
        assert_eq!(times(4), Some(1.82));
        // A failed round is left out: 4x and 20x, the upper one taken.
        assert_eq!(times(5), Some(20.0));
        // Only this SDK's columns are judged.
        assert_eq!((times(0), times(2)), (None, None));
        let t = render("legacy", &Variant::all(), &[row], 3);
        assert!(t.contains("| ct 1.81x no, mt 20.00x yes |"), "{t}");
    }

    #[test]
    fn the_parts_are_set_against_rmcp_without_a_verdict() {
        let mut variants = Variant::all();
        Variant::add_parts(&mut variants);
        // Columns: floor, floor on tokio, parts, rmcp, rmcp pooled, SDK
        // current-thread, SDK multi-thread.
        let runs = vec![
            rounds(&[10.0]),
            rounds(&[12.0]),
            rounds(&[14.0]),
            rounds(&[30.0]),
            vec![],
            rounds(&[15.0]),
            rounds(&[16.0]),
        ];
        let row = Row::measured("stdio, sequential", 2.0, &variants, &runs);
        let t = render("legacy", &variants, &[row], 1);
        assert!(
            t.contains("| ct 2.00x yes, mt 1.87x no, parts 2.14x |"),
            "{t}"
        );
    }
}
