//! `--oauth` wiring and `mcp auth list|clear` over the token file.

mod common;

use std::process::Output;

use common::{HttpServer, demo_exe, mcp_command, temp_dir, wait};
use serde_json::{Value, json};

fn mcp_with_config(config: &std::path::Path, args: &[&str]) -> Output {
    let child = mcp_command(config, args)
        .env("XDG_CONFIG_HOME", config)
        .spawn()
        .expect("start mcp");
    wait(child)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn auth_lists_who_has_tokens_never_the_tokens_and_clears_them() {
    let config = temp_dir("auth");
    let out = mcp_with_config(&config, &["auth", "list"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("(empty)"));

    // A store as mcp-auth's FileStore writes it.
    let file = config.join("mcp-cli").join("oauth.json");
    let store = json!({
        "clients": { "https://as.example": { "client_id": "cid" } },
        "tokens": { "https://mcp.example/mcp https://as.example": { "access_token": "SECRET-AT" } }
    });
    std::fs::write(&file, store.to_string()).expect("write the store");
    let out = mcp_with_config(&config, &["--json", "auth", "list"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        !text(&out.stdout).contains("SECRET"),
        "{}",
        text(&out.stdout)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(doc["clients"][0], "https://as.example");
    assert_eq!(doc["tokens"].as_array().map(Vec::len), Some(1));

    let out = mcp_with_config(&config, &["auth", "clear"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(!file.exists());
}

#[test]
fn oauth_is_idle_against_a_server_that_asks_for_none() {
    let config = temp_dir("oauth-idle");
    let server = HttpServer::start(demo_exe());
    let out = mcp_with_config(
        &config,
        &[
            "--oauth",
            "--url",
            &server.url,
            "tools",
            "call",
            "echo",
            "text=no login",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "no login\n");
    let out = mcp_with_config(
        &config,
        &["--oauth", "--bearer", "x", "--url", &server.url, "ping"],
    );
    assert_eq!(out.status.code(), Some(2));
}
