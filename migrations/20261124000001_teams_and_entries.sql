-- Issue 12: teams people can join, and which entry of a team a leaderboard shows.

-- The secret of a team's invite link (/c/{slug}/join/{code}): shown to its members only, replaced
-- when a member asks for a new one or leaves. New teams get theirs from the server
-- (auth::new_token); existing teams get 244 random bits here.
ALTER TABLE teams ADD COLUMN invite_code TEXT;
UPDATE teams SET invite_code = replace(gen_random_uuid()::TEXT || gen_random_uuid()::TEXT, '-', '');
ALTER TABLE teams ALTER COLUMN invite_code SET NOT NULL;
ALTER TABLE teams ADD CONSTRAINT teams_invite_code UNIQUE (invite_code);

-- Which of a team's scored submissions a split's leaderboard shows: 'best' (highest SPICE),
-- 'latest', or 'chosen' (the one in leaderboard_choices; the best until the team chooses).
ALTER TABLE challenges ADD COLUMN entry_policy TEXT NOT NULL DEFAULT 'best'
    CHECK (entry_policy IN ('best', 'latest', 'chosen'));
