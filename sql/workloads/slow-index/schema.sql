CREATE TABLE IF NOT EXISTS {{table}} (n UInt64{{codec}}) ENGINE = MergeTree ORDER BY n{{settings}}
