-- A range of w (w = id / 10, not in the sorting key): one granule holds it, and the minmax index
-- skips the others unless use_skip_indexes = 0.
SELECT count() FROM {{table}} WHERE w BETWEEN 5000 AND 5010
