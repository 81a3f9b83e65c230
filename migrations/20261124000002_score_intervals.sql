-- Issue 14, part 4: uncertainty on the leaderboard. The earlier migrations are never edited.

-- Per submission and leaderboard column whose score is a mean over images (SPICE and its
-- categories, ROUGE-L, CIDEr-D): the bootstrap distribution of that mean, resampling images, and
-- its 95 % percentile interval. Written by the worker with the scores; for a submission scored
-- before this table existed, on first display (see src/actions.rs, `uncertainty`).
CREATE TABLE score_intervals (
    submission_id BIGINT NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
    metric        TEXT NOT NULL CHECK (metric IN ('spice', 'object', 'relation', 'attribute',
                  'color', 'count', 'size', 'rouge_l', 'cider_d')),
    estimate      DOUBLE PRECISION,       -- the mean over images whose score is defined
    low           DOUBLE PRECISION,       -- 2.5th percentile of the resampled means
    high          DOUBLE PRECISION,       -- 97.5th percentile
    images        INTEGER NOT NULL,       -- images resampled (all of the submission's)
    -- Fingerprint of the image ids in the order they were resampled, with the seed and count:
    -- two submissions with equal triples were resampled alike, so their replicates pair up.
    image_set     BIGINT NOT NULL,
    seed          BIGINT NOT NULL,
    -- The mean in each resample (NaN: none defined), 8-byte little-endian IEEE doubles back to
    -- back: a leaderboard reads every entry's to test the ties, and bytes are copied where an
    -- array is encoded element by element (benches/server.rs, the page with 1,000 entries:
    -- p50 26 ms, 73 ms with DOUBLE PRECISION[]).
    replicates    BYTEA NOT NULL,
    PRIMARY KEY (submission_id, metric)
);
-- Random doubles do not compress: do not try, on write or read.
ALTER TABLE score_intervals ALTER COLUMN replicates SET STORAGE EXTERNAL;
