//! Serving callback tasks (2025-11-25) on a connection: task-augmented
//! `sampling/createMessage` / `elicitation/create`, and `tasks/get`,
//! `tasks/list`, `tasks/result`, `tasks/cancel` for them.
//!
//! # For the driver
//!
//! * Once, at start: [`Connection::set_wall_clock`]`(now, SystemTime)` (the
//!   only wall-clock fact the core needs, for `createdAt` /
//!   `lastUpdatedAt`). Serving is on when
//!   [`Config::served_tasks`](crate::Config::served_tasks) holds the limits
//!   ([`Config::with_served_tasks`](crate::Config::with_served_tasks)), for
//!   the request types declared with
//!   [`ClientFeatures::with_task_requests`](crate::ClientFeatures::with_task_requests).
//! * Event [`Event::ServedTaskStarted`]`{task_id, request}`: the core
//!   has answered the server with a `CreateTaskResult`; run the handler
//!   for `request` (classified, params raw) and report its answer with
//!   [`Connection::finish_served_task`]`(now, task_id, result)`.
//! * Event [`Event::ServedTaskStopped`]`{task_id}`: the task was
//!   cancelled, expired or its session ended; stop its handler (its
//!   answer is no longer wanted).
//! * `tasks/*` requests are answered by the core: the driver never sees
//!   them (unless no task type is served; then they arrive as ordinary
//!   [`Event::ServerRequest`]s, to be refused as unsupported).
//! * Timer [`Timer::ServedTaskExpiry`]: nothing to do beyond
//!   `handle_timeout`.

use std::time::{Instant, SystemTime};

use mcp_types::incoming::{NotificationKind, ServerRequest};
use mcp_types::tasks::TaskIdParams;
use mcp_types::tasks::legacy::CreateTaskResult;
use mcp_types::{Era, RequestId};
use serde_json::Value;
use serde_json::value::RawValue;

use super::Connection;
use crate::event::Event;
use crate::served_tasks::{Ended, Served, ServedTaskError};
use crate::timers::Timer;

/// The TTL a request asks for when it is task-augmented (`params.task` is
/// an object): `Some(ttl)`, else `None`.
fn task_requested(params: Option<&RawValue>) -> Option<Option<u64>> {
    #[derive(serde::Deserialize)]
    struct Params {
        task: Option<Value>,
    }
    let p: Params = serde_json::from_str(params?.get()).ok()?;
    let task = p.task.filter(Value::is_object)?;
    Some(task.get("ttl").and_then(Value::as_u64))
}

fn task_id_of(params: Option<&RawValue>) -> Result<String, ServedTaskError> {
    serde_json::from_str::<TaskIdParams>(params.map_or("{}", RawValue::get))
        .map(|p| p.task_id)
        .map_err(|e| ServedTaskError::MalformedParams(e.to_string()))
}

fn encode<T: serde::Serialize>(value: &T) -> Served {
    serde_json::to_value(value).map_err(|e| {
        mcp_types::jsonrpc::ErrorObject::new(mcp_types::ErrorCode::INTERNAL_ERROR, e.to_string())
    })
}

/// The `tasks/result` answer: the underlying result with the related-task
/// `_meta`, or the underlying error.
fn with_related_task(task_id: &str, answer: Served) -> Served {
    let mut value = answer?;
    if let Some(obj) = value.as_object_mut() {
        let meta = obj
            .entry("_meta")
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
        if let Some(meta) = meta.as_object_mut() {
            meta.insert(
                mcp_types::meta::keys::RELATED_TASK.into(),
                serde_json::json!({ "taskId": task_id }),
            );
        }
    }
    Ok(value)
}

impl Connection {
    /// Anchors the wall clock of served tasks' timestamps: the instant `now`
    /// stands for the wall time `wall`. Call once, with both read together.
    pub fn set_wall_clock(&mut self, now: Instant, wall: SystemTime) {
        self.promote_quick();
        self.served.set_wall_clock(now, wall);
    }

    /// The handler of served task `task_id` finished with `result`: the
    /// task ends (`completed`, or `failed` for an error), the server gets
    /// `notifications/tasks/status`, and held `tasks/result` requests are
    /// answered. Returns `false` when the task had already ended
    /// (cancelled, expired, or its session gone): the answer is dropped.
    pub fn finish_served_task(&mut self, now: Instant, task_id: &str, result: Served) -> bool {
        self.promote_quick();
        match self.served.finish(now, task_id, result) {
            Some(ended) => {
                self.served_task_ended(ended);
                true
            }
            None => false,
        }
    }

    /// Serves `request` as a callback task, or from the task store;
    /// `Err(request)` when it is neither, for the ordinary path.
    pub(super) fn serve_as_task(
        &mut self,
        now: Instant,
        id: &RequestId,
        request: ServerRequest,
    ) -> Result<(), ServerRequest> {
        let features = &self.config.features;
        let serving = features.task_sampling || features.task_elicitation;
        let Some(options) = self.config.served_tasks.as_ref().filter(|_| serving) else {
            return Err(request);
        };
        if self.era != Some(Era::Legacy) {
            return Err(request);
        }
        let declared = match &request {
            ServerRequest::GetTask(_)
            | ServerRequest::GetTaskPayload(_)
            | ServerRequest::ListTasks(_)
            | ServerRequest::CancelTask(_) => {
                self.serve_task_method(now, id, &request);
                return Ok(());
            }
            ServerRequest::CreateMessage(_) => features.task_sampling,
            ServerRequest::Elicit(_) => features.task_elicitation,
            _ => false,
        };
        // An undeclared request type ignores `params.task`.
        let Some(ttl) = task_requested(request.raw()).filter(|_| declared) else {
            return Err(request);
        };
        let answer = match self.served.create(now, options, ttl) {
            Ok(task) => {
                let task_id = task.task_id.clone();
                let answer = encode(&CreateTaskResult::new(task));
                self.events
                    .push_back(Event::ServedTaskStarted { task_id, request });
                self.arm_served_expiry();
                answer
            }
            Err(e) => Err(e.to_error_object()),
        };
        let _ = self.send_response(id.clone(), answer);
        Ok(())
    }

    fn serve_task_method(&mut self, now: Instant, id: &RequestId, request: &ServerRequest) {
        let raw = request.raw();
        let store = &mut self.served;
        let answer = match request {
            ServerRequest::ListTasks(_) => {
                #[derive(serde::Deserialize)]
                struct Page {
                    cursor: Option<String>,
                }
                serde_json::from_str::<Page>(raw.map_or("{}", RawValue::get))
                    .map_err(|_| ServedTaskError::InvalidCursor)
                    .and_then(|p| store.list(p.cursor.as_deref()))
                    .map_err(|e| e.to_error_object())
                    .and_then(|page| encode(&page))
            }
            ServerRequest::GetTask(_) => task_id_of(raw)
                .and_then(|t| store.get(&t))
                .map_err(|e| e.to_error_object())
                .and_then(|task| encode(&task)),
            ServerRequest::GetTaskPayload(_) => {
                match task_id_of(raw).and_then(|t| Ok((store.wait(&t, id.clone())?, t))) {
                    Ok((Some(answer), t)) => with_related_task(&t, answer),
                    Ok((None, _)) => return, // held until the task ends
                    Err(e) => Err(e.to_error_object()),
                }
            }
            _ => match task_id_of(raw).and_then(|t| store.cancel(now, &t)) {
                Ok(ended) => {
                    let task = encode(&ended.task);
                    self.events.push_back(Event::ServedTaskStopped {
                        task_id: ended.task.task_id.clone(),
                    });
                    self.served_task_ended(ended);
                    task
                }
                Err(e) => Err(e.to_error_object()),
            },
        };
        let _ = self.send_response(id.clone(), answer);
    }

    /// Sends the status notification and answers the held `tasks/result`s.
    fn served_task_ended(&mut self, ended: Ended) {
        let Ended {
            task,
            waiters,
            answer,
        } = ended;
        if let Ok(params) = serde_json::to_value(&task) {
            self.send_notification(NotificationKind::LegacyTaskStatus.method(), Some(params));
        }
        let answer = with_related_task(&task.task_id, answer);
        for waiter in waiters {
            let _ = self.send_response(waiter, answer.clone());
        }
    }

    /// `Timer::ServedTaskExpiry`: drops the tasks whose TTL ran out.
    pub(super) fn on_served_expiry(&mut self, now: Instant) {
        for (task_id, running, waiters) in self.served.expire(now) {
            let gone = ServedTaskError::UnknownTask(task_id.clone()).to_error_object();
            for waiter in waiters {
                let _ = self.send_response(waiter, Err(gone.clone()));
            }
            if running {
                self.events.push_back(Event::ServedTaskStopped { task_id });
            }
        }
        self.arm_served_expiry();
    }

    fn arm_served_expiry(&mut self) {
        match self.served.next_expiry() {
            Some(at) => self.timers.set(Timer::ServedTaskExpiry, at),
            None => self.timers.cancel(&Timer::ServedTaskExpiry),
        }
    }

    /// The session ended (or the connection closed): every served task
    /// goes, and running handlers are stopped.
    pub(super) fn forget_served_tasks(&mut self) {
        for task_id in self.served.clear() {
            self.events.push_back(Event::ServedTaskStopped { task_id });
        }
        self.timers.cancel(&Timer::ServedTaskExpiry);
    }
}
