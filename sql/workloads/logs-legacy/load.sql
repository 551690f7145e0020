-- Seconds resolution: rows are spaced intDiv(number * 600000, rows) s apart (same span as `logs`).
INSERT INTO {{table}} (timestamp, namespace, pod, container, level, trace_id, duration_ms, message)
SELECT
    toDateTime('2026-08-25 00:00:00') + intDiv(number * 600000, {{rows}}) AS timestamp,
    ['payment','order','user','search','catalog','cart','shipping','auth','gateway','recommend'][(cityHash64(number) % 10) + 1] AS namespace,
    concat(namespace, '-7c7dd4f9c-', substring(lower(hex(sipHash64(cityHash64(number) % 10))), 1, 5)) AS pod,
    if(cityHash64(number + 2) % 10 < 8, 'app', 'istio-proxy') AS container,
    multiIf(cityHash64(number + 3) % 1000 < 8, 'ERROR',
            cityHash64(number + 3) % 1000 < 50, 'WARN',
            cityHash64(number + 3) % 1000 < 300, 'DEBUG', 'INFO') AS level,
    lower(hex(sipHash128(toString(number)))) AS trace_id,
    toFloat32(round(if(level = 'ERROR', 2000 + (cityHash64(number + 4) % 30000) / 10,
                       (cityHash64(number + 4) % 20000) / 100), 1)) AS duration_ms,
    if(level = 'ERROR',
       concat('upstream request timeout after ', toString(round(duration_ms)), 'ms status=503 trace_id=', trace_id),
       concat('GET /api/v1/orders completed status=200 in ', toString(duration_ms), 'ms trace_id=', trace_id)) AS message
FROM numbers({{rows}})
