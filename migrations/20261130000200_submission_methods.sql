-- Issue 34, item 4: what a team says about the method behind a submission, as EvalAI shows it:
-- its name and links to its paper and its code, each optional (NULL: not given), given at upload
-- or edited by the team afterwards, shown on the leaderboard under the entry's name and in its
-- CSV and JSON. The server checks them (src/domain/method.rs); the bounds are kept here too.
ALTER TABLE submissions
    ADD COLUMN method_name TEXT
        CHECK (char_length(method_name) BETWEEN 1 AND 100),
    ADD COLUMN paper_url TEXT
        CHECK (char_length(paper_url) <= 500 AND paper_url ~ '^https?://\S+$'),
    ADD COLUMN code_url TEXT
        CHECK (char_length(code_url) <= 500 AND code_url ~ '^https?://\S+$');
