-- A split's own upload window (e.g. `val` open throughout, `test` only in the final week). A split
-- with no row here follows its challenge's `opens_at`/`closes_at`. Keyed by the split's name, so
-- that every version of the split shares it.
CREATE TABLE split_phases (
    challenge_id BIGINT NOT NULL REFERENCES challenges (id) ON DELETE CASCADE,
    split_name   TEXT NOT NULL,
    opens_at     TIMESTAMPTZ,
    closes_at    TIMESTAMPTZ,
    PRIMARY KEY (challenge_id, split_name),
    CHECK (closes_at IS NULL OR opens_at IS NULL OR closes_at > opens_at)
);
