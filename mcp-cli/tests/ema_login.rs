//! Enterprise-managed authorization end to end: the real `mcp` binary signs
//! in at a loopback OpenID Connect provider (`auth ema-login`; a stand-in
//! browser follows the printed URL to the CLI's loopback redirect), keeps
//! the ID token in the 0600 store, then with `--ema` exchanges it at the
//! provider for an ID-JAG and redeems that at the MCP authorization server
//! (JWT bearer grant) in front of a real `demo-server --http`. `--verbose`
//! never shows a token; `auth ema-status` and `ema-logout` never print one.
//!
//! The world (one loopback port, plain threads): the provider under `/idp`
//! (discovery, `/authorize`, `/token` for the code and the token exchange,
//! `/logout`), the MCP authorization server at the root (metadata, `/token`
//! accepting only the ID-JAG it expects) and `/mcp`, which answers 401
//! without a token the authorization server issued and otherwise relays
//! to the demo server.

mod common;

use std::io::BufReader;
use std::net::TcpStream;
use std::sync::Mutex;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use common::loopback::{
    Request, World, free_port, json_ok, mcp, pairs, read_request, relay, respond, unauthorized,
};
use common::temp_dir;
use serde_json::json;

const IDP_CLIENT: &str = "idp-cli";
const IDP_SECRET: &str = "SECRET-IDP-CLIENT";
const AS_SECRET: &str = "SECRET-AS-CLIENT";
const JAG: &str = "SECRET-ID-JAG";

/// What the servers did.
#[derive(Default)]
struct Seen {
    /// `grant_type` of every token request, at either server.
    grants: Vec<String>,
    /// The nonce of the authorization request.
    nonce: String,
    /// The ID token the provider issued.
    id_token: String,
    /// Access tokens the MCP authorization server issued.
    issued: Vec<String>,
}

fn serve(stream: TcpStream, port: u16, upstream: &str, seen: &Mutex<Seen>) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let Some(req) = read_request(&mut reader) else {
        return;
    };
    let mut stream = stream;
    let base = format!("http://127.0.0.1:{port}");
    let idp = format!("{base}/idp");
    let (path, query) = req.target.split_once('?').unwrap_or((&req.target, ""));
    match path {
        "/idp/.well-known/openid-configuration" => json_ok(
            &mut stream,
            "200 OK",
            &json!({
                "issuer": idp,
                "authorization_endpoint": format!("{idp}/authorize"),
                "token_endpoint": format!("{idp}/token"),
                "end_session_endpoint": format!("{idp}/logout"),
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["client_secret_post"],
            }),
        ),
        "/idp/authorize" => {
            let q = pairs(query);
            assert_eq!(q["scope"], "openid offline_access");
            assert_eq!(q["client_id"], IDP_CLIENT);
            seen.lock().expect("lock").nonce = q["nonce"].clone();
            let location = format!("{}?code=idp-code&state={}", q["redirect_uri"], q["state"]);
            respond(&mut stream, "302 Found", &[("location", location)], "");
        }
        "/idp/token" => idp_token(&mut stream, &req, &idp, &base, seen),
        "/.well-known/oauth-protected-resource/mcp" | "/.well-known/oauth-protected-resource" => {
            let prm = json!({"resource": format!("{base}/mcp"), "authorization_servers": [base]});
            json_ok(&mut stream, "200 OK", &prm);
        }
        "/.well-known/oauth-authorization-server" => json_ok(
            &mut stream,
            "200 OK",
            &json!({
                "issuer": base,
                "token_endpoint": format!("{base}/token"),
                "grant_types_supported": ["urn:ietf:params:oauth:grant-type:jwt-bearer"],
                "code_challenge_methods_supported": ["S256"],
            }),
        ),
        "/token" => as_token(&mut stream, &req, seen),
        "/mcp" => resource(stream, &req, port, upstream, seen),
        _ => respond(&mut stream, "404 Not Found", &[], ""),
    }
}

fn id_token(issuer: &str, nonce: &str) -> String {
    #[allow(clippy::disallowed_methods)] // the stand-in provider's own clock
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_secs();
    let claims = json!({"iss": issuer, "aud": IDP_CLIENT, "sub": "alice",
                        "email": "alice@example.com", "exp": now + 600, "nonce": nonce});
    let enc = |v: serde_json::Value| URL_SAFE_NO_PAD.encode(v.to_string());
    format!(
        "{}.{}.SECRET-SIG",
        enc(json!({"alg": "RS256"})),
        enc(claims)
    )
}

/// The provider's token endpoint: the code (confidential client, PKCE),
/// then the exchange of the ID token it issued for an ID-JAG.
fn idp_token(stream: &mut TcpStream, req: &Request, idp: &str, base: &str, seen: &Mutex<Seen>) {
    let f = pairs(&String::from_utf8_lossy(&req.body));
    let mut s = seen.lock().expect("lock");
    let grant = f.get("grant_type").cloned().unwrap_or_default();
    s.grants.push(grant.clone());
    let client_ok = f.get("client_secret").map(String::as_str) == Some(IDP_SECRET);
    let body = match grant.as_str() {
        "authorization_code"
            if client_ok
                && f.get("code").map(String::as_str) == Some("idp-code")
                && f.get("code_verifier").is_some_and(|v| v.len() >= 43) =>
        {
            s.id_token = id_token(idp, &s.nonce.clone());
            json!({"access_token": "SECRET-IDP-ACCESS", "token_type": "Bearer",
                   "id_token": s.id_token, "refresh_token": "SECRET-IDP-REFRESH"})
        }
        "urn:ietf:params:oauth:grant-type:token-exchange"
            if client_ok
                && f.get("subject_token") == Some(&s.id_token)
                && f.get("audience").map(String::as_str) == Some(base)
                && f.get("requested_token_type").map(String::as_str)
                    == Some("urn:ietf:params:oauth:token-type:id-jag") =>
        {
            json!({"issued_token_type": "urn:ietf:params:oauth:token-type:id-jag",
                   "access_token": JAG, "token_type": "N_A", "expires_in": 300})
        }
        _ => {
            return json_ok(
                stream,
                "400 Bad Request",
                &json!({"error": "invalid_grant"}),
            );
        }
    };
    drop(s);
    json_ok(stream, "200 OK", &body);
}

/// The MCP authorization server's token endpoint: only the JWT bearer grant
/// with the ID-JAG, from the client with its secret (HTTP Basic).
fn as_token(stream: &mut TcpStream, req: &Request, seen: &Mutex<Seen>) {
    let f = pairs(&String::from_utf8_lossy(&req.body));
    let grant = f.get("grant_type").cloned().unwrap_or_default();
    let basic = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("mcp-cli:{AS_SECRET}"))
    );
    let mut s = seen.lock().expect("lock");
    s.grants.push(grant.clone());
    if grant != "urn:ietf:params:oauth:grant-type:jwt-bearer"
        || f.get("assertion").map(String::as_str) != Some(JAG)
        || req.headers.get("authorization") != Some(&basic)
    {
        drop(s);
        return json_ok(
            stream,
            "400 Bad Request",
            &json!({"error": "invalid_grant"}),
        );
    }
    let token = format!("SECRET-ACCESS-{}", s.issued.len() + 1);
    s.issued.push(token.clone());
    drop(s);
    let body = json!({"access_token": token, "token_type": "Bearer", "expires_in": 3600});
    json_ok(stream, "200 OK", &body);
}

fn resource(mut stream: TcpStream, req: &Request, port: u16, upstream: &str, seen: &Mutex<Seen>) {
    let token = req
        .headers
        .get("authorization")
        .and_then(|a| a.strip_prefix("Bearer "));
    if !token.is_some_and(|t| seen.lock().expect("lock").issued.iter().any(|i| i == t)) {
        return unauthorized(&mut stream, port);
    }
    relay(stream, req, upstream);
}

#[test]
fn ema_login_then_tools_list_with_ema_then_logout() {
    use std::os::unix::fs::MetadataExt;
    let world = World::<Seen>::start(serve);
    let config = temp_dir("ema-login");
    let port = free_port();
    let idp = format!("http://127.0.0.1:{}/idp", world.port);

    let login = [
        "auth",
        "ema-login",
        "--idp",
        &idp,
        "--client-id",
        IDP_CLIENT,
        "--client-secret",
        IDP_SECRET,
        "--oauth-port",
        &port,
    ];
    let (code, stdout, stderr) = mcp(&config, &login);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stdout, format!("signed in at {idp} as alice@example.com\n"));
    let store = config.join("mcp-cli").join("oauth.json");
    assert_eq!(
        std::fs::metadata(&store).expect("store").mode() & 0o777,
        0o600
    );
    let text = std::fs::read_to_string(&store).expect("read the store");
    assert!(text.contains("SECRET-IDP-REFRESH"), "the session is stored");

    let (code, stdout, stderr) = mcp(&config, &["--json", "auth", "ema-status"]);
    assert_eq!(code, Some(0), "{stderr}");
    let status: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(status["sessions"][0]["issuer"], idp.as_str());
    assert_eq!(status["sessions"][0]["user"], "alice@example.com");
    assert!(!stdout.contains("SECRET"), "{stdout}");

    let url = world.url();
    let list = [
        "--verbose",
        "--ema",
        "--ema-client-id",
        "mcp-cli",
        "--ema-client-secret",
        AS_SECRET,
        "--url",
        &url,
        "tools",
        "list",
    ];
    let (code, stdout, stderr) = mcp(&config, &list);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("echo"), "{stdout}");
    assert!(
        !stderr.contains("approve"),
        "no browser for --ema: {stderr}"
    );
    assert!(
        !stderr.contains("SECRET"),
        "a secret in the verbose output: {stderr}"
    );
    assert_eq!(
        world.seen.lock().expect("lock").grants,
        [
            "authorization_code",
            "urn:ietf:params:oauth:grant-type:token-exchange",
            "urn:ietf:params:oauth:grant-type:jwt-bearer",
        ]
    );

    let (code, stdout, stderr) = mcp(&config, &["auth", "ema-logout"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains(&format!("signed out of {idp}")), "{stdout}");
    assert!(
        stdout.contains(&format!("{idp}/logout?client_id={IDP_CLIENT}")),
        "{stdout}"
    );
    assert!(
        !std::fs::read_to_string(&store)
            .expect("store")
            .contains("SECRET-IDP-REFRESH")
    );
    let (code, _, _) = mcp(&config, &list[1..]);
    assert_eq!(code, Some(2), "--ema without a sign-in is a usage error");
}
