//! Collision-free qualified names for tools and prompts: `label__name` by
//! default, with the separator, the accepted characters and the length
//! limit of the model API configurable ([`NamingPolicy`]).
//!
//! Names are assigned deterministically, in server order then listing
//! order. A name that two entries would share (the same tool listed twice,
//! two names that only differ in characters the charset replaces, a name cut
//! at the length limit, or one tool name on two servers when bare names are
//! asked for) is never dropped: the first entry keeps it, the others get
//! `_2`, `_3`, ..., and a [`Collision`] reports it.

use std::collections::{BTreeMap, HashMap};

/// How qualified names are made.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct NamingPolicy {
    /// Between the server label and the name (default `__`). Must consist
    /// of accepted characters.
    pub separator: String,
    /// The longest name in characters (default 64, OpenAI's and
    /// Anthropic's limit). Longer names are cut and end in `_` plus 8 hex
    /// digits of a hash of the full name.
    pub max_len: usize,
    /// The accepted characters (default `[A-Za-z0-9_-]`); others become
    /// `replacement`. The hex digits of the hash must be accepted.
    pub accepts: fn(char) -> bool,
    /// What a rejected character becomes (default `_`).
    pub replacement: char,
    /// Keep a name bare (no label) when no other entry of any server has it
    /// (default `false`: always qualified, so a server added later never
    /// renames an existing tool).
    pub bare_when_unique: bool,
}

fn model_api_charset(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

impl Default for NamingPolicy {
    fn default() -> Self {
        NamingPolicy {
            separator: "__".into(),
            max_len: 64,
            accepts: model_api_charset,
            replacement: '_',
            bare_when_unique: false,
        }
    }
}

impl NamingPolicy {
    /// The default policy with another separator.
    pub fn with_separator(mut self, separator: impl Into<String>) -> Self {
        self.separator = separator.into();
        self
    }

    /// The default policy with another length limit (at least 16).
    pub fn with_max_len(mut self, max_len: usize) -> Self {
        self.max_len = max_len.max(16);
        self
    }

    /// Another accepted character set.
    pub fn with_charset(mut self, accepts: fn(char) -> bool, replacement: char) -> Self {
        self.accepts = accepts;
        self.replacement = replacement;
        self
    }

    /// Keep names bare when unique across all servers.
    pub fn with_bare_when_unique(mut self, bare: bool) -> Self {
        self.bare_when_unique = bare;
        self
    }

    fn sanitize(&self, s: &str) -> String {
        let out: String = s
            .chars()
            .map(|c| {
                if (self.accepts)(c) {
                    c
                } else {
                    self.replacement
                }
            })
            .collect();
        if out.is_empty() {
            self.replacement.to_string()
        } else {
            out
        }
    }

    /// `s` cut to `max_len - reserve` characters, marked with a hash of the
    /// whole when cut.
    fn fit(&self, s: &str, reserve: usize) -> String {
        let limit = self.max_len.saturating_sub(reserve).max(10);
        if s.chars().count() <= limit {
            return s.to_owned();
        }
        let head: String = s.chars().take(limit - 9).collect();
        format!("{head}{}{:08x}", self.replacement, fnv1a(s) as u32)
    }
}

fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// One entry that wanted a name another entry also wanted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim {
    /// The server label.
    pub origin: String,
    /// The server's own name for the entry.
    pub name: String,
    /// The name it got.
    pub assigned: String,
}

/// A contested name and every entry that wanted it, in assignment order
/// (the first kept it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Collision {
    /// The name they all wanted.
    pub wanted: String,
    /// Who wanted it and what each got.
    pub claims: Vec<Claim>,
}

/// Assigns one unique name to each `(label, name)`, in order.
pub(crate) fn assign(
    policy: &NamingPolicy,
    items: &[(&str, &str)],
) -> (Vec<String>, Vec<Collision>) {
    let mut holders: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, name) in items {
        *holders.entry(name).or_default() += 1;
    }
    let wanted: Vec<String> = items
        .iter()
        .map(|(label, name)| {
            let bare = policy.bare_when_unique && holders[name] == 1;
            let full = if bare {
                policy.sanitize(name)
            } else {
                format!(
                    "{}{}{}",
                    policy.sanitize(label),
                    policy.separator,
                    policy.sanitize(name)
                )
            };
            policy.fit(&full, 0)
        })
        .collect();
    // Assigned name -> index of the entry holding it.
    let mut taken: HashMap<String, usize> = HashMap::new();
    let mut contested: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut out = Vec::with_capacity(items.len());
    for (i, want) in wanted.iter().enumerate() {
        if let Some(&holder) = taken.get(want) {
            contested
                .entry(want.clone())
                .or_default()
                .extend([holder, i]);
        }
        let mut name = want.clone();
        let mut n = 1;
        while taken.contains_key(&name) {
            n += 1;
            let suffix = format!("{}{n}", policy.replacement);
            name = format!("{}{suffix}", policy.fit(want, suffix.chars().count()));
        }
        taken.insert(name.clone(), i);
        out.push(name);
    }
    // A bare name held by several servers became qualified: report it too.
    if policy.bare_when_unique {
        for (i, (_, name)) in items.iter().enumerate() {
            if holders[name] > 1 {
                contested.entry(policy.sanitize(name)).or_default().push(i);
            }
        }
    }
    let collisions = contested
        .into_iter()
        .map(|(want, mut idx)| {
            idx.sort_unstable();
            idx.dedup();
            let claims = idx
                .into_iter()
                .map(|i| Claim {
                    origin: items[i].0.to_owned(),
                    name: items[i].1.to_owned(),
                    assigned: out[i].clone(),
                })
                .collect();
            Collision {
                wanted: want,
                claims,
            }
        })
        .collect();
    (out, collisions)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qualified_by_default_and_unique() {
        let p = NamingPolicy::default();
        let (names, collisions) = assign(&p, &[("a", "echo"), ("b", "echo"), ("a", "add")]);
        assert_eq!(names, ["a__echo", "b__echo", "a__add"]);
        assert!(collisions.is_empty());
    }

    #[test]
    fn duplicates_and_sanitized_clashes_get_suffixes_and_reports() {
        let p = NamingPolicy::default();
        let (names, collisions) = assign(
            &p,
            &[
                ("s", "x.y"),
                ("s", "x_y"),
                ("s", "x y"),
                ("s", "dup"),
                ("s", "dup"),
            ],
        );
        assert_eq!(
            names,
            ["s__x_y", "s__x_y_2", "s__x_y_3", "s__dup", "s__dup_2"]
        );
        assert_eq!(collisions.len(), 2);
        let xy = collisions.iter().find(|c| c.wanted == "s__x_y").unwrap();
        let who: Vec<&str> = xy.claims.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(who, ["x.y", "x_y", "x y"]);
    }

    #[test]
    fn separator_ambiguity_is_disambiguated() {
        let p = NamingPolicy::default();
        let (names, collisions) = assign(&p, &[("a__b", "c"), ("a", "b__c")]);
        assert_eq!(names, ["a__b__c", "a__b__c_2"]);
        assert_eq!(collisions[0].claims.len(), 2);
    }

    #[test]
    fn bare_when_unique_reports_cross_server_clashes() {
        let p = NamingPolicy::default().with_bare_when_unique(true);
        let (names, collisions) = assign(&p, &[("a", "echo"), ("b", "echo"), ("a", "add")]);
        assert_eq!(names, ["a__echo", "b__echo", "add"]);
        assert_eq!(collisions.len(), 1);
        assert_eq!(collisions[0].wanted, "echo");
        assert_eq!(collisions[0].claims.len(), 2);
    }

    #[test]
    fn length_limit_cuts_with_hash_and_keeps_names_distinct() {
        let p = NamingPolicy::default().with_max_len(20);
        let long_a = "a".repeat(40);
        let long_b = format!("{}b", "a".repeat(39));
        let (names, collisions) = assign(&p, &[("srv", &long_a), ("srv", &long_b)]);
        assert!(names.iter().all(|n| n.chars().count() <= 20), "{names:?}");
        assert_ne!(names[0], names[1]);
        assert!(collisions.is_empty());
        // Forced collisions at the limit still fit.
        let (names, _) = assign(&p, &[("srv", &long_a), ("srv", &long_a)]);
        assert!(names.iter().all(|n| n.chars().count() <= 20), "{names:?}");
        assert_ne!(names[0], names[1]);
    }

    #[test]
    fn custom_separator_and_charset() {
        fn lower(c: char) -> bool {
            c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.'
        }
        let p = NamingPolicy::default()
            .with_separator(".")
            .with_charset(lower, 'x');
        let (names, _) = assign(&p, &[("Git", "get_Issue")]);
        assert_eq!(names, ["xit.getxxssue"]);
    }
}
