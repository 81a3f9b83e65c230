-- Issue 34, item 2: the metric agreement page plots each metric's score against the human
-- ratings, so the scores computed at upload (src/actions.rs, `import_judgments`) are kept beside
-- the judgments: per judged caption its score in every leaderboard column, per judged entry the
-- corpus scores it was correlated with (`{}` for an entry left out of the correlation, scored by
-- another front end than the split's). `{"spice": 0.31, "color": null, ...}`, null where
-- undefined. NULL: uploaded before the scores were kept (the page asks for the file again).
ALTER TABLE caption_judgments ADD COLUMN scores JSONB;
ALTER TABLE entry_judgments ADD COLUMN scores JSONB;
