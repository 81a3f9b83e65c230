-- Issue 33: a reference image's scene graph and a scored image's details are written and read
-- whole, never queried inside. As JSON (the text as written, checked) rather than JSONB (parsed
-- into PostgreSQL's binary form on every write, printed back on every read), a 40,504-image
-- submission's details are copied in about half the time (1.4 s -> 0.7 s) and a job reads its
-- split's graphs without the server printing 123 MB of JSONB (about 1 s). The tables are
-- rewritten once, here.
ALTER TABLE reference_images ALTER COLUMN scene_graph TYPE JSON USING scene_graph::JSON;
ALTER TABLE image_results ALTER COLUMN details TYPE JSON USING details::JSON;
