//! OAuth for HTTP servers (`--oauth`): the authorization code flow with
//! PKCE (run by `mcp-auth` inside the HTTP transport), the user approving
//! in the system browser, the redirect caught on a loopback port, and
//! tokens kept per server in a `0600` file (`mcp-auth`'s `FileStore`) under
//! the user's config dir; `mcp auth list|clear` show and forget them.
//!
//! The redirect URI is `http://127.0.0.1:PORT/callback` with a fixed
//! `--oauth-port` (default 33418), so a client registered once keeps
//! working. The URL to approve is always printed; a browser is opened with
//! the program `$BROWSER` names when it is set (as many tools do; `true`
//! opens none), else `xdg-open` (`open` on macOS) when one is there. The listener only binds
//! while a login waits, answers one `/callback` request and gives up after
//! five minutes.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use mcp_client::BoxFuture;
use mcp_client::HttpConfig;
use mcp_client::oauth::OAuthConfig;
use mcp_client::oauth::handler::AuthorizationHandler;
use mcp_client::oauth::registration::RegistrationConfig;
use mcp_client::oauth::store::FileStore;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::exit::{CliError, Exit};
use crate::render::Out;
use crate::ui::Ui;

/// The default loopback port of the redirect.
pub(crate) const DEFAULT_PORT: u16 = 33418;
/// How long a login may wait for the browser.
const LOGIN_WAIT: Duration = Duration::from_secs(300);
/// The largest redirect request read.
const MAX_REQUEST: usize = 16 * 1024;

/// The token file: `$XDG_CONFIG_HOME/mcp-cli/oauth.json`, else
/// `~/.config/mcp-cli/oauth.json` (its directory created 0700).
pub(crate) fn token_file() -> Result<PathBuf, CliError> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let base = var("XDG_CONFIG_HOME")
        .or_else(|| var("HOME").map(|h| h.join(".config")))
        .ok_or_else(|| CliError::usage("no XDG_CONFIG_HOME or HOME for the token store"))?;
    let dir = base.join("mcp-cli");
    {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)
            .map_err(|e| CliError::usage(format!("cannot create {}: {e}", dir.display())))?;
    }
    Ok(dir.join("oauth.json"))
}

/// Adds the authorization code flow to an HTTP config.
pub(crate) fn configure(config: HttpConfig, port: u16, ui: &Ui) -> Result<HttpConfig, CliError> {
    let redirect = format!("http://127.0.0.1:{port}/callback");
    let registration = RegistrationConfig::new(vec![redirect]).with_client_name("mcp-cli");
    let handler = Arc::new(LoopbackBrowser::new(port, ui));
    let oauth = OAuthConfig::authorization_code(handler, registration)
        .with_store(Arc::new(FileStore::new(token_file()?)));
    config
        .with_oauth(oauth)
        .map_err(|e| CliError::usage(format!("--oauth: {e}")))
}

/// Shows the authorization URL and catches the redirect on loopback.
pub(crate) struct LoopbackBrowser {
    port: u16,
    ui: Ui,
    /// Try to open a browser (off in tests).
    open: bool,
}

impl LoopbackBrowser {
    /// A handler waiting on `127.0.0.1:port` that opens the system browser.
    pub(crate) fn new(port: u16, ui: &Ui) -> Self {
        Self {
            port,
            ui: ui.clone(),
            open: true,
        }
    }
}

impl AuthorizationHandler for LoopbackBrowser {
    fn authorize<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<String, String>> {
        Box::pin(async move {
            let listener = tokio::net::TcpListener::bind(("127.0.0.1", self.port))
                .await
                .map_err(|e| format!("cannot listen on 127.0.0.1:{}: {e}", self.port))?;
            self.ui.note(&format!(
                "mcp: approve the access in your browser:\n  {url}"
            ));
            if self.open {
                open_browser(url);
            }
            tokio::time::timeout(LOGIN_WAIT, catch_redirect(&listener, self.port))
                .await
                .map_err(|_| "no redirect came back within 5 minutes".to_owned())?
        })
    }
}

/// Accepts until a `GET /callback?...` arrives; answers it and returns the
/// full redirect URL.
async fn catch_redirect(listener: &tokio::net::TcpListener, port: u16) -> Result<String, String> {
    loop {
        let (mut stream, _) = listener.accept().await.map_err(|e| e.to_string())?;
        let mut head = Vec::new();
        let mut buf = [0u8; 1024];
        while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < MAX_REQUEST {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => head.extend_from_slice(&buf[..n]),
            }
        }
        let text = String::from_utf8_lossy(&head);
        let target = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("GET "))
            .and_then(|l| l.split(' ').next())
            .filter(|t| t.starts_with("/callback?"))
            .map(str::to_owned);
        let (status, body) = match &target {
            Some(_) => ("200 OK", "mcp: authorized. You can close this window."),
            None => ("404 Not Found", "not the callback"),
        };
        let reply = format!(
            "HTTP/1.1 {status}\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        let _ = stream.write_all(reply.as_bytes()).await;
        let _ = stream.shutdown().await;
        if let Some(t) = target {
            return Ok(format!("http://127.0.0.1:{port}{t}"));
        }
    }
}

fn open_browser(url: &str) {
    let chosen = std::env::var("BROWSER")
        .ok()
        .filter(|b| !b.trim().is_empty());
    let opener = chosen.as_deref().map_or(
        if cfg!(target_os = "macos") {
            "open"
        } else {
            "xdg-open"
        },
        str::trim,
    );
    let _ = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
}

/// `auth list`: who has stored credentials (never the secrets).
pub(crate) fn list(out: &Out) -> Result<Exit, CliError> {
    let path = token_file()?;
    let doc: Value = match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
            CliError::usage(format!("{} is not a token store: {e}", path.display()))
        })?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => json!({}),
        Err(e) => {
            return Err(CliError::usage(format!(
                "cannot read {}: {e}",
                path.display()
            )));
        }
    };
    let keys = |k: &str| -> Vec<String> {
        doc.get(k)
            .and_then(Value::as_object)
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    };
    let (clients, tokens) = (keys("clients"), keys("tokens"));
    if out.json {
        out.json_doc(&json!({ "file": path, "clients": clients, "tokens": tokens }));
        return Ok(Exit::Ok);
    }
    out.line(&format!("token store {}", path.display()));
    for c in &clients {
        out.line(&format!("  registered with {c}"));
    }
    for t in &tokens {
        out.line(&format!("  tokens for {t}"));
    }
    if clients.is_empty() && tokens.is_empty() {
        out.line("  (empty)");
    }
    Ok(Exit::Ok)
}

/// `auth clear`: forgets every stored registration and token.
pub(crate) fn clear(out: &Out) -> Result<Exit, CliError> {
    let path = token_file()?;
    match std::fs::remove_file(&path) {
        Ok(()) => out.line(&format!("removed {}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => out.line("no stored tokens"),
        Err(e) => {
            return Err(CliError::usage(format!(
                "cannot remove {}: {e}",
                path.display()
            )));
        }
    }
    Ok(Exit::Ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_redirect_is_caught_on_loopback_and_answered() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free port");
        let handler = LoopbackBrowser {
            port,
            ui: Ui::detect(),
            open: false,
        };
        let browser = async {
            // The listener binds inside `authorize`: retry until it is up.
            let mut stream = loop {
                if let Ok(s) = tokio::net::TcpStream::connect(("127.0.0.1", port)).await {
                    break s;
                }
                tokio::task::yield_now().await;
            };
            stream
                .write_all(b"GET /callback?code=abc&state=xyz HTTP/1.1\r\nhost: x\r\n\r\n")
                .await
                .expect("send the redirect");
            let mut reply = String::new();
            let _ = stream.read_to_string(&mut reply).await;
            reply
        };
        let (redirect, reply) =
            tokio::join!(handler.authorize("https://as.example/authorize"), browser);
        assert_eq!(
            redirect.as_deref(),
            Ok(format!("http://127.0.0.1:{port}/callback?code=abc&state=xyz").as_str())
        );
        assert!(reply.starts_with("HTTP/1.1 200 OK"), "{reply}");
    }
}
