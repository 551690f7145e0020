SELECT count() FROM {{table}}
