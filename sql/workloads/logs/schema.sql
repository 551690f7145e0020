-- The seed's table. min_bytes_for_wide_part = 0 makes every part Wide, so system.parts_columns
-- gives real per-column sizes even for the small parts of a 2 M-row demo (Compact parts report
-- the part's total for every column). It does not change how data is compressed.
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
ORDER BY (namespace, timestamp)
SETTINGS min_bytes_for_wide_part = 0
