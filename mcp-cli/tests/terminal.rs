//! `mcp` on a real terminal, under `tmux` (Debian package `tmux`): an
//! interactive elicitation answered by typing, Ctrl-C cancelling a slow
//! call (the cancellation is on the wire, shown by `--verbose`), the
//! progress bar, and Tab completion with a private history in `repl`.
//!
//! The terminal is another process: the test waits for what it shows,
//! checking every 50 ms up to a deadline. The script runs under bash,
//! which keeps going after a child that handled Ctrl-C itself.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::{demo_exe, mcp_exe, temp_dir};

const DEADLINE: Duration = Duration::from_secs(30);

/// A detached tmux server of its own (its own socket), killed on drop.
struct Tmux {
    socket: String,
}

impl Tmux {
    /// Runs `script` in a new session of a new tmux server.
    fn start(name: &str, script: &str) -> Tmux {
        let found = Command::new("tmux").arg("-V").output();
        assert!(
            found.is_ok_and(|o| o.status.success()),
            "these tests need tmux on PATH (Debian: apt-get install tmux)"
        );
        let socket = format!("mcp-cli-{name}-{}", std::process::id());
        let t = Tmux { socket };
        let ok = t
            .cmd(&[
                "new-session",
                "-d",
                "-x",
                "160",
                "-y",
                "40",
                "bash",
                "-c",
                script,
            ])
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "tmux new-session failed");
        t
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new("tmux");
        c.args(["-L", &self.socket]).args(args);
        c
    }

    /// The visible screen.
    fn screen(&self) -> String {
        self.cmd(&["capture-pane", "-p"])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default()
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys"];
        args.extend_from_slice(keys);
        let ok = self.cmd(&args).status().is_ok_and(|s| s.success());
        assert!(ok, "tmux send-keys failed");
    }

    /// Waits until the screen contains `text`.
    fn wait_screen(&self, text: &str) -> String {
        wait_until(&format!("{text:?} on screen"), || {
            let s = self.screen();
            s.contains(text).then_some(s)
        })
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]).status();
    }
}

fn wait_until<T>(what: &str, mut probe: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = probe() {
            return v;
        }
        assert!(start.elapsed() < DEADLINE, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// `mcp ARGS -- demo-server`, exit code into `dir/exit`.
fn script(dir: &Path, args: &str, redirect: &str) -> (String, PathBuf) {
    let exit = dir.join("exit");
    let s = format!(
        "{} {args} -- {} {redirect}; echo $? > {}; sleep 60",
        mcp_exe().display(),
        demo_exe().display(),
        exit.display()
    );
    (s, exit)
}

#[test]
fn an_elicitation_is_answered_by_typing_in_the_terminal() {
    let dir = temp_dir("tty-elicit");
    let out = dir.join("out");
    let (s, exit) = script(
        &dir,
        "--era legacy tools call interview",
        &format!("> {}", out.display()),
    );
    let tmux = Tmux::start("elicit", &s);
    tmux.wait_screen("What is your name?");
    tmux.keys(&["Ada", "Enter"]);
    tmux.wait_screen("Send these answers?");
    tmux.keys(&["Enter"]);
    tmux.wait_screen("favourite colour");
    tmux.keys(&["blue", "Enter"]);
    let screen = wait_until("the second confirmation", || {
        let s = tmux.screen();
        (s.matches("Send these answers?").count() == 2).then_some(s)
    });
    assert!(screen.contains("colour: blue"), "{screen}");
    tmux.keys(&["Enter"]);
    let code = wait_until("the exit code", || {
        let c = read(&exit);
        (!c.is_empty()).then_some(c)
    });
    assert_eq!(code.trim(), "0");
    assert_eq!(read(&out), "Ada likes blue\n");
}

#[test]
fn ctrl_c_cancels_the_call_in_flight_and_exits_130() {
    let dir = temp_dir("tty-ctrl-c");
    let wire = dir.join("wire");
    let (s, exit) = script(
        &dir,
        "--verbose --era legacy tools call slow_count count=600 delay_ms=100",
        &format!("2> {}", wire.display()),
    );
    let tmux = Tmux::start("ctrl-c", &s);
    // The call is on the wire and the server is counting.
    wait_until("the first progress", || {
        read(&wire).contains("notifications/progress").then_some(())
    });
    tmux.keys(&["C-c"]);
    let code = wait_until("the exit code", || {
        let c = read(&exit);
        (!c.is_empty()).then_some(c)
    });
    assert_eq!(code.trim(), "130");
    let log = read(&wire);
    let call = log
        .lines()
        .find(|l| l.starts_with("-> ") && l.contains("\"tools/call\""))
        .expect("the call was sent");
    let id: serde_json::Value = serde_json::from_str(&call[3..]).expect("the sent call is JSON");
    let cancel = log
        .lines()
        .filter(|l| l.starts_with("-> ") && l.contains("notifications/cancelled"))
        .map(|l| serde_json::from_str::<serde_json::Value>(&l[3..]).expect("JSON"))
        .next()
        .unwrap_or_else(|| panic!("no cancellation was sent:\n{log}"));
    assert_eq!(cancel["params"]["requestId"], id["id"], "{log}");
    assert!(log.contains("interrupted"), "{log}");
}

#[test]
fn a_call_that_reports_progress_draws_a_bar_on_the_terminal() {
    let dir = temp_dir("tty-progress");
    let out = dir.join("out");
    let (s, exit) = script(
        &dir,
        "--era modern tools call slow_count count=40 delay_ms=50",
        &format!("> {}", out.display()),
    );
    let tmux = Tmux::start("progress", &s);
    let screen = tmux.wait_screen("[#");
    assert!(
        screen.contains("/40 step"),
        "a bar with the count: {screen}"
    );
    let code = wait_until("the exit code", || {
        let c = read(&exit);
        (!c.is_empty()).then_some(c)
    });
    assert_eq!(code.trim(), "0");
    // The bar is cleared and never reaches stdout.
    assert_eq!(read(&out), "counted to 40\n");
}

#[test]
fn the_repl_completes_tool_and_argument_names_with_tab_and_keeps_a_private_history() {
    use std::os::unix::fs::MetadataExt;
    let dir = temp_dir("tty-repl");
    let exit = dir.join("exit");
    let s = format!(
        "XDG_STATE_HOME={} {} repl -- {}; echo $? > {}; sleep 60",
        dir.display(),
        mcp_exe().display(),
        demo_exe().display(),
        exit.display()
    );
    let tmux = Tmux::start("repl", &s);
    // (tmux drops trailing blanks from the screen it shows.)
    tmux.wait_screen("mcp>");
    // A command name, then a tool name from the server's list.
    tmux.keys(&["too", "Tab"]);
    tmux.wait_screen("mcp> tools");
    tmux.keys(&["call ec", "Tab"]);
    tmux.wait_screen("mcp> tools call echo");
    // An argument name from the tool's input schema.
    tmux.keys(&["te", "Tab"]);
    tmux.wait_screen("mcp> tools call echo text=");
    tmux.keys(&["tabbed", "Enter"]);
    tmux.wait_screen("\ntabbed\n");
    tmux.keys(&["exit", "Enter"]);
    let code = wait_until("the exit code", || {
        let c = read(&exit);
        (!c.is_empty()).then_some(c)
    });
    assert_eq!(code.trim(), "0");
    let history = dir.join("mcp-cli").join("repl_history");
    assert_eq!(read(&history), "tools call echo text=tabbed\nexit\n");
    let mode = std::fs::metadata(&history)
        .expect("the history file")
        .mode();
    assert_eq!(mode & 0o777, 0o600);
}
