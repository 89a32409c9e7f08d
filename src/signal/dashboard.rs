//! The signal dashboard of `skill-optimizer.md`: per skill, how many `corrected` and
//! `friction` signals wait and when the latest came, ordered by what most needs attention.
//! Stores are streamed, so a huge one costs time, not memory.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::schema::SignalType;
use super::store::{self, BadLine, Line, StoreError};

/// How many malformed lines of one store are kept for the report; the rest are counted.
pub const MAX_BAD_KEPT: usize = 20;

/// Friction signals from which a row is highlighted: the agent keeps stumbling.
pub const FRICTION_HIGHLIGHT: usize = 2;

/// Keeps the first [`MAX_BAD_KEPT`] malformed lines of a store and counts them all.
pub fn note_bad(kept: &mut Vec<BadLine>, count: &mut usize, bad: BadLine) {
    *count += 1;
    if kept.len() < MAX_BAD_KEPT {
        kept.push(bad);
    }
}

/// What one store holds, counted.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Tally {
    pub corrected: usize,
    pub friction: usize,
    pub latest: Option<DateTime<Utc>>,
    /// Malformed lines: the first [`MAX_BAD_KEPT`] of them.
    pub bad: Vec<BadLine>,
    pub bad_count: usize,
}

impl Tally {
    pub fn total(&self) -> usize {
        self.corrected + self.friction
    }

    /// A user correction says more than a stumble: it counts twice.
    pub fn score(&self) -> usize {
        2 * self.corrected + self.friction
    }

    pub fn highlighted(&self) -> bool {
        self.friction >= FRICTION_HIGHLIGHT
    }
}

/// Counts the signals of the store at `path` (a missing store counts nothing).
pub fn tally(path: &Path) -> Result<Tally, StoreError> {
    let mut t = Tally::default();
    store::stream(path, |entry| match entry {
        Line::Signal(_, signal) => {
            match signal.kind {
                SignalType::Corrected => t.corrected += 1,
                SignalType::Friction => t.friction += 1,
            }
            if let Some(time) = signal.time() {
                t.latest = t.latest.max(Some(time));
            }
        }
        Line::Bad(bad) => note_bad(&mut t.bad, &mut t.bad_count, bad),
    })?;
    Ok(t)
}

/// One line of the dashboard.
#[derive(Debug, Clone)]
pub struct Row {
    pub skill: String,
    pub dir: PathBuf,
    /// Its SKILL.md is gone; the signals stay behind.
    pub deleted: bool,
    pub tally: Tally,
}

/// Most in need first: skills with the most (weighted) signals, then the most recent
/// activity, then by name; deleted skills last, since they can no longer be optimised.
pub fn order(rows: &mut [Row]) {
    rows.sort_by(|a, b| {
        a.deleted
            .cmp(&b.deleted)
            .then(b.tally.score().cmp(&a.tally.score()))
            .then(b.tally.latest.cmp(&a.tally.latest))
            .then(a.skill.cmp(&b.skill))
            .then(a.dir.cmp(&b.dir))
    });
}

/// `then` as people say it from `now`: "just now", "5 minutes ago", "3 hours ago",
/// "2 days ago"; a time ahead of the clock is "in the future".
pub fn ago(then: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let seconds = (now - then).num_seconds();
    if seconds < -60 {
        return "in the future".into();
    }
    let plural = |n: i64, unit: &str| {
        if n == 1 {
            format!("1 {unit} ago")
        } else {
            format!("{n} {unit}s ago")
        }
    };
    match seconds {
        ..60 => "just now".into(),
        60..3600 => plural(seconds / 60, "minute"),
        3600..86_400 => plural(seconds / 3600, "hour"),
        _ => plural(seconds / 86_400, "day"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;

    fn now() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-11-30T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc)
    }

    #[test]
    fn ages_read_like_the_seed() {
        let n = now();
        assert_eq!(ago(n, n), "just now");
        assert_eq!(ago(n + Duration::seconds(30), n), "just now");
        assert_eq!(ago(n + Duration::hours(2), n), "in the future");
        assert_eq!(ago(n - Duration::seconds(61), n), "1 minute ago");
        assert_eq!(ago(n - Duration::minutes(59), n), "59 minutes ago");
        assert_eq!(ago(n - Duration::hours(3), n), "3 hours ago");
        assert_eq!(ago(n - Duration::days(1), n), "1 day ago");
        assert_eq!(
            ago(n - Duration::days(2) - Duration::hours(5), n),
            "2 days ago"
        );
        assert_eq!(ago(n - Duration::days(400), n), "400 days ago");
    }

    fn row(skill: &str, corrected: usize, friction: usize, days_ago: i64, deleted: bool) -> Row {
        Row {
            skill: skill.into(),
            dir: PathBuf::from(skill),
            deleted,
            tally: Tally {
                corrected,
                friction,
                latest: Some(now() - Duration::days(days_ago)),
                ..Tally::default()
            },
        }
    }

    #[test]
    fn the_neediest_skill_comes_first_and_deleted_ones_last() {
        let mut rows = vec![
            row("gone", 9, 9, 0, true),
            row("quiet", 0, 1, 5, false),
            row("stumbles", 0, 3, 1, false),
            row("corrected", 2, 0, 9, false),
            row("recent-tie", 1, 1, 1, false),
            row("older-tie", 1, 1, 4, false),
        ];
        order(&mut rows);
        let names: Vec<&str> = rows.iter().map(|r| r.skill.as_str()).collect();
        assert_eq!(
            names,
            [
                "corrected",
                "recent-tie",
                "stumbles",
                "older-tie",
                "quiet",
                "gone"
            ]
        );
        assert!(rows[2].tally.highlighted());
        assert!(!rows[4].tally.highlighted());
    }

    #[test]
    fn tally_streams_counts_and_caps_bad_lines() {
        let t = tempfile::tempdir().unwrap();
        let path = t.path().join("signal.json");
        let good = |kind: &str, day: u32| {
            format!(
                r#"{{"signal_id":"i","skill":"s","type":"{kind}","scenario":"x","correction":"c","friction_detail":"f","skill_version_hash":"{}","timestamp":"2026-11-{day:02}T00:00:00Z"}}"#,
                "a".repeat(64)
            )
        };
        let mut text = String::new();
        text.push_str(&good("corrected", 3));
        text.push('\n');
        for _ in 0..30 {
            text.push_str("garbage\n");
        }
        text.push_str(&good("friction", 20));
        text.push('\n');
        text.push_str(&good("friction", 7));
        text.push('\n');
        std::fs::write(&path, &text).unwrap();
        let tally = tally(&path).unwrap();
        assert_eq!((tally.corrected, tally.friction), (1, 2));
        assert_eq!(tally.bad_count, 30);
        assert_eq!(tally.bad.len(), MAX_BAD_KEPT);
        assert_eq!(tally.bad[0].line, 2);
        assert_eq!(
            tally.latest.unwrap().to_rfc3339(),
            "2026-11-20T00:00:00+00:00"
        );
        assert_eq!(
            super::tally(&t.path().join("missing")).unwrap(),
            Tally::default()
        );
    }
}
