//! `--verbose` shows the wire on stderr with secrets redacted: over
//! Streamable HTTP (through the CLI's loopback tap) a bearer token and a
//! key in the URL's query never appear, while requests, responses and the
//! headers that matter do.

mod common;

use common::{HttpServer, demo_exe, mcp};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn verbose_over_http_shows_the_wire_and_never_the_bearer_token() {
    let server = HttpServer::start(demo_exe());
    let url = format!("{}?api_key=SECRET-QUERY-KEY", server.url);
    for era in ["legacy", "modern"] {
        let out = mcp(&[
            "--verbose",
            "--era",
            era,
            "--bearer",
            "SECRET-BEARER-TOKEN",
            "--url",
            &url,
            "tools",
            "call",
            "echo",
            "text=over the tap",
        ]);
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert_eq!(out.status.code(), Some(0), "{era}: {stderr}");
        assert_eq!(stdout, "over the tap\n", "the result is unchanged");
        assert!(
            !stderr.contains("SECRET"),
            "{era}: a secret in the verbose output:\n{stderr}"
        );
        for shown in [
            "POST /mcp?api_key=<redacted> HTTP/1.1",
            "authorization: Bearer <redacted>",
            "mcp-protocol-version:",
            "HTTP/1.1 200 OK",
            "\"method\":\"tools/call\"",
            "over the tap",
        ] {
            assert!(stderr.contains(shown), "{era}: no {shown:?} in:\n{stderr}");
        }
        if era == "legacy" {
            assert!(stderr.contains("mcp-session-id:"), "{stderr}");
        }
    }
}
