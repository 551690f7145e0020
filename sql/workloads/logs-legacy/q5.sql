SELECT * FROM {{table}} WHERE trace_id = lower(hex(sipHash128('42')))
