//! Which pending signals an optimisation uses (`skill-optimizer.md`, Step 2): those of the
//! last `days` days, at most `max`, `corrected` before `friction`, newest first within a
//! type. Signals recorded against another version of SKILL.md are marked stale, not dropped:
//! the triage step decides whether they still apply.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use chrono::{DateTime, Duration, Utc};

use super::schema::{Signal, SignalType};

/// Defaults of `skill-optimizer.md` (step 2).
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
    let mut selector = Selector::new(now, days, max);
    for signal in signals {
        selector.push(signal.clone());
    }
    selector.finish(current_hash)
}

/// The selection as signals stream past: it keeps the best `max` seen so far and counts the
/// rest, so memory depends on `max`, not on the size of the store.
#[derive(Debug)]
pub struct Selector {
    since: DateTime<Utc>,
    max: usize,
    /// The kept signals; the top of the heap is the one to drop first.
    kept: BinaryHeap<Ranked>,
    seen: usize,
    left_out: usize,
    too_old: usize,
}

#[derive(Debug)]
struct Ranked {
    /// (type rank, newest first, file order): smaller sorts first in the selection.
    key: (u8, Reverse<DateTime<Utc>>, usize),
    signal: Signal,
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Ranked {}
impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key.cmp(&other.key)
    }
}

impl Selector {
    pub fn new(now: DateTime<Utc>, days: u32, max: usize) -> Selector {
        Selector {
            // A window reaching past the calendar's start takes everything.
            since: Duration::try_days(i64::from(days))
                .and_then(|d| now.checked_sub_signed(d))
                .unwrap_or(DateTime::<Utc>::MIN_UTC),
            max,
            kept: BinaryHeap::with_capacity(max.min(1024) + 1),
            seen: 0,
            left_out: 0,
            too_old: 0,
        }
    }

    /// Offers the next signal of the store, in file order.
    pub fn push(&mut self, signal: Signal) {
        self.seen += 1;
        let time = match signal.time() {
            Some(t) if t >= self.since => t,
            _ => {
                self.too_old += 1;
                return;
            }
        };
        let rank = match signal.kind {
            SignalType::Corrected => 0,
            SignalType::Friction => 1,
        };
        self.kept.push(Ranked {
            key: (rank, Reverse(time), self.seen),
            signal,
        });
        if self.kept.len() > self.max {
            self.kept.pop();
            self.left_out += 1;
        }
    }

    /// The selection; `current_hash` is the sha256 of SKILL.md today.
    pub fn finish(self, current_hash: &str) -> Selection {
        let selected: Vec<Signal> = self
            .kept
            .into_sorted_vec()
            .into_iter()
            .map(|r| r.signal)
            .collect();
        let stale = selected
            .iter()
            .filter(|s| !s.skill_version_hash.eq_ignore_ascii_case(current_hash))
            .map(|s| s.signal_id.clone())
            .collect();
        Selection {
            selected,
            stale,
            left_out: self.left_out,
            too_old: self.too_old,
        }
    }
}

/// Why a `--since` value is not a time.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a date (give 2026-11-01, an RFC 3339 time, or an age such as 12h, 7d, 2w)")]
pub struct SinceError(pub String);

/// A lower bound on signal times: a date (midnight UTC), an RFC 3339 time, or an age before
/// `now` in hours, days or weeks (`12h`, `7d`, `2w`).
pub fn parse_since(text: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>, SinceError> {
    let err = || SinceError(text.to_owned());
    let t = text.trim();
    if let Ok(time) = DateTime::parse_from_rfc3339(t) {
        return Ok(time.with_timezone(&Utc));
    }
    if let Ok(date) = chrono::NaiveDate::parse_from_str(t, "%Y-%m-%d") {
        return Ok(date.and_hms_opt(0, 0, 0).ok_or_else(err)?.and_utc());
    }
    let split = t
        .len()
        .checked_sub(1)
        .filter(|&i| t.is_char_boundary(i))
        .ok_or_else(err)?;
    let (number, unit) = t.split_at(split);
    let n: i64 = number.parse().ok().filter(|n| *n >= 0).ok_or_else(err)?;
    let age = match unit {
        "h" => Duration::try_hours(n),
        "d" => Duration::try_days(n),
        "w" => Duration::try_weeks(n),
        _ => None,
    }
    .ok_or_else(err)?;
    now.checked_sub_signed(age).ok_or_else(err)
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
    fn since_takes_dates_times_and_ages() {
        let t = |s: &str| parse_since(s, now()).map(|t| t.to_rfc3339());
        assert_eq!(t("2026-11-01").unwrap(), "2026-11-01T00:00:00+00:00");
        assert_eq!(
            t("2026-11-01T10:00:00+02:00").unwrap(),
            "2026-11-01T08:00:00+00:00"
        );
        assert_eq!(t("7d").unwrap(), "2026-11-23T12:00:00+00:00");
        assert_eq!(t("12h").unwrap(), "2026-11-30T00:00:00+00:00");
        assert_eq!(t("2w").unwrap(), "2026-11-16T12:00:00+00:00");
        assert_eq!(t(" 0d ").unwrap(), "2026-11-30T12:00:00+00:00");
        for bad in [
            "",
            "d",
            "-3d",
            "3y",
            "yesterday",
            "2026-13-01",
            "99999999999999999999d",
            "9223372036854775807w",
            "é",
            "3é",
        ] {
            assert!(t(bad).is_err(), "{bad:?}");
        }
        assert!(t("yesterday")
            .unwrap_err()
            .to_string()
            .contains("'yesterday'"));
    }

    #[test]
    fn a_huge_window_takes_everything_instead_of_overflowing() {
        let h = "a".repeat(64);
        let signals = vec![at(10_000, SignalType::Friction, "ancient", &h)];
        let s = select(&signals, now(), u32::MAX, 20, &h);
        assert_eq!(s.selected.len(), 1);
        assert_eq!(s.too_old, 0);
    }

    #[test]
    fn streaming_selection_equals_sorting_everything() {
        // Many signals with ties in time: the bounded heap must keep exactly what a full sort
        // would, in the same order.
        let h = "a".repeat(64);
        let signals: Vec<Signal> = (0..200)
            .map(|i| {
                let kind = if i % 3 == 0 {
                    SignalType::Corrected
                } else {
                    SignalType::Friction
                };
                at((i * 7) % 40, kind, &format!("s{i}"), &h)
            })
            .collect();
        for max in [0, 1, 5, 20, 199, 500] {
            let got = select(&signals, now(), 30, max, &h);
            let mut all: Vec<(usize, &Signal)> = signals
                .iter()
                .enumerate()
                .filter(|(_, s)| s.time().unwrap() >= now() - Duration::days(30))
                .collect();
            all.sort_by_key(|(i, s)| (s.kind, Reverse(s.time().unwrap()), *i));
            let want: Vec<&str> = all
                .iter()
                .take(max)
                .map(|(_, s)| s.signal_id.as_str())
                .collect();
            let got_ids: Vec<&str> = got.selected.iter().map(|s| s.signal_id.as_str()).collect();
            assert_eq!(got_ids, want, "max {max}");
            assert_eq!(got.left_out, all.len().saturating_sub(max));
            assert_eq!(got.too_old + all.len(), signals.len());
        }
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
