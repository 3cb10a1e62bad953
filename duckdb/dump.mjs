// DuckDB dump for the corpus differential test (corpus_duckdb_test.go in the repository root).
//
//   node duckdb/dump.mjs ROOT FILE...
//
// reads each FILE (relative to ROOT) with `SELECT * FROM read_parquet(...)` (without Hive
// partitioning, which would add the Delta tables' partition columns from the path) and writes one JSON
// line per file to stdout: {"file", "error"} when DuckDB refuses it, else {"file", "columns":
// [{"name", "type"}], "rows": [[...], ...]}. Values are written losslessly, tagged by DuckDB
// type, and the Go test turns them into its canonical form:
//
//   null, true/false      as they are
//   integers (any width)  "n:<digits>"
//   FLOAT, DOUBLE         a JSON number, or "NaN", "+Inf", "-Inf"
//   VARCHAR, ENUM         "s:<text>"
//   BLOB                  "b:<base64>"
//   DATE                  "date:<days since 1970-01-01>"  (infinity: "date:inf" / "date:-inf")
//   TIME, TIME_NS         "T:<nanoseconds since midnight>"
//   TIME WITH TIME ZONE   "TZ:<nanoseconds since midnight>:<offset seconds>"
//   TIMESTAMP*            "ts:<digits of the unit: 0, 3, 6, 9>:<count since the epoch>"
//   DECIMAL               "D:<exact decimal text>"
//   INTERVAL              "iv:<months>:<days>:<microseconds>"
//   UUID                  "uuid:<canonical text>"
//   LIST, ARRAY           a JSON array;  STRUCT: an object;  MAP: [[key, value], ...]
//   GEOMETRY              "b:<base64 of its WKB>"
//   UNION                 {"<tag>": value}
//   anything else         "other:<DuckDB's text>" (VARIANT, BIT, ...)
import { DuckDBInstance, DuckDBTypeId } from '@duckdb/node-api';
import path from 'node:path';

const [root, ...files] = process.argv.slice(2);
const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
const conn = await instance.connect();

function decimalText(v, scale) {
  const neg = v < 0n;
  let d = (neg ? -v : v).toString();
  if (scale > 0) {
    d = d.padStart(scale + 1, '0');
    d = d.slice(0, d.length - scale) + '.' + d.slice(d.length - scale);
  }
  return (neg ? '-' : '') + d;
}

function enc(v, t) {
  if (v === null || v === undefined) return null;
  switch (t.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return v;
    case DuckDBTypeId.TINYINT: case DuckDBTypeId.SMALLINT: case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.BIGINT: case DuckDBTypeId.UTINYINT: case DuckDBTypeId.USMALLINT:
    case DuckDBTypeId.UINTEGER: case DuckDBTypeId.UBIGINT: case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UHUGEINT:
      return 'n:' + String(v);
    case DuckDBTypeId.FLOAT: case DuckDBTypeId.DOUBLE:
      if (Number.isNaN(v)) return 'NaN';
      if (v === Infinity) return '+Inf';
      if (v === -Infinity) return '-Inf';
      return v;
    case DuckDBTypeId.VARCHAR: case DuckDBTypeId.ENUM:
      return 's:' + v;
    case DuckDBTypeId.BLOB:
      return 'b:' + Buffer.from(v.bytes).toString('base64');
    case DuckDBTypeId.DATE:
      if (!Number.isFinite(v.days) || Math.abs(v.days) >= 2147483647) return v.days > 0 ? 'date:inf' : 'date:-inf';
      return 'date:' + v.days;
    case DuckDBTypeId.TIME:
      return 'T:' + (v.micros * 1000n).toString();
    case DuckDBTypeId.TIME_NS:
      return 'T:' + v.nanos.toString();
    case DuckDBTypeId.TIME_TZ:
      return 'TZ:' + (v.micros * 1000n).toString() + ':' + v.offset;
    case DuckDBTypeId.TIMESTAMP: case DuckDBTypeId.TIMESTAMP_TZ:
      return 'ts:6:' + v.micros.toString();
    case DuckDBTypeId.TIMESTAMP_MS:
      return 'ts:3:' + v.millis.toString();
    case DuckDBTypeId.TIMESTAMP_S:
      return 'ts:0:' + v.seconds.toString();
    case DuckDBTypeId.TIMESTAMP_NS:
      return 'ts:9:' + v.nanos.toString();
    case DuckDBTypeId.DECIMAL:
      return 'D:' + decimalText(v.value, v.scale);
    case DuckDBTypeId.INTERVAL:
      return `iv:${v.months}:${v.days}:${v.micros}`;
    case DuckDBTypeId.UUID:
      return 'uuid:' + String(v);
    case DuckDBTypeId.LIST:
      return v.items.map((x) => enc(x, t.valueType));
    case DuckDBTypeId.ARRAY:
      return v.items.map((x) => enc(x, t.valueType));
    case DuckDBTypeId.STRUCT: {
      const o = {};
      t.entryNames.forEach((name, k) => { o[name] = enc(v.entries[name], t.entryTypes[k]); });
      return o;
    }
    case DuckDBTypeId.MAP:
      return v.entries.map((e) => [enc(e.key, t.keyType), enc(e.value, t.valueType)]);
    case DuckDBTypeId.UNION: {
      const k = t.memberTags.indexOf(v.tag);
      return { [v.tag]: enc(v.value, t.memberTypes[k]) };
    }
    case DuckDBTypeId.GEOMETRY:
      return 'b:' + Buffer.from(v.bytes).toString('base64');
    case DuckDBTypeId.SQLNULL:
      return null;
    default:
      return 'other:' + String(v);
  }
}

for (const file of files) {
  const abs = path.resolve(root, file);
  let line;
  try {
    const reader = await conn.runAndReadAll(`SELECT * FROM read_parquet('${abs.replaceAll("'", "''")}', hive_partitioning = false)`);
    const names = reader.columnNames();
    const types = reader.columnTypes();
    const rows = reader.getRows().map((r) => r.map((v, c) => enc(v, types[c])));
    line = JSON.stringify({ file, columns: names.map((n, c) => ({ name: n, type: String(types[c]) })), rows });
  } catch (e) {
    line = JSON.stringify({ file, error: String(e && e.message ? e.message : e).split('\n')[0] });
  }
  if (!process.stdout.write(line + '\n')) await new Promise((r) => process.stdout.once('drain', r));
}
