//! `--server NAME` from an `mcpServers` config file, and `mcp servers`.

mod common;

use common::{HttpServer, demo_exe, mcp, temp_dir};
use serde_json::{Value, json};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn servers_are_reached_by_their_config_name() {
    let http = HttpServer::start(demo_exe());
    let dir = temp_dir("config");
    let file = dir.join("mcp.json");
    let config = json!({
        "mcpServers": {
            "demo": { "command": demo_exe(), "args": ["--era", "legacy"] },
            "web": { "type": "http", "url": http.url, "headers": { "X-Demo": "1" } },
            "off": { "command": "nothing", "disabled": true }
        }
    });
    std::fs::write(&file, config.to_string()).expect("write the config");
    let cfg = file.to_str().expect("utf-8 path");

    let out = mcp(&["--json", "--config", cfg, "--server", "demo", "info"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(
        doc["era"], "legacy",
        "the stdio entry's args reach the server"
    );

    let out = mcp(&[
        "--config",
        cfg,
        "-s",
        "web",
        "tools",
        "call",
        "echo",
        "text=from config",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "from config\n");

    let out = mcp(&["--config", cfg, "-s", "nope", "ping"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("no server \"nope\"") && err.contains("demo, web, off"),
        "{err}"
    );

    let out = mcp(&["--config", cfg, "-s", "off", "ping"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("disabled"));

    let out = mcp(&["--json", "--config", cfg, "servers"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    let names: Vec<&str> = doc["servers"]
        .as_array()
        .expect("servers")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(names, ["demo", "web", "off"]);
    assert_eq!(doc["servers"][1]["transport"], "http");
}
