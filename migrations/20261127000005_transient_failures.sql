-- Issue 35 (F6): a full disk or a lost connection for a while must not fail an accepted
-- submission, nor spend the team's quota on the server's trouble.

-- Transient database failures a job has had: each one is retried after a backoff that grows to
-- minutes and gives its attempt back (storage::queue::record_failure).
ALTER TABLE jobs ADD COLUMN transient_failures INTEGER NOT NULL DEFAULT 0;

-- A submission that failed for the server's reasons (its database, its worker, its engine or the
-- organizers' references; not the team's file): it does not count against the team's quota
-- (storage::submissions::quota_used).
ALTER TABLE submissions ADD COLUMN failed_for_server BOOLEAN NOT NULL DEFAULT FALSE;

-- Earlier failures of that kind, by what the team was shown (migration 20261127000001).
UPDATE submissions SET failed_for_server = TRUE
WHERE status = 'failed'
  AND (error = 'the database failed while scoring it (the server''s log has the details)'
       OR error = 'the scorer stopped unexpectedly (the server''s log has the details)'
       OR error ~ '^gave up after [0-9]+ attempts: the worker scoring it stopped responding$');
