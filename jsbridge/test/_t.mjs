import { openParquet } from '../src/index.js'
import { startServer } from './server.js'
import { readFile } from 'node:fs/promises'
const f = await readFile('/work/shared/testdata/parquet-testing/data/alltypes_plain.parquet')
const s = await startServer(new Map([['/a.parquet', new Uint8Array(f)]]))
for (const worker of [true, false]) {
  const t0 = Date.now()
  const file = await openParquet(s.url + '/a.parquet', { worker })
  console.log(worker, Date.now() - t0, file.metadata.numRows, file.schema.fields.length)
  const scan = file.scan({ where: 'id > 3', columns: ['id', 'bigint_col'], onProgress: p => console.log('progress', p.phase, p.bytesFetched) })
  const t = await scan.toTable()
  console.log(t.numRows, t.toArray().map(r => r.toJSON()), scan.report.rowsReturned, scan.http)
  console.log(await file.explain({ where: 'id > 100' }))
  const e = await file.scan({ where: 'id > 100', columns: ['id'] }).toTable()
  console.log('empty', e.numRows, e.schema.fields.map(String))
}
await s.close()
