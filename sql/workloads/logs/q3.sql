SELECT count() FROM {{table}} WHERE message LIKE '%timeout%'
