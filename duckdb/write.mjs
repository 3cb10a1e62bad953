// DuckDB as a writer, for the differential test of files DuckDB writes
// (internal/conformance/duckdb_written_test.go):
//
//   node duckdb/write.mjs OUTDIR
//
// builds one table of 3,000 rows covering DuckDB's types (every integer width signed and
// unsigned, HUGEINT, floats with NaN and infinities, three decimal widths, dates, times, every
// timestamp unit, TIMESTAMPTZ, TIMETZ, INTERVAL, UUID, strings with non-ASCII text, BLOB, ENUM,
// lists, fixed-size arrays, structs, maps, a union, nested lists of structs, nulls in every
// column and empty lists), deterministic from the row number, and writes it to OUTDIR once per
// writer setting below (format version, codec, row group size, dictionary limits). It prints
// the file names, one per line. The test reads them back with duckdb/dump.mjs and pqscan and
// compares every value.
import { DuckDBInstance } from '@duckdb/node-api';
import path from 'node:path';

const [out] = process.argv.slice(2);
const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
const conn = await instance.connect();

await conn.run(`CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy', 'ünïcödé')`);
await conn.run(`CREATE TABLE t AS
SELECT
  i::INTEGER AS id,
  CASE WHEN i % 7 = 0 THEN NULL ELSE i % 3 = 0 END AS b,
  CASE WHEN i % 11 = 0 THEN NULL ELSE ((i * 37) % 256 - 128)::TINYINT END AS i8,
  ((i * 7919) % 65536 - 32768)::SMALLINT AS i16,
  CASE WHEN i % 13 = 0 THEN NULL ELSE (hash(i) % 4294967296)::BIGINT - 2147483648 END::INTEGER AS i32,
  CASE WHEN i % 5 = 0 THEN NULL ELSE (hash(i * 3) >> 1)::BIGINT * (CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END) END AS i64,
  (i % 256)::UTINYINT AS u8,
  ((i * 7919) % 65536)::USMALLINT AS u16,
  (hash(i + 1) % 4294967296)::UINTEGER AS u32,
  CASE WHEN i % 17 = 0 THEN NULL ELSE hash(i + 2) END AS u64,
  (hash(i + 3)::HUGEINT * (CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END) * 1000003) AS h,
  CASE i % 50 WHEN 1 THEN 'nan'::FLOAT WHEN 2 THEN 'inf'::FLOAT WHEN 3 THEN '-inf'::FLOAT WHEN 4 THEN -0.0::FLOAT WHEN 5 THEN NULL
    ELSE ((hash(i + 4) % 2000000)::FLOAT / 1000 - 1000) END AS f,
  CASE i % 40 WHEN 1 THEN 'nan'::DOUBLE WHEN 2 THEN 'inf'::DOUBLE WHEN 3 THEN '-inf'::DOUBLE WHEN 5 THEN NULL
    ELSE ((hash(i + 5) % 2000000000)::DOUBLE / 1000 - 1000000) END AS d,
  CASE WHEN i % 9 = 0 THEN NULL ELSE ((((i * 131) % 19999) - 9999) / 100)::DECIMAL(4,2) END AS dec4,
  (((hash(i + 6) % 2000000000000)::BIGINT - 1000000000000)::DECIMAL(18,6) / 1000)::DECIMAL(18,6) AS dec18,
  ((hash(i + 7)::HUGEINT * 100003 * (CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END))::DECIMAL(38,0)::DECIMAL(38,10) / 1000)::DECIMAL(38,10) AS dec38,
  CASE WHEN i % 19 = 0 THEN NULL ELSE DATE '1970-01-01' + ((hash(i + 8) % 300000)::INTEGER - 150000) END AS dt,
  (TIME '00:00:00' + to_microseconds((hash(i + 9) % 86400000000)::BIGINT)) AS tm,
  (TIMESTAMP '2000-01-01' + to_microseconds((hash(i + 10) % 3000000000000000)::BIGINT - 1500000000000000)) AS ts,
  (TIMESTAMP '2000-01-01' + to_milliseconds((hash(i + 11) % 3000000000000)::BIGINT - 1500000000000))::TIMESTAMP_MS AS ts_ms,
  CASE WHEN i % 23 = 0 THEN NULL ELSE make_timestamp_ns((hash(i + 12) % 4000000000000000000)::BIGINT - 2000000000000000000) END AS ts_ns,
  (TIMESTAMP '2000-01-01' + to_seconds((hash(i + 13) % 3000000000)::BIGINT - 1500000000))::TIMESTAMP_S AS ts_s,
  (TIMESTAMPTZ '2020-06-01 00:00:00+00' + to_microseconds((hash(i + 14) % 600000000000000)::BIGINT - 300000000000000)) AS tstz,
  CASE WHEN i % 29 = 0 THEN NULL ELSE to_months((i % 40)::INTEGER) + to_days((i % 70)::INTEGER) + to_milliseconds((hash(i + 15) % 100000000)::BIGINT) END AS iv,
  CASE WHEN i % 31 = 0 THEN NULL ELSE md5(i::VARCHAR)::UUID END AS u,
  CASE i % 10 WHEN 0 THEN NULL WHEN 1 THEN '' WHEN 2 THEN 'ünïcödé ✓ 𝄞' WHEN 3 THEN repeat('long', 60)
    ELSE 's' || (hash(i + 16) % 1000)::VARCHAR END AS s,
  CASE WHEN i % 8 = 0 THEN NULL ELSE unhex(md5(i::VARCHAR))[1:1 + i % 16] END AS bl,
  CASE WHEN i % 6 = 0 THEN NULL ELSE (['sad', 'ok', 'happy', 'ünïcödé'])[1 + i % 4]::mood END AS e,
  CASE i % 9 WHEN 0 THEN NULL WHEN 1 THEN []::INTEGER[]
    ELSE [i, NULL, i * 2, (hash(i) % 100)::INTEGER][1:1 + i % 4] END AS l,
  CASE WHEN i % 12 = 0 THEN NULL ELSE ['a' || i::VARCHAR, NULL, '' , 'z'][1:i % 5] END AS ls,
  CASE WHEN i % 14 = 0 THEN NULL ELSE {'a': CASE WHEN i % 4 = 0 THEN NULL ELSE i END, 'b': 'b' || (i % 7)::VARCHAR} END AS st,
  CASE WHEN i % 15 = 0 THEN NULL ELSE MAP(['k' || (i % 3)::VARCHAR, 'j' || (i % 5)::VARCHAR], [i, CASE WHEN i % 2 = 0 THEN NULL ELSE -i END]) END AS m,
  CASE WHEN i % 16 = 0 THEN NULL ELSE [{'x': [i, i + 1][1:i % 3], 'y': {'z': CASE WHEN i % 3 = 0 THEN NULL ELSE 'z' || i::VARCHAR END}}][1:i % 2 + 1] END AS nested,
  [i, CASE WHEN i % 4 = 0 THEN NULL ELSE -i END, 7]::INTEGER[3] AS arr,
  CASE WHEN i % 21 = 0 THEN NULL WHEN i % 2 = 0 THEN i::INTEGER::UNION(num INTEGER, str VARCHAR)
    ELSE ('u' || i::VARCHAR)::UNION(num INTEGER, str VARCHAR) END AS un
FROM range(3000) r(i)`);

const settings = [
  ['v1-snappy', ''],
  ['v2-zstd', ", PARQUET_VERSION V2, COMPRESSION zstd, ROW_GROUP_SIZE 1024"],
  ['v1-gzip-small-groups', ", COMPRESSION gzip, ROW_GROUP_SIZE 500"],
  ['v2-brotli', ", PARQUET_VERSION V2, COMPRESSION brotli"],
  ['v1-lz4', ", COMPRESSION lz4, ROW_GROUP_SIZE 2000"],
  ['v2-uncompressed-no-dictionary', ", PARQUET_VERSION V2, COMPRESSION uncompressed, DICTIONARY_SIZE_LIMIT 1"],
];
for (const [name, opts] of settings) {
  const file = `duckdb-${name}.parquet`;
  await conn.run(`COPY t TO '${path.join(out, file).replaceAll("'", "''")}' (FORMAT parquet${opts})`);
  console.log(file);
}
