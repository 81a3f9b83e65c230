-- Issue 14, part 3: human judgments per split and the metrics' agreement with them, and the
-- challenge's ranking metric. The earlier migrations are never edited.

-- The leaderboard column that ranks the challenge when a page asks for no other (`?sort=`).
ALTER TABLE challenges ADD COLUMN ranking_metric TEXT NOT NULL DEFAULT 'spice'
    CHECK (ranking_metric IN ('spice', 'object', 'relation', 'attribute', 'color', 'count',
                              'size', 'bleu_4', 'meteor', 'rouge_l', 'cider_d'));

-- One upload of judgments for one version of a split (a new reference version starts without:
-- its metrics are computed against other references). The newest set of a split is its current
-- one. `agreement` is the table the page shows, computed once at upload (src/actions.rs,
-- `import_judgments`), so a page view never recomputes it.
CREATE TABLE judgment_sets (
    id           BIGSERIAL PRIMARY KEY,
    split_id     BIGINT NOT NULL REFERENCES splits (id) ON DELETE CASCADE,
    uploaded_by  BIGINT REFERENCES users (id) ON DELETE SET NULL,
    uploaded_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    bytes        BIGINT NOT NULL,
    sha256       TEXT NOT NULL,
    agreement    JSONB NOT NULL
);
CREATE INDEX judgment_sets_split ON judgment_sets (split_id, id DESC);

-- Caption level: a caption of one of the split's images and the ratings people gave it.
CREATE TABLE caption_judgments (
    set_id    BIGINT NOT NULL REFERENCES judgment_sets (id) ON DELETE CASCADE,
    line      INTEGER NOT NULL,
    image_id  BIGINT NOT NULL,
    caption   TEXT NOT NULL,
    ratings   DOUBLE PRECISION[] NOT NULL CHECK (cardinality(ratings) > 0),
    PRIMARY KEY (set_id, line)
);

-- System level: a leaderboard entry of the split and the rating people gave the system.
CREATE TABLE entry_judgments (
    set_id         BIGINT NOT NULL REFERENCES judgment_sets (id) ON DELETE CASCADE,
    line           INTEGER NOT NULL,
    submission_id  BIGINT NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
    rating         DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (set_id, line)
);
