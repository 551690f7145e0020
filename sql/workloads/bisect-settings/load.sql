INSERT INTO {{table}} SELECT number, (number * 7919) % {{rows}}, intDiv(number, 10) FROM numbers({{rows}})
