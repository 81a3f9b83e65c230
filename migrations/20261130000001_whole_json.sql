-- Issue 33: a reference image's scene graph and a scored image's details are written and read
-- whole, never queried inside. As JSON (the text as written, checked) rather than JSONB (parsed
-- into PostgreSQL's binary form on every write, printed back on every read), a 40,504-image
-- submission's details are copied in about half the time (1.4 s -> 0.7 s) and a job reads its
-- split's graphs without the server printing 123 MB of JSONB (about 1 s). The tables are
-- rewritten once, here.
ALTER TABLE reference_images ALTER COLUMN scene_graph TYPE JSON USING scene_graph::JSON;
ALTER TABLE image_results ALTER COLUMN details TYPE JSON USING details::JSON;

-- Compressed with LZ4 where the server has it (PostgreSQL 14 and later, built with lz4, as
-- Debian's is): several times faster than the default pglz both ways, on the 3 KB graph of every
-- reference image as it is imported and as every job reads its split. Without it, pglz stays.
DO $$
BEGIN
    ALTER TABLE reference_images ALTER COLUMN scene_graph SET COMPRESSION lz4;
    ALTER TABLE image_results ALTER COLUMN details SET COMPRESSION lz4;
EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'LZ4 compression is not available (%); the default stays', SQLERRM;
END
$$;
