// DuckDB as the oracle of the VARIANT differential test (internal/variant/duckdb_test.go).
//
//   node duckdb/variant.mjs DIR [SEED]
//
// builds a table of random-ish VARIANT values (nested objects and arrays, every primitive type
// DuckDB can write to a Parquet VARIANT, nulls, long strings, objects and arrays of more than
// 255 members), writes it to DIR/<name>.parquet once per shredding layout (DuckDB's automatic
// shredding, explicit SHREDDING types that match some rows and not others, nested object and
// array shredding), reads each file back and writes one JSON line per file to stdout:
// {"file": "<name>.parquet", "rows": ["<v::JSON text>" or null, ...]} in id order, or
// {"file", "error"} when DuckDB refuses to write that layout. TIMESTAMPTZ text depends on the
// session time zone, which is set to UTC.
import { DuckDBInstance } from '@duckdb/node-api';
import path from 'node:path';

const [dir, seedArg] = process.argv.slice(2);
let seed = Number(seedArg ?? 1) >>> 0;
function rand() { // mulberry32
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const int = (n) => Math.floor(rand() * n);
const pick = (xs) => xs[int(xs.length)];
const q = (s) => "'" + s.replaceAll("'", "''") + "'";
const pad = (n, w) => String(n).padStart(w, '0');

const strings = ['', 'a', 'hello world', 'quote " and \\ backslash', 'tab\tnew\nline', 'é😀 ünïcode',
  '/</script>', 'x'.repeat(63), 'y'.repeat(64), 'z'.repeat(300)];
const controls = ['chr(1)', 'chr(0)', 'chr(31)', 'chr(127)', 'chr(8232)', 'chr(12)', 'chr(13)'];
const doubles = ['0.1', '1.0', '-0.0', '0.0', '1e21', '1e20', '1e-7', '1e-6', '1.5e-7', '123456789012345678',
  '5e-324', '1.7976931348623157e308', '3.141592653589793', '-2.5e300', '100', 'nan', 'inf', '-inf'];

function date() {
  const y = pick([1, 44, 999, 1970, 2024, 9999, 12345]);
  const bc = y === 44 && rand() < 0.5 ? '-' : '';
  return `${bc}${pad(y, 4)}-${pad(1 + int(12), 2)}-${pad(1 + int(28), 2)}`;
}
function clock(digits) {
  let s = `${pad(int(24), 2)}:${pad(int(60), 2)}:${pad(int(60), 2)}`;
  if (rand() < 0.7) s += '.' + Array.from({ length: digits }, () => int(10)).join('');
  return s;
}
function hexBytes(n) {
  return Array.from({ length: n }, () => '\\x' + pad(int(256).toString(16), 2)).join('');
}

const primitives = [
  () => 'NULL',
  () => pick(['true', 'false']),
  () => `(${int(256) - 128})::TINYINT`,
  () => `(${int(65536) - 32768})::SMALLINT`,
  () => `(${int(2 ** 32) - 2 ** 31})::INTEGER`,
  () => `(${pick(['-9223372036854775808', '9223372036854775807', String(int(2 ** 53) - 2 ** 52), '0'])})::BIGINT`,
  () => `${q(pick(doubles))}::DOUBLE`,
  () => `${q(String(rand() * 10 ** (int(40) - 20)))}::DOUBLE`,
  () => `${q(pick(['0.1', '1.5', '16777216', '3.14', 'nan', '-inf', '1e-7', '1e10']))}::FLOAT`,
  () => `${q((rand() * 2e4 - 1e4).toFixed(2))}::DECIMAL(7,2)`,
  () => `${q((rand() * 2e10 - 1e10).toFixed(4))}::DECIMAL(18,4)`,
  () => `${q(pick(['-', '']) + int(1e9) + '' + int(1e9) + '' + int(1e9) + '.' + pad(int(1e9), 9))}::DECIMAL(38,9)`,
  () => `'0.05'::DECIMAL(4,3)`,
  () => `DATE ${q(date())}`,
  () => `TIMESTAMP ${q(date() + ' ' + clock(6))}`,
  () => `TIMESTAMPTZ ${q(date() + ' ' + clock(6) + '+00')}`,
  () => `TIMESTAMP_NS ${q('20' + pad(int(100), 2) + '-03-04 ' + clock(9))}`,
  () => `TIME ${q(clock(6))}`,
  () => pick(["'infinity'::DATE", "'-infinity'::DATE", "'infinity'::TIMESTAMP", "'-infinity'::TIMESTAMPTZ",
    "TIMESTAMP_NS '2024-01-02 03:04:05.120000000'", "TIMESTAMPTZ '-0044-03-15 01:02:03.5+00'", "TIME '24:00:00'",
    "'0.000'::DECIMAL(4,3)", "'-0.5'::DECIMAL(2,1)"]),
  () => `${q(hexBytes(int(6)) + pick(['', 'abc', "'", '"', ' ~']))}::BLOB`,
  () => `${q(pick(strings))}`,
  () => `(${q(pick(strings))} || ${pick(controls)})`,
  () => `UUID ${q([8, 4, 4, 4, 12].map((n) => Array.from({ length: n }, () => int(16).toString(16)).join('')).join('-'))}`,
  () => `${q(pick(['{"": 1, "k\\"q": [1, 2.5, "x", null, true]}', '[]', '{}', '{"a": {"b": {"c": []}}}']))}::JSON`,
];
const keys = ['a', 'b', 'c', 'd', 'id', 'name', 'é', 'k"q', 'with space', 'zz', 'b2'];

function value(depth) {
  const r = rand();
  if (depth < 3 && r < 0.2) {
    const n = int(5);
    const ks = [...new Set(Array.from({ length: n }, () => pick(keys)))];
    if (ks.length === 0) return `'{}'::JSON`;
    return '{' + ks.map((k) => `${q(k)}: (${value(depth + 1)})::VARIANT`).join(', ') + '}';
  }
  if (depth < 3 && r < 0.35) {
    const n = int(4);
    if (n === 0) return `[]::VARIANT[]`;
    return '[' + Array.from({ length: n }, () => `(${value(depth + 1)})::VARIANT`).join(', ') + ']';
  }
  return pick(primitives)();
}

const rows = [];
for (let i = 0; i < 240; i++) rows.push(value(0));
// Objects shaped like the shredding types below, so that typed_value columns fill.
for (let i = 0; i < 40; i++) {
  const fields = [];
  if (rand() < 0.8) fields.push(`'a': (${pick(['(' + int(1000) + ')::BIGINT', "'str'", 'NULL'])})::VARIANT`);
  if (rand() < 0.8) fields.push(`'b': (${pick(["'text'", '(1)::TINYINT', "DATE '2024-01-02'"])})::VARIANT`);
  if (rand() < 0.6) fields.push(`'c': {'x': (${pick(['1.5::DOUBLE', "'y'", 'NULL'])})::VARIANT}::VARIANT`);
  if (rand() < 0.6) fields.push(`'d': [(1)::VARIANT, (${pick(['2', "'two'", 'NULL'])})::VARIANT]::VARIANT`);
  if (rand() < 0.5) fields.push(`'z': (${value(1)})::VARIANT`);
  rows.push(fields.length ? '{' + fields.join(', ') + '}' : `'{}'::JSON`);
}
rows.push(`repeat('x', 70000)`);
rows.push('[' + Array.from({ length: 300 }, (_, i) => `(${i})::VARIANT`).join(', ') + ']');
rows.push('{' + Array.from({ length: 300 }, (_, i) => `'k${pad(i, 3)}': (${i})::VARIANT`).join(', ') + '}');
rows.push(`{'long': repeat('y', 70000)::VARIANT, 'short': 1::VARIANT}`);

const layouts = {
  auto: null,
  object: 'STRUCT(a BIGINT, b VARCHAR, c STRUCT(x DOUBLE), d INTEGER[])',
  array: 'VARIANT[]',
  bigint: 'BIGINT', integer: 'INTEGER', smallint: 'SMALLINT', tinyint: 'TINYINT',
  double: 'DOUBLE', float: 'FLOAT', boolean: 'BOOLEAN', varchar: 'VARCHAR', blob: 'BLOB',
  dec9: 'DECIMAL(7,2)', dec18: 'DECIMAL(18,4)', dec38: 'DECIMAL(38,9)',
  date: 'DATE', timestamp: 'TIMESTAMP', timestamptz: 'TIMESTAMPTZ', timestamp_ns: 'TIMESTAMP_NS',
  time: 'TIME', uuid: 'UUID',
};

const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
const conn = await instance.connect();
await conn.run("SET TimeZone='UTC'");
const values = rows.map((v, i) => `(${i}, (${v})::VARIANT)`);
values.push(`(${rows.length}, NULL)`);
await conn.run(`CREATE TABLE t AS SELECT * FROM (VALUES ${values.join(',\n')}) t(id, v)`);
for (const [name, shred] of Object.entries(layouts)) {
  const file = path.join(dir, name + '.parquet');
  const opt = shred ? `, SHREDDING {v: ${q(shred)}}` : '';
  try {
    await conn.run(`COPY (SELECT * FROM t ORDER BY id) TO ${q(file)} (FORMAT parquet, ROW_GROUP_SIZE 100${opt})`);
    const r = await conn.runAndReadAll(`SELECT v::JSON::VARCHAR FROM read_parquet(${q(file)}) ORDER BY id`);
    process.stdout.write(JSON.stringify({ file: name + '.parquet', rows: r.getRows().map((x) => x[0]) }) + '\n');
  } catch (e) {
    process.stdout.write(JSON.stringify({ file: name + '.parquet', error: String(e.message).split('\n')[0] }) + '\n');
  }
}
