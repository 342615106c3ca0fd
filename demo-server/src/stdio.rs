//! The stdio transport: newline-delimited JSON-RPC over a byte stream pair.
//! One connection is one client: a legacy session after `initialize`, and
//! stateless modern requests at any time (when the modern era is enabled).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mcp_types::jsonrpc::ErrorObject;
use mcp_types::{ErrorCode, Message, RequestId};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::ServeError;
use crate::dispatch::{
    Frame, Incoming, Route, Sink, bad_params, cancelled_id, error_frame, final_frame,
    has_modern_meta, run_request, send_outcome,
};
use crate::legacy::{self, Session};
use crate::modern;
use crate::server::{Server, lock};
use crate::support::RpcError;

/// Longest accepted line.
const MAX_LINE: u64 = 64 * 1024 * 1024;

struct Conn {
    server: Arc<Server>,
    sink: Sink,
    legacy: Option<Arc<Session>>,
    inflight: Arc<Mutex<HashMap<RequestId, CancellationToken>>>,
}

/// Serves one client until `reader` ends.
pub(crate) async fn serve<R, W>(server: Arc<Server>, reader: R, writer: W) -> Result<(), ServeError>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (sink, rx) = mpsc::unbounded_channel();
    let writer_task = tokio::spawn(write_loop(rx, writer));
    let mut conn = Conn {
        server,
        sink,
        legacy: None,
        inflight: Arc::new(Mutex::new(HashMap::new())),
    };
    let mut reader = BufReader::new(reader);
    let mut line = Vec::new();
    let result = loop {
        line.clear();
        let n = match (&mut reader)
            .take(MAX_LINE)
            .read_until(b'\n', &mut line)
            .await
        {
            Ok(n) => n,
            Err(e) => break Err(ServeError::Io(e)),
        };
        if n == 0 {
            break Ok(());
        }
        if line.last() != Some(&b'\n') && n as u64 == MAX_LINE {
            let _ = conn.sink.send(error_frame(
                None,
                RpcError::new(ErrorCode::PARSE_ERROR, "Message too long"),
            ));
            // Skip the rest of the oversized line.
            let mut rest = Vec::new();
            if let Err(e) = reader.read_until(b'\n', &mut rest).await {
                break Err(ServeError::Io(e));
            }
            continue;
        }
        let text = line.trim_ascii();
        if text.is_empty() {
            continue;
        }
        conn.on_line(text);
    };
    for (_, t) in lock(&conn.inflight).drain() {
        t.cancel();
    }
    if let Some(s) = conn.legacy.take() {
        s.close();
        conn.server.tasks.cancel_owned(&s.id);
    }
    drop(conn);
    match writer_task.await {
        Ok(Ok(())) | Err(_) => result,
        Ok(Err(e)) => result.and(Err(ServeError::Io(e))),
    }
}

async fn write_loop<W: AsyncWrite + Unpin>(
    mut rx: mpsc::UnboundedReceiver<Frame>,
    mut writer: W,
) -> std::io::Result<()> {
    let mut buf = Vec::new();
    while let Some(frame) = rx.recv().await {
        let mut next = Some(frame);
        while let Some(frame) = next {
            let msg = match frame {
                Frame::Notice(m) | Frame::Final(m, _) => m,
            };
            if serde_json::to_writer(&mut buf, &msg).is_ok() {
                buf.push(b'\n');
            }
            next = if buf.len() < 1 << 20 {
                rx.try_recv().ok()
            } else {
                None
            };
        }
        writer.write_all(&buf).await?;
        writer.flush().await?;
        buf.clear();
    }
    Ok(())
}

impl Conn {
    fn on_line(&mut self, text: &[u8]) {
        let msg = match Message::from_slice(text) {
            Ok(m) => m,
            Err(e) => {
                let _ = self.sink.send(error_frame(
                    None,
                    RpcError::new(ErrorCode::PARSE_ERROR, format!("Parse error: {e}")),
                ));
                return;
            }
        };
        match msg {
            Message::Request(r) => match Incoming::from_request(r) {
                Ok(req) => self.on_request(req),
                Err(id) => {
                    let _ = self.sink.send(error_frame(Some(id), bad_params()));
                }
            },
            Message::Notification(n) => {
                self.server.count_notification(&n.method);
                let params: Value = n
                    .params
                    .and_then(|p| serde_json::from_str(p.get()).ok())
                    .unwrap_or(Value::Null);
                if n.method == "notifications/cancelled" {
                    if let Some(t) =
                        cancelled_id(&params).and_then(|id| lock(&self.inflight).remove(&id))
                    {
                        t.cancel();
                    }
                } else if let Some(s) = &self.legacy {
                    legacy::notify(s, &n.method, &params);
                }
            }
            Message::Response(r) => {
                if let Some(s) = &self.legacy {
                    let result = r.result.decode().unwrap_or(Value::Null);
                    s.deliver(&r.id, Ok(result));
                }
            }
            Message::Error(e) => {
                if let (Some(s), Some(id)) = (&self.legacy, &e.id) {
                    s.deliver(id, Err::<Value, ErrorObject>(e.error));
                }
            }
        }
    }

    fn reply(&self, id: RequestId, reply: Result<Value, RpcError>) {
        let _ = self.sink.send(final_frame(id, reply));
    }

    fn on_request(&mut self, req: Incoming) {
        let server = Arc::clone(&self.server);
        let eras = server.opts.eras;
        let modern_meta = has_modern_meta(&req.params);
        let route = if modern_meta && eras.modern() {
            match modern::parse_meta(&server, &req.params) {
                Ok(meta) => Route::Modern(meta),
                Err(e) => return self.reply(req.id, Err(e)),
            }
        } else if let Some(s) = &self.legacy {
            Route::Legacy(Arc::clone(s))
        } else if req.method == "initialize" {
            return self.initialize(req);
        } else if eras.legacy() && req.method == "ping" {
            return self.reply(req.id, Ok(json!({})));
        } else if !eras.modern() {
            return self.reply(req.id, Err(legacy::not_initialized(&req.method)));
        } else {
            // Neither an initialized session nor modern `_meta`.
            match modern::parse_meta(&server, &req.params) {
                Ok(meta) => Route::Modern(meta),
                Err(e) => return self.reply(req.id, Err(e)),
            }
        };
        let cancel = CancellationToken::new();
        lock(&self.inflight).insert(req.id.clone(), cancel.clone());
        let sink = self.sink.clone();
        let inflight = Arc::clone(&self.inflight);
        tokio::spawn(async move {
            let id = req.id.clone();
            let outcome = run_request(server, route, req, sink.clone(), cancel).await;
            lock(&inflight).remove(&id);
            send_outcome(&sink, id, outcome);
        });
    }

    fn initialize(&mut self, req: Incoming) {
        let server = &self.server;
        if !server.opts.eras.legacy() {
            let e = modern::refuse_initialize(server, &req.params);
            return self.reply(req.id, Err(e));
        }
        match legacy::negotiate(&req.params) {
            Ok((version, caps)) => {
                let session = Session::new(server.fresh_id(), caps, self.sink.clone(), None);
                session.spawn_forwarder(server);
                self.legacy = Some(session);
                let result = legacy::initialize_result(server, &version);
                self.reply(req.id, Ok(result));
            }
            Err(e) => self.reply(req.id, Err(e)),
        }
    }
}
