SELECT number, throwIf(number = 400000) AS f FROM numbers(1000000) SETTINGS max_block_size = 8192
