//! Property tests: the line splitter under arbitrary bytes and chunkings.

use mcp_transport_stdio::line_splitter::{Frame, LineSplitter};
use proptest::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Out {
    Line(Vec<u8>),
    Oversized(u64),
}

/// A frame as taken out: a line is kept as the splitter's view of its
/// buffer, to check later that reads after it left it untouched.
enum Taken {
    Line(bytes::Bytes),
    Oversized(u64),
}

fn take(f: Frame<'_>) -> Taken {
    match f {
        Frame::Line(l) => Taken::Line(l),
        Frame::Oversized { len, .. } => Taken::Oversized(len),
    }
}

fn own(t: Taken) -> Out {
    match t {
        Taken::Line(l) => Out::Line(l.to_vec()),
        Taken::Oversized(len) => Out::Oversized(len),
    }
}

/// Feeds `data` cut at `cuts` (each a fraction of the remaining input),
/// copying each line out at once (so its buffer is free again).
fn split(max: usize, data: &[u8], cuts: &[usize]) -> Vec<Out> {
    split_holding(max, data, cuts, false)
}

/// [`split`], holding every line until the end when `hold`.
fn split_holding(max: usize, data: &[u8], cuts: &[usize], hold: bool) -> Vec<Out> {
    let mut s = LineSplitter::new(max);
    let mut held = Vec::new();
    let mut out = Vec::new();
    let mut rest = data;
    let mut cuts = cuts.iter().cycle();
    while !rest.is_empty() {
        let want = cuts.next().map_or(rest.len(), |c| 1 + c % rest.len());
        let n = s.fill(&rest[..want.min(rest.len())]);
        rest = &rest[n..];
        while let Some(f) = s.next_frame() {
            if hold {
                held.push(take(f));
            } else {
                out.push(own(take(f)));
            }
        }
        assert!(s.pending() <= max, "pending data stays within the limit");
    }
    if let Some(f) = s.finish() {
        held.push(take(f));
    }
    out.extend(held.into_iter().map(own));
    out
}

/// The reference: split the whole input at once with the standard library.
fn reference(max: usize, data: &[u8]) -> Vec<Out> {
    let mut out = Vec::new();
    let mut parts: Vec<&[u8]> = data.split(|b| *b == b'\n').collect();
    let last = parts.pop().unwrap_or_default();
    let mut push = |line: &[u8]| {
        if line.len() > max {
            out.push(Out::Oversized(line.len() as u64));
        } else {
            out.push(Out::Line(line.strip_suffix(b"\r").unwrap_or(line).to_vec()));
        }
    };
    for p in parts {
        push(p);
    }
    if !last.is_empty() {
        push(last);
    }
    out
}

fn bytes() -> impl Strategy<Value = Vec<u8>> {
    // Mostly newline-rich text with multi-byte UTF-8, sometimes raw bytes.
    prop_oneof![
        prop::collection::vec(
            prop_oneof![
                Just(b'\n'),
                Just(b'\r'),
                Just(b'{'),
                Just(0xC3),
                Just(0xA9),
                any::<u8>()
            ],
            0..400
        ),
        prop::collection::vec(any::<u8>(), 0..1000),
        "(é|✓|x|\n|\r\n){0,300}".prop_map(String::into_bytes),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]

    #[test]
    fn chunking_never_changes_the_frames(
        data in bytes(),
        cuts in prop::collection::vec(any::<usize>(), 1..40),
        max in prop_oneof![0usize..8, 8usize..64, Just(usize::MAX)],
    ) {
        let one_shot = split(max, &data, &[]);
        prop_assert_eq!(&one_shot, &reference(max, &data));
        prop_assert_eq!(split(max, &data, &cuts), one_shot.clone());
        prop_assert_eq!(split_holding(max, &data, &cuts, true), one_shot);
    }

}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn byte_at_a_time_matches_one_shot(data in bytes(), max in 0usize..32) {
        prop_assert_eq!(split(max, &data, &[0]), reference(max, &data));
    }
}

#[test]
fn long_lines_across_the_internal_read_size_are_counted_exactly() {
    let mut data = vec![b'a'; 200_000];
    data.push(b'\n');
    data.extend_from_slice(b"short\n");
    data.extend(vec![b'b'; 150_000]);
    for max in [10, 150_000, 199_999, 200_000] {
        let expected = reference(max, &data);
        assert_eq!(split(max, &data, &[]), expected);
        assert_eq!(split(max, &data, &[4095, 65_537, 3]), expected);
        assert_eq!(
            split_holding(max, &data, &[4095, 65_537, 3], true),
            expected
        );
    }
}
