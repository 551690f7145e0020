SELECT namespace, quantiles(0.5, 0.99)(duration_ms) AS p50_p99
FROM {{table}} GROUP BY namespace ORDER BY namespace
