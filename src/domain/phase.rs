//! A challenge's submission phase: when uploads open and close. Times are kept in UTC and shown
//! with their time zone ("2026-11-25 10:00 UTC"), so nobody has to guess whose midnight it is.

use chrono::{DateTime, NaiveDateTime, Utc};

/// The open/close times of a challenge or a split; `None` = no bound on that side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Phase {
    pub opens_at: Option<DateTime<Utc>>,
    pub closes_at: Option<DateTime<Utc>>,
}

/// Where `now` falls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PhaseState {
    NotYetOpen,
    Open,
    Closed,
}

/// A time as every page and message shows it.
pub fn time_text(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M UTC").to_string()
}

/// A time as the organizer's `datetime-local` inputs take it (UTC, to the minute).
pub fn input_text(t: Option<DateTime<Utc>>) -> String {
    t.map(|t| t.format("%Y-%m-%dT%H:%M").to_string())
        .unwrap_or_default()
}

/// What is left until `then`, in the two largest units: "2 days 3 hours", "5 minutes".
pub fn remaining_text(now: DateTime<Utc>, then: DateTime<Utc>) -> String {
    let secs = (then - now).num_seconds().max(0);
    let plural = |n: i64, unit: &str| format!("{n} {unit}{}", if n == 1 { "" } else { "s" });
    let (d, h, m) = (secs / 86_400, secs % 86_400 / 3_600, secs % 3_600 / 60);
    if d > 0 {
        format!("{} {}", plural(d, "day"), plural(h, "hour"))
    } else if h > 0 {
        format!("{} {}", plural(h, "hour"), plural(m, "minute"))
    } else if m > 0 {
        plural(m, "minute")
    } else {
        "less than a minute".to_string()
    }
}

/// Parses an organizer's time: empty = none; `YYYY-MM-DDTHH:MM[:SS]` (a `datetime-local` input,
/// read as UTC), the same with a space, or RFC 3339 with an offset.
pub fn parse_time(s: &str) -> Result<Option<DateTime<Utc>>, String> {
    let t = s.trim();
    if t.is_empty() {
        return Ok(None);
    }
    if let Ok(d) = DateTime::parse_from_rfc3339(t) {
        return Ok(Some(d.with_timezone(&Utc)));
    }
    let plain = t.trim_end_matches(" UTC").replace(' ', "T");
    ["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S"]
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(&plain, f).ok())
        .map(|n| Some(n.and_utc()))
        .ok_or_else(|| format!("{t:?} is not a time; write it as YYYY-MM-DD HH:MM (UTC)"))
}

impl Phase {
    /// The phase an organizer typed (each bound as [`parse_time`] reads it, empty = none); errors
    /// name the bound ("opens: ...", "closes: ...").
    pub fn parse(opens_at: &str, closes_at: &str) -> Result<Phase, String> {
        let opens = parse_time(opens_at).map_err(|e| format!("opens: {e}"))?;
        let closes = parse_time(closes_at).map_err(|e| format!("closes: {e}"))?;
        Phase::new(opens, closes)
    }

    /// Both bounds, refused when the close is not after the open.
    pub fn new(
        opens_at: Option<DateTime<Utc>>,
        closes_at: Option<DateTime<Utc>>,
    ) -> Result<Phase, String> {
        if let (Some(o), Some(c)) = (opens_at, closes_at) {
            if c <= o {
                return Err(format!(
                    "the close ({}) must come after the open ({})",
                    time_text(c),
                    time_text(o)
                ));
            }
        }
        Ok(Phase {
            opens_at,
            closes_at,
        })
    }

    pub fn state(&self, now: DateTime<Utc>) -> PhaseState {
        match (self.opens_at, self.closes_at) {
            (Some(o), _) if now < o => PhaseState::NotYetOpen,
            (_, Some(c)) if now >= c => PhaseState::Closed,
            _ => PhaseState::Open,
        }
    }

    /// Why an upload at `now` is refused, or `None` when submissions are open.
    pub fn refusal(&self, now: DateTime<Utc>) -> Option<String> {
        match self.state(now) {
            PhaseState::NotYetOpen => self.opens_at.map(|o| {
                format!(
                    "submissions are not open yet: they open at {} (in {})",
                    time_text(o),
                    remaining_text(now, o)
                )
            }),
            PhaseState::Closed => self
                .closes_at
                .map(|c| format!("submissions closed at {}", time_text(c))),
            PhaseState::Open => None,
        }
    }

    /// One line for the challenge and submit pages, or `None` when there are no bounds.
    pub fn summary(&self, now: DateTime<Utc>) -> Option<String> {
        match (self.state(now), self.opens_at, self.closes_at) {
            (_, None, None) => None,
            (PhaseState::NotYetOpen, Some(o), close) => Some(format!(
                "Submissions open at {} (in {}){}.",
                time_text(o),
                remaining_text(now, o),
                close
                    .map(|c| format!(" and close at {}", time_text(c)))
                    .unwrap_or_default()
            )),
            (PhaseState::Closed, _, Some(c)) => {
                Some(format!("Submissions closed at {}.", time_text(c)))
            }
            (_, _, Some(c)) => Some(format!(
                "Submissions are open until {} ({} left).",
                time_text(c),
                remaining_text(now, c)
            )),
            (_, Some(o), None) => Some(format!("Submissions are open (since {}).", time_text(o))),
        }
    }

    /// [`Phase::summary`], or what a phase without bounds reads (organizer notices, a split's row).
    pub fn description(&self, now: DateTime<Utc>) -> String {
        self.summary(now)
            .unwrap_or_else(|| "Submissions are open, with no deadline.".into())
    }

    /// The time the page's countdown counts to (the next open or close), if any.
    pub fn next_change(&self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        match self.state(now) {
            PhaseState::NotYetOpen => self.opens_at,
            PhaseState::Open => self.closes_at,
            PhaseState::Closed => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(h: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 25, h, 0, 0)
            .single()
            .expect("a time")
    }

    #[test]
    fn uploads_are_refused_before_the_open_and_from_the_close_on_naming_the_time() {
        let p = Phase::new(Some(at(10)), Some(at(18))).expect("valid");
        let early = p.refusal(at(8)).expect("refused");
        assert!(
            early.contains("open at 2026-11-25 10:00 UTC (in 2 hours"),
            "{early}"
        );
        assert_eq!(p.refusal(at(12)), None);
        assert_eq!(
            p.refusal(at(18)).as_deref(),
            Some("submissions closed at 2026-11-25 18:00 UTC")
        );
        assert_eq!(Phase::default().refusal(at(0)), None);
    }

    #[test]
    fn a_close_before_the_open_is_refused() {
        assert!(Phase::new(Some(at(18)), Some(at(10))).is_err());
    }

    #[test]
    fn times_parse_from_the_browsers_input_and_rfc3339() {
        assert_eq!(parse_time("2026-11-25T10:00"), Ok(Some(at(10))));
        assert_eq!(parse_time("2026-11-25 10:00 UTC"), Ok(Some(at(10))));
        assert_eq!(parse_time("2026-11-25T12:00:00+02:00"), Ok(Some(at(10))));
        assert_eq!(parse_time(" "), Ok(None));
        assert!(parse_time("tomorrow").is_err());
    }

    #[test]
    fn remaining_time_reads_in_its_two_largest_units() {
        assert_eq!(remaining_text(at(0), at(1)), "1 hour 0 minutes");
        let later = at(0) + chrono::Duration::days(2) + chrono::Duration::hours(3);
        assert_eq!(remaining_text(at(0), later), "2 days 3 hours");
        assert_eq!(
            remaining_text(at(0), at(0) + chrono::Duration::minutes(5)),
            "5 minutes"
        );
    }
}
