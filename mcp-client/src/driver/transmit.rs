//! The drain rule's output side: what the core transmits goes to the
//! transport (a byte stream's lines into the driver's [`LineWriter`] buffer,
//! written by the driver's own poll; a custom transport's messages as one
//! batch of sends; HTTP as one POST future per message), and its events go
//! to their routes.
//!
//! [`LineWriter`]: mcp_transport_stdio::LineWriter

use std::time::Instant;

use super::Driver;
use crate::transport::Link;

impl Driver {
    /// The drain rule, then start writing what it produced.
    pub(super) fn flush(&mut self, now: Instant) {
        self.drain_queues(now);
        self.start_write();
    }

    /// The drain rule: transmits, then events, until both are empty (a
    /// transmit an event causes goes out before the next event is handled,
    /// so each empty queue is asked once at the end).
    pub(super) fn drain_queues(&mut self, now: Instant) {
        loop {
            if let Some(t) = self.conn.poll_transmit() {
                self.transmit(now, t);
                continue;
            }
            match self.conn.poll_event() {
                Some(e) => self.on_event(now, e),
                None => break,
            }
        }
    }

    fn transmit(&mut self, now: Instant, t: mcp_core::Transmit) {
        match t {
            mcp_core::Transmit::OpenServerStream { generation } => self.open_get(generation),
            mcp_core::Transmit::CloseServerStream => self.close_get(),
            // A byte stream's line, matched first and taken apart in place:
            // the common case moves only the buffer.
            mcp_core::Transmit::Message { bytes, .. }
                if matches!(self.link, Some(Link::Stream { .. })) =>
            {
                self.queue_line(&bytes);
                // Copied into the write buffer: the core encodes the next
                // request into it.
                self.conn.recycle(bytes);
            }
            // Taken apart here too: the transmit itself is not moved again
            // (its parts are each small enough to move in registers).
            mcp_core::Transmit::Message {
                bytes,
                routing,
                call,
                ..
            } => self.transmit_message(now, bytes, routing, call),
            #[cfg(feature = "http")]
            mcp_core::Transmit::CloseStream { request_id } => self.close_stream(request_id),
            _ => {}
        }
    }

    /// A message for any link but a byte stream: an HTTP POST, a custom
    /// transport's message. Out of line: a byte stream's drain stays a few
    /// lines of code.
    #[cfg_attr(
        not(feature = "http"),
        expect(
            unused_variables,
            reason = "only an HTTP POST starts its deadline here, and reads its routing and call"
        )
    )]
    #[inline(never)]
    fn transmit_message(
        &mut self,
        now: Instant,
        bytes: Vec<u8>,
        routing: mcp_types::routing::HttpRouting,
        call: Option<mcp_types::RequestId>,
    ) {
        match &self.link {
            #[cfg(feature = "http")]
            Some(Link::Http(http)) => {
                // The call's extra headers go on every POST of the call:
                // retries with a fresh id, multi round-trip rounds, pages
                // and task requests.
                let rare = call
                    .as_ref()
                    .and_then(|id| self.pending.get(id))
                    .and_then(|p| p.rare());
                let headers = match rare {
                    Some(r) if !r.headers.is_empty() => {
                        std::hint::cold_path();
                        Some(Box::new(r.headers.clone()))
                    }
                    _ => None,
                };
                self.post(now, http.clone(), bytes, routing, headers);
            }
            Some(Link::Custom(_)) => self.outbox.push_back(bytes),
            _ => {}
        }
    }

    /// The end of a request's HTTP exchange (nothing on another link): an
    /// unregistered POST is cancelled by dropping its future (its
    /// connection closes with it); any other request, and a response
    /// stream, through the transport. A 2026-07-28 POST its caller holds
    /// (`direct.rs`) is out of reach here: its caller drops it once the
    /// call's outcome reaches it.
    #[cfg(feature = "http")]
    fn close_stream(&mut self, request_id: mcp_types::RequestId) {
        let Some(Link::Http(http)) = &self.link else {
            return;
        };
        let slot = request_id
            .as_number()
            .and_then(|n| self.unregistered.remove(n));
        match slot {
            Some(index) => self.http_io.remove(index),
            None => {
                http.cancel(&request_id);
            }
        }
    }

    /// Appends one line to the stream's write buffer; the driver polls its
    /// write in `wait` (a writer that is gone fails there).
    fn queue_line(&mut self, bytes: &[u8]) {
        let Some(writer) = self.line_writer.as_mut() else {
            return;
        };
        match writer.queue(bytes) {
            Ok(()) => self.unwritten += 1,
            // The core never renders an empty frame or a raw newline; if it
            // did, that one message is dropped, not the connection.
            Err(e) => tracing::warn!(error = %e, "dropped a malformed outgoing frame"),
        }
    }

    /// Starts sending a custom transport's queued messages, one batch at
    /// a time.
    pub(super) fn start_write(&mut self) {
        if self.writing.is_some() || self.outbox.is_empty() {
            return;
        }
        if let Some(Link::Custom(t)) = &self.link {
            let sends: Vec<_> = self.outbox.drain(..).map(|m| t.send(m)).collect();
            self.writing = Some(Box::pin(async move {
                for s in sends {
                    s.await.map_err(|e| e.to_string())?;
                }
                Ok(())
            }));
        }
    }
}
