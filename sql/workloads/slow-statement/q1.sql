-- 30 blocks of one row, 0.5 s each: 15 s, read_rows grows by one every 0.5 s.
SELECT sum(sleepEachRow(0.5)) FROM numbers(30) SETTINGS max_block_size = 1
