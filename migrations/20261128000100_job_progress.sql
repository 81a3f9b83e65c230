-- What a running job is doing (issue 33, item 4), written by its worker about once a second while
-- it runs, not once per caption: the stage ('starting', 'references', 'scoring', 'classic',
-- 'writing') and, while scoring, how many of the submission's images are scored. Cleared when the
-- job is claimed again.
ALTER TABLE jobs
    ADD COLUMN progress_stage TEXT,
    ADD COLUMN progress_done  INTEGER,
    ADD COLUMN progress_total INTEGER;
