SELECT sum(sleepEachRow(0.5)) FROM numbers(30) SETTINGS max_block_size = 1
