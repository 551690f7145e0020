-- The seed's generator, scaled: rows are spaced intDiv(number * 600000000, rows) ms apart, which is
-- exactly 6 ms at 100 M rows (the seed) and keeps the same ~6.94-day span, namespace mix, 10 pods and
-- 0.8 % ERROR share at every scale. Deterministic (hashes of `number`, no rand()).
INSERT INTO {{table}} (timestamp, namespace, pod, container, level, trace_id, duration_ms, message)
WITH
    ['payment','order','user','search','catalog','cart','shipping','auth','gateway','recommend'] AS nss,
    ['GET /api/v1/orders','POST /api/v1/payments','GET /api/v1/users','GET /api/v1/search',
     'POST /api/v1/cart/items','GET /api/v1/products','POST /api/v1/shipments','POST /oauth/token',
     'GET /healthz','GET /api/v1/recommendations'] AS eps
SELECT
    toDateTime64('2026-08-25 00:00:00', 3) + toIntervalMillisecond(intDiv(number * 600000000, {{rows}})) AS timestamp,
    nss[(cityHash64(number) % 10) + 1] AS namespace,
    concat(namespace, '-7c7dd4f9c-', substring(lower(hex(sipHash64(cityHash64(number) % 10))), 1, 5)) AS pod,
    if(cityHash64(number + 2) % 10 < 8, 'app', 'istio-proxy') AS container,
    multiIf(cityHash64(number + 3) % 1000 < 8, 'ERROR',
            cityHash64(number + 3) % 1000 < 50, 'WARN',
            cityHash64(number + 3) % 1000 < 300, 'DEBUG', 'INFO') AS level,
    lower(hex(sipHash128(number))) AS trace_id,
    round(if(level = 'ERROR', 2000 + (cityHash64(number + 4) % 30000) / 10,
             (cityHash64(number + 4) % 20000) / 100), 1) AS duration_ms,
    multiIf(
        level = 'ERROR', concat('upstream request timeout after ', toString(round(duration_ms)),
                                'ms endpoint=', eps[(cityHash64(number + 5) % 10) + 1],
                                ' status=503 trace_id=', trace_id),
        concat(eps[(cityHash64(number + 5) % 10) + 1], ' completed status=200 in ',
               toString(duration_ms), 'ms trace_id=', trace_id)
    ) AS message
FROM numbers_mt({{rows}})
