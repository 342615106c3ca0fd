//! The second half of `cargo xtask doccheck`: compile and run `mcp-client`'s
//! doc examples as a user's crate sees them. Rustdoc tests a crate's doc
//! examples with every dependency of the package in scope; here the code
//! blocks are copied into one Markdown file and `rustdoc --test` runs it
//! with only `mcp_client` and what a user adds next to it (`serde`,
//! `serde_json`, `tokio`, `futures`) as extern crates.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use crate::util;

/// The crates a user's crate has besides `mcp_client`.
const USER_CRATES: [&str; 5] = ["mcp_client", "serde", "serde_json", "tokio", "futures"];

/// Extracts the doc code of `files` and runs it as a user crate would.
pub(crate) fn run(files: &[(String, String, bool)]) -> Result<(), String> {
    let markdown = extract(files);
    let out_dir = crate::examples::target_dir().join("doccheck");
    std::fs::create_dir_all(&out_dir).map_err(|e| format!("{}: {e}", out_dir.display()))?;
    let md = out_dir.join("mcp-client-doc-examples.md");
    std::fs::write(&md, markdown).map_err(|e| format!("{}: {e}", md.display()))?;
    let args = rustdoc_args()?;
    let mut cmd = Command::new(&args[0]);
    cmd.args(["--test", "--edition=2024"])
        .arg(&md)
        .args(&args[1..])
        .current_dir(util::root().join("mcp-client"));
    util::run("doc examples as a user crate", &mut cmd)
}

/// One Markdown document holding every code block of the files, each under
/// a heading naming its source line (rustdoc names the tests after it).
/// `files` are `(shown path, text, is Markdown)`.
fn extract(files: &[(String, String, bool)]) -> String {
    let mut md = String::from("# mcp-client doc examples\n\n");
    for (shown, text, markdown) in files {
        let mut indent: Option<usize> = None;
        for (n, line) in text.lines().enumerate() {
            let Some(doc) = crate::doccheck::doc_text(line, *markdown) else {
                indent = None;
                continue;
            };
            let doc = doc.strip_prefix(' ').filter(|_| !*markdown).unwrap_or(doc);
            let trimmed = doc.trim_start();
            match indent {
                None if trimmed.starts_with("```") => {
                    indent = Some(doc.len() - trimmed.len());
                    let _ = write!(md, "## {shown} line {}\n\n{trimmed}\n", n + 1);
                }
                None => {}
                Some(_) if trimmed.starts_with("```") => {
                    md.push_str("```\n\n");
                    indent = None;
                }
                Some(k) => {
                    let cut = doc.len() - doc.trim_start().len();
                    md.push_str(&doc[cut.min(k)..]);
                    md.push('\n');
                }
            }
        }
    }
    md
}

/// The rustdoc binary and the `-L`, `--extern` (user crates only) and
/// `--cfg` arguments cargo uses for `mcp-client`'s doc tests, read from
/// `cargo test --doc -v -- --list` (which builds what the tests need).
fn rustdoc_args() -> Result<Vec<String>, String> {
    let out = util::cargo()
        .args(["test", "-p", "mcp-client", "--doc", "-v", "--", "--list"])
        .output()
        .map_err(|e| format!("cargo test --doc: cannot start: {e}"))?;
    let log = String::from_utf8_lossy(&out.stderr);
    let line = log
        .lines()
        .filter_map(|l| l.trim().strip_prefix("Running `"))
        .find(|l| l.contains("rustdoc") && l.contains(" --test "))
        .ok_or_else(|| {
            // Cargo's own words name the cause (a build that failed, a
            // flag it refused): its last lines go into the error.
            let lines: Vec<&str> = log.lines().collect();
            let tail = lines[lines.len().saturating_sub(40)..].join("\n  ");
            format!(
                "`cargo test -p mcp-client --doc -v -- --list` ran no rustdoc ({}); it ended with:\n  {tail}",
                out.status
            )
        })?;
    let words: Vec<&str> = line.trim_end_matches('`').split(' ').collect();
    let mut args = vec![words[0].to_owned()];
    let mut i = 1;
    while i < words.len() {
        let (flag, value) = (words[i], words.get(i + 1).copied().unwrap_or(""));
        let keep = match flag {
            "-L" => true,
            "--extern" => USER_CRATES
                .iter()
                .any(|c| value.starts_with(&format!("{c}="))),
            _ => false,
        };
        if keep {
            args.extend([flag.to_owned(), value.to_owned()]);
            i += 2;
        } else {
            i += 1;
        }
    }
    if !args.iter().any(|a| a.starts_with("mcp_client=")) {
        return Err("cargo's rustdoc invocation names no mcp_client rlib".into());
    }
    Ok(args)
}

/// Whether `path` is a Markdown file.
pub(crate) fn is_markdown(path: &Path) -> bool {
    path.extension().is_some_and(|x| x == "md")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extract_keeps_code_blocks_only_and_undoes_indentation() {
        let src = "//! Prose.\n//! * item\n//!   ```no_run\n//!   # let hidden = 1;\n//!   let x = 2;\n//!   ```\nfn f() {}\n/// ```\n/// let y = 3;\n/// ```\n";
        let md = extract(&[("a.rs".into(), src.into(), false)]);
        let expected = "# mcp-client doc examples\n\n## a.rs line 3\n\n```no_run\n# let hidden = 1;\nlet x = 2;\n```\n\n## a.rs line 8\n\n```\nlet y = 3;\n```\n\n";
        assert_eq!(md, expected);
    }
}
