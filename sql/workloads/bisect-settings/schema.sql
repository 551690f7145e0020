CREATE TABLE IF NOT EXISTS {{table}} (
  id UInt64{{codec:id}},
  v UInt64{{codec:v}},
  w UInt64{{codec:w}},
  INDEX v_minmax v TYPE minmax GRANULARITY 1,
  INDEX w_minmax w TYPE minmax GRANULARITY 1
) ENGINE = MergeTree ORDER BY id{{settings}}
