//! Which pending signals an optimisation uses (`skill-optimizer.md`, Step 2): those of the
//! last `days` days, at most `max`, `corrected` before `friction`, newest first within a
//! type. Signals recorded against another version of SKILL.md are marked stale, not dropped:
//! the triage step decides whether they still apply.

use chrono::{DateTime, Duration, Utc};

use super::schema::{Signal, SignalType};

/// Defaults of the seed.
pub const DEFAULT_DAYS: u32 = 30;
pub const DEFAULT_MAX: usize = 20;

/// The outcome of a selection.
#[derive(Debug, Default)]
pub struct Selection {
    /// The chosen signals, in the order the pipeline reads them.
    pub selected: Vec<Signal>,
    /// Signal ids of the selected ones whose `skill_version_hash` is not the current SKILL.md's.
    pub stale: Vec<String>,
    /// Recent enough but past `max`.
    pub left_out: usize,
    /// Older than `days`, or with a timestamp that does not parse.
    pub too_old: usize,
}

/// Selects from `signals` as of `now`; `current_hash` is the sha256 of SKILL.md today.
pub fn select(
    signals: &[Signal],
    now: DateTime<Utc>,
    days: u32,
    max: usize,
    current_hash: &str,
) -> Selection {
    let since = now - Duration::days(i64::from(days));
    let mut recent: Vec<(&Signal, DateTime<Utc>)> = Vec::new();
    let mut too_old = 0;
    for signal in signals {
        match signal.time() {
            Some(t) if t >= since => recent.push((signal, t)),
            _ => too_old += 1,
        }
    }
    let rank = |kind: SignalType| match kind {
        SignalType::Corrected => 0,
        SignalType::Friction => 1,
    };
    // Stable: signals recorded at the same instant keep their file order.
    recent.sort_by(|(a, ta), (b, tb)| rank(a.kind).cmp(&rank(b.kind)).then(tb.cmp(ta)));
    let left_out = recent.len().saturating_sub(max);
    recent.truncate(max);
    let selected: Vec<Signal> = recent.into_iter().map(|(s, _)| s.clone()).collect();
    let stale = selected
        .iter()
        .filter(|s| !s.skill_version_hash.eq_ignore_ascii_case(current_hash))
        .map(|s| s.signal_id.clone())
        .collect();
    Selection {
        selected,
        stale,
        left_out,
        too_old,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signal::SignalContext;

    const NOW: &str = "2026-11-30T12:00:00Z";

    fn at(days_ago: i64, kind: SignalType, id: &str, hash: &str) -> Signal {
        let now = DateTime::parse_from_rfc3339(NOW)
            .unwrap()
            .with_timezone(&Utc);
        Signal {
            signal_id: id.into(),
            skill: "pdf".into(),
            kind,
            scenario: "s".into(),
            correction: "c".into(),
            friction_detail: "f".into(),
            context: SignalContext::default(),
            skill_version_hash: hash.into(),
            timestamp: (now - Duration::days(days_ago)).to_rfc3339(),
            extra: Default::default(),
        }
    }

    fn now() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(NOW)
            .unwrap()
            .with_timezone(&Utc)
    }

    #[test]
    fn corrected_first_newest_first_within_a_type() {
        let h = "a".repeat(64);
        let signals = vec![
            at(5, SignalType::Friction, "f5", &h),
            at(1, SignalType::Friction, "f1", &h),
            at(9, SignalType::Corrected, "c9", &h),
            at(2, SignalType::Corrected, "c2", &h),
        ];
        let s = select(&signals, now(), 30, 20, &h);
        let ids: Vec<&str> = s.selected.iter().map(|s| s.signal_id.as_str()).collect();
        assert_eq!(ids, ["c2", "c9", "f1", "f5"]);
        assert_eq!((s.left_out, s.too_old), (0, 0));
        assert!(s.stale.is_empty());
    }

    #[test]
    fn window_limit_and_staleness() {
        let h = "a".repeat(64);
        let old = "b".repeat(64);
        let mut signals: Vec<Signal> = (0..25)
            .map(|i| at(i % 10, SignalType::Friction, &format!("f{i}"), &h))
            .collect();
        signals.push(at(31, SignalType::Corrected, "c31", &h));
        signals.push(at(3, SignalType::Corrected, "c3", &old));
        let mut broken = at(1, SignalType::Corrected, "bad-time", &h);
        broken.timestamp = "not a time".into();
        signals.push(broken);
        let s = select(&signals, now(), 30, 20, &h);
        assert_eq!(s.selected.len(), 20);
        assert_eq!(s.selected[0].signal_id, "c3");
        assert_eq!(s.left_out, 6, "25 friction + 1 corrected recent, 20 kept");
        assert_eq!(s.too_old, 2, "31 days old and the unparsable timestamp");
        assert_eq!(s.stale, ["c3"]);
        // A smaller window.
        let s = select(&signals, now(), 2, 100, &h);
        assert!(s
            .selected
            .iter()
            .all(|x| x.time().unwrap() >= now() - Duration::days(2)));
    }
}
