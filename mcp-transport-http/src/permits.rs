//! The transport's `max_concurrent_posts` permits: a count taken and given
//! back with one atomic operation each, and a list of the waiters woken
//! when one comes back.
//!
//! A request takes a permit as it starts and gives it back when its reply
//! has arrived: twice per request, on every request, so the common case
//! is lock-free. (tokio's `Semaphore`, used before, takes its waiters'
//! lock on every give-back, about 100 instructions and five atomic
//! operations per request.) Waiting is rare (more requests in flight than
//! the limit): a waiter takes the lock, marks that someone waits, looks
//! at the count once more and leaves its waker; a give-back that finds the
//! mark takes the lock and wakes every waiter, which each try again.
//! There is no queue order: a waiter woken with others may lose the
//! permit to one of them, or to a request that takes one without waiting,
//! and waits again.

use std::future::poll_fn;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Poll, Waker};

/// A number of permits, shared by a transport's requests.
pub(crate) struct Permits {
    free: AtomicUsize,
    /// Set (under the lock) when `waiters` may hold a waker.
    waiting: AtomicBool,
    waiters: Mutex<Vec<Waker>>,
}

/// One permit, given back when dropped.
pub(crate) struct Permit(Arc<Permits>);

impl std::fmt::Debug for Permit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Permit")
    }
}

impl Permits {
    /// `n` permits, all free.
    pub(crate) fn new(n: usize) -> Arc<Self> {
        Arc::new(Permits {
            free: AtomicUsize::new(n),
            waiting: AtomicBool::new(false),
            waiters: Mutex::new(Vec::new()),
        })
    }

    /// A permit if one is free now.
    pub(crate) fn try_acquire(self: &Arc<Self>) -> Option<Permit> {
        self.free
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .ok()
            .map(|_| Permit(Arc::clone(self)))
    }

    /// A permit, once one is free.
    pub(crate) async fn acquire(self: &Arc<Self>) -> Permit {
        poll_fn(|cx| {
            if let Some(permit) = self.try_acquire() {
                return Poll::Ready(permit);
            }
            let mut waiters = self.waiters.lock().unwrap_or_else(PoisonError::into_inner);
            // Marked before the look again: a give-back after that look
            // finds the mark (both are sequentially consistent) and wakes
            // this waker, left before the lock is released.
            self.waiting.store(true, Ordering::SeqCst);
            if let Some(permit) = self.try_acquire() {
                return Poll::Ready(permit);
            }
            if !waiters.iter().any(|w| w.will_wake(cx.waker())) {
                waiters.push(cx.waker().clone());
            }
            Poll::Pending
        })
        .await
    }

    fn release(&self) {
        self.free.fetch_add(1, Ordering::SeqCst);
        if !self.waiting.load(Ordering::SeqCst) {
            return;
        }
        let woken = {
            let mut waiters = self.waiters.lock().unwrap_or_else(PoisonError::into_inner);
            self.waiting.store(false, Ordering::SeqCst);
            std::mem::take(&mut *waiters)
        };
        woken.into_iter().for_each(Waker::wake);
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.0.release();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::Future;
    use std::pin::pin;
    use std::task::Context;

    use std::sync::atomic::AtomicUsize;
    use std::task::Wake;

    struct Count(AtomicUsize);

    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// A waker that counts its wakes.
    fn counting_waker() -> (Waker, Arc<Count>) {
        let count = Arc::new(Count(AtomicUsize::new(0)));
        (Waker::from(count.clone()), count)
    }

    fn wakes(count: &Count) -> usize {
        count.0.load(Ordering::SeqCst)
    }

    #[test]
    fn permits_are_taken_and_given_back() {
        let permits = Permits::new(2);
        let a = permits.try_acquire().expect("free");
        let b = permits.try_acquire().expect("free");
        assert!(permits.try_acquire().is_none(), "both taken");
        drop(a);
        let c = permits.try_acquire().expect("given back");
        drop((b, c));
        assert_eq!(permits.free.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn a_waiter_is_woken_by_a_give_back_and_then_takes_the_permit() {
        let permits = Permits::new(1);
        let held = permits.try_acquire().expect("free");
        let (waker, count) = counting_waker();
        let mut cx = Context::from_waker(&waker);
        let mut first = pin!(permits.acquire());
        let mut second = pin!(permits.acquire());
        assert!(first.as_mut().poll(&mut cx).is_pending());
        assert!(second.as_mut().poll(&mut cx).is_pending());
        assert_eq!(wakes(&count), 0);
        drop(held);
        assert_eq!(wakes(&count), 1, "the waiters' one waker, left once");
        let Poll::Ready(permit) = first.as_mut().poll(&mut cx) else {
            panic!("the permit is free")
        };
        assert!(second.as_mut().poll(&mut cx).is_pending(), "taken again");
        drop(permit);
        assert_eq!(wakes(&count), 2);
        assert!(second.as_mut().poll(&mut cx).is_ready());
    }

    #[test]
    fn permits_given_back_across_threads_are_never_lost() {
        let permits = Permits::new(3);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .expect("runtime");
        runtime.block_on(async {
            let tasks: Vec<_> = (0..8)
                .map(|_| {
                    let permits = permits.clone();
                    tokio::spawn(async move {
                        for _ in 0..2_000 {
                            let permit = permits.acquire().await;
                            tokio::task::yield_now().await;
                            drop(permit);
                        }
                    })
                })
                .collect();
            for task in tasks {
                task.await.expect("task");
            }
        });
        assert_eq!(permits.free.load(Ordering::SeqCst), 3);
    }
}
