//! [`ScriptedTransport`]: the client's end of a scripted in-memory
//! connection, an implementation of `mcp_client::Transport`.

use std::io;
use std::sync::Arc;

use mcp_client::mcp_types::Message;
use mcp_client::{Transport, TransportFuture};
use tokio::time::Instant;

use crate::delivery::Payload;
use crate::state::{Shared, stamp};

/// The client's end of a scripted connection: hand it to
/// `ClientBuilder::transport`. Every frame the client sends is recorded and
/// answered by the [`Peer`](crate::Peer)'s rules; what the peer schedules
/// arrives when tokio's clock reaches it.
pub struct ScriptedTransport {
    pub(crate) shared: Arc<Shared>,
}

/// What `recv` found in the inbox.
enum Next {
    Now(Payload),
    At(Instant),
    Nothing,
    Ended,
}

impl ScriptedTransport {
    /// Pops the first due delivery, or says when the next one is due.
    fn next(&self) -> Next {
        let mut state = self.shared.lock();
        if state.ended {
            return Next::Ended;
        }
        let Some((&(due, seq), _)) = state.inbox.first_key_value() else {
            return Next::Nothing;
        };
        if due > Instant::now() {
            return Next::At(due);
        }
        let Some(payload) = state.inbox.remove(&(due, seq)) else {
            return Next::Nothing;
        };
        let at = stamp(state.origin.elapsed());
        let line = match &payload {
            Payload::Bytes(b) => format!("{at} S->C {}", String::from_utf8_lossy(b)),
            Payload::Error(e) => format!("{at} S-! read error: {e}"),
            Payload::Close => {
                state.ended = true;
                format!("{at} S-x closed")
            }
        };
        state.transcript.push(line);
        Next::Now(payload)
    }
}

impl Transport for ScriptedTransport {
    fn send(&self, message: Vec<u8>) -> TransportFuture<'static, io::Result<()>> {
        Box::pin(std::future::ready(self.shared.on_sent(message)))
    }

    fn recv(&mut self) -> TransportFuture<'_, Option<io::Result<Message>>> {
        Box::pin(async move {
            let mut changed = self.shared.inbox_signal.subscribe();
            loop {
                // Marked seen before looking, so a change made after the
                // look wakes the wait below. Nothing is taken from the
                // inbox across an await: dropping this future loses nothing.
                changed.borrow_and_update();
                match self.next() {
                    Next::Now(Payload::Bytes(b)) => {
                        return Some(Message::from_slice(&b).map_err(io::Error::other));
                    }
                    Next::Now(Payload::Error(e)) => return Some(Err(io::Error::other(e))),
                    Next::Now(Payload::Close) | Next::Ended => return None,
                    Next::At(due) => {
                        tokio::select! {
                            () = tokio::time::sleep_until(due) => {}
                            _ = changed.changed() => {}
                        }
                    }
                    Next::Nothing => {
                        // The sender lives in `shared`, which we hold: never closed.
                        let _ = changed.changed().await;
                    }
                }
            }
        })
    }

    fn close(&mut self) -> TransportFuture<'_, ()> {
        self.shared.on_client_close("close");
        Box::pin(std::future::ready(()))
    }
}

impl Drop for ScriptedTransport {
    fn drop(&mut self) {
        self.shared.on_client_close("dropped");
    }
}
