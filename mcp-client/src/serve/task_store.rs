//! The store of served callback tasks: creation (ids, TTL, the live cap),
//! `tasks/get`, `tasks/list` paging, held `tasks/result` requests,
//! cancellation and expiry. Pure state; the driver (`served_serve.rs`)
//! does the I/O.

use std::collections::HashMap;
use std::time::{Duration, Instant, SystemTime};

use futures::future::AbortHandle;
use mcp_types::ErrorCode;
use mcp_types::RequestId;
use mcp_types::jsonrpc::ErrorObject;
use mcp_types::tasks::TaskStatus;
use mcp_types::tasks::legacy::{ListTasksResult, Task};
use ring::rand::SecureRandom;

use crate::handlers::Served;
use crate::serve::progress::ProgressReporter;
use crate::serve::tasks::{ServedTaskError, ServedTaskOptions, iso8601};

/// Tasks listed per `tasks/list` page.
const PAGE_SIZE: usize = 50;

/// One served task.
struct Entry {
    seq: u64,
    task: Task,
    expires: Instant,
    outcome: Option<Served>,
    waiters: Vec<RequestId>,
    abort: Option<AbortHandle>,
    reporter: Option<ProgressReporter>,
}

/// What ending a task releases: the new task state and the held
/// `tasks/result` requests to answer with `answer`.
pub(crate) struct Ended {
    pub(crate) task: Task,
    pub(crate) waiters: Vec<RequestId>,
    pub(crate) answer: Served,
}

/// The tasks one connection serves.
pub(crate) struct Store {
    next_seq: u64,
    rng: ring::rand::SystemRandom,
    tasks: HashMap<String, Entry>,
}

impl Default for Store {
    fn default() -> Self {
        Store {
            next_seq: 1,
            rng: ring::rand::SystemRandom::new(),
            tasks: HashMap::new(),
        }
    }
}

impl Store {
    /// Creates a `working` task; `Err` when the store is full.
    pub(crate) fn create(
        &mut self,
        now: Instant,
        options: &ServedTaskOptions,
        requested_ttl: Option<u64>,
    ) -> Result<(Task, Duration), ServedTaskError> {
        self.expire_due(now);
        if self.tasks.len() >= options.max_tasks() {
            return Err(ServedTaskError::TooManyTasks(options.max_tasks()));
        }
        let mut bytes = [0u8; 16];
        self.rng
            .fill(&mut bytes)
            .map_err(|_| ServedTaskError::NoRandomness)?;
        let seq = self.next_seq;
        self.next_seq += 1;
        let random: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let id = format!("ct{seq}-{random}");
        let ttl = options.granted_ttl(requested_ttl);
        let millis = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX);
        let mut task = Task::new(
            id.clone(),
            TaskStatus::Working,
            iso8601(SystemTime::now()),
            Some(millis),
        );
        task.poll_interval = options
            .poll_interval()
            .map(|p| u64::try_from(p.as_millis()).unwrap_or(u64::MAX));
        let entry = Entry {
            seq,
            task: task.clone(),
            expires: now + ttl,
            outcome: None,
            waiters: Vec::new(),
            abort: None,
            reporter: None,
        };
        self.tasks.insert(id, entry);
        Ok((task, ttl))
    }

    /// Records how to stop a task's handler and spend its progress token.
    pub(crate) fn attach(
        &mut self,
        id: &str,
        abort: AbortHandle,
        reporter: Option<ProgressReporter>,
    ) {
        if let Some(e) = self.tasks.get_mut(id) {
            e.abort = Some(abort);
            e.reporter = reporter;
        }
    }

    fn entry(&self, id: &str) -> Result<&Entry, ServedTaskError> {
        self.tasks
            .get(id)
            .ok_or_else(|| ServedTaskError::UnknownTask(id.to_owned()))
    }

    /// `tasks/get`.
    pub(crate) fn get(&self, id: &str) -> Result<Task, ServedTaskError> {
        self.entry(id).map(|e| e.task.clone())
    }

    /// `tasks/list`: pages in creation order; the cursor is the sequence
    /// number of the last task of the previous page.
    pub(crate) fn list(&self, cursor: Option<&str>) -> Result<ListTasksResult, ServedTaskError> {
        let after = match cursor {
            Some(c) => c
                .parse::<u64>()
                .map_err(|_| ServedTaskError::InvalidCursor)?,
            None => 0,
        };
        if after >= self.next_seq {
            return Err(ServedTaskError::InvalidCursor);
        }
        let mut entries: Vec<&Entry> = self.tasks.values().filter(|e| e.seq > after).collect();
        entries.sort_by_key(|e| e.seq);
        let more = entries.len() > PAGE_SIZE;
        entries.truncate(PAGE_SIZE);
        let mut page = ListTasksResult::new(entries.iter().map(|e| e.task.clone()).collect());
        if more && let Some(last) = entries.last() {
            page.next_cursor = Some(last.seq.to_string());
        }
        Ok(page)
    }

    /// `tasks/result`: the answer when terminal, else `None` and the
    /// request is held until the task ends.
    pub(crate) fn wait(
        &mut self,
        id: &str,
        request: RequestId,
    ) -> Result<Option<Served>, ServedTaskError> {
        let e = self
            .tasks
            .get_mut(id)
            .ok_or_else(|| ServedTaskError::UnknownTask(id.to_owned()))?;
        match &e.outcome {
            Some(answer) => Ok(Some(answer.clone())),
            None => {
                e.waiters.push(request);
                Ok(None)
            }
        }
    }

    /// The handler finished; `None` when the task had ended already.
    pub(crate) fn finish(&mut self, id: &str, served: Served) -> Option<Ended> {
        let status = if served.is_ok() {
            TaskStatus::Completed
        } else {
            TaskStatus::Failed
        };
        self.end(id, status, None, served)
    }

    /// `tasks/cancel`: stops the handler and marks the task cancelled.
    pub(crate) fn cancel(&mut self, id: &str) -> Result<Ended, ServedTaskError> {
        let e = self.entry(id)?;
        if e.task.status.is_terminal() {
            return Err(ServedTaskError::AlreadyTerminal(id.to_owned()));
        }
        let answer = Err(ErrorObject::new(
            ErrorCode::INTERNAL_ERROR,
            format!("task {id} was cancelled"),
        ));
        let message = Some("cancelled by the requestor".to_owned());
        self.end(id, TaskStatus::Cancelled, message, answer)
            .ok_or_else(|| ServedTaskError::UnknownTask(id.to_owned()))
    }

    fn end(
        &mut self,
        id: &str,
        status: TaskStatus,
        message: Option<String>,
        answer: Served,
    ) -> Option<Ended> {
        let e = self.tasks.get_mut(id)?;
        if e.task.status.is_terminal() {
            return None;
        }
        if let Some(abort) = e.abort.take() {
            abort.abort();
        }
        if let Some(r) = e.reporter.take() {
            r.finish();
        }
        e.task.status = status;
        e.task.status_message = message;
        e.task.last_updated_at = iso8601(SystemTime::now());
        e.outcome = Some(answer.clone());
        Some(Ended {
            task: e.task.clone(),
            waiters: std::mem::take(&mut e.waiters),
            answer,
        })
    }

    /// Drops a task whose TTL ran out (stopping its handler); returns the
    /// held `tasks/result` requests to refuse.
    pub(crate) fn expire(&mut self, id: &str, now: Instant) -> Vec<RequestId> {
        match self.tasks.get(id) {
            Some(e) if e.expires <= now => {}
            _ => return Vec::new(),
        }
        self.remove(id)
    }

    fn remove(&mut self, id: &str) -> Vec<RequestId> {
        let Some(mut e) = self.tasks.remove(id) else {
            return Vec::new();
        };
        if let Some(abort) = e.abort.take() {
            abort.abort();
        }
        if let Some(r) = e.reporter.take() {
            r.finish();
        }
        e.waiters
    }

    /// Drops every task, stopping the handlers still running.
    pub(crate) fn clear(&mut self) {
        let ids: Vec<String> = self.tasks.keys().cloned().collect();
        for id in ids {
            self.remove(&id);
        }
    }

    /// Drops every expired task that nobody waits on (a safety net: each
    /// task also has its own expiry timer).
    fn expire_due(&mut self, now: Instant) {
        let due: Vec<String> = self
            .tasks
            .iter()
            .filter(|(_, e)| e.expires <= now && e.waiters.is_empty())
            .map(|(id, _)| id.clone())
            .collect();
        for id in due {
            self.remove(&id);
        }
    }

    /// The tasks alive.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.tasks.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok() -> Served {
        Ok(serde_json::json!({"action": "decline"}))
    }

    #[test]
    fn ids_are_unique_and_random_and_ttl_is_capped() {
        let mut store = Store::default();
        let now = Instant::now();
        let options = ServedTaskOptions::new().with_max_ttl(Duration::from_secs(10));
        let (a, ttl) = store.create(now, &options, Some(60_000)).unwrap();
        assert_eq!(ttl, Duration::from_secs(10));
        assert_eq!(a.ttl, Some(10_000));
        assert_eq!(a.status, TaskStatus::Working);
        let (b, _) = store.create(now, &options, None).unwrap();
        assert_ne!(a.task_id, b.task_id);
        assert!(a.task_id.starts_with("ct1-") && b.task_id.starts_with("ct2-"));
        assert_eq!(a.task_id.len(), "ct1-".len() + 32);
        assert_ne!(a.task_id[4..], b.task_id[4..]);
    }

    #[test]
    fn the_store_is_capped_and_expired_tasks_free_their_slot() {
        let mut store = Store::default();
        let now = Instant::now();
        let options = ServedTaskOptions::new().with_max_tasks(2);
        let (a, ttl) = store.create(now, &options, Some(1_000)).unwrap();
        store.create(now, &options, Some(5_000)).unwrap();
        assert_eq!(
            store.create(now, &options, None).map(|_| ()),
            Err(ServedTaskError::TooManyTasks(2))
        );
        assert!(store.expire(&a.task_id, now).is_empty());
        assert_eq!(store.len(), 2, "not due yet");
        store.create(now + ttl, &options, None).unwrap();
        assert_eq!(store.len(), 2);
        assert!(matches!(
            store.get(&a.task_id),
            Err(ServedTaskError::UnknownTask(_))
        ));
    }

    #[test]
    fn results_wait_until_terminal_and_stay_until_expiry() {
        let mut store = Store::default();
        let now = Instant::now();
        let options = ServedTaskOptions::new();
        let (t, ttl) = store.create(now, &options, Some(1_000)).unwrap();
        let id = t.task_id.as_str();
        assert_eq!(store.wait(id, RequestId::Number(1)), Ok(None));
        let ended = store.finish(id, ok()).unwrap();
        assert_eq!(ended.task.status, TaskStatus::Completed);
        assert_eq!(ended.waiters, vec![RequestId::Number(1)]);
        assert!(
            store.finish(id, ok()).is_none(),
            "terminal states never change"
        );
        assert_eq!(store.wait(id, RequestId::Number(2)), Ok(Some(ok())));
        assert_eq!(
            store.cancel(id).err(),
            Some(ServedTaskError::AlreadyTerminal(id.into()))
        );
        assert!(store.expire(id, now + ttl).is_empty());
        assert!(store.get(id).is_err());
    }

    #[test]
    fn cancel_ends_a_working_task_and_answers_waiters() {
        let mut store = Store::default();
        let now = Instant::now();
        let (t, _) = store.create(now, &ServedTaskOptions::new(), None).unwrap();
        store.wait(&t.task_id, RequestId::Number(3)).unwrap();
        let ended = store.cancel(&t.task_id).unwrap();
        assert_eq!(ended.task.status, TaskStatus::Cancelled);
        assert_eq!(ended.waiters.len(), 1);
        assert!(ended.answer.is_err());
        assert!(store.finish(&t.task_id, ok()).is_none());
        store.clear();
        assert_eq!(store.len(), 0);
    }

    #[test]
    fn listing_pages_in_creation_order() {
        let mut store = Store::default();
        let now = Instant::now();
        let options = ServedTaskOptions::new().with_max_tasks(200);
        let ids: Vec<String> = (0..120)
            .map(|_| store.create(now, &options, None).unwrap().0.task_id)
            .collect();
        let first = store.list(None).unwrap();
        assert_eq!(first.tasks.len(), PAGE_SIZE);
        assert_eq!(first.tasks[0].task_id, ids[0]);
        let cursor = first.next_cursor.clone().unwrap();
        let second = store.list(Some(cursor.as_str())).unwrap();
        assert_eq!(second.tasks[0].task_id, ids[PAGE_SIZE]);
        let third = store.list(second.next_cursor.as_deref()).unwrap();
        assert_eq!(third.tasks.len(), 20);
        assert!(third.next_cursor.is_none());
        assert_eq!(
            store.list(Some("nope")).err(),
            Some(ServedTaskError::InvalidCursor)
        );
        assert_eq!(
            store.list(Some("9999")).err(),
            Some(ServedTaskError::InvalidCursor)
        );
    }
}
