//! The rule for waits in `mcp-client`'s tests: no sleep-and-poll. A test
//! waits for an event (a recorder, the scripted peer, the demo server's
//! `wait_until`) or runs on tokio's paused clock.
//!
//! In a file under `mcp-client/tests/`, tidy reports:
//! * any `thread::sleep` (it blocks a runtime worker and is real time);
//! * any call of a function whose name starts with `eventually` (the
//!   polling helpers this rule retired);
//! * a `time::sleep` / `time::sleep_until` call, or a `sleep` imported from
//!   `tokio::time`, unless every `#[tokio::test` in the file says
//!   `start_paused = true` (a file-wide check: helpers are shared by the
//!   file's tests, so a file mixing both clocks is reported), or the line
//!   or the one above carries `// tidy: real clock: WHY`, with the reason
//!   the paused clock cannot be used (for example a socket wait, on which
//!   a paused clock jumps to the next timer).

/// The exemption marker; a reason must follow it.
const MARKER: &str = "// tidy: real clock:";

/// Whether `rel` is one of the files the rule covers.
pub(super) fn covered(rel: &str) -> bool {
    rel.replace('\\', "/").starts_with("mcp-client/tests/")
}

/// The rule's findings for one file: `(line number, message)`.
pub(super) fn check(text: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let all_paused = all_tests_paused(&lines);
    let mut found = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        // Spelled in pieces so that this file does not match itself.
        if code.contains(concat!("thread::", "sleep")) {
            found.push((n + 1, "`thread::sleep` in a test: wait for an event".into()));
        }
        if calls_eventually(code) {
            found.push((
                n + 1,
                "a polling `eventually*` helper: wait for an event instead".into(),
            ));
        }
        if sleeps_on_tokio(code) && !all_paused && !marked(&lines, n) {
            found.push((
                n + 1,
                format!(
                    "a tokio sleep on the real clock: wait for an event, put every test of \
                     the file on the paused clock (`start_paused = true`), or say why it \
                     cannot be with `{MARKER} WHY` on the line or the one above"
                ),
            ));
        }
    }
    found
}

/// At least one `#[tokio::test` and each says `start_paused = true`.
fn all_tests_paused(lines: &[&str]) -> bool {
    let attrs: Vec<&&str> = lines
        .iter()
        .filter(|l| l.trim_start().starts_with(concat!("#[tokio::", "test")))
        .collect();
    !attrs.is_empty() && attrs.iter().all(|l| l.contains("start_paused = true"))
}

/// A call of a function named `eventually...`.
fn calls_eventually(code: &str) -> bool {
    let word = concat!("eventu", "ally");
    code.match_indices(word).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let starts_word = before.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        let rest = code[at..].trim_start_matches(|c: char| c.is_alphanumeric() || c == '_');
        starts_word && rest.trim_start().starts_with('(')
    })
}

/// A tokio sleep: `time::sleep(`, `time::sleep_until(`, or `sleep`
/// imported from `tokio::time`.
fn sleeps_on_tokio(code: &str) -> bool {
    code.contains(concat!("time::", "sleep"))
        || (code.contains(concat!("use tokio::", "time")) && code.contains("sleep"))
}

/// The marker, with a reason, on line `n` or the one above.
fn marked(lines: &[&str], n: usize) -> bool {
    let has = |l: &str| {
        l.split_once(MARKER)
            .is_some_and(|(_, why)| !why.trim().is_empty())
    };
    has(lines[n]) || (n > 0 && has(lines[n - 1]))
}

#[cfg(test)]
mod tests {
    use super::check;

    fn lines_of(text: &str) -> Vec<usize> {
        check(text).into_iter().map(|(n, _)| n).collect()
    }

    #[test]
    fn planted_sleeps_and_polls_are_reported() {
        let real = "#[tokio::test]\nasync fn t() {\n    tokio::time::sleep(D).await;\n}\n";
        assert_eq!(lines_of(real), [3]);
        let thread = "fn f() {\n    std::thread::sleep(D);\n}\n";
        assert_eq!(lines_of(thread), [2]);
        let poll = "async fn g() {\n    assert!(eventually(|| x()).await);\n    \
                    eventually_cancelled (&c).await;\n}\n";
        assert_eq!(lines_of(poll), [2, 3]);
        let import = "use tokio::time::{Instant, sleep};\n#[tokio::test]\nasync fn t() {}\n";
        assert_eq!(lines_of(import), [1]);
        let mixed = "#[tokio::test(start_paused = true)]\nasync fn a() {}\n\
                     #[tokio::test]\nasync fn b() {\n    tokio::time::sleep_until(t).await;\n}\n";
        assert_eq!(lines_of(mixed), [5]);
        let no_reason = "#[tokio::test]\nasync fn t() {\n    // tidy: real clock:\n    \
                         tokio::time::sleep(D).await;\n}\n";
        assert_eq!(lines_of(no_reason), [4]);
    }

    #[test]
    fn paused_files_marked_sleeps_and_look_alikes_pass() {
        let paused = "#[tokio::test(start_paused = true)]\nasync fn t() {\n    \
                      tokio::time::sleep(D).await;\n}\n";
        assert!(check(paused).is_empty());
        let marked = "#[tokio::test]\nasync fn t() {\n    \
                      // tidy: real clock: a socket wait makes a paused clock jump\n    \
                      tokio::time::sleep(D).await;\n}\n";
        assert!(check(marked).is_empty());
        let same_line = "#[tokio::test]\nasync fn t() {\n    tokio::time::sleep(D).await; \
                         // tidy: real clock: a slow real server\n}\n";
        assert!(check(same_line).is_empty());
        let words = "// eventually (in prose) and a comment: tokio::time::sleep(D)\n\
                     let uneventually = 1; let eventually_done = true;\n";
        assert!(check(words).is_empty());
    }
}
