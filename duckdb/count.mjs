// DuckDB counts for the count oracle test (count_duckdb_test.go in the repository root).
//
//   node duckdb/count.mjs ROOT FILE WHERE [FILE WHERE ...]
//
// runs `SELECT count(*) FROM read_parquet(ROOT/FILE) [WHERE ...]` for each pair (an empty
// WHERE counts every row) and writes one JSON line per pair: {"count": N} or {"error": "..."}.
// A FILE written "hive:GLOB" is a dataset: the files GLOB matches, read with
// hive_partitioning and union_by_name (dataset_count_test.go).
import { DuckDBInstance } from '@duckdb/node-api';
import path from 'node:path';

const [root, ...pairs] = process.argv.slice(2);
const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
const conn = await instance.connect();
for (let i = 0; i + 1 < pairs.length; i += 2) {
  const hive = pairs[i].startsWith('hive:');
  const file = path.join(root, hive ? pairs[i].slice(5) : pairs[i]).replaceAll("'", "''");
  const where = pairs[i + 1];
  const opts = hive ? 'hive_partitioning = true, union_by_name = true' : 'hive_partitioning = false';
  const sql = `SELECT count(*) AS n FROM read_parquet('${file}', ${opts})` + (where ? ` WHERE ${where}` : '');
  try {
    const rows = (await conn.runAndReadAll(sql)).getRows();
    process.stdout.write(JSON.stringify({ count: String(rows[0][0]) }) + '\n');
  } catch (e) {
    process.stdout.write(JSON.stringify({ error: String(e.message ?? e) }) + '\n');
  }
}
