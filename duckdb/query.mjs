// DuckDB as the oracle of a dataset query (dataset_schema_test.go in the repository root).
//
//   node duckdb/query.mjs SQL...
//
// runs each SQL and writes its rows to stdout as one line each: a JSON array of arrays
// (DuckDB's JSON form of each value: strings for BIGINT, DECIMAL, TIMESTAMP; the test casts
// what it compares). One process for all queries: starting DuckDB costs a second or two.
import { DuckDBInstance } from '@duckdb/node-api';

const queries = process.argv.slice(2);
const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
const conn = await instance.connect();
for (const sql of queries) {
  const reader = await conn.runAndReadAll(sql);
  process.stdout.write(JSON.stringify(reader.getRowsJson()) + '\n');
}
