-- A range of v that a few granules hold: the minmax index skips the others (use_skip_indexes).
SELECT count() FROM {{table}} WHERE v BETWEEN 1000 AND 1010
