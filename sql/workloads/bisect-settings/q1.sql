-- The 5 smallest v: v is spread over every granule, so only the minmax index (through
-- use_skip_indexes_for_top_k) avoids reading the whole table.
SELECT id, v FROM {{table}} ORDER BY v LIMIT 5
