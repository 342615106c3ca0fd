//! Enterprise-managed authorization (`auth ema-login|ema-status|ema-logout`,
//! `--ema`): the user signs in once at the organisation's identity provider
//! (OpenID Connect, authorization code + PKCE through the browser and the
//! same loopback redirect as `--oauth`, scopes `openid offline_access`); the
//! ID token and its refresh token are kept in the `0600` token store. With
//! `--ema`, an HTTP connection exchanges that ID token at the provider for
//! an ID-JAG (RFC 8693) and redeems it at the MCP server's authorization
//! server (RFC 7523) with the client credentials given by `--ema-client-id`
//! and `--ema-client-secret`; the user is never sent to the MCP server's
//! own login. An expired ID token is refreshed first and the renewed one
//! stored. `mcp-auth`'s `oidc` module does the protocol work.

use std::sync::Arc;

use mcp_client::HttpConfig;
use mcp_client::oauth::OAuthConfig;
use mcp_client::oauth::OAuthHttpClient;
use mcp_client::oauth::oidc::{IdentityProvider, IdpAssertion, IdpSession};
use mcp_client::oauth::registration::ClientCredentials;
use mcp_client::oauth::store::{FileStore, TokenStore};
use serde_json::json;

use crate::args::Global;
use crate::exit::{CliError, Exit};
use crate::oauth::{LoopbackBrowser, token_file};
use crate::render::Out;
use crate::ui::Ui;

fn store() -> Result<Arc<FileStore>, CliError> {
    Ok(Arc::new(FileStore::new(token_file()?)))
}

fn store_error(e: impl std::fmt::Display) -> CliError {
    CliError::usage(format!("token store: {e}"))
}

/// The provider at `issuer` with these credentials, over the CLI's HTTP stack.
fn provider(issuer: &str, creds: &ClientCredentials) -> Result<IdentityProvider, CliError> {
    let config =
        HttpConfig::new(issuer).map_err(|e| CliError::usage(format!("--idp {issuer}: {e}")))?;
    let http = OAuthHttpClient::new(&config)
        .map_err(|e| CliError::usage(format!("--idp {issuer}: {e}")))?;
    IdentityProvider::new(
        issuer,
        creds.client_id.clone(),
        creds.client_secret.clone(),
        Arc::new(http),
    )
    .map_err(|e| CliError::usage(format!("--idp {issuer}: {e}")))
}

/// `auth ema-login`: signs in at the provider and stores the session and
/// the client credentials used there.
pub(crate) async fn login(
    issuer: &str,
    client_id: &str,
    client_secret: Option<&str>,
    port: u16,
    out: &Out,
) -> Result<Exit, CliError> {
    let creds = ClientCredentials::new(
        client_id,
        client_secret.map(Into::into),
        Some(issuer.to_owned()),
    );
    let idp = provider(issuer, &creds)?;
    let redirect = format!("http://127.0.0.1:{port}/callback");
    let session = idp
        .sign_in(&LoopbackBrowser::new(port, &out.ui), &redirect)
        .await
        .map_err(|e| CliError::transport(format!("sign-in at {issuer}: {e}")))?;
    let store = store()?;
    store.save_client(issuer, &creds).map_err(store_error)?;
    store.save_idp_session(&session).map_err(store_error)?;
    if out.json {
        out.json_doc(&describe(&session));
    } else {
        out.line(&format!("signed in at {issuer} as {}", who(&session)));
    }
    Ok(Exit::Ok)
}

fn who(s: &IdpSession) -> &str {
    s.display_name
        .as_deref()
        .or(s.subject.as_deref())
        .unwrap_or("(unnamed user)")
}

/// What `ema-status` shows of a session: never a token.
fn describe(s: &IdpSession) -> serde_json::Value {
    json!({
        "issuer": s.issuer,
        "client_id": s.client_id,
        "user": who(s),
        "id_token_expires_at": s.expires_at,
        "refreshable": s.refresh_token.is_some(),
    })
}

/// `auth ema-status`: the stored sign-ins.
pub(crate) fn status(out: &Out) -> Result<Exit, CliError> {
    let sessions = store()?.idp_sessions().map_err(store_error)?;
    if out.json {
        let list: Vec<_> = sessions.iter().map(describe).collect();
        out.json_doc(&json!({ "sessions": list }));
        return Ok(Exit::Ok);
    }
    if sessions.is_empty() {
        out.line("not signed in at any identity provider (mcp auth ema-login)");
    }
    for s in &sessions {
        out.line(&format!(
            "{}: {} (client {}), ID token expires at {} (unix){}",
            s.issuer,
            who(s),
            s.client_id,
            s.expires_at,
            if s.refresh_token.is_some() {
                ", refreshable"
            } else {
                ""
            }
        ));
    }
    Ok(Exit::Ok)
}

/// `auth ema-logout`: forgets the sign-in (every one, or the one at `idp`)
/// and shows the provider's sign-out URL to end its browser session.
pub(crate) fn logout(idp: Option<&str>, out: &Out) -> Result<Exit, CliError> {
    let store = store()?;
    let sessions = store.idp_sessions().map_err(store_error)?;
    let mut removed = Vec::new();
    for s in sessions
        .iter()
        .filter(|s| idp.is_none_or(|i| i == s.issuer))
    {
        store.remove_idp_session(&s.issuer).map_err(store_error)?;
        removed.push(json!({
            "issuer": s.issuer,
            "logout_url": s.logout_url().map(String::from),
        }));
        out.line(&format!("signed out of {}", s.issuer));
        if let Some(url) = s.logout_url() {
            out.line(&format!("  end the browser session at {url}"));
        }
    }
    if removed.is_empty() {
        return Err(CliError::usage(match idp {
            Some(i) => format!("not signed in at {i}"),
            None => "not signed in at any identity provider".to_owned(),
        }));
    }
    if out.json {
        out.json_doc(&json!({ "signed_out": removed }));
    }
    Ok(Exit::Ok)
}

/// The stored sign-in `--ema` uses: the one at `--ema-idp`, or the only one.
fn pick_session(store: &FileStore, idp: Option<&str>) -> Result<IdpSession, CliError> {
    let sessions = store.idp_sessions().map_err(store_error)?;
    let mut matching: Vec<IdpSession> = sessions
        .into_iter()
        .filter(|s| idp.is_none_or(|i| i == s.issuer))
        .collect();
    match (matching.len(), idp) {
        (1, _) => Ok(matching.remove(0)),
        (0, Some(i)) => Err(CliError::usage(format!(
            "--ema: not signed in at {i} (run `mcp auth ema-login --idp {i} ...`)"
        ))),
        (0, None) => Err(CliError::usage(
            "--ema: not signed in at an identity provider (run `mcp auth ema-login`)",
        )),
        _ => Err(CliError::usage(
            "--ema: signed in at several identity providers; choose one with --ema-idp URL",
        )),
    }
}

/// Adds enterprise-managed authorization to an HTTP config.
pub(crate) fn configure(
    config: HttpConfig,
    global: &Global,
    ui: &Ui,
) -> Result<HttpConfig, CliError> {
    let client_id = global.ema_client_id.clone().ok_or_else(|| {
        CliError::usage("--ema needs --ema-client-id (the client at the MCP authorization server)")
    })?;
    let store = store()?;
    let session = pick_session(&store, global.ema_idp.as_deref())?;
    let idp_creds = store
        .load_client(&session.issuer)
        .map_err(store_error)?
        .filter(|c| c.client_id == session.client_id)
        .unwrap_or_else(|| ClientCredentials::new(session.client_id.clone(), None, None));
    let idp = Arc::new(provider(&session.issuer, &idp_creds)?);
    let (saver, ui) = (store.clone(), ui.clone());
    let on_refresh = Box::new(move |s: &IdpSession| {
        if let Err(e) = saver.save_idp_session(s) {
            ui.note(&format!("mcp: could not store the renewed ID token: {e}"));
        }
    });
    let assertion = IdpAssertion::new(idp.clone(), session, Some(on_refresh))
        .map_err(|e| CliError::usage(format!("--ema: {e}")))?;
    let mcp_creds = ClientCredentials::new(
        client_id,
        global.ema_client_secret.clone().map(Into::into),
        None,
    );
    let flow = idp.enterprise_flow(Arc::new(assertion), mcp_creds);
    config
        .with_oauth(OAuthConfig::new(flow).with_store(store))
        .map_err(|e| CliError::usage(format!("--ema: {e}")))
}
