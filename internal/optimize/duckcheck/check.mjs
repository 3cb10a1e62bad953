// node check.mjs IN OUT [sort_col,...]
//
// Reads IN and OUT with DuckDB and prints: row counts, rows of each not in the other as a
// multiset (EXCEPT ALL both ways), OUT's rows out of order by the sort columns (by
// file_row_number), and OUT's per-column bloom filter presence and sorting columns as DuckDB
// sees them. Exits 1 when the rows differ or the order is broken.
import { DuckDBInstance } from '@duckdb/node-api';

const [inPath, outPath, sortArg] = process.argv.slice(2);
if (!inPath || !outPath) {
  console.error('usage: node check.mjs IN OUT [sort_col,...]');
  process.exit(2);
}
const q = (s) => `'${s.replaceAll("'", "''")}'`;
const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
const one = async (sql) => (await conn.runAndReadAll(sql)).getRowObjects()[0];

const counts = await one(`SELECT (SELECT count(*) FROM read_parquet(${q(inPath)})) AS in_rows,
  (SELECT count(*) FROM read_parquet(${q(outPath)})) AS out_rows`);
const diff = await one(`SELECT
  (SELECT count(*) FROM (SELECT * FROM read_parquet(${q(inPath)}) EXCEPT ALL SELECT * FROM read_parquet(${q(outPath)}))) AS in_not_out,
  (SELECT count(*) FROM (SELECT * FROM read_parquet(${q(outPath)}) EXCEPT ALL SELECT * FROM read_parquet(${q(inPath)}))) AS out_not_in`);
let disorder = 0n;
if (sortArg) {
  const cols = sortArg.split(',');
  const key = `(${cols.join(', ')})`;
  const prev = `(${cols.map((c) => `lag(${c}) OVER (ORDER BY file_row_number)`).join(', ')})`;
  // Struct comparison orders NULL fields last, as optimize sorts.
  disorder = (await one(`SELECT count(*) AS n FROM (SELECT file_row_number AS i, ${key} AS k, ${prev} AS p
    FROM read_parquet(${q(outPath)}, file_row_number = true)) WHERE i > 0 AND p > k`)).n;
}
const blooms = (await conn.runAndReadAll(`SELECT path_in_schema, count(*) AS chunks,
  count(bloom_filter_offset) AS with_bloom FROM parquet_metadata(${q(outPath)})
  GROUP BY ALL ORDER BY path_in_schema`)).getRowObjects();
const meta = await one(`SELECT created_by, num_rows, num_row_groups FROM parquet_file_metadata(${q(outPath)})`);

const show = (o) => JSON.stringify(o, (_, v) => (typeof v === 'bigint' ? Number(v) : v));
console.log('counts', show(counts));
console.log('multiset difference', show(diff));
if (sortArg) console.log('rows out of order by', sortArg, Number(disorder));
console.log('file', show(meta));
console.log('bloom filters', show(blooms.filter((b) => Number(b.with_bloom) > 0)));
const ok = counts.in_rows === counts.out_rows && diff.in_not_out === 0n && diff.out_not_in === 0n && disorder === 0n;
console.log(ok ? 'OK' : 'MISMATCH');
process.exit(ok ? 0 : 1);
