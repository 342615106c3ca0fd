//! `crash-server`: a minimal 2025-11-25 stdio MCP server that dies on
//! demand, for hosts' reconnect tests.
//!
//! Tools: `echo` (returns `text`) and `crash` (writes `crashing` to stderr,
//! then exits with status 3 without answering). When `CRASH_SERVER_LOG` is
//! set, every `tools/call` appends `<tool>\n` to that file before it runs,
//! so a test can tell a call the server received from one it did not (no
//! replay after a restart). Unknown methods get `-32601`.

use std::io::{BufRead, Write};

use serde_json::{Value, json};

fn tools() -> Value {
    let schema = json!({ "type": "object", "properties": { "text": { "type": "string" } } });
    json!({ "tools": [
        { "name": "echo", "description": "Echoes `text`.", "inputSchema": schema,
          "annotations": { "readOnlyHint": true } },
        { "name": "crash", "description": "Exits with status 3.", "inputSchema": { "type": "object" } }
    ] })
}

fn log_call(tool: &str) {
    if let Some(path) = std::env::var_os("CRASH_SERVER_LOG") {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path);
        if let Ok(mut f) = file {
            let _ = writeln!(f, "{tool}");
        }
    }
}

/// The result for one request, or `None` to send nothing.
fn answer(method: &str, params: &Value) -> Result<Value, (i64, String)> {
    match method {
        "initialize" => Ok(json!({
            "protocolVersion": "2025-11-25",
            "capabilities": { "tools": {} },
            "serverInfo": { "name": "crash-server", "version": "0.1.0" }
        })),
        "ping" => Ok(json!({})),
        "tools/list" => Ok(tools()),
        "tools/call" => {
            let name = params.get("name").and_then(Value::as_str).unwrap_or("");
            log_call(name);
            match name {
                "echo" => {
                    let text = params
                        .pointer("/arguments/text")
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    Ok(json!({ "content": [{ "type": "text", "text": text }] }))
                }
                "crash" => {
                    eprintln!("crashing");
                    std::process::exit(3);
                }
                other => Err((-32602, format!("unknown tool {other:?}"))),
            }
        }
        other => Err((-32601, format!("method not found: {other}"))),
    }
}

fn main() {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { return };
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let (Some(id), Some(method)) = (msg.get("id"), msg.get("method").and_then(Value::as_str))
        else {
            continue; // a notification or a response: nothing to answer
        };
        let params = msg.get("params").cloned().unwrap_or(Value::Null);
        let reply = match answer(method, &params) {
            Ok(result) => json!({ "jsonrpc": "2.0", "id": id, "result": result }),
            Err((code, message)) => json!({
                "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message }
            }),
        };
        if writeln!(out, "{reply}").and_then(|()| out.flush()).is_err() {
            return;
        }
    }
}
