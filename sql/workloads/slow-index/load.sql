INSERT INTO {{table}} SELECT number FROM numbers({{rows}})
