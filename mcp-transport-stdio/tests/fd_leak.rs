//! No file descriptor or zombie survives a connect-and-close cycle. Alone in its test
//! binary so no other test opens descriptors meanwhile.
#![cfg(target_os = "linux")]

use std::time::Duration;

use mcp_transport_stdio::{Inbound, ServerCommand, ShutdownOutcome, StdioTransport};

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").expect("procfs").count()
}

/// Children of this process that exited but were not reaped.
fn zombie_children() -> Vec<String> {
    let me = std::process::id().to_string();
    std::fs::read_dir("/proc")
        .expect("procfs")
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .filter(|stat| {
            let rest = stat.rsplit(')').next().unwrap_or_default();
            let mut fields = rest.split_ascii_whitespace();
            let state = fields.next();
            let ppid = fields.next();
            state == Some("Z") && ppid == Some(me.as_str())
        })
        .collect()
}

async fn cycle() {
    // `cat` echoes each request back: a real process, cheap to start.
    let mut t = StdioTransport::spawn(ServerCommand::new("cat")).expect("spawn cat");
    t.send(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
        .await
        .expect("send");
    let item = tokio::time::timeout(Duration::from_secs(10), t.recv())
        .await
        .expect("echo in time");
    assert!(matches!(item, Some(Ok(Inbound::Message(_)))), "{item:?}");
    let exit = t.shutdown().await;
    assert_eq!(exit.outcome, ShutdownOutcome::Exited);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_descriptor_leaks_over_200_cycles() {
    // The first spawn sets up the runtime's process machinery for good.
    cycle().await;
    let before = open_fds();
    for _ in 0..200 {
        cycle().await;
    }
    // Dropped transports clean up in the background: also cover that path.
    for _ in 0..20 {
        let t = StdioTransport::spawn(ServerCommand::new("cat")).unwrap();
        drop(t);
    }
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while open_fds() > before && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(open_fds(), before);
    assert_eq!(
        zombie_children(),
        Vec::<String>::new(),
        "every child is reaped"
    );
}
