package deltasession

// Deletion vectors: once the log is replayed, the session fetches the stored vectors of the
// live files (one NeedData round for all of them, each vector as the one range its descriptor
// names, through the same file table as the checkpoint reads) and decodes them into each
// file's deleted rows (tablescan.File.Deleted). Inline vectors need no request. The file table
// names a vector file by its path relative to the table root, or, for an absolute ("p")
// vector outside the root, by its URI as the log writes it: the host resolves that as it
// resolves an absolute data file path, within the open's scope (the session cannot judge a
// scope: it knows nothing of the host's files).

import (
	"bytes"
	"strings"

	"github.com/pqscan/pqscan/internal/errf"

	"github.com/pqscan/pqscan/internal/dataset/delta"
	"github.com/pqscan/pqscan/internal/dataset/pathenc"
	"github.com/pqscan/pqscan/internal/protocol"
	"github.com/pqscan/pqscan/internal/roaring"
	"github.com/pqscan/pqscan/internal/scan"
)

// dvFile is one deletion vector file being read: the bytes pushed for it, by offset.
type dvFile struct {
	path string
	Chunks
}

// Chunks are the bytes pushed for one file by offset (ranges of a NeedData step, however the
// host split or merged them).
type Chunks struct{ list []chunk }

type chunk struct {
	off int64
	b   []byte
}

// Add keeps a copy of b, the file's bytes at off.
func (c *Chunks) Add(off int64, b []byte) {
	c.list = append(c.list, chunk{off: off, b: bytes.Clone(b)})
}

// Each calls f with each push, in the order they came.
func (c *Chunks) Each(f func(off int64, b []byte) error) error {
	for _, c := range c.list {
		if err := f(c.off, c.b); err != nil {
			return err
		}
	}
	return nil
}

// At returns n bytes at off when the pushes cover them, else nil.
func (c *Chunks) At(off, n int64) []byte {
	var out []byte
	for int64(len(out)) < n {
		next, found := off+int64(len(out)), false
		for _, c := range c.list {
			if c.off <= next && next < c.off+int64(len(c.b)) {
				out = append(out, c.b[next-c.off:min(int64(len(c.b)), next-c.off+n-int64(len(out)))]...)
				found = true
				break
			}
		}
		if !found {
			return nil
		}
	}
	return out
}

// startVectors plans the reads of the snapshot's stored deletion vectors and returns the
// NeedData step asking for them (ok false: none is stored).
func (s *Session) startVectors(snap *delta.Snapshot) (scan.Step, bool, error) {
	var reqs []scan.FileRange
	var total int64
	limit := s.opts.MemoryCap
	if limit <= 0 {
		limit = protocol.DefaultMemoryCap
	}
	byPath := map[string]int{}
	for i := range snap.Files {
		dv := snap.Files[i].DeletionVector
		if dv == nil || !dv.Stored() {
			continue
		}
		p, err := s.vectorPath(dv, snap.Files[i].Path)
		if err != nil {
			return scan.Step{}, false, err
		}
		k, ok := byPath[p]
		if !ok {
			k = len(s.files)
			byPath[p] = k
			s.files = append(s.files, p)
			s.dvs[k] = &dvFile{path: p}
		}
		s.own(k, snap.Files[i].Path)
		for _, r := range dv.Ranges() {
			reqs = append(reqs, scan.FileRange{File: k, Range: scan.Range{Off: r[0], Len: r[1]}})
			// The vectors are held until all arrive: their sum is bounded before any request.
			if total += r[1]; total > limit {
				return scan.Step{}, false, errf.Errorf("%w: the deletion vectors take more than %d bytes", scan.ErrMemoryCap, limit)
			}
		}
	}
	s.vecFiles = byPath
	if len(reqs) == 0 {
		return scan.Step{}, false, nil
	}
	return scan.Step{Kind: scan.NeedData, Reqs: reqs}, true, nil
}

// own records that file table entry k holds the vector of the data file at path: hosts name
// it in the errors of that entry (Owners).
func (s *Session) own(k int, path string) {
	for len(s.owners) <= k {
		s.owners = append(s.owners, "")
	}
	switch o := s.owners[k]; {
	case o == "":
		s.owners[k] = path
	case !strings.HasSuffix(o, " and others"):
		s.owners[k] = o + " and others"
	}
}

// vectorPath is where a stored vector is: a "u" vector's derived path (relative to the table
// root), a "p" vector's path relative to the root when it lies under Options.Root, else its
// URI as written (for the host to resolve and check against the open's scope).
func (s *Session) vectorPath(dv *delta.DeletionVector, file string) (string, error) {
	p, err := dv.Path()
	if err != nil {
		return "", errf.Errorf("%w (file %s)", err, file)
	}
	if dv.StorageType != "p" {
		return p, nil
	}
	if rel, ok := underRoot(s.opts.Root, p); ok {
		return rel, nil
	}
	if !delta.IsAbsolute(p) {
		return "", errf.Errorf("%w: the deletion vector of %s: absolute path %q has no URI scheme", delta.ErrMalformed, file, p)
	}
	return p, nil
}

// underRoot returns uri relative to root (both absolute URIs; file:/x and file:///x are the
// same), percent-decoded, when it lies below it.
func underRoot(root, uri string) (string, bool) {
	norm := func(u string) string {
		if rest, ok := strings.CutPrefix(u, "file:"); ok {
			return "file:///" + strings.TrimLeft(rest, "/")
		}
		return u
	}
	root, uri = norm(root), norm(uri)
	if root == "" || !strings.HasSuffix(root, "/") || !strings.HasPrefix(uri, root) {
		return "", false
	}
	rel := pathenc.Unescape(uri[len(root):])
	for _, seg := range strings.Split(rel, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", false
		}
	}
	return rel, true
}

// decodeVectors decodes every live file's vector from the pushed bytes into its deleted rows
// (flat start, end pairs, as tablescan.File.Deleted takes them).
func (s *Session) decodeVectors(snap *delta.Snapshot) ([][]int64, error) {
	out := make([][]int64, len(snap.Files))
	var runs []roaring.Range
	for i := range snap.Files {
		f := &snap.Files[i]
		dv := f.DeletionVector
		if dv == nil {
			continue
		}
		at := func(int64, int64) []byte { return nil }
		if dv.Stored() {
			p, err := s.vectorPath(dv, f.Path)
			if err != nil {
				return nil, err
			}
			at = s.dvs[s.vecFiles[p]].At
		}
		var rows int64
		if f.Stats != nil && f.Stats.NumRecords > 0 {
			rows = f.Stats.NumRecords
		}
		var err error
		if runs, err = dv.Decode(f.Path, at, rows); err != nil {
			return nil, err
		}
		if len(runs) == 0 {
			continue
		}
		pairs := make([]int64, 0, 2*len(runs))
		for _, r := range runs {
			pairs = append(pairs, int64(r.Start), int64(r.End))
		}
		out[i] = pairs
	}
	return out, nil
}
