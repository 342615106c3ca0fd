//! Secrets out of URLs that are shown or stored: the pure string work that
//! `Debug` output, error texts and cache keys share (the stdio and HTTP
//! transports and the client's era cache). No parsing beyond finding the
//! authority, the query and the fragment; no allocation when there is
//! nothing to change.

use std::borrow::Cow;

/// What a redacted value reads as.
pub const REDACTED: &str = "<redacted>";

/// `url` with the value of each `name=value` query pair replaced by what
/// `replace` returns for it (`None` keeps the value). Names, pairs without a
/// value, the path and the fragment are kept.
///
/// ```
/// use mcp_types::redact::{REDACTED, map_query_values};
/// let shown = map_query_values("https://h/mcp?key=s3cret&flag#top", |_| Some(REDACTED.into()));
/// assert_eq!(shown, "https://h/mcp?key=<redacted>&flag#top");
/// assert_eq!(map_query_values("https://h/mcp", |_| None), "https://h/mcp");
/// ```
pub fn map_query_values(
    url: &str,
    mut replace: impl FnMut(&str) -> Option<String>,
) -> Cow<'_, str> {
    let end = url.find('#').unwrap_or(url.len());
    let Some(q) = url[..end].find('?') else {
        return Cow::Borrowed(url);
    };
    let pairs: Vec<String> = url[q + 1..end]
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((name, value)) => match replace(value) {
                Some(new) => format!("{name}={new}"),
                None => pair.to_owned(),
            },
            None => pair.to_owned(),
        })
        .collect();
    Cow::Owned(format!("{}?{}{}", &url[..q], pairs.join("&"), &url[end..]))
}

/// `url` with any `user:pass@` in its authority replaced by `<redacted>@`.
///
/// ```
/// use mcp_types::redact::redact_userinfo;
/// assert_eq!(redact_userinfo("https://me:pw@h/x?a=b@c"), "https://<redacted>@h/x?a=b@c");
/// ```
pub fn redact_userinfo(url: &str) -> Cow<'_, str> {
    let start = url.find("://").map_or(0, |i| i + 3);
    let end = url[start..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |i| start + i);
    match url[start..end].rfind('@') {
        Some(at) => Cow::Owned(format!("{}{REDACTED}{}", &url[..start], &url[start + at..])),
        None => Cow::Borrowed(url),
    }
}

/// `url` with its credentials and every query value redacted: what a URL
/// may show in `Debug` output and error messages.
///
/// ```
/// use mcp_types::redact::redact_url;
/// assert_eq!(redact_url("https://u:p@h/mcp?token=t"), "https://<redacted>@h/mcp?token=<redacted>");
/// ```
pub fn redact_url(url: &str) -> String {
    let url = redact_userinfo(url);
    map_query_values(&url, |_| Some(REDACTED.to_owned())).into_owned()
}
