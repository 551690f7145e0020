-- q2's range of w with a hash of every row it reads (short-circuit evaluation off, so the hash is
-- computed on each row read, not only where the range holds): reading one granule (use_skip_indexes
-- = 1) takes a few ms, reading every row about 100 ms: a time step well above this machine's noise.
SELECT count() FROM {{table}} WHERE sipHash64(repeat(toString(w), 16)) != 0 AND w BETWEEN 5000 AND 5010
SETTINGS short_circuit_function_evaluation = 'disable'
