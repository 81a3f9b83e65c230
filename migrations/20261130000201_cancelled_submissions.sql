-- Issue 34, item 4: a team cancels a submission while it waits in the queue. The submission ends
-- 'cancelled' (when, and by whom if known) and its queued jobs end 'cancelled', in one statement
-- conditioned on the job still being queued, so that a worker claiming it at the same moment
-- and the cancel cannot both win (storage::queue::cancel_queued). A cancelled submission counts
-- against no quota, as one that failed for the server's reasons (storage::submissions::quota_used);
-- its file stays stored and counts against the team's stored bytes, as a failed one's does.
ALTER TABLE submissions DROP CONSTRAINT submissions_status_check;
ALTER TABLE submissions ADD CONSTRAINT submissions_status_check
    CHECK (status IN ('queued', 'running', 'scored', 'failed', 'cancelled'));
ALTER TABLE submissions
    ADD COLUMN cancelled_at TIMESTAMPTZ,
    ADD COLUMN cancelled_by BIGINT REFERENCES users (id) ON DELETE SET NULL;
-- Cancelled is for good: nothing may queue, run or score it again.
ALTER TABLE submissions ADD CONSTRAINT submissions_cancelled_for_good
    CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL));

ALTER TABLE jobs DROP CONSTRAINT jobs_state_check;
ALTER TABLE jobs ADD CONSTRAINT jobs_state_check
    CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled'));
