//! What can change after connect: the root list and the handlers.
//!
//! Capabilities are advertised once, at connect (and again, identically,
//! when a 2025-11-25 session is recovered). Replacing a handler the client
//! advertised takes effect for the next request the server sends;
//! installing a handler for a capability that was not advertised is
//! stored but has no effect until a new client connects with it, because
//! a conforming server does not ask for what the client did not offer.

use std::collections::BTreeMap;
use std::sync::Arc;

use mcp_types::Era;
use mcp_types::roots::Root;

use crate::client::Client;
use crate::error::{Error, ErrorKind};
use crate::handlers::{
    FormElicitationHandler, NotificationHandler, SamplingHandler, UrlElicitationHandler,
};

/// Longest root URI accepted (bytes).
const MAX_ROOT_URI: usize = 8 * 1024;

/// Checks that `uri` is an absolute `file://` URI.
fn check_root(uri: &str) -> Result<(), &'static str> {
    if uri.len() > MAX_ROOT_URI {
        return Err("longer than 8 KiB");
    }
    let scheme_ok = uri
        .get(..7)
        .is_some_and(|s| s.eq_ignore_ascii_case("file://"));
    if !scheme_ok {
        return Err("not a file:// URI");
    }
    // `file://` then an optional host, then an absolute path.
    if !uri[7..].contains('/') {
        return Err("no absolute path after file://");
    }
    if uri.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err("contains whitespace or control characters (percent-encode them)");
    }
    Ok(())
}

/// The normalized form of a root list: one root per URI (the first one
/// given wins), sorted by URI. Two lists are the same list when their
/// normalized forms are equal.
pub(crate) fn normalize_roots(roots: Vec<Root>) -> Vec<Root> {
    let mut by_uri = BTreeMap::new();
    for root in roots {
        by_uri.entry(root.uri.clone()).or_insert(root);
    }
    by_uri.into_values().collect()
}

impl Client {
    /// Replaces the root list the client serves to `roots/list`
    /// (2025-11-25) and to `roots/list` input requests (2026-07-28).
    ///
    /// Every URI must be an absolute `file://` URI. The list is normalized
    /// (one root per URI, the first given wins, sorted by URI). When the
    /// normalized list differs from the current one, the new list is
    /// installed and, in the 2025-11-25 era, `notifications/roots/list_changed`
    /// is sent; setting the same list again sends nothing. Returns whether
    /// the list changed. The list replaces whatever roots handler the
    /// builder registered; after a handler other than a `Vec<Root>`, the
    /// first call always counts as a change (the handler's list is not
    /// known).
    ///
    /// The `roots` capability is advertised at connect only when a roots
    /// handler was registered: register one on the builder (an empty
    /// `Vec<Root>` will do) if you mean to set roots at runtime.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), mcp_client::Error> {
    /// use mcp_client::Client;
    /// use mcp_client::mcp_types::roots::Root;
    /// let client = Client::builder()
    ///     .http("http://127.0.0.1:8080/mcp")
    ///     .roots(Vec::<Root>::new())
    ///     .connect()
    ///     .await?;
    /// let changed = client.set_roots(vec![Root::new("file:///home/ada/project")]).await?;
    /// assert!(changed);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::is_usage`] when a URI is not an absolute `file://` URI
    /// (nothing changes); [`Error::is_closed`] when sending the
    /// notification fails because the connection is closed (the new list is
    /// installed all the same).
    pub async fn set_roots(&self, roots: Vec<Root>) -> Result<bool, Error> {
        for root in &roots {
            check_root(&root.uri).map_err(|reason| {
                Error::new(ErrorKind::InvalidRoot {
                    uri: root.uri.clone(),
                    reason,
                })
            })?;
        }
        let list = normalize_roots(roots);
        let (changed, advertised) = self.inner.shared.set_handlers(|h| {
            if h.roots_list.as_deref() == Some(&list) {
                return (false, h.advertised.roots);
            }
            h.roots = Some(Arc::new(list.clone()));
            h.roots_list = Some(Arc::new(list));
            (true, h.advertised.roots)
        });
        if changed && advertised && self.era() == Some(Era::Legacy) {
            self.notify_roots_list_changed().await?;
        }
        Ok(changed)
    }

    /// Replaces the sampling handler; it serves the next
    /// `sampling/createMessage` request or input request (calls already
    /// being served finish with the old one).
    ///
    /// Returns whether it takes effect: `true` when `sampling` was
    /// advertised at connect (a sampling handler was registered on the
    /// builder). Otherwise the handler is stored but has no effect until
    /// reconnect: capabilities are advertised once, at connect (see
    /// [Changing handlers at runtime](crate::Client#changing-handlers-at-runtime)).
    ///
    /// ```no_run
    /// # fn run(client: mcp_client::Client) {
    /// use mcp_client::HandlerError;
    /// use mcp_client::mcp_types::sampling::{CreateMessageRequestParams, CreateMessageResult};
    /// use mcp_client::mcp_types::content::ContentBlock;
    /// let live = client.set_sampling_handler(|_: CreateMessageRequestParams| async {
    ///     Ok::<_, HandlerError>(CreateMessageResult::new(ContentBlock::text("hi"), "model-b"))
    /// });
    /// assert!(live, "register a sampling handler on the builder to advertise it");
    /// # }
    /// ```
    pub fn set_sampling_handler(&self, handler: impl SamplingHandler) -> bool {
        self.inner.shared.set_handlers(|h| {
            h.sampling = Some(Arc::new(handler));
            h.advertised.sampling
        })
    }

    /// Replaces the form-mode elicitation handler. Returns whether it
    /// takes effect (`elicitation.form` advertised at connect), as
    /// [`Client::set_sampling_handler`].
    pub fn set_form_elicitation_handler(&self, handler: impl FormElicitationHandler) -> bool {
        self.inner.shared.set_handlers(|h| {
            h.form = Some(Arc::new(handler));
            h.advertised.form
        })
    }

    /// Replaces the URL-mode elicitation handler (it receives the URL for
    /// host consent; the client never fetches it). Returns whether it takes
    /// effect (`elicitation.url` advertised at connect), as
    /// [`Client::set_sampling_handler`].
    pub fn set_url_elicitation_handler(&self, handler: impl UrlElicitationHandler) -> bool {
        self.inner.shared.set_handlers(|h| {
            h.url = Some(Arc::new(handler));
            h.advertised.url
        })
    }

    /// Replaces the notification handler; notifications need no
    /// capability, so this always takes effect for the next notification.
    pub fn set_notification_handler(&self, handler: impl NotificationHandler) {
        self.inner
            .shared
            .set_handlers(|h| h.notifications = Some(Arc::new(handler)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_file_uris_only() {
        assert!(check_root("file:///home/ada").is_ok());
        assert!(check_root("FILE:///C:/work").is_ok());
        assert!(check_root("file://host/share").is_ok());
        for bad in [
            "",
            "/home/ada",
            "file:home",
            "file://",
            "file://host",
            "https://example.com/x",
            "file:///a b",
            "file:///a\n",
        ] {
            assert!(check_root(bad).is_err(), "{bad:?}");
        }
        assert!(check_root(&format!("file:///{}", "a".repeat(MAX_ROOT_URI))).is_err());
    }

    #[test]
    fn normalizing_dedups_by_uri_and_sorts() {
        let list = normalize_roots(vec![
            Root::new("file:///b"),
            Root::new("file:///a").with_name("first"),
            Root::new("file:///a").with_name("second"),
        ]);
        let uris: Vec<&str> = list.iter().map(|r| r.uri.as_str()).collect();
        assert_eq!(uris, ["file:///a", "file:///b"]);
        assert_eq!(list[0].name.as_deref(), Some("first"));
        assert_eq!(
            normalize_roots(vec![Root::new("file:///a"), Root::new("file:///b")]),
            normalize_roots(vec![Root::new("file:///b"), Root::new("file:///a")])
        );
    }
}
