SELECT number, repeat('x', 1000) AS s FROM numbers(600000)
