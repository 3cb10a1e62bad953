// A folder URL (ending in /) in the dataset box is listed with S3 ListObjectsV2, path-style:
// the URL's first path segment is the bucket, the rest the key prefix
// (GET <origin>/<bucket>/?list-type=2&prefix=<rest>, following NextContinuationToken), as
// pqserve's data server (/data/) and S3-compatible stores answer. The bridge itself takes URL
// lists only (openDataset); this is the demo's own listing.

/** The *.parquet URLs below folder (a URL ending in /), with their sizes, sorted by key. */
export async function listFolder(folder, signal) {
  const u = new URL(folder)
  const [bucket, ...rest] = u.pathname.slice(1).split('/')
  const prefix = rest.join('/')
  const root = `${u.origin}/${bucket}/`
  const out = []
  let token = ''
  for (let page = 0; page < 1000; page++) {
    const q = new URLSearchParams({ 'list-type': '2', prefix })
    if (token) q.set('continuation-token', token)
    const res = await fetch(`${root}?${q}`, { signal })
    const text = await res.text()
    if (!res.ok) throw new Error(`listing ${root} (prefix ${prefix}): HTTP ${res.status}`)
    const doc = new DOMParser().parseFromString(text, 'application/xml')
    if (doc.querySelector('parsererror')) throw new Error(`listing ${root}: not an S3 ListBucketResult`)
    for (const c of doc.getElementsByTagName('Contents')) {
      const key = c.getElementsByTagName('Key')[0]?.textContent ?? ''
      const size = Number(c.getElementsByTagName('Size')[0]?.textContent ?? 0)
      const name = key.slice(key.lastIndexOf('/') + 1)
      // Hidden and _-prefixed names are skipped anywhere below the folder, as Spark and Hive do.
      const hidden = key.slice(prefix.length).split('/').some((s) => s.startsWith('.') || s.startsWith('_'))
      if (name.endsWith('.parquet') && !hidden) out.push(size > 0 ? { url: root + key, size } : root + key)
    }
    const truncated = doc.getElementsByTagName('IsTruncated')[0]?.textContent === 'true'
    token = doc.getElementsByTagName('NextContinuationToken')[0]?.textContent ?? ''
    if (!truncated) return out
    if (!token) throw new Error(`listing ${root}: truncated without a continuation token`)
  }
  throw new Error(`listing ${root}: more than 1000 pages`)
}
