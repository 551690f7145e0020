SELECT count() FROM {{table}}
WHERE namespace = 'payment'
  AND timestamp >= toDateTime('2026-08-26 00:00:00')
  AND timestamp < toDateTime('2026-08-26 01:00:00')
