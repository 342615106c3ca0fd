//! [`Peer`]: the test's end of a scripted connection. It answers by rules
//! (by method or by id, with delays on tokio's clock), sends notifications,
//! server requests and closes, and reads back every frame the client sent.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::watch;

use crate::delivery::Delivery;
use crate::frame::Frame;
use crate::state::{Matcher, Rule, Shared};
use crate::transport::ScriptedTransport;

/// How long [`Peer::next_frame`] and friends wait before they fail the
/// test, unless [`Peer::set_patience`] says otherwise. On a paused clock
/// this costs no real time.
pub const DEFAULT_PATIENCE: Duration = Duration::from_secs(600);

/// A scripted connection: the transport for the client, and the peer that
/// plays the server.
///
/// ```
/// use mcp_testkit::scripted;
///
/// let (transport, peer) = scripted();
/// // `transport` goes to `Client::builder().transport(transport)`.
/// # drop((transport, peer));
/// ```
pub fn scripted() -> (ScriptedTransport, Peer) {
    let shared = Arc::new(Shared::new());
    let sent = shared.sent_signal.subscribe();
    let peer = Peer {
        shared: shared.clone(),
        sent,
        cursor: 0,
        patience: DEFAULT_PATIENCE,
    };
    (ScriptedTransport { shared }, peer)
}

/// The server side of a [`scripted`] connection.
///
/// Rules are consulted, in the order added (one-shot rules first), for
/// every frame the client sends; the first that matches schedules its
/// deliveries. A frame no rule matches gets no answer. Rules run while the
/// peer's state is locked: they must only build deliveries, not call the
/// peer.
pub struct Peer {
    shared: Arc<Shared>,
    sent: watch::Receiver<u64>,
    /// How many frames [`Peer::next_frame`] has handed out.
    cursor: usize,
    patience: Duration,
}

impl Peer {
    /// How long waits for the client fail the test after (default
    /// [`DEFAULT_PATIENCE`]).
    pub fn set_patience(&mut self, patience: Duration) {
        self.patience = patience;
    }

    /// Answers every frame with `method` with what `respond` returns.
    pub fn on(
        &self,
        method: &str,
        respond: impl FnMut(&Frame) -> Vec<Delivery> + Send + 'static,
    ) -> &Self {
        self.rule(Matcher::Method(method.to_owned()), false, respond)
    }

    /// Answers the next frame with `method` only (before any [`Peer::on`] rule).
    pub fn once(
        &self,
        method: &str,
        respond: impl FnMut(&Frame) -> Vec<Delivery> + Send + 'static,
    ) -> &Self {
        self.rule(Matcher::Method(method.to_owned()), true, respond)
    }

    /// Answers the request with this id, once.
    pub fn on_id(
        &self,
        id: Value,
        respond: impl FnMut(&Frame) -> Vec<Delivery> + Send + 'static,
    ) -> &Self {
        self.rule(Matcher::Id(id), true, respond)
    }

    /// Answers every `method` request with `result`, at once.
    pub fn answer(&self, method: &str, result: Value) -> &Self {
        self.answer_after(method, Duration::ZERO, result)
    }

    /// Answers every `method` request with `result`, `delay` after it was sent.
    pub fn answer_after(&self, method: &str, delay: Duration, result: Value) -> &Self {
        self.on(method, move |req| {
            vec![Delivery::result(req, result.clone()).after(delay)]
        })
    }

    /// Answers every `method` request with a JSON-RPC error.
    pub fn answer_error(&self, method: &str, code: i64, message: &str) -> &Self {
        let message = message.to_owned();
        self.on(method, move |req| {
            vec![Delivery::error(req, code, &message)]
        })
    }

    fn rule(
        &self,
        matcher: Matcher,
        once: bool,
        respond: impl FnMut(&Frame) -> Vec<Delivery> + Send + 'static,
    ) -> &Self {
        let respond = Box::new(respond);
        let rule = Rule {
            matcher,
            once,
            respond,
        };
        self.shared.lock().rules.push(rule);
        self
    }

    /// Schedules a delivery (its delay counts from now).
    pub fn deliver(&self, delivery: Delivery) {
        self.shared.schedule([delivery]);
    }

    /// Sends a message now (a notification, a server request, a response).
    pub fn push(&self, message: Value) {
        self.deliver(Delivery::message(message));
    }

    /// Answers `request` with `result` now.
    pub fn reply(&self, request: &Frame, result: Value) {
        self.deliver(Delivery::result(request, result));
    }

    /// Answers `request` with a JSON-RPC error now.
    pub fn reply_error(&self, request: &Frame, code: i64, message: &str) {
        self.deliver(Delivery::error(request, code, message));
    }

    /// Ends the connection now, after what is already due.
    pub fn close(&self) {
        self.deliver(Delivery::close());
    }

    /// From now on every send fails with `BrokenPipe` (a dead connection
    /// whose reads have not noticed yet).
    pub fn refuse_sends(&self) {
        self.shared.lock().refuse_sends = true;
    }

    /// Every frame sent so far, in order.
    pub fn frames(&self) -> Vec<Frame> {
        self.shared.lock().sent.clone()
    }

    /// The frames sent so far with this method.
    pub fn sent(&self, method: &str) -> Vec<Frame> {
        let state = self.shared.lock();
        let with = state.sent.iter().filter(|f| f.method() == Some(method));
        with.cloned().collect()
    }

    /// Whether the client closed its end (called `close` or dropped the transport).
    pub fn client_closed(&self) -> bool {
        self.shared.lock().client_closed
    }

    /// Everything both ways, one line each: virtual time, direction
    /// (`C->S` sent by the client, `S->C` received by it, `C-x`/`S-x` a
    /// close), and the exact frame.
    pub fn transcript(&self) -> String {
        self.shared.lock().transcript.join("\n")
    }

    /// The next frame the client sends (after those already handed out),
    /// waiting for it. Panics if none comes within the patience, naming
    /// what did come.
    pub async fn next_frame(&mut self) -> Frame {
        match self.try_next_frame(self.patience).await {
            Some(f) => f,
            None => panic!(
                "the client sent no frame within {:?} (client closed: {}); \
                 frames so far:\n{}",
                self.patience,
                self.client_closed(),
                self.transcript()
            ),
        }
    }

    /// The next frame sent within `wait`, or `None` (the client stayed quiet).
    pub async fn try_next_frame(&mut self, wait: Duration) -> Option<Frame> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            self.sent.borrow_and_update();
            if let Some(f) = self.shared.lock().sent.get(self.cursor).cloned() {
                self.cursor += 1;
                return Some(f);
            }
            tokio::select! {
                () = tokio::time::sleep_until(deadline) => return None,
                _ = self.sent.changed() => {}
            }
        }
    }

    /// The next frame with `method`, skipping (but keeping in
    /// [`Peer::frames`]) the others.
    pub async fn next_request(&mut self, method: &str) -> Frame {
        loop {
            let frame = self.next_frame().await;
            if frame.method() == Some(method) {
                return frame;
            }
        }
    }

    /// Waits `quiet` on tokio's clock and returns what the client sent
    /// meanwhile (use it to show the client sends nothing: an empty vector).
    pub async fn frames_within(&mut self, quiet: Duration) -> Vec<Frame> {
        let deadline = tokio::time::Instant::now() + quiet;
        let mut out = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let Some(f) = self.try_next_frame(left).await else {
                break;
            };
            out.push(f);
        }
        out
    }

    /// Waits until the client has gone quiet: no frame for `quiet` on
    /// tokio's clock. Returns the frames sent meanwhile.
    pub async fn settle(&mut self, quiet: Duration) -> Vec<Frame> {
        let mut out = Vec::new();
        while let Some(f) = self.try_next_frame(quiet).await {
            out.push(f);
        }
        out
    }

    /// Waits until the client closes its end; panics after the patience.
    pub async fn closed(&mut self) {
        let wait = async {
            loop {
                self.sent.borrow_and_update();
                if self.shared.lock().client_closed {
                    return;
                }
                if self.sent.changed().await.is_err() {
                    return;
                }
            }
        };
        let patience = self.patience;
        if tokio::time::timeout(patience, wait).await.is_err() {
            panic!("the client did not close within {patience:?}");
        }
    }
}
