// node --test e2e/bench/keep-md.test.js: a rewrite of BENCHMARKS.md loses no hand-written section.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { keepHandWritten, GEN_START, GEN_END } from './keep-md.js'

const gen = (notes) => `# Benchmarks\n\n## Summary\n\n| a |\n\n${notes}\n`
const notes = `## How it is measured\n\ntext\n\n${GEN_START}\n| old table |\n${GEN_END}\n\n## What is not done\n\n- x\n`

test('a section added to BENCHMARKS.md by hand is kept, in its order', () => {
  const old = gen(notes) + '\n## Maps (by hand)\n\nmaps\n\n```\n## not a heading\n```\n\n## Threads (by hand)\n\nthreads\n'
  const r = keepHandWritten(old, gen(notes), '## How it is measured')
  assert.deepEqual(r.kept, ['## Maps (by hand)', '## Threads (by hand)'])
  assert.deepEqual(r.conflicts, [])
  assert.ok(r.text.startsWith(gen(notes).trimEnd()) && r.text.endsWith('## Threads (by hand)\n\nthreads\n'), r.text)
  assert.ok(r.text.includes('## not a heading'))
  // Once in NOTES.md, nothing is appended twice.
  const again = keepHandWritten(r.text, r.text, '## How it is measured')
  assert.equal(again.text, r.text)
})

test('an edit made in BENCHMARKS.md to a NOTES.md section is a conflict; generated parts are not', () => {
  const edited = gen(notes.replace('- x\n', '- x\n- y, by hand\n'))
  assert.deepEqual(keepHandWritten(edited, gen(notes), '## How it is measured').conflicts, ['## What is not done'])
  const newTables = gen(notes.replace('| old table |', '| new table |'))
  assert.deepEqual(keepHandWritten(gen(notes), newTables, '## How it is measured').conflicts, [])
  // A section NOTES.md grew is no conflict; generated sections (before the notes) are not kept.
  const grown = gen(notes.replace('text\n', 'text\nmore\n'))
  const r = keepHandWritten(gen(notes).replace('## Summary', '## Old summary'), grown, '## How it is measured')
  assert.deepEqual([r.kept, r.conflicts], [[], []])
  assert.equal(keepHandWritten(null, grown, '## How it is measured').text, grown)
})
