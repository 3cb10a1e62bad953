// The scan pool in headless Chromium: a scan of the sample (4 row groups, 12 MB) split into
// units runs on two Workers and returns the rows one Worker returns, in the same order; so
// does a scan of the sample dataset (Hive day folders) in runs of its files.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { startServer, startBrowser } from './harness.js'

let srv, br
before(async () => {
  srv = await startServer()
  br = await startBrowser()
})
after(async () => {
  await br?.close()
  srv?.stop()
})

test('a multi-unit scan runs on two Workers and equals the one-Worker scan', async (t) => {
  const page = await br.ctx.newPage()
  try {
    await page.goto(srv.url + 'fixtures/blank.html')
    const out = await page.evaluate(async () => {
      const { createEngine } = await import('/pqscan/dist/pqscan.js')
      const text = new TextDecoder()
      const val = (_, v) => (typeof v === 'bigint' ? String(v) : v instanceof Uint8Array ? text.decode(v) : v)
      const scan = async (workers) => {
        const eng = createEngine({ workers })
        try {
          const s = eng.query('/data/events.parquet', { columns: ['event_time', 'tenant_id', 'event_type', 'value', 'payload'] })
          const rows = []
          for await (const b of s) for (const r of b) rows.push(JSON.stringify(Object.values(r.toJSON()), val))
          return { rows, units: s.report.units, threads: s.report.threads, rowsReturned: s.report.rowsReturned }
        } finally {
          eng.terminate()
        }
      }
      const one = await scan(1)
      const two = await scan(2)
      return { one: one.rows, two: two.rows, units: two.units, threads: two.threads, oneUnits: one.units, rowsReturned: two.rowsReturned }
    })
    t.diagnostic(`${out.units} units on ${out.threads} Workers, ${out.one.length} rows`)
    assert.equal(out.oneUnits, undefined, 'one Worker: one session')
    assert.ok(out.units >= 2, `units: ${out.units}`)
    assert.equal(out.threads, 2)
    assert.equal(out.rowsReturned, out.one.length)
    assert.equal(out.two.length, out.one.length)
    assert.ok(out.two.every((r, i) => r === out.one[i]), 'the same rows in the same order')
  } finally {
    await page.close()
  }
})

test("a dataset scan runs in runs of its files' rows on two Workers and equals the one-Worker scan", async (t) => {
  const page = await br.ctx.newPage()
  try {
    await page.goto(srv.url + 'fixtures/blank.html')
    const out = await page.evaluate(async () => {
      const { createEngine, listDataset } = await import('/pqscan/dist/pqscan.js')
      const files = await listDataset(location.origin + '/data/ds/', { pathStyle: true })
      const val = (_, v) => (typeof v === 'bigint' ? String(v) : v)
      const scan = async (workers, o) => {
        const eng = createEngine({ workers, unitMinBytes: 1 }) // every file cut into runs of its rows
        try {
          const ds = await eng.openDataset(files)
          const s = ds.scan(o)
          const rows = []
          for await (const b of s) for (const r of b) rows.push(JSON.stringify(Object.values(r.toJSON()), val))
          return { rows, units: s.report.units, threads: s.report.threads }
        } finally {
          eng.terminate()
        }
      }
      const res = []
      for (const o of [{}, { columns: ['tenant_id', 'value', 'event_date'], where: 'tenant_id < 50' }]) {
        const one = await scan(1, o)
        const two = await scan(2, o)
        res.push({ one: one.rows, two: two.rows, units: two.units, threads: two.threads, oneUnits: one.units })
      }
      return { files: files.length, res }
    })
    for (const r of out.res) {
      t.diagnostic(`${out.files} files: ${r.units} units on ${r.threads} Workers, ${r.one.length} rows`)
      assert.equal(r.oneUnits, undefined, 'one Worker: one session')
      assert.ok(r.units >= 2, `units: ${r.units}`)
      assert.ok(r.one.length > 0)
      assert.equal(r.two.length, r.one.length)
      assert.ok(r.two.every((x, i) => x === r.one[i]), 'the same rows in the same order')
    }
  } finally {
    await page.close()
  }
})
