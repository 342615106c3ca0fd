//! Checking bytes against a listed file: size first (cheap), then the
//! SHA-256 digest of the raw bytes (`sha256:<64 lowercase hex>`).

use mcp_types::skills::{SHA256_PREFIX, SkillEntry, SkillResource};

use super::SkillError;

/// The `sha256:` digest of `bytes`, as the extension writes it.
///
/// ```
/// assert_eq!(
///     mcp_client::skills::sha256_digest(b""),
///     "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
/// );
/// ```
pub fn sha256_digest(bytes: &[u8]) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, bytes);
    let mut out = String::with_capacity(SHA256_PREFIX.len() + 64);
    out.push_str(SHA256_PREFIX);
    for b in digest.as_ref() {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 0x0f)]));
    }
    out
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Whether `digest` is `sha256:` and 64 lowercase hex digits.
pub(crate) fn well_formed(digest: &str) -> bool {
    digest.strip_prefix(SHA256_PREFIX).is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// Checks `bytes` read from `listed.uri` against the listed size and digest.
///
/// # Errors
/// [`SkillError::MalformedDigest`], [`SkillError::SizeMismatch`] or
/// [`SkillError::DigestMismatch`].
pub fn verify(listed: &SkillResource, bytes: &[u8]) -> Result<(), SkillError> {
    if !well_formed(&listed.digest) {
        return Err(SkillError::MalformedDigest {
            uri: listed.uri.clone(),
            digest: listed.digest.clone(),
        });
    }
    let actual_len = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    if let Some(expected) = listed.size
        && expected != actual_len
    {
        return Err(SkillError::SizeMismatch {
            uri: listed.uri.clone(),
            expected,
            actual: actual_len,
        });
    }
    let actual = sha256_digest(bytes);
    if actual != listed.digest {
        return Err(SkillError::DigestMismatch {
            uri: listed.uri.clone(),
            expected: listed.digest.clone(),
            actual,
        });
    }
    Ok(())
}

/// A fingerprint of an entry's complete `{uri, digest}` set (order does not
/// matter), for binding a persisted approval to the content approved: a
/// different set, a changed digest or an added or removed file, gives a
/// different fingerprint and so revokes the approval. `None` for an entry
/// without `resources`, which cannot be content-bound. Keep it together
/// with the host's label for the server: identity is (server, uri).
///
/// ```
/// use mcp_client::mcp_types::skills::{SkillEntry, SkillResource};
/// use mcp_client::skills::{content_binding, sha256_digest};
/// let file = |u: &str, body: &str| SkillResource::new(u, sha256_digest(body.as_bytes()));
/// let a = SkillEntry::new("skill://a/SKILL.md", Default::default())
///     .with_resources(vec![file("skill://a/SKILL.md", "x"), file("skill://a/b.md", "y")]);
/// let reordered = SkillEntry::new("skill://a/SKILL.md", Default::default())
///     .with_resources(vec![file("skill://a/b.md", "y"), file("skill://a/SKILL.md", "x")]);
/// assert_eq!(content_binding(&a), content_binding(&reordered));
/// ```
pub fn content_binding(entry: &SkillEntry) -> Option<String> {
    let mut pairs: Vec<(&str, &str)> = entry
        .resources
        .as_deref()?
        .iter()
        .map(|r| (r.uri.as_str(), r.digest.as_str()))
        .collect();
    pairs.sort_unstable();
    // JSON keeps the encoding unambiguous whatever the URIs contain.
    let canonical = serde_json::to_vec(&(entry.uri.as_str(), pairs)).ok()?;
    Some(sha256_digest(&canonical))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(bytes: &[u8]) -> SkillResource {
        SkillResource::new("skill://a/SKILL.md", sha256_digest(bytes)).with_size(bytes.len() as u64)
    }

    #[test]
    fn matching_bytes_verify() {
        verify(&listed(b"hello"), b"hello").unwrap();
        let mut no_size = listed(b"hello");
        no_size.size = None;
        verify(&no_size, b"hello").unwrap();
    }

    #[test]
    fn a_changed_byte_is_a_digest_mismatch_naming_both_digests() {
        let err = verify(&listed(b"hello"), b"hellO").unwrap_err();
        let SkillError::DigestMismatch {
            uri,
            expected,
            actual,
        } = &err
        else {
            panic!("{err:?}")
        };
        assert_eq!(uri, "skill://a/SKILL.md");
        assert_eq!(expected, &sha256_digest(b"hello"));
        assert_eq!(actual, &sha256_digest(b"hellO"));
        assert!(err.is_verification_failure());
    }

    #[test]
    fn a_different_length_is_a_size_mismatch_even_without_hashing() {
        let err = verify(&listed(b"hello"), b"hello!").unwrap_err();
        assert!(
            matches!(
                err,
                SkillError::SizeMismatch {
                    expected: 5,
                    actual: 6,
                    ..
                }
            ),
            "{err:?}"
        );
        // Without a size the same bytes fail on the digest.
        let mut no_size = listed(b"hello");
        no_size.size = None;
        assert!(matches!(
            verify(&no_size, b"hello!"),
            Err(SkillError::DigestMismatch { .. })
        ));
    }

    #[test]
    fn any_change_to_the_listed_set_changes_the_content_binding() {
        let entry = |files: Vec<SkillResource>| {
            SkillEntry::new("skill://a/SKILL.md", Default::default()).with_resources(files)
        };
        let m = || SkillResource::new("skill://a/SKILL.md", sha256_digest(b"m"));
        let f = |body: &[u8]| SkillResource::new("skill://a/f.md", sha256_digest(body));
        let base = content_binding(&entry(vec![m(), f(b"f")])).unwrap();
        assert_eq!(content_binding(&entry(vec![f(b"f"), m()])).unwrap(), base);
        assert_ne!(content_binding(&entry(vec![m(), f(b"g")])).unwrap(), base);
        assert_ne!(content_binding(&entry(vec![m()])).unwrap(), base);
        let extra = SkillResource::new("skill://a/g.md", sha256_digest(b"g"));
        assert_ne!(
            content_binding(&entry(vec![m(), f(b"f"), extra])).unwrap(),
            base
        );
        let unverifiable = SkillEntry::new("skill://a/SKILL.md", Default::default());
        assert_eq!(content_binding(&unverifiable), None);
    }

    #[test]
    fn malformed_digests_are_refused_before_reading_anything() {
        let good = sha256_digest(b"x");
        for bad in [
            good.to_uppercase(),
            good.replace("sha256:", "sha512:"),
            good[..good.len() - 1].to_owned(),
            String::new(),
        ] {
            let r = SkillResource::new("skill://a/f", bad);
            assert!(matches!(
                verify(&r, b"x"),
                Err(SkillError::MalformedDigest { .. })
            ));
        }
    }
}
