CREATE TABLE IF NOT EXISTS {{table}}
(
    timestamp DateTime{{codec}},
    namespace String{{codec}},
    pod String{{codec}},
    container String{{codec}},
    level String{{codec}},
    message String{{codec}},
    trace_id String{{codec}},
    duration_ms Float32{{codec}}
)
ENGINE = MergeTree
PARTITION BY toDate(timestamp)
ORDER BY (namespace, timestamp){{settings}}
