//! Unit tests of the pure poll decision ([`super::decide`]), moved here
//! when it became private: the integration tests drive it through
//! `Connection`'s poll timers.

use std::time::Duration;

use proptest::prelude::*;

use super::*;
use crate::test_clock::origin;
use crate::test_fixtures::task_status as status;

#[test]
fn decide_examples() {
    let now = origin();
    let t = TaskSnapshot::new("t", TaskStatus::Working).with_poll_interval(Duration::from_secs(2));
    assert_eq!(
        decide(&t, now, &PollOptions::default()),
        PollDecision::PollAt(now + Duration::from_secs(2))
    );
    assert_eq!(
        decide(
            &TaskSnapshot::new("t", TaskStatus::Working),
            now,
            &PollOptions::default()
        ),
        PollDecision::PollAt(now + Duration::from_secs(1))
    );
    assert_eq!(
        decide(
            &TaskSnapshot::new("t", TaskStatus::InputRequired),
            now,
            &PollOptions::default()
        ),
        PollDecision::InputRequired
    );
    assert_eq!(
        decide(
            &TaskSnapshot::new("t", TaskStatus::Cancelled),
            now,
            &PollOptions::default()
        ),
        PollDecision::Terminal
    );
    assert_eq!(
        decide(&t, now, &PollOptions::default().with_deadline(now)),
        PollDecision::BudgetExhausted
    );
}

proptest! {
    #[test]
    fn poll_decisions_obey_floor_priority_and_budget(
        st in status(),
        server in proptest::option::of(0u64..10_000),
        caller in proptest::option::of(0u64..10_000),
        budget in proptest::option::of(0u64..20_000),
    ) {
        let now = origin();
        let mut t = TaskSnapshot::new("t", st.clone());
        if let Some(s) = server { t = t.with_poll_interval(Duration::from_millis(s)); }
        let mut o = PollOptions::default();
        if let Some(c) = caller { o = o.with_interval(Duration::from_millis(c)); }
        if let Some(b) = budget { o = o.with_deadline(now + Duration::from_millis(b)); }
        let d = decide(&t, now, &o);
        if st.is_terminal() {
            prop_assert_eq!(d, PollDecision::Terminal);
        } else if st == TaskStatus::InputRequired {
            prop_assert_eq!(d, PollDecision::InputRequired);
        } else if budget == Some(0) {
            prop_assert_eq!(d, PollDecision::BudgetExhausted);
        } else {
            let PollDecision::PollAt(at) = d else { return Err(TestCaseError::fail("expected PollAt")); };
            let want = Duration::from_millis(caller.or(server).unwrap_or(1000)).max(POLL_FLOOR);
            let want = budget.map_or(want, |b| want.min(Duration::from_millis(b)));
            prop_assert_eq!(at, now + want);
            prop_assert!(at > now);
        }
    }
}

#[test]
fn poll_cap_is_a_decision() {
    let now = origin();
    let mut t = TaskSnapshot::new("t", TaskStatus::Working);
    t.polls = 2;
    let capped = PollOptions::default().with_max_polls(2);
    assert_eq!(decide(&t, now, &capped), PollDecision::PollCapReached);
    assert!(matches!(
        decide(&t, now, &PollOptions::default().with_max_polls(3)),
        PollDecision::PollAt(_)
    ));
    t.status = TaskStatus::Completed;
    assert_eq!(decide(&t, now, &capped), PollDecision::Terminal);
    // The budget is checked before the cap.
    t.status = TaskStatus::Working;
    assert_eq!(
        decide(&t, now, &capped.with_deadline(now)),
        PollDecision::BudgetExhausted
    );
}

#[test]
fn task_records_merge_reports_and_keep_the_terminal_state() {
    use super::watch::Observed;
    let mut r = TaskRecord::default();
    let mut w = TaskSnapshot::new("t", TaskStatus::Working);
    assert_eq!(r.observe(w.clone()), Observed::Changed);
    w.polls = 4;
    assert_eq!(r.observe(w.clone()), Observed::Unchanged);
    assert_eq!(r.latest().map(|l| l.polls), Some(4));
    // An older observation (a push) never lowers the poll count.
    w.polls = 1;
    r.observe(w.clone());
    assert_eq!(r.latest().map(|l| l.polls), Some(4));
    let mut msg = w.clone();
    msg.status_message = Some("half way".into());
    assert_eq!(r.observe(msg), Observed::Changed);
    assert_eq!(
        r.observe(TaskSnapshot::new("other", TaskStatus::Failed)),
        Observed::Ignored
    );
    assert_eq!(
        r.observe(TaskSnapshot::new("t", TaskStatus::Cancelled)),
        Observed::Changed
    );
    assert_eq!(
        r.observe(TaskSnapshot::new("t", TaskStatus::Completed)),
        Observed::Ignored
    );
    assert_eq!(
        r.terminal().map(|t| &t.status),
        Some(&TaskStatus::Cancelled)
    );
}

proptest! {
    #[test]
    fn a_terminal_record_never_changes(
        seq in proptest::collection::vec(status(), 1..20),
    ) {
        use super::watch::Observed;
        let mut r = TaskRecord::default();
        let mut terminal: Option<TaskStatus> = None;
        for st in seq {
            let o = r.observe(TaskSnapshot::new("t", st.clone()));
            if terminal.is_some() {
                prop_assert_eq!(o, Observed::Ignored);
            } else if st.is_terminal() {
                terminal = Some(st);
            }
            prop_assert_eq!(r.terminal().map(|s| s.status.clone()), terminal.clone());
        }
    }
}
