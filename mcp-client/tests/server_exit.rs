//! A stdio server that dies mid-call (issue 14 item 5): the pending call's
//! error names the exit status or signal and the last stderr lines, the
//! client reports the exit afterwards, and the crashed server's process
//! group is stopped while the dead client is still held.
#![cfg(target_os = "linux")]

use std::time::Duration;

use mcp_client::{Client, EraPreference, ServerCommand, ShutdownTimeouts};
use rustix::event::{PollFd, PollFlags, Timespec};
use rustix::process::{Pid, PidfdFlags, pidfd_open};
use serde_json::json;

fn dying_server(args: &[&str]) -> ServerCommand {
    let script = format!(
        "{}/tests/fixtures/dying_server.py",
        env!("CARGO_MANIFEST_DIR")
    );
    ServerCommand::new("python3")
        .arg(script)
        .args(args)
        .shutdown_timeouts(
            ShutdownTimeouts::default().with_after_terminate(Duration::from_millis(300)),
        )
}

async fn connect(command: ServerCommand) -> Client {
    Client::builder()
        .era(EraPreference::LegacyOnly)
        .stdio(command)
        .connect()
        .await
        .expect("connect")
}

/// True while `pid` exists and is not a zombie.
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            stat.rsplit(')')
                .next()
                .and_then(|r| r.trim().chars().next())
                != Some('Z')
        }
        Err(_) => false,
    }
}

/// Waits until `pid` exits, within `limit`: its pidfd turns readable when
/// it does (a zombie has exited), and a blocking `poll` on it wakes then.
/// A pid already gone counts as dead.
async fn wait_dead(pid: u32, limit: Duration) -> bool {
    let raw = i32::try_from(pid)
        .ok()
        .and_then(Pid::from_raw)
        .expect("a pid");
    let fd = match pidfd_open(raw, PidfdFlags::empty()) {
        Ok(fd) => fd,
        Err(rustix::io::Errno::SRCH) => return true,
        Err(e) => panic!("pidfd_open({pid}): {e}"),
    };
    let timeout = Timespec::try_from(limit).expect("a timeout");
    let exited = tokio::task::spawn_blocking(move || {
        let mut fds = [PollFd::new(&fd, PollFlags::IN)];
        rustix::event::poll(&mut fds, Some(&timeout))
    });
    exited.await.expect("joins").expect("poll") == 1
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_mid_call_names_the_exit_and_stderr_and_stops_the_group() {
    let pidfile = std::env::temp_dir().join(format!("mcp-dying-{}.pid", std::process::id()));
    let _ = std::fs::remove_file(&pidfile);
    let pidfile_arg = pidfile.to_str().expect("UTF-8 temp path");
    let client = connect(dying_server(&["--pidfile", pidfile_arg])).await;
    let grandchild: u32 = std::fs::read_to_string(&pidfile)
        .expect("pidfile written before the handshake")
        .parse()
        .expect("pid");
    let _ = std::fs::remove_file(&pidfile);
    assert!(alive(grandchild));

    let err = client
        .call_tool("crash", json!({}))
        .await
        .expect_err("the server crashes");
    assert!(err.is_transport(), "{err:?}");
    assert_eq!(
        err.to_string(),
        "the server process exited (exit status: 3) before the response arrived; stderr: \
         panic: index out of range [3] with length 3 | goroutine 1 [running]: | \
         main.lookup(0x3) | server.go:42 +0x1d"
    );
    assert_eq!(err.server_exit().and_then(|e| e.exit_code()), Some(3));
    let exit = client.server_exit().expect("the client reports the exit");
    assert_eq!(exit.exit_code(), Some(3));
    assert_eq!(exit.stderr_tail.len(), 4);

    // The dead client is held, not closed: the grandchild, which ignores
    // SIGTERM, is stopped anyway.
    assert!(
        wait_dead(grandchild, Duration::from_secs(5)).await,
        "the crashed server's grandchild survived"
    );

    // A call made afterwards says why too.
    let later = client
        .call_tool("echo", json!({}))
        .await
        .expect_err("the server is gone");
    assert!(later.is_transport(), "{later:?}");
    assert!(
        later
            .to_string()
            .starts_with("the server process exited (exit status: 3): "),
        "{later}"
    );
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_by_a_signal_mid_call_names_the_signal() {
    let client = connect(dying_server(&[])).await;
    let err = client
        .call_tool("sigkill", json!({}))
        .await
        .expect_err("the server is killed");
    assert!(err.is_transport(), "{err:?}");
    assert_eq!(
        err.to_string(),
        "the server process exited (signal: 9 (SIGKILL)) before the response arrived; stderr: \
         allocating 64 GiB | out of memory: killing myself"
    );
    use std::os::unix::process::ExitStatusExt;
    let exit = client.server_exit().expect("the client reports the exit");
    assert_eq!(exit.status.and_then(|s| s.signal()), Some(9));
    client.close().await;
}
