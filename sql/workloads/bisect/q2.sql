-- 2-day sum(duration_ms) for one namespace on the (namespace, timestamp) key prefix: its read_rows
-- (granules selected) is what the bisect demo follows across versions.
SELECT sum(duration_ms) FROM {{table}}
WHERE namespace = 'payment'
  AND timestamp >= toDateTime64('2026-08-26 00:00:00', 3)
  AND timestamp < toDateTime64('2026-08-28 00:00:00', 3)
