-- Invalid SQL on purpose (SELEC): the server refuses to parse it on every attempt, so the step that
-- sends it fails at once with the server's SYNTAX_ERROR (code 62), never retried.
SELEC count() FROM {{table}}
