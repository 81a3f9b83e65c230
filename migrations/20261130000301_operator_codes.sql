-- Issue 34, item 3: the first site operator made in the browser. While the database has no
-- operator (users.is_admin), each start of `serve` makes a random one-time code, prints it with
-- the address of the page that takes it, and stores only its SHA-256 here. A logged-in person who
-- enters it there becomes an operator. A code works once and until it expires; wrong guesses are
-- counted on every live code, and a code that has had too many works no more (a new start of
-- `serve` makes a new one). Once an operator exists, no code works.
CREATE TABLE operator_codes (
    id            BIGSERIAL PRIMARY KEY,
    code_hash     TEXT NOT NULL UNIQUE,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    expires_at    TIMESTAMPTZ NOT NULL,
    wrong_guesses INTEGER NOT NULL DEFAULT 0,
    used_at       TIMESTAMPTZ,
    used_by       BIGINT REFERENCES users (id) ON DELETE SET NULL
);
