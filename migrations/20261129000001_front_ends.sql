-- Issue 31, item 4: one engine, two front ends. Which front end (the engine's parser: 'built-in',
-- or 'corenlp-3.6.0', CoreNLP's own PCFG on the official model) built a split version's reference
-- graphs, and which produced a submission's stored scores. A leaderboard ranks only the entries
-- scored by its split's front end (domain::leaderboard::rank_by_front_end). Everything stored
-- before was the built-in parser's.
ALTER TABLE splits ADD COLUMN front_end TEXT NOT NULL DEFAULT 'built-in';
-- Every new version names its front end (storage::splits::create_version).
ALTER TABLE splits ALTER COLUMN front_end DROP DEFAULT;

-- NULL while the submission has no scores; written with them, in the job's final transaction
-- (storage::scores::write).
ALTER TABLE submissions ADD COLUMN front_end TEXT;
UPDATE submissions s SET front_end = 'built-in'
WHERE EXISTS (SELECT 1 FROM aggregate_scores a WHERE a.submission_id = s.id);
