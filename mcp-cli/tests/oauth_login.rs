//! `--oauth` end to end: the real `mcp` binary logs in to a protected MCP
//! server through a real authorization server on loopback, a stand-in
//! browser follows the printed authorization URL to the CLI's loopback
//! redirect, the tokens land in the 0600 store, and a second command
//! reuses them with no login. With `--verbose` the wire is shown and no
//! token is.
//!
//! The world (one loopback port, plain threads): protected resource
//! metadata, authorization server metadata, dynamic registration,
//! `/authorize` (approves at once with a redirect), `/token` (PKCE code),
//! and `/mcp`, which answers 401 without a token it issued and otherwise
//! relays the request to a real `demo-server --http`.

mod common;

use std::io::BufReader;
use std::net::TcpStream;
use std::sync::Mutex;

use common::loopback::{
    Request, World, free_port, json_ok, mcp, pairs, read_request, relay, respond, unauthorized,
};
use common::temp_dir;

/// What the authorization server did.
#[derive(Default)]
struct Seen {
    authorizations: usize,
    token_grants: Vec<String>,
    /// Whether each `/mcp` request carried a token the server issued.
    mcp: Vec<bool>,
    issued: Vec<String>,
}

fn serve(stream: TcpStream, port: u16, upstream: &str, seen: &Mutex<Seen>) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let Some(req) = read_request(&mut reader) else {
        return;
    };
    let mut stream = stream;
    let base = format!("http://127.0.0.1:{port}");
    let (path, query) = req.target.split_once('?').unwrap_or((&req.target, ""));
    match path {
        "/.well-known/oauth-protected-resource/mcp" | "/.well-known/oauth-protected-resource" => {
            let prm = serde_json::json!({
                "resource": format!("{base}/mcp"),
                "authorization_servers": [base],
            });
            json_ok(&mut stream, "200 OK", &prm);
        }
        "/.well-known/oauth-authorization-server" => {
            let meta = serde_json::json!({
                "issuer": base,
                "authorization_endpoint": format!("{base}/authorize"),
                "token_endpoint": format!("{base}/token"),
                "registration_endpoint": format!("{base}/register"),
                "response_types_supported": ["code"],
                "grant_types_supported": ["authorization_code", "refresh_token"],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["none"],
            });
            json_ok(&mut stream, "200 OK", &meta);
        }
        "/register" => {
            let asked: serde_json::Value = serde_json::from_slice(&req.body).unwrap_or_default();
            let info = serde_json::json!({
                "client_id": "cli-client",
                "token_endpoint_auth_method": "none",
                "redirect_uris": asked["redirect_uris"],
            });
            json_ok(&mut stream, "201 Created", &info);
        }
        "/authorize" => {
            let q = pairs(query);
            assert_eq!(
                q.get("code_challenge_method").map(String::as_str),
                Some("S256")
            );
            assert_eq!(q.get("resource"), Some(&format!("{base}/mcp")));
            seen.lock().expect("lock").authorizations += 1;
            let location = format!(
                "{}?code=the-code&state={}",
                q["redirect_uri"],
                q.get("state").cloned().unwrap_or_default()
            );
            respond(&mut stream, "302 Found", &[("location", location)], "");
        }
        "/token" => token(&mut stream, &req, seen),
        "/mcp" => resource(stream, &req, port, upstream, seen),
        _ => respond(&mut stream, "404 Not Found", &[], ""),
    }
}

fn token(stream: &mut TcpStream, req: &Request, seen: &Mutex<Seen>) {
    let form = pairs(&String::from_utf8_lossy(&req.body));
    let grant = form.get("grant_type").cloned().unwrap_or_default();
    let good = match grant.as_str() {
        "authorization_code" => {
            form.get("code").map(String::as_str) == Some("the-code")
                && form.get("code_verifier").is_some_and(|v| v.len() >= 43)
        }
        _ => false,
    };
    if !good {
        let err = serde_json::json!({ "error": "invalid_grant" });
        return json_ok(stream, "400 Bad Request", &err);
    }
    let mut s = seen.lock().expect("lock");
    s.token_grants.push(grant);
    let n = s.token_grants.len();
    let token = format!("SECRET-ACCESS-{n}");
    s.issued.push(token.clone());
    let body = serde_json::json!({
        "access_token": token,
        "token_type": "Bearer",
        "expires_in": 3600,
        "refresh_token": format!("SECRET-REFRESH-{n}"),
    });
    drop(s);
    json_ok(stream, "200 OK", &body);
}

/// `/mcp`: 401 without an issued token, else the request relayed to the
/// demo server (one request per connection).
fn resource(mut stream: TcpStream, req: &Request, port: u16, upstream: &str, seen: &Mutex<Seen>) {
    let token = req
        .headers
        .get("authorization")
        .and_then(|a| a.strip_prefix("Bearer "))
        .map(str::to_owned);
    let ok = {
        let mut s = seen.lock().expect("lock");
        let ok = token.is_some_and(|t| s.issued.contains(&t));
        s.mcp.push(ok);
        ok
    };
    if !ok {
        return unauthorized(&mut stream, port);
    }
    relay(stream, req, upstream);
}

#[test]
fn a_browser_login_stores_tokens_0600_and_the_next_command_reuses_them() {
    use std::os::unix::fs::MetadataExt;
    let world = World::<Seen>::start(serve);
    let config = temp_dir("oauth-login");
    let port = free_port();
    let url = world.url();
    let base = ["--oauth", "--oauth-port", &port, "--url", &url];

    let mut args = base.to_vec();
    args.extend(["tools", "call", "echo", "text=logged in"]);
    let (code, stdout, stderr) = mcp(&config, &args);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stdout, "logged in\n");
    assert!(
        stderr.contains("approve the access in your browser"),
        "{stderr}"
    );
    {
        let s = world.seen.lock().expect("lock");
        assert_eq!(s.authorizations, 1);
        assert_eq!(s.token_grants, ["authorization_code"]);
        assert!(
            s.mcp.first() == Some(&false),
            "the first request had no token"
        );
    }
    let store = config.join("mcp-cli").join("oauth.json");
    let meta = std::fs::metadata(&store).expect("the token store");
    assert_eq!(meta.mode() & 0o777, 0o600);
    let text = std::fs::read_to_string(&store).expect("read the store");
    assert!(text.contains("SECRET-ACCESS-1"), "the token is stored");

    // The second command: the stored token, no login; --verbose shows the
    // wire but never the token.
    let before = world.seen.lock().expect("lock").mcp.len();
    let mut args = base.to_vec();
    args.extend(["--verbose", "tools", "call", "echo", "text=again"]);
    let (code, stdout, stderr) = mcp(&config, &args);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stdout, "again\n");
    assert!(!stderr.contains("approve"), "no second login: {stderr}");
    let s = world.seen.lock().expect("lock");
    assert_eq!(s.authorizations, 1);
    assert_eq!(s.token_grants.len(), 1);
    // The store is keyed by server and issuer, so the first request goes
    // out bare and its 401 leads to discovery, which finds the stored token.
    let second = &s.mcp[before..];
    assert!(
        second.len() > 1 && second[1..].iter().all(|ok| *ok),
        "after discovery every request carried the stored token: {second:?}"
    );
    assert!(
        stderr.contains("authorization: Bearer <redacted>"),
        "{stderr}"
    );
    assert!(stderr.contains("\"tools/call\""), "{stderr}");
    assert!(
        !stderr.contains("SECRET"),
        "a token in the verbose output: {stderr}"
    );
}
