-- Issue 33: a 40,504-image submission writes 283,528 image_scores rows (seven categories per
-- image), and the foreign key to submissions checked each of them as it was copied in, about a
-- third of the copy's time. The rows are written only by the job that scores their submission,
-- in the transaction that holds it, so the check finds nothing to refuse; what the key also did,
-- delete the rows with their submission, a trigger does, once per statement.
ALTER TABLE image_scores DROP CONSTRAINT image_scores_submission_id_fkey;

CREATE FUNCTION delete_image_scores_of_submissions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM image_scores s USING deleted d WHERE s.submission_id = d.id;
    RETURN NULL;
END
$$;

CREATE TRIGGER submissions_delete_image_scores
    AFTER DELETE ON submissions REFERENCING OLD TABLE AS deleted
    FOR EACH STATEMENT EXECUTE FUNCTION delete_image_scores_of_submissions();
