-- Issue 34, item 3: organizers per challenge. A site operator (users.is_admin) organizes every
-- challenge; anyone else organizes the challenges listed here: the one they created, and those an
-- organizer of it added them to by e-mail. A challenge never loses its last row here
-- (actions::remove_organizer). Challenges made before this table, or on the command line, have no
-- row until an operator adds an organizer: until then only the operators organize them.
CREATE TABLE challenge_organizers (
    challenge_id BIGINT NOT NULL REFERENCES challenges (id) ON DELETE CASCADE,
    user_id      BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    added_by     BIGINT REFERENCES users (id) ON DELETE SET NULL,
    added_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (challenge_id, user_id)
);
CREATE INDEX challenge_organizers_user ON challenge_organizers (user_id);
