-- CIDEr-D document frequencies in their compact form (spice::metrics::CiderDf::to_bytes), which
-- reads about seven times faster than the JSON kept in classic_stats so far. The JSON is dropped:
-- a split without frequencies gets them counted by its next job, and stored.
ALTER TABLE splits ADD COLUMN cider_df BYTEA;
UPDATE splits SET classic_stats = NULLIF(classic_stats - 'cider_df', '{}'::JSONB)
    WHERE classic_stats ? 'cider_df';
