//! A result's head: the few members a client reads before the rest
//! (2026-07-28's `resultType`, a page's `nextCursor`, the cache's `ttlMs`
//! and `cacheScope`), noted while the envelope around the result is walked
//! ([`RawJson::head_members`]), or found by a walk of the result alone
//! ([`head_members_of`]).
//!
//! The envelope walk has to find where the result ends anyway; walking the
//! result's own members on the way (instead of only counting brackets)
//! costs about the same, and tells where its head members are, so the
//! reader of the head does not walk the result a second time (a tool's
//! content, a page's items: most of the text).

use std::ops::Range;

use super::text_blocks::TextBlocks;
use super::{ObjectMembers, RawJson, object_members, value_end};

/// The head members, in the order [`RawJson::head_members`] gives them
/// (5 or 10 bytes long: the walk tells most other keys apart by length).
pub const HEAD_KEYS: [&str; 4] = ["resultType", "nextCursor", "ttlMs", "cacheScope"];

/// Where a result's head members are, noted as the envelope around it was
/// read. Offsets are from the result's start; 0 for an absent member (no
/// value starts at 0, where the object's `{` is), `[0, 0]` for an absent
/// range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HeadNotes {
    /// By the member walk ([`note`]).
    Walked {
        /// Where its `_meta` is, when the walk checked it
        /// (`meta::plain_end`). First in both kinds, so that reading it
        /// needs no branch.
        meta: [u32; 2],
        /// Where each head member's value starts, in [`HEAD_KEYS`]' order.
        starts: [u32; 4],
    },
    /// By the match of a canonical text-blocks result (`raw::text_blocks`),
    /// whose only head member is perhaps a `resultType`.
    TextBlocks {
        /// Where its `_meta` is (checked by the match).
        meta: [u32; 2],
        /// Where the `resultType`'s value starts.
        result_type: u32,
        /// Where its first plain text is (inside its quotes), so that the
        /// result's reader need not scan it again.
        plain_text: [u32; 2],
    },
}

impl HeadNotes {
    /// The notes of the canonical text-blocks result `found` at `base`.
    /// `None` when an offset passes `u32::MAX`.
    pub(crate) fn of(base: usize, found: &TextBlocks) -> Option<HeadNotes> {
        let range = |r: &Option<Range<usize>>| match r {
            Some(r) => span(base, r),
            None => Some([0, 0]),
        };
        Some(HeadNotes::TextBlocks {
            meta: range(&found.meta)?,
            result_type: match &found.result_type {
                Some(value) => offset(base, value.start)?,
                None => 0,
            },
            plain_text: range(&found.first_plain_text)?,
        })
    }

    /// Where each head member's value starts, in [`HEAD_KEYS`]' order.
    pub(crate) fn starts(self) -> [u32; 4] {
        match self {
            HeadNotes::Walked { starts, .. } => starts,
            HeadNotes::TextBlocks { result_type, .. } => [result_type, 0, 0, 0],
        }
    }

    /// Where the checked `_meta` is, if the walk checked one.
    pub(crate) fn checked_meta(self) -> Option<Range<usize>> {
        let (HeadNotes::Walked { meta, .. } | HeadNotes::TextBlocks { meta, .. }) = self;
        let [start, end] = meta;
        (end != 0).then_some(start as usize..end as usize)
    }

    /// Where the first plain text of a canonical text-blocks result is, if
    /// the envelope's read found one.
    pub(crate) fn plain_text(self) -> Option<Range<usize>> {
        match self {
            HeadNotes::TextBlocks {
                plain_text: [start, end],
                ..
            } if start != 0 => Some(start as usize..end as usize),
            _ => None,
        }
    }
}

/// `at` as a note, from `base`; `None` past `u32::MAX`.
fn offset(base: usize, at: usize) -> Option<u32> {
    u32::try_from(at - base).ok()
}

/// `range` as a note, from `base`; `None` when an end passes `u32::MAX`.
fn span(base: usize, range: &Range<usize>) -> Option<[u32; 2]> {
    Some([offset(base, range.start)?, offset(base, range.end)?])
}

/// The end of the object at `s[i]` (just past its `}`) and its head
/// notes, relative to `i` (see [`note`]). `None` when `s[i]` does not
/// start an object the member walk reads (not an object, or a key with an
/// escape): the caller counts brackets instead, as for any other value.
pub(crate) fn object_end_noting(s: &[u8], i: usize) -> Option<(usize, Option<HeadNotes>)> {
    let mut members = ObjectMembers::at(s, i);
    let notes = note(&mut members, i)?;
    Some((members.at, notes))
}

/// Walks an object's members, noting where each head member's value starts
/// (relative to `base`, where the object starts). `None` when the walk
/// fails; `Some(None)` when a head key comes twice or an offset passes
/// `u32::MAX`: the reader then reads the text as a whole, which gives a
/// repeated key's error too.
fn note(members: &mut ObjectMembers<'_>, base: usize) -> Option<Option<HeadNotes>> {
    let mut notes = [0u32; 4];
    let mut sure = true;
    for member in members.by_ref() {
        let member = member.ok()?;
        // Most keys are none of the four, told apart by length alone.
        if !matches!(member.key.len(), 5 | 10) {
            continue;
        }
        let Some(slot) = HEAD_KEYS.iter().position(|k| k.as_bytes() == member.key) else {
            continue;
        };
        match offset(base, member.value.start) {
            Some(at) if notes[slot] == 0 => notes[slot] = at,
            _ => sure = false,
        }
    }
    let meta = members
        .checked_meta
        .as_ref()
        .and_then(|m| span(base, m))
        .unwrap_or([0, 0]);
    Some(sure.then_some(HeadNotes::Walked {
        meta,
        starts: notes,
    }))
}

/// The value texts of the head members ([`HEAD_KEYS`], in that order;
/// `None` for an absent one) of the result object `text`, by a walk of its
/// members that skips their values (a tool's 1 MiB of content, say).
/// `None` when the text is not an object this walk reads (a key has an
/// escape, the structure breaks) or a head key comes twice: read the text
/// with serde then, which gives the same reading or the error.
///
/// ```
/// let text = br#"{"content":[{"type":"text","text":"a"}],"ttlMs":5}"#;
/// let head = mcp_types::raw::head_members_of(text).unwrap();
/// assert_eq!(head, [None, None, Some(&b"5"[..]), None]);
/// assert!(mcp_types::raw::head_members_of(br#"{"ttlMs":1,"ttlMs":2}"#).is_none());
/// ```
pub fn head_members_of(text: &[u8]) -> Option<[Option<&[u8]>; 4]> {
    let notes = note(&mut object_members(text), 0)??;
    values(text, notes)
}

/// The value texts the notes point at in `text`.
fn values(text: &[u8], notes: HeadNotes) -> Option<[Option<&[u8]>; 4]> {
    let mut members = [None; 4];
    for (member, start) in members.iter_mut().zip(notes.starts()) {
        if start != 0 {
            let start = start as usize;
            *member = Some(&text[start..value_end(text, start)?]);
        }
    }
    Some(members)
}

impl RawJson {
    /// [`head_members_of`] this result, as noted when the envelope it came
    /// in was walked (no second walk). `None` when nothing was noted (the
    /// result came another way, a key in it is escaped, or a head key
    /// comes twice): read the text itself then.
    ///
    /// ```
    /// use mcp_types::Message;
    /// let line = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"resultType":"complete"}}"#;
    /// let Ok(Message::Response(r)) = Message::from_slice(line) else { panic!() };
    /// let head = r.result.head_members().unwrap();
    /// assert_eq!(head[0], Some(&br#""complete""#[..]));
    /// assert_eq!(head[1..], [None, None, None]);
    /// ```
    #[inline]
    pub fn head_members(&self) -> Option<[Option<&[u8]>; 4]> {
        values(self.as_bytes(), self.1?)
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
        // As the envelope's walk does: brackets counted when the member
        // walk cannot read the object.
        let bracket_end = value_end(text.as_bytes(), 0).unwrap();
        let (end, notes) = object_end_noting(text.as_bytes(), 0).unwrap_or((bracket_end, None));
        assert_eq!(end, bracket_end, "the same end");
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
    fn a_plain_meta_is_noted_where_it_is() {
        let meta_of = |result: &str| {
            let line = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{result}}}"#);
            let Ok(crate::Message::Response(r)) = crate::Message::from_slice(line.as_bytes())
            else {
                panic!("{line}");
            };
            r.result
                .checked_meta()
                .map(|m| String::from_utf8_lossy(&r.result.as_bytes()[m]).into_owned())
        };
        let meta = r#"{"k": ["v", -1.5, true, null, {}]}"#;
        assert_eq!(
            meta_of(&format!(r#"{{"content":[],"_meta": {meta} }}"#)).as_deref(),
            Some(meta)
        );
        assert_eq!(
            meta_of(&format!(r#"{{"_meta":{meta},"ttlMs":5}}"#)).as_deref(),
            Some(meta)
        );
        // Not plain: left to the reader, which hands it to serde.
        for result in [
            r#"{"_meta":{"n":1e3}}"#,
            r#"{"_meta":{"s":"a
b"}}"#,
            r#"{"_meta":[]}"#,
            r#"{"_meta":null}"#,
            r#"{"content":[]}"#,
            r#"{"other":{"_meta":{}}}"#,
        ] {
            assert_eq!(meta_of(result), None, "{result}");
        }
    }

    #[test]
    fn results_from_serde_or_built_by_hand_have_no_notes() {
        let raw = RawJson::from_bytes(&br#"{"resultType":"complete"}"#[..]);
        assert!(raw.head_members().is_none());
    }
}
