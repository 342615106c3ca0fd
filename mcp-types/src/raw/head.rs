//! A result's head: the few members a client reads before the rest
//! (2026-07-28's `resultType`, a page's `nextCursor`, the cache's `ttlMs`
//! and `cacheScope`), noted while the envelope around the result is walked.
//!
//! The envelope walk has to find where the result ends anyway; walking the
//! result's own members on the way (instead of only counting brackets)
//! costs about the same, and tells where its head members are, so the
//! reader of the head does not walk the result a second time (a tool's
//! content, a page's items: most of the text).

use super::{RawJson, skip_ws, string_end, value_end};

/// The head members, in the order [`RawJson::head_members`] gives them
/// (5 or 10 bytes long: the walk tells most other keys apart by length).
pub const HEAD_KEYS: [&str; 4] = ["resultType", "nextCursor", "ttlMs", "cacheScope"];

/// Where the head members' values start in a result's text; 0 for an
/// absent member (no value starts at 0, where the object's `{` is).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct HeadNotes([u32; 4]);

/// The end of the object at `s[i]` (just past its `}`) and its head
/// notes, relative to `i`. The notes are `None` when a key cannot be told
/// without decoding it (it has an escape), a head key comes twice, or an
/// offset passes `u32::MAX`: the reader then reads the text as a whole,
/// which gives a repeated key's error too. `None` when `s[i]` does not
/// start an object this walk reads (the caller counts brackets instead,
/// as for any other value).
pub(crate) fn object_end_noting(s: &[u8], i: usize) -> Option<(usize, Option<HeadNotes>)> {
    if s.get(i) != Some(&b'{') {
        return None;
    }
    let mut notes = [0u32; 4];
    let mut sure = true;
    let mut j = skip_ws(s, i + 1);
    if s.get(j) == Some(&b'}') {
        return Some((j + 1, Some(HeadNotes(notes))));
    }
    loop {
        if s.get(j) != Some(&b'"') {
            return None;
        }
        let (key_end, escaped) = string_end(s, j)?;
        let key = &s[j + 1..key_end - 1];
        let colon = skip_ws(s, key_end);
        if s.get(colon) != Some(&b':') {
            return None;
        }
        let start = skip_ws(s, colon + 1);
        let end = value_end(s, start)?;
        // Most keys are none of the four, told apart by length alone.
        let maybe_head = matches!(key.len(), 5 | 10);
        if escaped {
            sure = false;
        } else if let Some(slot) = maybe_head
            .then(|| HEAD_KEYS.iter().position(|k| k.as_bytes() == key))
            .flatten()
        {
            match u32::try_from(start - i) {
                Ok(at) if notes[slot] == 0 => notes[slot] = at,
                _ => sure = false,
            }
        }
        j = skip_ws(s, end);
        match s.get(j)? {
            b',' => j = skip_ws(s, j + 1),
            b'}' => return Some((j + 1, sure.then_some(HeadNotes(notes)))),
            _ => return None,
        }
    }
}

impl RawJson {
    /// The value texts of the result's head members ([`HEAD_KEYS`], in
    /// that order; `None` for an absent one), as noted when the envelope it
    /// came in was walked. `None` when nothing was noted (the result came
    /// another way, a key in it is escaped, or a head key comes twice):
    /// read the text itself then.
    ///
    /// ```
    /// use mcp_types::Message;
    /// let line = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"resultType":"complete"}}"#;
    /// let Ok(Message::Response(r)) = Message::from_slice(line) else { panic!() };
    /// let head = r.result.head_members().unwrap();
    /// assert_eq!(head[0], Some(&br#""complete""#[..]));
    /// assert_eq!(head[1..], [None, None, None]);
    /// ```
    pub fn head_members(&self) -> Option<[Option<&[u8]>; 4]> {
        let HeadNotes(starts) = self.1?;
        let text = self.as_bytes();
        let mut members = [None; 4];
        for (member, start) in members.iter_mut().zip(starts) {
            if start != 0 {
                let start = start as usize;
                *member = Some(&text[start..value_end(text, start)?]);
            }
        }
        Some(members)
    }

    /// These bytes with the head notes their envelope's walk took.
    pub(crate) fn with_head(mut self, notes: Option<HeadNotes>) -> RawJson {
        self.1 = notes;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_keys_are_five_or_ten_bytes_long() {
        assert!(HEAD_KEYS.iter().all(|k| matches!(k.len(), 5 | 10)));
    }

    /// The head members of `text` (an object at its start), as text.
    fn noted(text: &str) -> Option<Vec<Option<String>>> {
        let (end, notes) = object_end_noting(text.as_bytes(), 0).expect("an object");
        assert_eq!(end, value_end(text.as_bytes(), 0).unwrap(), "the same end");
        let raw = RawJson::from_bytes(text.as_bytes().to_vec()).with_head(notes);
        let members = raw.head_members()?;
        Some(
            members
                .iter()
                .map(|m| m.map(|v| String::from_utf8_lossy(v).into_owned()))
                .collect(),
        )
    }

    #[test]
    fn head_members_are_noted_wherever_they_are() {
        let text = r#"{ "content" : [{"type":"text","text":"a \"}"}], "ttlMs": 5 ,
            "resultType":"complete", "_meta": {"resultType": "nested"}}"#;
        let some = |s: &str| Some(s.to_owned());
        assert_eq!(
            noted(text),
            Some(vec![some(r#""complete""#), None, some("5"), None])
        );
        assert_eq!(noted("{}"), Some(vec![None; 4]));
        assert_eq!(
            noted(r#"{"nextCursor":null}"#),
            Some(vec![None, some("null"), None, None])
        );
    }

    #[test]
    fn a_repeated_or_escaped_key_notes_nothing() {
        assert_eq!(noted(r#"{"ttlMs": 1, "ttlMs": 2}"#), None);
        assert_eq!(noted(r#"{"ttl\u004ds": 1}"#), None);
        // Not a walkable object: the caller counts brackets instead.
        assert!(object_end_noting(b"{1}", 0).is_none());
        assert!(object_end_noting(b"[]", 0).is_none());
        assert!(object_end_noting(br#"{"a" 1}"#, 0).is_none());
    }

    #[test]
    fn results_from_serde_or_built_by_hand_have_no_notes() {
        let raw = RawJson::from_bytes(&br#"{"resultType":"complete"}"#[..]);
        assert!(raw.head_members().is_none());
    }
}
