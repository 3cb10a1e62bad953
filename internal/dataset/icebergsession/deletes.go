package icebergsession

// Deletes (iceberg.PlanDeletes says which apply to which data file): once the manifests are
// read, one NeedData round asks for every deletion vector's blob (its one range of the Puffin
// file) and the start of every position delete file that applies, which the engine's own
// scanner reads (file_path and pos, like the Delta session's checkpoints) in further rounds.
// Each data file's deleted positions become its tablescan.File.Deleted runs. The file table
// (Files) names each delete file by its path relative to the table root.

import (
	"bytes"
	"encoding/binary"
	"slices"
	"sort"

	"github.com/pqscan/pqscan/internal/dataset/deltasession"
	"github.com/pqscan/pqscan/internal/dataset/iceberg"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/protocol"
	"github.com/pqscan/pqscan/internal/roaring"
	"github.com/pqscan/pqscan/internal/scan"
)

// maxDeleted bounds the deleted positions held for the snapshot (8 bytes each, sorted once
// all are read): the engine's default memory cap.
const maxDeleted = protocol.DefaultMemoryCap / 8

// deleteReads is the reading of the snapshot's delete files.
type deleteReads struct {
	data    []iceberg.DataFile
	dels    []iceberg.DataFile
	plan    []iceberg.Applied
	files   []string                     // the file table: NeedData's file index -> path
	owners  []string                     // by file index: the data file a vector is of
	reads   map[int]*fileRead            // delete (and data) files being read, by file index
	blobs   map[int]*deltasession.Chunks // Puffin files, by file index
	blobAt  map[string]int               // Puffin file index by path
	pos     [][]int64                    // by data file: positions from position deletes
	held    int64                        // positions held in pos
	pending []scan.FileRange             // the vectors' ranges, asked with the first round
	eq      *eqState                     // equality deletes (equality.go)
	loc     string                       // the table location, cut from the files' paths
	paths   map[string]string            // Options.PathMap
}

// fileRead is one file read with the engine's scanner, each batch given to onBatch.
type fileRead struct {
	name    string // the file as the manifests name it
	size    int64
	sc      *scan.Scanner
	out     arrowipc.Schema
	err     error
	onBatch func(n int, in *arrowipc.Schema, cols []*arrowipc.Array) error
	// An equality read first reads the footer alone (probe: an Explain scan, its bytes kept
	// in tail) to learn the columns of its field ids (cols, by id), then the columns.
	probe bool
	tail  deltasession.Chunks
	ids   []int64
	cols  map[int64]string
}

// startDeletes plans the reads of the deletes that apply (ok false: none does).
func (s *Session) startDeletes(data, dels []iceberg.DataFile, plan []iceberg.Applied) (scan.Step, bool) {
	d := &deleteReads{data: data, dels: dels, plan: plan, reads: map[int]*fileRead{}, blobs: map[int]*deltasession.Chunks{},
		blobAt: map[string]int{}, pos: make([][]int64, len(data)), loc: s.meta.Location, paths: s.opts.PathMap}
	s.del = d
	byDel := map[int]int{}
	targets := map[int]map[string]int{} // by position delete file: data file path -> index
	var total int64
	for i, a := range plan {
		if a.DV >= 0 {
			dv := &dels[a.DV]
			k, ok := d.blobAt[dv.Path]
			if !ok {
				var err error
				if k, err = d.add(dv.Path); err != nil {
					return s.fail(err), true
				}
				d.blobAt[dv.Path], d.blobs[k] = k, &deltasession.Chunks{}
			}
			d.own(k, data[i].Path)
			// The blobs are held until all arrive: their sum is bounded before any request.
			if total += dv.ContentSize; total > protocol.DefaultMemoryCap {
				return s.fail(errf.Errorf("%w: the deletion vectors take more than %d bytes", scan.ErrMemoryCap, protocol.DefaultMemoryCap)), true
			}
			d.pending = append(d.pending, scan.FileRange{File: k, Range: scan.Range{Off: dv.ContentOffset, Len: dv.ContentSize}})
		}
		for _, j := range a.Positions {
			k, ok := byDel[j]
			if !ok {
				var err error
				if k, err = d.add(dels[j].Path); err != nil {
					return s.fail(err), true
				}
				byDel[j], targets[k] = k, map[string]int{}
				t := targets[k]
				d.startRead(k, &dels[j], []string{"file_path", "pos"}, func(n int, in *arrowipc.Schema, cols []*arrowipc.Array) error {
					return d.positions(t, n, in, cols)
				})
			}
			targets[k][data[i].Path] = i
		}
	}
	d.pending, total = coalesce(d.pending, maxBlobGap), 0
	for _, r := range d.pending {
		if total += r.Len; total > protocol.DefaultMemoryCap {
			return s.fail(errf.Errorf("%w: the deletion vectors take more than %d bytes", scan.ErrMemoryCap, protocol.DefaultMemoryCap)), true
		}
	}
	if err := d.startEquality(s.schema); err != nil {
		return s.fail(err), true
	}
	if len(d.files) == 0 {
		return scan.Step{}, false
	}
	var err error
	if s.preview, err = s.snapshotOf(data, nil); err != nil {
		return s.fail(err), true
	}
	return s.stepDeletes(), true
}

// maxBlobGap is the most bytes between two deletion vectors of one Puffin file read with them
// as one range: a host's first request to a file goes alone (it learns whether the server
// honours ranges), so a file's vectors asked apart would take a round each.
const maxBlobGap = 64 << 10

// coalesce merges the ranges of each file that lie at most gap bytes apart.
func coalesce(rs []scan.FileRange, gap int64) []scan.FileRange {
	// sort.Slice, not slices.SortFunc: each instantiation of the latter is ~17 KB of the module.
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].File != rs[j].File {
			return rs[i].File < rs[j].File
		}
		return rs[i].Range.Off < rs[j].Range.Off
	})
	var out []scan.FileRange
	for _, r := range rs {
		if n := len(out); n > 0 && out[n-1].File == r.File && r.Range.Off <= out[n-1].Range.Off+out[n-1].Range.Len+gap {
			last := &out[n-1].Range
			last.Len = max(last.Len, r.Range.Off+r.Range.Len-last.Off)
			continue
		}
		out = append(out, r)
	}
	return out
}

// add appends a file to the file table, by its path relative to the table root (outside the
// location: as written, for the host to resolve within its scope, iceberg.Locate).
func (d *deleteReads) add(p string) (int, error) {
	at, _, err := iceberg.LocateMapped(d.loc, p, d.paths)
	if err != nil {
		return 0, err
	}
	d.files = append(d.files, at)
	return len(d.files) - 1, nil
}

// own records that file k holds the deletion vector of the data file at path: hosts name it
// in that file's errors (Owners).
func (d *deleteReads) own(k int, path string) {
	for len(d.owners) <= k {
		d.owners = append(d.owners, "")
	}
	if d.owners[k] == "" {
		d.owners[k] = path
	}
}

// startRead opens the engine's scanner on file k (f, whose size the manifest gives) for
// columns; a scanner that cannot start fails at its first step.
func (d *deleteReads) startRead(k int, f *iceberg.DataFile, columns []string, onBatch func(int, *arrowipc.Schema, []*arrowipc.Array) error) *fileRead {
	r := &fileRead{name: f.Path, size: f.Size, onBatch: onBatch}
	r.open(scan.Options{FileSize: f.Size, Columns: columns})
	d.reads[k] = r
	return r
}

func (r *fileRead) open(o scan.Options) {
	r.sc, r.err = scan.New(o)
	if r.err == nil {
		// The shaper sees each batch's arrays before they are encoded: they are read here,
		// and the IPC the scanner writes anyway is dropped.
		r.sc.SetShaper(&r.out, func(n int, in *arrowipc.Schema, cols []*arrowipc.Array) ([]*arrowipc.Array, error) {
			r.out = *in
			if r.err == nil {
				r.err = r.onBatch(n, in, cols)
			}
			return cols, nil
		})
	}
}

// positions adds the rows of one batch of a position delete file to the data files they name.
// The columns are read in place (a file holds millions of rows): the path of each row is
// looked up only when it differs from the previous row's, as the spec sorts the rows by path.
func (d *deleteReads) positions(targets map[string]int, n int, in *arrowipc.Schema, cols []*arrowipc.Array) error {
	paths, pos, err := positionColumns(in, n, cols)
	if err != nil {
		return err
	}
	var last []byte
	target, ok := -1, false
	for r := range n {
		p, okP := paths.at(r)
		if !okP || !valid(pos, r) {
			return errf.Errorf("%w: a position delete row without file_path or pos", iceberg.ErrMalformed)
		}
		if last == nil || !bytes.Equal(p, last) {
			last = p
			target, ok = targets[string(p)]
		}
		if !ok {
			continue
		}
		if err := d.delete(target, int64(binary.LittleEndian.Uint64(pos.Data[8*r:]))); err != nil {
			return err
		}
	}
	return nil
}

// pathColumn reads the strings of a Utf8 or Binary array, plain or dictionary-encoded.
type pathColumn struct{ a, dict *arrowipc.Array }

// at is string r (not copied), ok false when it is null or out of bounds.
func (c pathColumn) at(r int) ([]byte, bool) {
	if !valid(c.a, r) {
		return nil, false
	}
	a := c.a
	if c.dict != nil {
		if 4*r+4 > len(a.Data) {
			return nil, false
		}
		r, a = int(int32(binary.LittleEndian.Uint32(a.Data[4*r:]))), c.dict
		if r < 0 || r >= a.Len || !valid(a, r) {
			return nil, false
		}
	}
	if r+1 >= len(a.Offsets) {
		return nil, false
	}
	s, e := int(a.Offsets[r]), int(a.Offsets[r+1])
	if s < 0 || e < s || e > len(a.Data) {
		return nil, false
	}
	return a.Data[s:e], true
}

// positionColumns finds file_path and pos in a batch of n rows and checks their types and
// lengths.
func positionColumns(in *arrowipc.Schema, n int, cols []*arrowipc.Array) (pathColumn, *arrowipc.Array, error) {
	var paths pathColumn
	var pos *arrowipc.Array
	for i, f := range in.Fields {
		if i >= len(cols) || cols[i] == nil || cols[i].Len < n {
			break
		}
		switch t := f.Type; {
		case f.Name == "file_path" && (t.ID == arrowipc.Utf8 || t.ID == arrowipc.Binary):
			paths.a = cols[i]
			if t.Dictionary {
				if paths.dict = cols[i].Dict; paths.dict == nil {
					paths.a = nil
				}
			}
		case f.Name == "pos" && t.ID == arrowipc.Int && t.BitWidth == 64 && !t.Dictionary && len(cols[i].Data) >= 8*n:
			pos = cols[i]
		}
	}
	if paths.a == nil || pos == nil {
		return paths, nil, errf.Errorf("%w: a position delete file without a string file_path and a long pos", iceberg.ErrMalformed)
	}
	return paths, pos, nil
}

func valid(a *arrowipc.Array, i int) bool {
	return a.Validity == nil || i/8 < len(a.Validity) && a.Validity[i/8]&(1<<(i%8)) != 0
}

// delete records that row pos of data file i is deleted.
func (d *deleteReads) delete(i int, pos int64) error {
	if pos < 0 || pos >= d.data[i].Records {
		return errf.Errorf("%w: position %d of %s, which has %d rows", iceberg.ErrMalformed, pos, d.data[i].Path, d.data[i].Records)
	}
	if d.held++; d.held > maxDeleted {
		return errf.Errorf("%w: more than %d deleted positions", scan.ErrMemoryCap, maxDeleted)
	}
	d.pos[i] = append(d.pos[i], pos)
	return nil
}

// stepDeletes advances every position delete read until each needs bytes or has ended, then
// builds the snapshot with each data file's deleted rows.
func (s *Session) stepDeletes() scan.Step {
	d := s.del
	need := d.pending
	d.pending = nil
	for k, r := range d.reads {
		var done bool
		err := r.err
		for err == nil {
			if need, done, err = deltasession.Advance(r.sc, k, need, func() error { return r.err }); !done || err != nil || !r.probe {
				break
			}
			err = d.eq.unprobe(r)
		}
		if err != nil {
			return s.fail(errf.Errorf("%s: %w", r.name, err))
		}
		if done {
			rep := r.sc.Report()
			s.rep.BytesPushed += rep.BytesPushed
			s.rep.Requests += rep.Requests
			delete(d.reads, k)
		}
	}
	if len(need) == 0 && d.eq != nil {
		if err := d.eq.next(d); err != nil {
			return s.fail(err)
		}
		if len(d.reads) > 0 {
			return s.stepDeletes() // the data files' reads, once the delete sets are read
		}
	}
	if len(need) > 0 {
		s.st = stDeletes
		return scan.Step{Kind: scan.NeedData, Reqs: need}
	}
	deleted, err := d.deleted()
	if err != nil {
		return s.fail(err)
	}
	return s.build(d.data, deleted)
}

// deleted returns each data file's deleted rows as flat [start, end) pairs.
func (d *deleteReads) deleted() ([][]int64, error) {
	out := make([][]int64, len(d.data))
	for i, a := range d.plan {
		var runs []roaring.Range
		if a.DV >= 0 {
			dv := &d.dels[a.DV]
			blob := d.blobs[d.blobAt[dv.Path]].At(dv.ContentOffset, dv.ContentSize)
			if blob == nil {
				return nil, errf.Errorf("%w: deletion vector %s of %s: the file ends before byte %d", iceberg.ErrMissingFile,
					dv.Path, d.data[i].Path, dv.ContentOffset+dv.ContentSize)
			}
			var err error
			if runs, err = iceberg.DecodeDV(dv, &d.data[i], blob, int(maxDeleted)); err != nil {
				return nil, err
			}
		}
		p := d.pos[i]
		if !slices.IsSorted(p) { // a file's rows are sorted by position, as the spec asks
			slices.Sort(p)
		}
		for _, v := range slices.Compact(p) {
			if n := len(runs); n > 0 && runs[n-1].End == uint64(v) {
				runs[n-1].End++
			} else {
				runs = append(runs, roaring.Range{Start: uint64(v), End: uint64(v) + 1})
			}
		}
		for _, r := range runs {
			out[i] = append(out[i], int64(r.Start), int64(r.End))
		}
	}
	return out, nil
}

// Files is the file table of NeedData steps: the delete files, by their path relative to the
// table root. It only grows.
func (s *Session) Files() []string {
	if s.del == nil {
		return nil
	}
	return s.del.files
}

// Owners says, by file index, which data file a Puffin file of the file table holds the
// deletion vector of (the first one), "" for a position delete file: a host names it with
// the file in that file's errors.
func (s *Session) Owners() []string {
	if s.del == nil {
		return nil
	}
	return s.del.owners
}

// PushFile gives bytes of delete file `file` (NeedData).
func (s *Session) PushFile(file int, off int64, b []byte) error {
	if s.del == nil {
		return errf.Errorf("%w: no delete file is being read", ErrProtocol)
	}
	if r := s.del.reads[file]; r != nil && r.probe {
		r.tail.Add(off, b)
	}
	if c, ok := s.del.blobs[file]; ok {
		c.Add(off, b)
		s.rep.BytesPushed += int64(len(b))
		return nil
	}
	r, ok := s.del.reads[file]
	if !ok {
		return errf.Errorf("%w: file %d is not being read", ErrProtocol, file)
	}
	return r.sc.Push(off, b)
}

// SetFileSizeOf gives the size of delete file `file` (the manifest gives it: only a host
// that asked a suffix calls it).
func (s *Session) SetFileSizeOf(file int, n int64) error {
	if s.del == nil || s.del.reads[file] == nil {
		return errf.Errorf("%w: file %d is not being read", ErrProtocol, file)
	}
	return s.del.reads[file].sc.SetFileSize(n)
}
