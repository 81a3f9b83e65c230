//! What a submission is (a team's upload, an organizer's baseline, or the Human row) and where it
//! stands on its way to a score.

use super::JobKind;

text_enum! {
    /// Whose row a submission is (`submissions.kind`).
    pub enum SubmissionKind {
        /// A team's upload; counts against the team's quota.
        Team => "team",
        /// An organizer's reference row (`label` names it).
        Baseline => "baseline",
        /// Leave-one-out human captions, computed from the references.
        Human => "human",
    }
}

impl SubmissionKind {
    /// The job that scores a submission of this kind.
    pub fn job(self) -> JobKind {
        match self {
            SubmissionKind::Team | SubmissionKind::Baseline => JobKind::ScoreSubmission,
            SubmissionKind::Human => JobKind::HumanBaseline,
        }
    }
}

text_enum! {
    /// Where a submission stands (`submissions.status`). A re-scored submission stays `Scored`
    /// (with its old scores) while its new job runs; its job's state tells the rest.
    pub enum SubmissionStatus {
        Queued => "queued",
        Running => "running",
        Scored => "scored",
        Failed => "failed",
        /// Cancelled by its team while it waited in the queue; never scored, counts against no
        /// quota.
        Cancelled => "cancelled",
    }
}

impl SubmissionStatus {
    /// Still waiting for a score (the page refreshes itself).
    pub fn is_pending(self) -> bool {
        matches!(self, SubmissionStatus::Queued | SubmissionStatus::Running)
    }

    pub fn is_scored(self) -> bool {
        self == SubmissionStatus::Scored
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_reads_back_as_itself() {
        for k in SubmissionKind::ALL {
            assert_eq!(SubmissionKind::parse(k.as_str()), Some(*k));
        }
        for s in SubmissionStatus::ALL {
            assert_eq!(SubmissionStatus::parse(&s.to_string()), Some(*s));
        }
        assert_eq!(
            SubmissionStatus::parse("Scored"),
            None,
            "the words are lowercase"
        );
    }

    #[test]
    fn the_human_row_has_its_own_job() {
        assert_eq!(SubmissionKind::Human.job(), JobKind::HumanBaseline);
        assert_eq!(SubmissionKind::Team.job(), JobKind::ScoreSubmission);
        assert_eq!(SubmissionKind::Baseline.job(), JobKind::ScoreSubmission);
    }
}
