-- 2-day count() for one namespace on the (namespace, timestamp) key prefix, whole daily partitions:
-- where the implicit projections (optimize_use_implicit_projections) answer it, it reads few rows.
SELECT count() FROM {{table}}
WHERE namespace = 'payment'
  AND timestamp >= toDateTime64('2026-08-26 00:00:00', 3)
  AND timestamp < toDateTime64('2026-08-28 00:00:00', 3)
