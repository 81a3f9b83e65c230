//! What a job of the queue does and where it stands (`jobs.kind`, `jobs.state`); the claim, lease
//! and fencing rules are in `storage::queue`.

text_enum! {
    /// What a job computes.
    pub enum JobKind {
        /// Scores an uploaded results file against its split.
        ScoreSubmission => "score_submission",
        /// Computes the split's Human row (leave one reference out).
        HumanBaseline => "human_baseline",
    }
}

text_enum! {
    /// Where a job stands. `Running` with an expired lease means its worker died; the job is
    /// claimable again.
    pub enum JobState {
        Queued => "queued",
        Running => "running",
        Succeeded => "succeeded",
        Failed => "failed",
        /// Its submission was cancelled by its team before any worker claimed it.
        Cancelled => "cancelled",
    }
}

impl JobState {
    /// Not finished yet: waiting for a worker or being worked on.
    pub fn is_pending(self) -> bool {
        matches!(self, JobState::Queued | JobState::Running)
    }
}
