-- Issue 35 (F5): names that read alike are one name. A team name is unique in its challenge, a
-- challenge title on the site, by its skeleton (domain::names::skeleton: NFKC, case-folded,
-- default-ignorable code points removed). The unique indexes make the rule hold between
-- parallel requests.
--
-- The server computes skeletons (PostgreSQL's normalize() and lower() follow its own Unicode
-- version and the database's locale, not ours), so existing rows get theirs from
-- storage::migrate after this runs. NULL means not computed yet, or a name that already
-- clashed with an older one before this rule: such a name is kept as it is.
ALTER TABLE teams ADD COLUMN name_skeleton TEXT;
CREATE UNIQUE INDEX teams_name_skeleton ON teams (challenge_id, name_skeleton);

ALTER TABLE challenges ADD COLUMN title_skeleton TEXT;
CREATE UNIQUE INDEX challenges_title_skeleton ON challenges (title_skeleton);
