-- The trace id the generator creates for number = 42.
SELECT * FROM {{table}}
WHERE trace_id = lower(hex(sipHash128(toUInt64(42))))
