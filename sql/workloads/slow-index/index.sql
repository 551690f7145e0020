ALTER TABLE {{table}} ADD INDEX IF NOT EXISTS slow_idx arrayReduce('max', arrayMap(x -> cityHash64(x, n), range(20000))) TYPE minmax GRANULARITY 1
