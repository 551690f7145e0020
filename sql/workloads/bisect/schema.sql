-- The seed's table. {{settings}} holds the workload's tableSettings (manifest.yaml) and the spec's
-- settings.mergeTree, after both were checked against the server's system.merge_tree_settings.
CREATE TABLE IF NOT EXISTS {{table}}
(
    timestamp DateTime64(3){{codec}},
    namespace LowCardinality(String){{codec}},
    pod String{{codec}},
    container LowCardinality(String){{codec}},
    level LowCardinality(String){{codec}},
    message String{{codec}},
    trace_id String{{codec}},
    duration_ms Float32{{codec}}
)
ENGINE = MergeTree
PARTITION BY toDate(timestamp)
ORDER BY (namespace, timestamp){{settings}}
