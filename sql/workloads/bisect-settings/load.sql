INSERT INTO {{table}} SELECT number, (number * 7919) % {{rows}} FROM numbers({{rows}})
