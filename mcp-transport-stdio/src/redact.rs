//! Keeping credentials in a server's command line out of `Debug` output
//! (and so out of logs and of the client's era cache keys, which are built
//! from it).
//!
//! Servers are often given their token on the command line. An argument is
//! shown as `<redacted>` when it
//! * follows a flag whose name says it holds a secret (`--token X`,
//!   `--api-key X`, `-p X` is not recognised: short flags say nothing);
//! * is `name=value` with such a name (`--token=X`, `GITHUB_TOKEN=X` as
//!   `docker -e` takes it): the name stays, the value goes;
//! * looks like a credential by itself: a well-known token prefix (`ghp_`,
//!   `github_pat_`, `glpat-`, `sk-`, `xoxb-`, `AKIA`, ...), a JWT, or an
//!   `Authorization` value (`Bearer ...`);
//! * is a URL: its query values and any `user:pass@` are redacted, the rest
//!   stays readable.
//!
//! [`ServerCommand::secret_arg`](crate::ServerCommand::secret_arg) marks an
//! argument as secret when none of these rules can tell.

use std::borrow::Cow;

/// What replaces a secret.
pub(crate) use mcp_types::redact::REDACTED;

/// Words in a flag or variable name that say its value is a secret.
const SECRET_PARTS: &[&str] = &[
    "token",
    "secret",
    "passw",
    "pwd",
    "apikey",
    "auth",
    "credential",
    "bearer",
    "cookie",
    "private",
    "session",
];

/// Whole words (split on `-`, `_`, `.`) that say the same.
const SECRET_WORDS: &[&str] = &["key", "pat", "sig", "signature", "pass"];

/// Prefixes of well-known credential formats.
const CREDENTIAL_PREFIXES: &[&str] = &[
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "glpat-",
    "sk-",
    "sk_live_",
    "sk_test_",
    "rk_live_",
    "xoxb-",
    "xoxp-",
    "xoxa-",
    "xoxs-",
    "AKIA",
    "ASIA",
    "AIza",
    "Bearer ",
    "Basic ",
];

/// True when a flag or variable name says its value is a secret.
pub(crate) fn is_secret_name(name: &str) -> bool {
    let name = name.trim_start_matches('-').to_ascii_lowercase();
    SECRET_PARTS.iter().any(|p| name.contains(p))
        || name
            .split(['-', '_', '.'])
            .any(|word| SECRET_WORDS.contains(&word))
}

/// True when a value looks like a credential whatever its flag.
fn looks_like_credential(value: &str) -> bool {
    if value.len() < 12 {
        return false;
    }
    let jwt = value.starts_with("eyJ") && value.split('.').count() == 3;
    jwt || CREDENTIAL_PREFIXES.iter().any(|p| value.starts_with(p))
}

/// A URL with its query values and `user:pass@` redacted; `None` when the
/// argument is no URL or holds nothing to redact.
fn redact_url(arg: &str) -> Option<String> {
    let scheme_end = arg.find("://")?;
    if scheme_end == 0
        || !arg[..scheme_end]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    {
        return None;
    }
    let out = mcp_types::redact::redact_url(arg);
    (out != arg).then_some(out)
}

/// One argument as `Debug` shows it; `after_secret_flag` when the previous
/// argument was a flag naming a secret.
fn redact_arg(arg: &str, after_secret_flag: bool) -> Cow<'_, str> {
    if after_secret_flag || looks_like_credential(arg) {
        return Cow::Borrowed(REDACTED);
    }
    if let Some(url) = redact_url(arg) {
        return Cow::Owned(url);
    }
    if let Some((name, value)) = arg.split_once('=')
        && !name.contains("://")
        && (is_secret_name(name) || looks_like_credential(value))
    {
        return Cow::Owned(format!("{name}={REDACTED}"));
    }
    Cow::Borrowed(arg)
}

/// The arguments with every secret replaced; `secret[i]` marks argument `i`
/// as secret whatever it says.
pub(crate) fn redact_args(args: &[(String, bool)]) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    let mut after_secret_flag = false;
    for (arg, marked) in args {
        let shown = if *marked {
            Cow::Borrowed(REDACTED)
        } else {
            redact_arg(arg, after_secret_flag)
        };
        out.push(shown.into_owned());
        after_secret_flag = arg.starts_with("--") && !arg.contains('=') && is_secret_name(arg);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(args: &[&str]) -> Vec<String> {
        let args: Vec<(String, bool)> = args.iter().map(|a| ((*a).to_owned(), false)).collect();
        redact_args(&args)
    }

    #[test]
    fn flags_naming_secrets_lose_their_values() {
        assert_eq!(
            shown(&[
                "--token",
                "abc",
                "--api-key=xyz",
                "--verbose",
                "GITHUB_TOKEN=t0k"
            ]),
            [
                "--token",
                REDACTED,
                "--api-key=<redacted>",
                "--verbose",
                "GITHUB_TOKEN=<redacted>"
            ]
        );
        assert_eq!(
            shown(&["--port", "8080", "--keyboard", "us"]),
            ["--port", "8080", "--keyboard", "us"]
        );
    }

    #[test]
    fn credentials_and_urls_are_recognised_alone() {
        assert_eq!(
            shown(&[
                "ghp_0123456789abcdef0123",
                "eyJhbGciOi.eyJzdWIi.c2lnbmF0dXJl",
                "server.js"
            ]),
            [REDACTED, REDACTED, "server.js"]
        );
        assert_eq!(
            shown(&["https://u:p@example.com/sse?token=s3cret&mode=x#frag"]),
            ["https://<redacted>@example.com/sse?token=<redacted>&mode=<redacted>#frag"]
        );
        assert_eq!(
            shown(&["https://example.com/mcp"]),
            ["https://example.com/mcp"]
        );
    }
}
