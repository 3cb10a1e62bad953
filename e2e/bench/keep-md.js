// BENCHMARKS.md is rewritten whole by `make bench` and `make bench-md`: the generated tables,
// then the hand-written sections of e2e/bench/NOTES.md. Sections are also written into
// BENCHMARKS.md by hand, between two rewrites; keepHandWritten makes a rewrite lose none of
// them. It is sans-IO: the old and the new text in, the text to write out.
//
// - A hand-written section (a `## ` heading from NOTES.md's first on) of the old file whose
//   heading the new text lacks is kept, after the notes, in its order (`kept`: move it into
//   NOTES.md).
// - A hand-written section the new text has, but whose old text holds lines the new one lacks
//   (an edit made in BENCHMARKS.md, not in NOTES.md), is `conflicts`: the caller refuses to
//   write unless told to, so that no edit is dropped silently.
// Generated inserts inside the notes (the dataset tables) are written between GEN_START and
// GEN_END: the old file's are not compared (the new results replace them).

export const GEN_START = '<!-- generated: make bench-md rewrites this part -->'
export const GEN_END = '<!-- end of the generated part -->'

/** The `## ` sections of text from the heading first on, outside code fences. */
export function sections(text, first) {
  const lines = text.split('\n')
  const out = []
  let fence = false
  let on = false
  for (const l of lines) {
    if (l.startsWith('```')) fence = !fence
    if (!fence && l.startsWith('## ')) {
      if (l === first) on = true
      if (on) out.push({ heading: l, lines: [] })
    }
    if (on && out.length) out[out.length - 1].lines.push(l)
  }
  return out
}

// The lines of a section that count: generated inserts and blank lines left out.
function significant(lines) {
  const out = []
  let gen = false
  for (const l of lines) {
    if (l === GEN_START) gen = true
    else if (l === GEN_END) gen = false
    else if (!gen && l.trim()) out.push(l)
  }
  return out
}

/**
 * @param {string|null} oldText the file as it is (null: none)
 * @param {string} newText the rewrite
 * @param {string} first the heading of NOTES.md's first section
 * @returns {{text: string, kept: string[], conflicts: string[]}}
 */
export function keepHandWritten(oldText, newText, first) {
  if (!oldText) return { text: newText, kept: [], conflicts: [] }
  const now = new Map(sections(newText, first).map((s) => [s.heading, s]))
  const kept = []
  const conflicts = []
  for (const s of sections(oldText, first)) {
    const n = now.get(s.heading)
    if (!n) {
      kept.push(s)
      continue
    }
    const have = new Set(n.lines) // the new text's generated parts included: the old file may predate the markers
    if (significant(s.lines).some((l) => !have.has(l))) conflicts.push(s.heading)
  }
  let text = newText
  if (kept.length) {
    const body = kept.map((s) => s.lines.join('\n').replace(/\n+$/, '')).join('\n\n')
    text = newText.replace(/\n+$/, '') + '\n\n' + body + '\n'
  }
  return { text, kept: kept.map((s) => s.heading), conflicts }
}
