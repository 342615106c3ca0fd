//! What a field value may hold: RFC 9110's field-value bytes, as `http`'s
//! `HeaderValue::from_str` and `httparse` take them (HTAB, and every byte
//! from a space up but DEL: `obs-text` included). The request's routing
//! texts are checked against it (`headers.rs`), a response head's values
//! and reason read by it (`h1/wire/scan.rs`).

/// The first byte at or after `from` that a field value (or a reason
/// phrase) cannot hold: a control byte but HTAB, or DEL (bytes from 0x80
/// are `obs-text`, held); `buf.len()` when there is none. Eight bytes a
/// step.
pub(crate) fn end(buf: &[u8], from: usize) -> usize {
    const ONES: u64 = u64::from_ne_bytes([1; 8]);
    const HIGHS: u64 = ONES * 0x80;
    let mut at = from;
    loop {
        while let Some(word) = buf.get(at..).and_then(<[u8]>::first_chunk::<8>) {
            let w = u64::from_le_bytes(*word);
            // Each sets the high bit of the first byte (from the lowest)
            // below 0x20, or equal to 0x7f, and may set others above it
            // (a borrow): the lowest bit set is a byte that stops.
            let control = w.wrapping_sub(ONES * 0x20) & !w & HIGHS;
            let del = w ^ (ONES * 0x7f);
            let del = del.wrapping_sub(ONES) & !del & HIGHS;
            let stops = control | del;
            if stops != 0 {
                // Below 8: fits.
                at += (stops.trailing_zeros() / 8) as usize;
                break;
            }
            at += 8;
        }
        while let Some(&b) = buf.get(at) {
            if b < 0x20 || b == 0x7f {
                break;
            }
            at += 1;
        }
        // A tab is a value's byte: the look goes on past it.
        match buf.get(at) {
            Some(b'\t') => at += 1,
            _ => return at,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte-by-byte reading of [`end`].
    fn end_by_byte(buf: &[u8], from: usize) -> usize {
        (from..buf.len())
            .find(|&i| (buf[i] < 0x20 && buf[i] != b'\t') || buf[i] == 0x7f)
            .unwrap_or(buf.len())
    }

    #[test]
    fn a_value_ends_at_its_first_stop_at_every_length_and_place() {
        let stops = [0x00, b'\r', b'\n', 0x1f, 0x7f];
        let held = [b'\t', b' ', b'~', 0x80, 0xff, 0x20, 0x7e, b'a'];
        for len in 0..40 {
            for from in 0..=len.min(9) {
                let plain = vec![b'v'; len];
                assert_eq!(end(&plain, from), len);
                for at in 0..len {
                    for b in stops.iter().chain(&held) {
                        let mut buf = plain.clone();
                        buf[at] = *b;
                        // A stop after another byte that borrows.
                        if at + 1 < len {
                            buf[at + 1] = 0x00;
                        }
                        assert_eq!(
                            end(&buf, from),
                            end_by_byte(&buf, from),
                            "{buf:?} from {from}"
                        );
                    }
                }
            }
        }
    }
}
