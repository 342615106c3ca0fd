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

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use common::{HttpServer, demo_exe, mcp_command, temp_dir, wait};

/// What the authorization server did.
#[derive(Default)]
struct Seen {
    authorizations: usize,
    token_grants: Vec<String>,
    /// Whether each `/mcp` request carried a token the server issued.
    mcp: Vec<bool>,
    issued: Vec<String>,
}

/// The world: its port, the demo server behind it, what it saw.
struct World {
    port: u16,
    _demo: HttpServer,
    seen: Arc<Mutex<Seen>>,
}

impl World {
    fn start() -> World {
        let demo = HttpServer::start(demo_exe());
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let seen = Arc::new(Mutex::new(Seen::default()));
        let (s, upstream) = (seen.clone(), demo.url.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (s, upstream) = (s.clone(), upstream.clone());
                std::thread::spawn(move || serve(stream, port, &upstream, &s));
            }
        });
        World {
            port,
            _demo: demo,
            seen,
        }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }
}

/// One request read off a connection.
struct Request {
    method: String,
    target: String,
    headers: HashMap<String, String>,
    /// The header lines as sent.
    raw_headers: Vec<String>,
    body: Vec<u8>,
}

fn read_request(stream: &mut BufReader<TcpStream>) -> Option<Request> {
    let mut line = String::new();
    stream.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next()?.to_owned(), parts.next()?.to_owned());
    let (mut headers, mut raw_headers) = (HashMap::new(), Vec::new());
    loop {
        let mut h = String::new();
        stream.read_line(&mut h).ok()?;
        let h = h.trim_end().to_owned();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
        }
        raw_headers.push(h);
    }
    let len = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    stream.read_exact(&mut body).ok()?;
    Some(Request {
        method,
        target,
        headers,
        raw_headers,
        body,
    })
}

fn respond(stream: &mut TcpStream, status: &str, headers: &[(&str, String)], body: &str) {
    let mut head = format!(
        "HTTP/1.1 {status}\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body.as_bytes());
}

fn json_ok(stream: &mut TcpStream, status: &str, v: &serde_json::Value) {
    let ct = ("content-type", "application/json".to_owned());
    respond(stream, status, &[ct], &v.to_string());
}

/// The `key=value` pairs of a query or form.
fn pairs(s: &str) -> HashMap<String, String> {
    s.split('&')
        .filter_map(|p| p.split_once('='))
        .map(|(k, v)| (k.to_owned(), decode(v)))
        .collect()
}

fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("00");
                out.push(u8::from_str_radix(hex, 16).unwrap_or(b'?'));
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
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
        let challenge = format!(
            "Bearer resource_metadata=\"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp\""
        );
        return respond(
            &mut stream,
            "401 Unauthorized",
            &[("www-authenticate", challenge)],
            "",
        );
    }
    let addr = upstream
        .strip_prefix("http://")
        .and_then(|r| r.split('/').next())
        .expect("the demo server's address");
    let mut up = TcpStream::connect(addr).expect("reach the demo server");
    let mut head = format!(
        "{} /mcp HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\n",
        req.method
    );
    for h in &req.raw_headers {
        let name = h.split(':').next().unwrap_or_default().to_ascii_lowercase();
        if name != "host" && name != "connection" {
            head.push_str(h);
            head.push_str("\r\n");
        }
    }
    head.push_str("\r\n");
    let _ = up.write_all(head.as_bytes());
    let _ = up.write_all(&req.body);
    let _ = std::io::copy(&mut up, &mut stream);
}

/// Runs `mcp ARGS` with the config dir `config`; returns exit code, stdout,
/// stderr. When the CLI prints an authorization URL, the stand-in browser
/// follows it: GETs it, then GETs the redirect it is sent to.
fn mcp(config: &std::path::Path, args: &[&str]) -> (Option<i32>, String, String) {
    let mut child = mcp_command(config, args)
        .env("XDG_CONFIG_HOME", config)
        .env("BROWSER", "true")
        .spawn()
        .expect("start mcp");
    let stderr = child.stderr.take().expect("stderr");
    let browser = std::thread::spawn(move || {
        let mut all = String::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            all.push_str(&line);
            all.push('\n');
            let url = line.trim();
            if url.starts_with("http://") && url.contains("/authorize?") {
                let redirect = get(url).expect("the authorization server redirects");
                assert!(get(&redirect).is_none(), "the CLI answers its redirect");
            }
        }
        all
    });
    let out = wait(child);
    let stderr = browser.join().expect("the browser thread");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr,
    )
}

/// A GET as a browser does it; returns the `Location` of a redirect.
fn get(url: &str) -> Option<String> {
    let rest = url.strip_prefix("http://").expect("an http URL");
    let (addr, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut s = TcpStream::connect(addr).expect("connect");
    let req = format!("GET {path} HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).expect("send");
    let mut reply = String::new();
    let _ = s.read_to_string(&mut reply);
    assert!(
        reply.starts_with("HTTP/1.1 2") || reply.starts_with("HTTP/1.1 3"),
        "{reply}"
    );
    reply
        .lines()
        .find_map(|l| l.strip_prefix("location: ").map(str::to_owned))
}

fn free_port() -> String {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").port().to_string()
}

#[test]
fn a_browser_login_stores_tokens_0600_and_the_next_command_reuses_them() {
    use std::os::unix::fs::MetadataExt;
    let world = World::start();
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
