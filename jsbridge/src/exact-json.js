// JSON whose integers may be int64s: a table session's statistics (a long column's min or max,
// e.g. 9223372036854775807) and an Iceberg snapshot id pass from the module through the host
// and back into pq_open_table. JSON.parse would round them to doubles, and the module would then
// refuse the number or, worse, prune with a wrong bound. parseExact turns each integer literal
// outside the safe range into a BigInt, stringifyExact writes BigInts back as integer literals:
// the round trip keeps every digit.

// A marker no string the module writes can start with (a NUL and a per-load nonce).
const nonce = Math.random().toString(36).slice(2, 10)
const MARK = `\u0000${nonce}:`
const MARKED = new RegExp(`"\\\\u0000${nonce}:(-?\\d+)"`, 'g')

/** JSON.parse, with integers outside Number's safe range as BigInts. */
export function parseExact(text) {
  let out = ''
  let last = 0
  let i = 0
  const n = text.length
  while (i < n) {
    const c = text.charCodeAt(i)
    if (c === 34) {
      // a string: skipped whole, its escapes included
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i)
        if (d === 92) i++
        else if (d === 34) break
      }
      i++
      continue
    }
    if (c === 45 || (c >= 48 && c <= 57)) {
      let j = i + 1
      while (j < n && /[-+.\deE]/.test(text[j])) j++
      const lit = text.slice(i, j)
      if (/^-?\d{16,}$/.test(lit) && !Number.isSafeInteger(Number(lit))) {
        out += text.slice(last, i) + `"\\u0000${nonce}:${lit}"`
        last = j
      }
      i = j
      continue
    }
    i++
  }
  if (last === 0) return JSON.parse(text)
  return JSON.parse(out + text.slice(last), (_, v) => (typeof v === 'string' && v.startsWith(MARK) ? BigInt(v.slice(MARK.length)) : v))
}

/** JSON.stringify, with BigInts written as integer literals. */
export function stringifyExact(v) {
  return JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? MARK + x : x)).replace(MARKED, '$1')
}
