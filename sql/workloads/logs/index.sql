ALTER TABLE {{table}} ADD INDEX IF NOT EXISTS trace_bf trace_id TYPE bloom_filter(0.01) GRANULARITY 4
