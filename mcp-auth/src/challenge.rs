//! `WWW-Authenticate` parsing (RFC 9110 §11.6.1, RFC 6750 §3, RFC 9728 §5.1, RFC 9449 §7.1).
//!
//! The header is server input: the parser is bounded (length, challenge and parameter
//! counts), works on bytes, never panics, and reports malformed input as a
//! [`ChallengeError`]. Scheme and parameter names compare case-insensitively and are
//! stored in lower case; values keep their bytes (quoted-pairs unescaped).

use mcp_types::routing::is_tchar;

/// The longest header value accepted.
pub const MAX_HEADER_LEN: usize = 16 * 1024;
/// The most challenges accepted in one header value.
pub const MAX_CHALLENGES: usize = 16;
/// The most parameters accepted in one challenge.
pub const MAX_PARAMS: usize = 32;

/// One challenge: a scheme and either a token68 or auth-params.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Challenge {
    /// The auth scheme, lower-cased (`bearer`, `dpop`, ...).
    pub scheme: String,
    /// The token68 form, when the challenge uses it instead of parameters.
    pub token68: Option<String>,
    /// Parameters in order, names lower-cased.
    pub params: Vec<(String, String)>,
}

impl Challenge {
    /// The value of a parameter (case-insensitive name).
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Whether the scheme is `Bearer` (RFC 6750).
    pub fn is_bearer(&self) -> bool {
        self.scheme == "bearer"
    }

    /// Whether the scheme is `DPoP` (RFC 9449).
    pub fn is_dpop(&self) -> bool {
        self.scheme == "dpop"
    }

    /// The RFC 9728 `resource_metadata` URL.
    pub fn resource_metadata(&self) -> Option<&str> {
        self.param("resource_metadata")
    }

    /// The RFC 6750 `scope` (space-separated).
    pub fn scope(&self) -> Option<&str> {
        self.param("scope")
    }

    /// The RFC 6750 `error` code (`invalid_token`, `insufficient_scope`, `use_dpop_nonce`...).
    pub fn error(&self) -> Option<&str> {
        self.param("error")
    }

    /// The human-readable `error_description`.
    pub fn error_description(&self) -> Option<&str> {
        self.param("error_description")
    }

    /// The DPoP `algs` the server accepts (RFC 9449 §7.1), empty when absent.
    pub fn dpop_algs(&self) -> Vec<&str> {
        self.param("algs")
            .map(|a| a.split_ascii_whitespace().collect())
            .unwrap_or_default()
    }
}

/// Why a `WWW-Authenticate` value could not be parsed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ChallengeError {
    /// The value exceeds [`MAX_HEADER_LEN`].
    #[error("WWW-Authenticate value too long ({0} bytes)")]
    TooLong(usize),
    /// More than [`MAX_CHALLENGES`] challenges or [`MAX_PARAMS`] parameters.
    #[error("too many challenges or parameters")]
    TooMany,
    /// A byte that cannot appear where it was found.
    #[error("unexpected character at byte {0}")]
    Unexpected(usize),
    /// A quoted string that never closes.
    #[error("unterminated quoted string")]
    Unterminated,
    /// A parameter repeated within one challenge (RFC 9110: each name only once).
    #[error("duplicate parameter `{0}`")]
    DuplicateParam(String),
    /// The value holds no challenge at all.
    #[error("no challenge")]
    Empty,
}

/// Parses one `WWW-Authenticate` field value into its challenges.
pub fn parse_www_authenticate(value: &str) -> Result<Vec<Challenge>, ChallengeError> {
    if value.len() > MAX_HEADER_LEN {
        return Err(ChallengeError::TooLong(value.len()));
    }
    let mut p = Parser {
        s: value.as_bytes(),
        i: 0,
    };
    let mut out = Vec::new();
    loop {
        p.skip_list_separators();
        if p.at_end() {
            break;
        }
        if out.len() == MAX_CHALLENGES {
            return Err(ChallengeError::TooMany);
        }
        out.push(p.challenge()?);
    }
    if out.is_empty() {
        return Err(ChallengeError::Empty);
    }
    Ok(out)
}

/// Parses several `WWW-Authenticate` field lines (a response may repeat the header).
pub fn parse_all<'a>(
    values: impl IntoIterator<Item = &'a str>,
) -> Result<Vec<Challenge>, ChallengeError> {
    let mut out = Vec::new();
    for v in values {
        out.extend(parse_www_authenticate(v)?);
        if out.len() > MAX_CHALLENGES {
            return Err(ChallengeError::TooMany);
        }
    }
    if out.is_empty() {
        return Err(ChallengeError::Empty);
    }
    Ok(out)
}

/// The challenge an OAuth client acts on: `DPoP` when `prefer_dpop`, else `Bearer`,
/// else the other of the two.
pub fn oauth_challenge(challenges: &[Challenge], prefer_dpop: bool) -> Option<&Challenge> {
    let preferred = |c: &&Challenge| {
        if prefer_dpop {
            c.is_dpop()
        } else {
            c.is_bearer()
        }
    };
    let other = |c: &&Challenge| {
        if prefer_dpop {
            c.is_bearer()
        } else {
            c.is_dpop()
        }
    };
    challenges
        .iter()
        .find(preferred)
        .or_else(|| challenges.iter().find(other))
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

fn is_token68_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~+/".contains(&b)
}

impl Parser<'_> {
    fn at_end(&self) -> bool {
        self.i >= self.s.len()
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn skip_ws(&mut self) {
        // CR and LF are tolerated as whitespace (obs-fold in a header that was not unfolded).
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.i += 1;
        }
    }

    fn skip_list_separators(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r' | b'\n' | b',')) {
            self.i += 1;
        }
    }

    fn token(&mut self) -> Option<String> {
        let start = self.i;
        while self.peek().is_some_and(is_tchar) {
            self.i += 1;
        }
        // tchars are ASCII, so the lossy conversion never replaces anything.
        (self.i > start).then(|| String::from_utf8_lossy(&self.s[start..self.i]).into_owned())
    }

    /// Whether the input at the cursor looks like `token BWS "=" BWS (token / quoted)`.
    fn at_auth_param(&self) -> bool {
        let mut j = self.i;
        let s = self.s;
        let start = j;
        while j < s.len() && is_tchar(s[j]) {
            j += 1;
        }
        if j == start {
            return false;
        }
        while j < s.len() && matches!(s[j], b' ' | b'\t' | b'\r' | b'\n') {
            j += 1;
        }
        if j >= s.len() || s[j] != b'=' {
            return false;
        }
        j += 1;
        while j < s.len() && matches!(s[j], b' ' | b'\t' | b'\r' | b'\n') {
            j += 1;
        }
        j < s.len() && (s[j] == b'"' || is_tchar(s[j]))
    }

    fn challenge(&mut self) -> Result<Challenge, ChallengeError> {
        let at = self.i;
        let scheme = self
            .token()
            .ok_or(ChallengeError::Unexpected(at))?
            .to_ascii_lowercase();
        let mut challenge = Challenge {
            scheme,
            token68: None,
            params: Vec::new(),
        };
        let before_ws = self.i;
        self.skip_ws();
        if self.at_end() || self.peek() == Some(b',') {
            return Ok(challenge);
        }
        if self.i == before_ws {
            // The scheme must be followed by whitespace before its credentials.
            return Err(ChallengeError::Unexpected(self.i));
        }
        if !self.at_auth_param() {
            challenge.token68 = Some(self.token68()?);
            return Ok(challenge);
        }
        loop {
            if challenge.params.len() == MAX_PARAMS {
                return Err(ChallengeError::TooMany);
            }
            let (name, value) = self.auth_param()?;
            if challenge.param(&name).is_some() {
                return Err(ChallengeError::DuplicateParam(name));
            }
            challenge.params.push((name, value));
            self.skip_ws();
            match self.peek() {
                None => return Ok(challenge),
                Some(b',') => {
                    self.skip_list_separators();
                    if self.at_end() || !self.at_auth_param() {
                        return Ok(challenge);
                    }
                }
                Some(_) => return Err(ChallengeError::Unexpected(self.i)),
            }
        }
    }

    fn token68(&mut self) -> Result<String, ChallengeError> {
        let start = self.i;
        while self.peek().is_some_and(is_token68_char) {
            self.i += 1;
        }
        if self.i == start {
            return Err(ChallengeError::Unexpected(self.i));
        }
        while self.peek() == Some(b'=') {
            self.i += 1;
        }
        let value = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
        self.skip_ws();
        match self.peek() {
            None | Some(b',') => Ok(value),
            Some(_) => Err(ChallengeError::Unexpected(self.i)),
        }
    }

    fn auth_param(&mut self) -> Result<(String, String), ChallengeError> {
        let at = self.i;
        let name = self
            .token()
            .ok_or(ChallengeError::Unexpected(at))?
            .to_ascii_lowercase();
        self.skip_ws();
        if self.peek() != Some(b'=') {
            return Err(ChallengeError::Unexpected(self.i));
        }
        self.i += 1;
        self.skip_ws();
        let value = if self.peek() == Some(b'"') {
            self.quoted_string()?
        } else {
            let at = self.i;
            self.token().ok_or(ChallengeError::Unexpected(at))?
        };
        Ok((name, value))
    }

    fn quoted_string(&mut self) -> Result<String, ChallengeError> {
        self.i += 1; // opening quote
        let mut buf = Vec::new();
        loop {
            let Some(b) = self.peek() else {
                return Err(ChallengeError::Unterminated);
            };
            self.i += 1;
            match b {
                b'"' => break,
                b'\\' => {
                    let Some(escaped) = self.peek() else {
                        return Err(ChallengeError::Unterminated);
                    };
                    if escaped < 0x20 && escaped != b'\t' || escaped == 0x7f {
                        return Err(ChallengeError::Unexpected(self.i));
                    }
                    buf.push(escaped);
                    self.i += 1;
                }
                b'\t' | b' '..=b'~' | 0x80..=0xff => buf.push(b),
                _ => return Err(ChallengeError::Unexpected(self.i - 1)),
            }
        }
        // The input was a &str and only ASCII bytes were removed, so this is UTF-8;
        // map any surprise to an error rather than panicking.
        String::from_utf8(buf).map_err(|_| ChallengeError::Unexpected(self.i))
    }
}
