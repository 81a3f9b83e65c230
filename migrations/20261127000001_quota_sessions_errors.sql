-- A team's quota counts the uploads its members made in other teams of the challenge
-- (`submissions::quota_used`): look them up by uploader.
CREATE INDEX submissions_submitted_by ON submissions (submitted_by) WHERE kind = 'team';

-- Expired sessions are deleted as new ones are made (`accounts::create_session`).
CREATE INDEX sessions_expires ON sessions (expires_at);

-- Teams read what went wrong with their submission, but not the worker's host and process or the
-- database's error text (the job's `last_error` keeps those): earlier failures are reworded as new
-- ones are.
UPDATE submissions
SET error = 'gave up after ' || substring(error FROM '^gave up after ([0-9]+) attempts')
            || ' attempts: the worker scoring it stopped responding'
WHERE error ~ '^gave up after [0-9]+ attempts; the last worker \(.*\) stopped responding$';
UPDATE submissions
SET error = 'the database failed while scoring it (the server''s log has the details)'
WHERE error LIKE 'database error: %';
UPDATE submissions
SET error = 'the scorer stopped unexpectedly (the server''s log has the details)'
WHERE error LIKE 'the scoring thread panicked: %';
