// MetadataInstance simulates the metadata ABI (pq_open options "metadata" and "fileKey", step
// kind 5, pq_metadata; wasm/ABI.md) on top of the module of today, for the bridge's tests:
//
//   - "metadata": true  → METADATA once, right after the footer is decoded (pq_schema answers
//     from then on), before the step the real engine returned;
//   - "fileKey"          → the bytes the host pushed until that step (the tail) are kept under the
//     key; a later session opened with the same key and fileSize gets them pushed internally,
//     so the host is never asked for them.
//
// Every host-visible call is logged (open with its options, push with off/len).
import { Instance, METADATA, ERROR } from '../src/module.js'

export class MetadataInstance {
  static async create(module) {
    const self = new MetadataInstance()
    self.real = await Instance.create(module)
    self.kept = new Map() // fileKey → {size, pieces}
    self.sessions = new Map()
    self.log = []
    self.schemaCalls = 0
    self.cachedOpens = 0
    self.lastHandle = 0
    return self
  }

  get hasMetadata() {
    return true
  }
  get dead() {
    return this.real.dead
  }
  get memoryBytes() {
    return this.real.memoryBytes
  }

  open(o) {
    this.log.push({ op: 'open', o: { ...o } })
    const { metadata, fileKey, ...rest } = o
    const h = this.real.open(rest)
    const kept = fileKey != null ? this.kept.get(fileKey) : undefined
    const s = { metadata: !!metadata, sent: false, pending: null, fileKey, record: null }
    if (kept && kept.size === o.fileSize) {
      this.cachedOpens++
      for (const p of kept.pieces) this.real.push(h, p.off, p.bytes)
    } else if (fileKey != null) {
      s.record = []
    }
    this.sessions.set(h, s)
    this.lastHandle = h
    return h
  }

  next(h) {
    const s = this.sessions.get(h)
    if (s.pending !== null) {
      const k = s.pending
      s.pending = null
      return k
    }
    const k = this.real.next(h)
    if (!s.sent && k !== ERROR && this.real.schema(h)) {
      s.sent = true
      if (s.record) this.kept.set(s.fileKey, { size: this.real.report(h).fileSize, pieces: s.record })
      s.record = null
      if (s.metadata) {
        s.pending = k
        return METADATA
      }
    }
    return k
  }

  push(h, off, bytes) {
    this.log.push({ op: 'push', h, off, len: bytes.length })
    this.sessions.get(h).record?.push({ off, bytes: bytes.slice() })
    this.real.push(h, off, bytes)
  }

  metadata(h) {
    const r = this.real.report(h)
    return {
      fileSize: r.fileSize,
      numRows: r.rowsTotal,
      createdBy: 'simulated',
      version: 1,
      keyValue: [{ key: 'origin', value: 'metadata-instance.js' }],
      rowGroups: Array.from({ length: r.rowGroupsTotal }, () => ({ numRows: 0, totalByteSize: 0 })),
    }
  }

  schema(h) {
    this.schemaCalls++
    return this.real.schema(h)
  }

  ranges(h) {
    return this.real.ranges(h)
  }
  ipc(h) {
    return this.real.ipc(h)
  }
  report(h) {
    return this.real.report(h)
  }
  error(h) {
    return this.real.error(h)
  }
  setSize(h, n) {
    return this.real.setSize(h, n)
  }
  close(h) {
    this.sessions.delete(h)
    return this.real.close(h)
  }
  debug(kind, arg) {
    return this.real.debug(kind, arg)
  }
}
