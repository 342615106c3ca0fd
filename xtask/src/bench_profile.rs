//! A walk over a callgrind profile made with `--dump-instr=yes`, for
//! `cargo xtask bench --icount`: each instruction's own cost (its
//! executions), with the object it is in. The atomic writes
//! (`bench_atomics.rs`) and the code footprint (below) are both read from
//! it.
//!
//! **The code footprint** is how many 4 KiB pages and 64-byte lines of code
//! a call executes. On a machine whose every switch between the client and
//! the server empties the TLB (no PCID: AMD before Zen 3, as on the
//! issue's reference VM), each page is a page walk again on every call
//! (a nested one in a VM), and each line a fetch from further out than
//! L1: there the footprint costs the client more than its instruction
//! count does (`PERFORMANCE.md`, stop 40). A page or line
//! is counted when the longer run executed its instructions at least once
//! more per extra call than the shorter run did: touched on (nearly) every
//! call, whatever the warm-up and start-up touched.
//!
//! Beside the lines, how many the same instructions would fill packed
//! (`packed`: the bytes of the instructions executed on every call, over
//! 64, object by object). The difference is the lines the common path
//! loses to the rare blocks laid out between its own (an error's
//! construction, a rare case inline): what `std::hint::cold_path` and
//! `#[cold]` helpers win back (stop 46). An instruction's size is the
//! distance to the next instruction the profile executed, when that is
//! under 16 bytes (the longest x86-64 instruction is 15), 4 otherwise.
//!
//! **By function** (`--icount --functions`, from the same pass): the same
//! lines, each shared among the functions whose instructions ran on it,
//! and each function's instructions a call: where a call's code is, named.

use std::collections::{HashMap, HashSet};

/// Executions per instruction (by address), by object file, with the
/// function each instruction is in; the lines and pages are read off the
/// instructions.
#[derive(Default)]
pub(crate) struct Executions {
    objects: HashMap<String, HashMap<u64, Executed>>,
    /// Function names, by [`Executed::function`].
    functions: Vec<String>,
    function_ids: HashMap<String, u32>,
}

/// One instruction's executions and the function it is in.
#[derive(Clone, Copy, Default)]
struct Executed {
    count: u64,
    function: u32,
}

/// A function's share of what a call executes ([`Executions::per_call`]'s).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FunctionCost {
    pub(crate) name: String,
    /// The lines executed on every call that its instructions are on
    /// (a line shared with other functions counts for each in part).
    pub(crate) lines: f64,
    /// Its instructions a call.
    pub(crate) instructions: f64,
}

impl Executions {
    /// Each instruction of `object` with its executions over `shorter`'s,
    /// in address order (the next one sizes it).
    fn extra(&self, shorter: &Executions, object: &str) -> Vec<(u64, u64, u32)> {
        let before = shorter.objects.get(object);
        let mut extra: Vec<(u64, u64, u32)> = self
            .objects
            .get(object)
            .into_iter()
            .flatten()
            .map(|(&at, e)| {
                let earlier = before.and_then(|b| b.get(&at)).map_or(0, |b| b.count);
                (at, e.count.saturating_sub(earlier), e.function)
            })
            .collect();
        extra.sort_unstable();
        extra
    }

    /// The 64-byte lines (by number) whose instructions `extra` executed
    /// at least `calls` times in all.
    fn hot_lines(extra: &[(u64, u64, u32)], calls: u64) -> HashSet<u64> {
        let mut by_line: HashMap<u64, u64> = HashMap::new();
        for &(at, n, _) in extra {
            *by_line.entry(at >> 6).or_default() += n;
        }
        by_line
            .into_iter()
            .filter_map(|(line, n)| (n >= calls).then_some(line))
            .collect()
    }

    /// What `calls` more calls in `self` (the longer run) than in
    /// `shorter` executed, in one pass over each object: the pages and
    /// lines executed at least `calls` more times, the lines their
    /// instructions would fill packed, and the same lines by function, the
    /// most lines first (each line shared equally among the functions
    /// whose instructions on it ran; each function's instructions a call).
    pub(crate) fn per_call(&self, shorter: &Executions, calls: u64) -> PerCallCode {
        let (mut pages, mut lines, mut packed) = (0, 0, 0);
        let mut shares: HashMap<u32, f64> = HashMap::new();
        let mut instructions: HashMap<u32, u64> = HashMap::new();
        for object in self.objects.keys() {
            let extra = self.extra(shorter, object);
            let hot = Self::hot_lines(&extra, calls);
            lines += hot.len();
            pages += hot
                .iter()
                .map(|line| line >> 6)
                .collect::<HashSet<_>>()
                .len();
            let bytes: u64 = extra
                .iter()
                .enumerate()
                .filter(|&(_, &(_, n, _))| n >= calls)
                .map(|(i, &(at, _, _))| match extra.get(i + 1) {
                    Some(&(next, _, _)) if next - at < 16 => next - at,
                    _ => 4,
                })
                .sum();
            packed += bytes.div_ceil(64) as usize;
            let mut on_line: HashMap<u64, Vec<u32>> = HashMap::new();
            for &(at, n, function) in &extra {
                if n == 0 {
                    continue;
                }
                *instructions.entry(function).or_default() += n;
                if hot.contains(&(at >> 6)) {
                    let functions = on_line.entry(at >> 6).or_default();
                    if !functions.contains(&function) {
                        functions.push(function);
                    }
                }
            }
            for functions in on_line.values() {
                let share = 1.0 / functions.len() as f64;
                for &f in functions {
                    *shares.entry(f).or_default() += share;
                }
            }
        }
        let mut functions: Vec<FunctionCost> = instructions
            .into_iter()
            .map(|(f, n)| FunctionCost {
                name: self.functions.get(f as usize).cloned().unwrap_or_default(),
                lines: shares.get(&f).copied().unwrap_or(0.0),
                instructions: n as f64 / calls.max(1) as f64,
            })
            .collect();
        functions.sort_by(|a, b| {
            b.lines
                .total_cmp(&a.lines)
                .then(b.instructions.total_cmp(&a.instructions))
                .then_with(|| a.name.cmp(&b.name))
        });
        PerCallCode {
            footprint: Footprint {
                pages,
                lines,
                packed,
            },
            functions,
        }
    }
}

/// The code a call executes ([`Executions::per_call`]): its footprint and
/// where it is, by function.
pub(crate) struct PerCallCode {
    pub(crate) footprint: Footprint,
    pub(crate) functions: Vec<FunctionCost>,
}

/// Code pages and lines a call executes, and the lines its instructions
/// would fill packed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Footprint {
    pub(crate) pages: usize,
    pub(crate) lines: usize,
    pub(crate) packed: usize,
}

/// The executions of each instruction in `profile`, every object's (by
/// file: valgrind loads each object at the same address in every run).
pub(crate) fn executions(profile: &str) -> Executions {
    let mut out = Executions::default();
    walk(profile, |object, address, cost| {
        let function = match out.function_ids.get(object.function) {
            Some(&id) => id,
            None => {
                let id = out.functions.len() as u32;
                out.functions.push(object.function.to_owned());
                out.function_ids.insert(object.function.to_owned(), id);
                id
            }
        };
        if !out.objects.contains_key(object.name) {
            out.objects.insert(object.name.to_owned(), HashMap::new());
        }
        if let Some(counts) = out.objects.get_mut(object.name) {
            let e = counts.entry(address).or_default();
            e.count += cost;
            e.function = function;
        }
    });
    out
}

/// Where an instruction is: its object's file and its function, as the
/// profile names them (mangled when valgrind ran with `--demangle=no`).
pub(crate) struct Object<'a> {
    pub(crate) name: &'a str,
    pub(crate) function: &'a str,
}

/// Calls `each` with every instruction's object, address and own cost
/// (the first event, its executions); the inclusive costs of calls are
/// skipped.
pub(crate) fn walk<'a>(profile: &'a str, mut each: impl FnMut(&Object<'a>, u64, u64)) {
    let mut objects: HashMap<u32, &'a str> = HashMap::new();
    let mut functions: HashMap<u32, &'a str> = HashMap::new();
    let mut object = Object {
        name: "",
        function: "",
    };
    let (mut address, mut call_cost_next) = (0u64, false);
    for line in profile.lines() {
        // Names: `ob=` and `fn=` set the current object and function,
        // `cob=` and `cfn=` (a call's target) only name theirs.
        if let Some((key, r)) = line.split_once('=')
            && let Some((names, current)) = match key {
                "ob" => Some((&mut objects, Some(&mut object.name))),
                "cob" => Some((&mut objects, None)),
                "fn" => Some((&mut functions, Some(&mut object.function))),
                "cfn" => Some((&mut functions, None)),
                _ => None,
            }
        {
            let name = name_ref(names, r);
            if let Some(current) = current {
                *current = name;
            }
            continue;
        }
        if line.starts_with("calls=") {
            call_cost_next = true;
            continue;
        }
        let mut fields = line.split_ascii_whitespace();
        let Some(first) = fields.next() else {
            continue;
        };
        // A cost line starts with the instruction's address: absolute in
        // hex, or relative to the last one (in decimal), or `*` (the same).
        let moved = if let Some(hex) = first.strip_prefix("0x") {
            u64::from_str_radix(hex, 16).ok()
        } else if let Some(n) = first.strip_prefix('+') {
            n.parse::<u64>().ok().map(|n| address.wrapping_add(n))
        } else if let Some(n) = first.strip_prefix('-') {
            n.parse::<u64>().ok().map(|n| address.wrapping_sub(n))
        } else if first == "*" {
            Some(address)
        } else {
            None
        };
        let Some(at) = moved else {
            continue;
        };
        address = at;
        // The line after `calls=` is the call's inclusive cost, not the
        // instruction's own.
        if std::mem::take(&mut call_cost_next) {
            continue;
        }
        // After the address, the source line, then the cost.
        let cost = fields.nth(1).and_then(|c| c.parse::<u64>().ok());
        each(&object, address, cost.unwrap_or(0));
    }
}

/// A name from a `(id) name` or `(id)` reference (an object's or a
/// function's), remembered by its id.
fn name_ref<'a>(names: &mut HashMap<u32, &'a str>, r: &'a str) -> &'a str {
    let (id, name) = match r.split_once(") ") {
        Some((id, name)) => (id, Some(name)),
        None => (r.trim_end_matches(')'), None),
    };
    let id = id.trim_start_matches('(').parse().unwrap_or(0);
    match name {
        Some(name) => {
            names.insert(id, name);
            name
        }
        None => names.get(&id).copied().unwrap_or(""),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A profile of two objects, three functions and a call.
    pub(crate) const PROFILE: &str = "positions: instr line\n\
                           ob=(1) /tmp/client\n\
                           fn=(1) a\n\
                           0x1000 3 5\n\
                           +4 * 5\n\
                           cob=(2) /lib/libc.so.6\n\
                           cfn=(2) b\n\
                           calls=5 0x2000 1\n\
                           -4 * 900\n\
                           +4 * 7\n\
                           ob=(2)\n\
                           fn=(2)\n\
                           0x2000 0 11\n\
                           ob=(1)\n\
                           fn=(3) c\n\
                           0x3000 0 2\n";

    #[test]
    fn walks_own_costs_with_their_objects_and_skips_call_costs() {
        let mut seen = Vec::new();
        walk(PROFILE, |o, at, cost| {
            seen.push((format!("{} {}", o.name, o.function), at, cost))
        });
        let (a, c) = ("/tmp/client a".to_owned(), "/tmp/client c".to_owned());
        assert_eq!(
            seen,
            [
                (a.clone(), 0x1000, 5),
                (a.clone(), 0x1004, 5),
                (a, 0x1004, 7),
                ("/lib/libc.so.6 b".to_owned(), 0x2000, 11),
                (c, 0x3000, 2),
            ]
        );
    }

    #[test]
    fn a_line_counts_when_each_extra_call_executed_it() {
        let short = executions(PROFILE);
        // The longer run: client line 0x1000/64 ten more times, libc's
        // line three more, the other client page not at all.
        let long = executions(&PROFILE.replace("+4 * 7", "+4 * 17").replace("0 11", "0 14"));
        // The instructions executed that often: the client's second (its
        // size unknown: the next executed one is 0x2000 bytes on, so 4)
        // and libc's one; each fills a line packed.
        let one = Footprint {
            pages: 1,
            lines: 1,
            packed: 1,
        };
        assert_eq!(long.per_call(&short, 10).footprint, one);
        let two = Footprint {
            pages: 2,
            lines: 2,
            packed: 2,
        };
        assert_eq!(long.per_call(&short, 3).footprint, two);
    }

    #[test]
    fn a_calls_lines_are_named_by_the_functions_on_them() {
        let short = executions(PROFILE);
        let long = executions(&PROFILE.replace("+4 * 7", "+4 * 17").replace("0 11", "0 14"));
        // `a`'s line ran on each of ten calls; `b`'s line only three times
        // (on no line a call runs), `c` not at all (not listed).
        let cost = |name: &str, lines, instructions| FunctionCost {
            name: name.to_owned(),
            lines,
            instructions,
        };
        assert_eq!(
            long.per_call(&short, 10).functions,
            [cost("a", 1.0, 1.0), cost("b", 0.0, 0.3)]
        );
        // Two functions on one line share it.
        let shared = |n: u64| {
            format!("ob=(1) /tmp/client\nfn=(1) x\n0x1000 0 {n}\nfn=(2) y\n0x1010 0 {n}\n")
        };
        let by = executions(&shared(12))
            .per_call(&executions(&shared(2)), 10)
            .functions;
        assert_eq!(by, [cost("x", 0.5, 1.0), cost("y", 0.5, 1.0)]);
    }

    #[test]
    fn packed_lines_are_the_hot_bytes_over_64() {
        // `count` instructions executed on every call, one a line (every
        // 64 bytes), each followed by one never executed `size` bytes on:
        // that distance is the hot instruction's size.
        let footprint = |count: u64, size: u64| {
            let profile = |n: u64| {
                let body: String = (0..count)
                    .map(|i| {
                        let at = 0x1000 + 64 * i;
                        format!("{at:#x} 0 {n}\n{:#x} 0 0\n", at + size)
                    })
                    .collect();
                format!("ob=(1) /tmp/client\nfn=(1) a\n{body}")
            };
            executions(&profile(11))
                .per_call(&executions(&profile(1)), 10)
                .footprint
        };
        // 20 x 4 bytes: 80, two lines packed.
        let f = footprint(20, 4);
        assert_eq!((f.pages, f.lines, f.packed), (1, 20, 2));
        // 21 x 3 bytes: 63, one line; 16 bytes on is no size (4): 84, two.
        assert_eq!(footprint(21, 3).packed, 1);
        assert_eq!(footprint(21, 16).packed, 2);
    }
}
