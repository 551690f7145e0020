SELECT count() FROM {{table}} WHERE n < 1000
