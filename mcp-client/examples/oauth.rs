//! Connect to an OAuth-protected server: discovery, dynamic client
//! registration, the authorization code flow with PKCE, and the token on
//! every request, all done by `mcp_client::oauth` once the config says how
//! to reach the user.
//!
//! ```text
//! cargo build -p demo-server
//! cargo run -p mcp-client --example oauth
//! ```
//!
//! The example starts the demo server with `--oauth`: it serves a small
//! authorization server on the same loopback address and answers `/mcp`
//! with `401` until a valid bearer comes. Its authorization endpoint
//! approves at once, so the [`AuthorizationHandler`] below plays the
//! browser: it opens the authorization URL and hands back the redirect. A
//! real host shows the URL to the user instead and receives the redirect
//! on its loopback listener (or custom scheme).

mod support;

use std::sync::Arc;

use mcp_client::BoxFuture;
use mcp_client::oauth::handler::AuthorizationHandler;
use mcp_client::oauth::http::{HttpClient, HttpRequest};
use mcp_client::oauth::registration::RegistrationConfig;
use mcp_client::oauth::{OAuthConfig, OAuthHttpClient};
use mcp_client::{Client, HttpConfig};
use support::{Failure, HttpDemo, expect};

/// Where the authorization server sends the user back. Nothing needs to
/// listen here: the handler returns the redirect URL instead of loading it.
const REDIRECT_URI: &str = "http://127.0.0.1:8976/callback";

/// Plays the user's browser: loads the authorization URL (which the demo
/// approves at once) and returns where it redirects.
struct Browser {
    http: Arc<dyn HttpClient>,
}

impl AuthorizationHandler for Browser {
    fn authorize<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<String, String>> {
        Box::pin(async move {
            // A real host: print or open `url`, then wait for the redirect.
            let shown = url.split('?').next().unwrap_or(url);
            println!("authorize at {shown}?... (approved by the demo)");
            let response = self
                .http
                .send(HttpRequest::get(url))
                .await
                .map_err(|e| e.to_string())?;
            let location = response
                .header("location")
                .filter(|_| response.status == 302)
                .ok_or_else(|| format!("expected a redirect, got {}", response.status))?;
            if !location.starts_with(REDIRECT_URI) {
                return Err(format!("redirected elsewhere: {location}"));
            }
            Ok(location.to_owned())
        })
    }
}

#[tokio::main]
async fn main() -> Result<(), Failure> {
    let demo = HttpDemo::start_with(&["--oauth"])?;

    // Without credentials the server refuses: no session, no tools.
    let refused = Client::builder()
        .http_config(HttpConfig::new(&demo.url)?)
        .connect()
        .await;
    expect(refused.is_err(), "a client without a token is refused")?;

    // The browser stand-in sends through the same HTTP stack settings.
    let base = HttpConfig::new(&demo.url)?;
    let browser = Browser {
        http: Arc::new(OAuthHttpClient::new(&base)?),
    };
    let registration =
        RegistrationConfig::new(vec![REDIRECT_URI.into()]).with_client_name("mcp-client example");
    let oauth = OAuthConfig::authorization_code(Arc::new(browser), registration);
    let client = Client::builder()
        .http_config(base.with_oauth(oauth)?)
        .connect()
        .await?;
    println!("connected with OAuth, era {:?}", client.era());

    let result = client
        .call_tool("add", serde_json::json!({ "a": 20, "b": 22 }))
        .await?;
    println!("add: {}", result.text());
    expect(
        result.structured_content == Some(serde_json::json!({ "sum": 42.0 })),
        "20 + 22 = 42 through the authorized connection",
    )?;
    client.close().await;
    Ok(())
}
