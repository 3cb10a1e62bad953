// exact-json.js: int64s survive the host's parse and re-serialization of the module's JSON
// (a long column's statistics, an Iceberg snapshot id); everything else reads as JSON.parse
// reads it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { parseExact, stringifyExact } from '../src/exact-json.js'

test('integers outside the safe range round-trip digit for digit', () => {
  const cases = [
    { name: 'int64 max and min', text: '{"max":9223372036854775807,"min":-9223372036854775808}', want: { max: 9223372036854775807n, min: -9223372036854775808n } },
    { name: 'a snapshot id', text: '{"version":6838723292707092922}', want: { version: 6838723292707092922n } },
    { name: 'safe integers stay numbers', text: '[9007199254740991,-9007199254740991,0]', want: [9007199254740991, -9007199254740991, 0] },
    { name: 'digits inside strings are left alone', text: '{"s":"9223372036854775807 \\" 9223372036854775807"}', want: { s: '9223372036854775807 " 9223372036854775807' } },
    { name: 'fractions and exponents are numbers', text: '[12345678901234567.5,1e20,-2.5E-3]', want: [12345678901234567.5, 1e20, -2.5e-3], once: true },
  ]
  for (const c of cases) {
    const v = parseExact(c.text)
    assert.deepEqual(v, c.want, c.name)
    // (a large double is written back as an integer literal, which then reads as a BigInt)
    if (!c.once) assert.deepEqual(parseExact(stringifyExact(v)), c.want, `${c.name}: round trip`)
  }
  assert.equal(stringifyExact(parseExact('{"a":[9223372036854775807,{"b":-9223372036854775808}]}')), '{"a":[9223372036854775807,{"b":-9223372036854775808}]}')
})

test('random JSON without large integers parses as JSON.parse parses it', () => {
  let seed = 7
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648)
  const value = (d) => {
    const r = rnd()
    if (d > 3 || r < 0.3) return [null, true, false, Math.floor(rnd() * 1e9) - 5e8, rnd() * 1e6, 'a"\\\u0001é' + Math.floor(rnd() * 1e6)][Math.floor(rnd() * 6)]
    if (r < 0.65) return Array.from({ length: Math.floor(rnd() * 4) }, () => value(d + 1))
    return Object.fromEntries(Array.from({ length: Math.floor(rnd() * 4) }, (_, i) => [`k${i}"`, value(d + 1)]))
  }
  for (let i = 0; i < 500; i++) {
    const text = JSON.stringify(value(0))
    assert.deepEqual(parseExact(text), JSON.parse(text), text)
    assert.equal(stringifyExact(JSON.parse(text)), text)
  }
})
