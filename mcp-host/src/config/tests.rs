//! The config formats, expansion and error reporting, entry by entry.

use super::*;

fn vars() -> Vars {
    Vars::from_map([("TOKEN", "s3cret"), ("HOME", "/home/me")])
}

fn parse(text: &str) -> Config {
    Config::parse_with(text, &vars()).unwrap()
}

#[test]
fn claude_desktop_format_stdio_and_http() {
    let c = parse(
        r#"{"mcpServers": {
            "fs": {"command": "npx", "args": ["-y", "fs", "${HOME}"], "env": {"K": "${TOKEN}"}, "cwd": "/tmp"},
            "web": {"url": "https://x.test/mcp", "headers": {"Authorization": "Bearer ${env:TOKEN}"}},
            "off": {"command": "x", "disabled": true}
        }}"#,
    );
    assert!(c.errors.is_empty(), "{:?}", c.errors);
    let TransportConfig::Stdio(fs) = &c.get("fs").unwrap().transport else {
        panic!("fs is stdio")
    };
    assert_eq!(fs.args, ["-y", "fs", "/home/me"]);
    assert_eq!(fs.env["K"], "s3cret");
    assert_eq!(fs.cwd.as_deref(), Some(Path::new("/tmp")));
    let TransportConfig::Http(web) = &c.get("web").unwrap().transport else {
        panic!("web is http")
    };
    assert_eq!(web.headers["Authorization"], "Bearer s3cret");
    assert!(c.get("off").unwrap().disabled);
    assert_eq!(c.enabled().count(), 2);
}

#[test]
fn vscode_formats_with_type_and_settings_nesting() {
    let c = parse(
        r#"{"mcp": {"servers": {"a": {"type": "streamable-http", "url": "http://127.0.0.1:1/mcp"}}},
            "servers": {"b": {"type": "stdio", "command": "b"}}}"#,
    );
    assert_eq!(c.servers.len(), 2, "{:?}", c.errors);
    assert!(matches!(
        c.get("a").unwrap().transport,
        TransportConfig::Http(_)
    ));
}

#[test]
fn one_bad_entry_keeps_the_others_and_names_server_and_path() {
    let c = parse(
        r#"{"mcpServers": {
            "good": {"command": "ok"},
            "badarg": {"command": "x", "args": ["a", 3]},
            "noenv": {"command": "x", "env": {"A": "${MISSING_ONE}"}},
            "both": {"command": "x", "url": "https://y"},
            "none": {"args": []},
            "sse": {"type": "sse", "url": "https://y"},
            "notobj": 7,
            "host": {"command": "x", "mcpHost": {"tools": {"alow": []}}}
        }}"#,
    );
    assert_eq!(c.servers.len(), 1);
    let by = |label: &str| {
        c.errors
            .iter()
            .find(|e| e.server.as_deref() == Some(label))
            .unwrap_or_else(|| panic!("no error for {label}"))
    };
    assert_eq!(by("badarg").path, "/mcpServers/badarg/args/1");
    assert_eq!(
        by("noenv").kind,
        ConfigErrorKind::MissingVariable {
            name: "MISSING_ONE".into()
        }
    );
    assert_eq!(by("noenv").path, "/mcpServers/noenv/env/A");
    assert_eq!(by("both").kind, ConfigErrorKind::AmbiguousTransport);
    assert_eq!(by("none").kind, ConfigErrorKind::NoTransport);
    assert_eq!(by("sse").path, "/mcpServers/sse/type");
    assert_eq!(by("notobj").path, "/mcpServers/notobj");
    assert_eq!(by("host").path, "/mcpServers/host/mcpHost/tools/alow");
    let text = by("host").to_string();
    assert!(text.starts_with("server `host` at /mcpServers/host/mcpHost/tools/alow: unknown key"));
}

#[test]
fn our_keys_are_read() {
    let c = parse(
        r#"{"mcpServers": {"s": {"command": "x", "mcpHost": {
            "era": "modern", "connectTimeoutMs": 1500, "requestTimeoutMs": 9000,
            "tools": {"allow": ["get_*"], "deny": ["get_secret"], "readOnly": true},
            "reconnect": {"initialMs": 100, "maxMs": 1000, "factor": 3, "jitterPercent": 0, "maxAttempts": 4},
            "oauth": {"clientId": "cid", "scopes": ["a", "b"]}
        }}}}"#,
    );
    let s = &c.get("s").unwrap().settings;
    assert_eq!(s.era, EraChoice::Modern);
    assert_eq!(
        s.connect_timeout,
        Some(std::time::Duration::from_millis(1500))
    );
    assert_eq!(s.tools.allow, ["get_*"]);
    assert!(s.tools.read_only);
    let r = s.reconnect.unwrap();
    assert_eq!((r.factor, r.jitter_percent, r.max_attempts), (3, 0, 4));
    assert_eq!(s.oauth.as_ref().unwrap().scopes, ["a", "b"]);
}

#[test]
fn bad_own_values_are_named() {
    let c = parse(
        r#"{"mcpServers": {
            "e": {"command": "x", "mcpHost": {"era": "future"}},
            "j": {"command": "x", "mcpHost": {"reconnect": {"jitterPercent": 101}}},
            "m": {"command": "x", "mcpHost": {"reconnect": {"initialMs": 5, "maxMs": 1}}},
            "t": {"command": "x", "mcpHost": {"requestTimeoutMs": -1}}
        }}"#,
    );
    assert!(c.servers.is_empty());
    let paths: Vec<&str> = c.errors.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "/mcpServers/e/mcpHost/era",
            "/mcpServers/j/mcpHost/reconnect/jitterPercent",
            "/mcpServers/m/mcpHost/reconnect/initialMs",
            "/mcpServers/t/mcpHost/requestTimeoutMs",
        ]
    );
}

#[test]
fn whole_document_errors() {
    let e = Config::parse_with("{\n  \"mcpServers\": {\"a\" 1}\n}", &vars()).unwrap_err();
    assert!(
        matches!(e.kind, ConfigErrorKind::Json { line: 2, .. }),
        "{e}"
    );
    let e = Config::parse_with(r#"{"other": {}}"#, &vars()).unwrap_err();
    assert_eq!(e.kind, ConfigErrorKind::NoServers);
    let c = parse(r#"{"mcpServers": []}"#);
    assert_eq!(c.errors[0].path, "/mcpServers");
}

#[test]
fn duplicate_labels_across_objects_are_reported() {
    let c = parse(r#"{"mcpServers": {"a": {"command": "x"}}, "servers": {"a": {"command": "y"}}}"#);
    assert_eq!(c.servers.len(), 1);
    assert_eq!(
        c.errors[0].kind,
        ConfigErrorKind::DuplicateLabel {
            first: "/mcpServers/a".into()
        }
    );
}

#[test]
fn labels_with_slashes_are_escaped_in_paths() {
    let c = parse(r#"{"mcpServers": {"a/b~c": {"command": 1}}}"#);
    assert_eq!(c.errors[0].path, "/mcpServers/a~1b~0c/command");
}

#[test]
fn secrets_stay_out_of_debug() {
    let c = parse(
        r#"{"mcpServers": {
            "a": {"command": "x", "env": {"K": "${TOKEN}"}},
            "b": {"url": "https://h/mcp?key=${TOKEN}", "headers": {"X": "${TOKEN}"}}
        }}"#,
    );
    let text = format!("{c:?}");
    assert!(!text.contains("s3cret"), "{text}");
}

#[test]
fn load_reads_files_and_names_unreadable_ones() {
    let dir = std::env::temp_dir().join(format!("mcp-host-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("mcp.json");
    std::fs::write(&file, r#"{"servers": {"x": {"command": "y"}}}"#).unwrap();
    assert_eq!(Config::load_with(&file, &vars()).unwrap().servers.len(), 1);
    let missing = dir.join("absent.json");
    let e = Config::load_with(&missing, &vars()).unwrap_err();
    assert!(matches!(e.kind, ConfigErrorKind::Io { .. }));
    assert!(e.to_string().contains("absent.json"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn locations_per_platform() {
    let home = Path::new("/h");
    let project = Path::new("/p");
    let linux = locations_for("linux", Some(home), None, None, Some(project));
    assert_eq!(linux[0].path, Path::new("/p/.mcp.json"));
    assert_eq!(linux[0].scope, Scope::Project);
    assert!(
        linux
            .iter()
            .any(|l| l.path == Path::new("/h/.config/Claude/claude_desktop_config.json"))
    );
    let windows = locations_for(
        "windows",
        Some(home),
        Some(Path::new("C:/AppData")),
        None,
        None,
    );
    assert!(
        windows
            .iter()
            .any(|l| l.app == HostApp::VsCode
                && l.path == Path::new("C:/AppData/Code/User/mcp.json"))
    );
    assert!(locations_for("linux", None, None, None, None).is_empty());
}
