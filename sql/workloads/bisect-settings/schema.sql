CREATE TABLE IF NOT EXISTS {{table}} (
  id UInt64{{codec:id}},
  v UInt64{{codec:v}},
  INDEX v_minmax v TYPE minmax GRANULARITY 1
) ENGINE = MergeTree ORDER BY id{{settings}}
