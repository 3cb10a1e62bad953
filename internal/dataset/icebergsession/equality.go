package icebergsession

// Equality deletes (spec § Equality Delete Files): a row of a data file is deleted when its
// values of the delete file's equality_ids columns equal those of a row of the delete file
// (NULL equal to NULL). The rows are an anti-join, which this session turns into positions:
// first the delete files' key columns are read into sets of keys, then the key columns of
// each data file they apply to, each row whose key is in a set becoming a deleted position.
// The data files' key columns are thus read twice (here and by the table scan). A file's
// columns are found by field id in its footer (read first, alone: writers sanitize names,
// "Breed Name" is stored as "Breed_x20Name"), by the table's names in a file without ids; keys
// are the values' bytes, and a column whose type differs between a delete file and a data
// file (a promoted type) is refused rather than compared wrong.

import (
	"encoding/binary"
	"slices"

	"github.com/pqscan/pqscan/internal/dataset/deltasession"
	"github.com/pqscan/pqscan/internal/dataset/iceberg"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/scan"
)

var errShortArray = errf.Errorf("%w: an array shorter than its length", ErrProtocol)

// eqState holds the equality deletes' reading.
type eqState struct {
	names   map[int64]string            // the table schema's top-level fields by id
	sets    map[int]map[string]struct{} // by delete file index: its keys
	types   map[int64]arrowipc.DataType // the key columns' types, as the delete files have them
	started bool                        // the data files' reads are started
}

// startEquality starts the reads of the equality delete files that apply.
func (d *deleteReads) startEquality(schema *iceberg.Schema) error {
	e := &eqState{names: map[int64]string{}, sets: map[int]map[string]struct{}{}, types: map[int64]arrowipc.DataType{}}
	for _, f := range schema.Fields {
		e.names[int64(f.ID)] = f.Name
	}
	for _, a := range d.plan {
		for _, j := range a.Equality {
			if e.sets[j] != nil {
				continue
			}
			del := &d.dels[j]
			k, err := d.add(del.Path)
			if err != nil {
				return err
			}
			set := map[string]struct{}{}
			e.sets[j] = set
			e.probe(d, k, del, del.EqualityIDs, func(n int, in *arrowipc.Schema, arrs []*arrowipc.Array) error {
				idx, err := e.batch(d.reads[k], in, del.EqualityIDs, true)
				if err != nil {
					return err
				}
				for row := 0; row < n; row++ {
					v, ok := key(in, arrs, idx, row)
					if !ok {
						return errShortArray
					}
					set[v] = struct{}{}
				}
				return nil
			})
		}
	}
	if len(e.sets) > 0 {
		d.eq = e
	}
	return nil
}

// next starts the data files' reads once the delete files are read; called again once those
// are read too, it ends the equality deletes' reading.
func (e *eqState) next(d *deleteReads) error {
	if e.started {
		d.eq = nil
		return nil
	}
	e.started = true
	for i, a := range d.plan {
		if len(a.Equality) == 0 {
			continue
		}
		var ids []int64
		for _, j := range a.Equality {
			ids = append(ids, d.dels[j].EqualityIDs...)
		}
		slices.Sort(ids)
		ids = slices.Compact(ids)
		k, err := d.add(d.data[i].Path)
		if err != nil {
			return err
		}
		var pos int64 // the position of the batch's first row: the scan has no filter
		e.probe(d, k, &d.data[i], ids, func(n int, in *arrowipc.Schema, arrs []*arrowipc.Array) error {
			idx := make([][]int, len(a.Equality))
			for q, j := range a.Equality {
				var err error
				if idx[q], err = e.batch(d.reads[k], in, d.dels[j].EqualityIDs, false); err != nil {
					return err
				}
			}
			for row := 0; row < n; row++ {
				for q, j := range a.Equality {
					v, ok := key(in, arrs, idx[q], row)
					if !ok {
						return errShortArray
					}
					if _, ok := e.sets[j][v]; ok {
						if err := d.delete(i, pos+int64(row)); err != nil {
							return err
						}
						break
					}
				}
			}
			pos += int64(n)
			return nil
		})
	}
	return nil
}

// probe starts the read of file k (f) for the columns of field ids: its footer first.
func (e *eqState) probe(d *deleteReads, k int, f *iceberg.DataFile, ids []int64, onBatch func(int, *arrowipc.Schema, []*arrowipc.Array) error) {
	r := d.startRead(k, f, nil, onBatch)
	r.probe, r.ids = true, ids
	r.open(scan.Options{FileSize: f.Size, Explain: true})
}

// unprobe starts reading r's columns once its footer is read: those whose field ids are the
// equality ids (a file without field ids: by the table schema's names), the footer's bytes
// pushed again.
func (e *eqState) unprobe(r *fileRead) error {
	byID := map[int64]string{}
	for name, id := range topIDs(r.sc.Metadata()) {
		byID[int64(id)] = name
	}
	r.cols = map[int64]string{}
	var names []string
	for _, id := range r.ids {
		name, ok := byID[id]
		if len(byID) == 0 {
			name, ok = e.names[id]
		}
		if !ok {
			return errf.Errorf("%w: no top-level column of equality field id %d", iceberg.ErrUnsupportedFeature, id)
		}
		r.cols[id] = name
		names = append(names, name)
	}
	r.probe = false
	r.open(scan.Options{FileSize: r.size, Columns: names})
	if r.err != nil {
		return r.err
	}
	err := r.tail.Each(r.sc.Push)
	r.tail = deltasession.Chunks{}
	return err
}

// batch returns the batch's column index of each of ids, after checking the columns' types:
// recorded from a delete file, checked for a data file.
func (e *eqState) batch(r *fileRead, in *arrowipc.Schema, ids []int64, record bool) ([]int, error) {
	idx := make([]int, len(ids))
	for q, id := range ids {
		name := r.cols[id]
		idx[q] = slices.IndexFunc(in.Fields, func(f arrowipc.Field) bool { return f.Name == name })
		if idx[q] < 0 {
			return nil, errf.Errorf("%w: no column %s", iceberg.ErrMalformed, name)
		}
		t := in.Fields[idx[q]].Type
		if !flat(t) {
			return nil, errf.Errorf("%w: equality column %s is not of a primitive type", iceberg.ErrUnsupportedFeature, name)
		}
		if prev, ok := e.types[id]; ok && !sameType(prev, t) || !ok && !record {
			return nil, errf.Errorf("%w: equality column %s has another type in the delete file", iceberg.ErrUnsupportedFeature, name)
		}
		e.types[id] = t
	}
	return idx, nil
}

// topIDs returns the field ids of a Parquet schema's top-level columns by name.
func topIDs(m *format.FileMetaData) map[string]int32 {
	out := map[string]int32{}
	if m == nil || len(m.Schema) == 0 {
		return out
	}
	// skip returns the index after the subtree at i.
	var skip func(i int) int
	skip = func(i int) int {
		if i >= len(m.Schema) {
			return i
		}
		n := 0
		if c := m.Schema[i].NumChildren; c != nil {
			n = int(*c)
		}
		i++
		for ; n > 0 && i < len(m.Schema); n-- {
			i = skip(i)
		}
		return i
	}
	for i := 1; i < len(m.Schema); i = skip(i) {
		if el := m.Schema[i]; el.FieldID != nil {
			out[el.Name] = *el.FieldID
		}
	}
	return out
}

func flat(t arrowipc.DataType) bool {
	switch t.ID {
	case arrowipc.Bool, arrowipc.Int, arrowipc.Float, arrowipc.Utf8, arrowipc.Binary, arrowipc.FixedSizeBinary,
		arrowipc.Decimal, arrowipc.Date32, arrowipc.Time, arrowipc.Timestamp:
		return !t.Dictionary
	}
	return false
}

func sameType(a, b arrowipc.DataType) bool {
	return a.ID == b.ID && a.BitWidth == b.BitWidth && a.ByteWidth == b.ByteWidth && a.Scale == b.Scale && a.Unit == b.Unit && a.Signed == b.Signed
}

// key encodes a row's values of columns idx: per value a null mark, or a value mark and its
// bytes (length-prefixed when variable), so that two rows have the same key exactly when
// their values are equal (NULL equal to NULL). ok is false for an array shorter than its
// length says.
func key(in *arrowipc.Schema, arrs []*arrowipc.Array, idx []int, row int) (k string, ok bool) {
	var b []byte
	for _, c := range idx {
		a, t := arrs[c], in.Fields[c].Type
		if a == nil || row >= a.Len || a.Validity != nil && (row/8 >= len(a.Validity) || a.Validity[row/8]&(1<<(row%8)) == 0) {
			b = append(b, 0)
			continue
		}
		b = append(b, 1)
		w := t.BitWidth / 8
		switch t.ID {
		case arrowipc.Bool:
			if row/8 >= len(a.Data) {
				return "", false
			}
			b = append(b, a.Data[row/8]>>(row%8)&1)
			continue
		case arrowipc.Utf8, arrowipc.Binary:
			if row+1 >= len(a.Offsets) {
				return "", false
			}
			s, e := a.Offsets[row], a.Offsets[row+1]
			if s < 0 || e < s || int(e) > len(a.Data) {
				return "", false
			}
			b = binary.AppendUvarint(b, uint64(e-s))
			b = append(b, a.Data[s:e]...)
			continue
		case arrowipc.Date32:
			w = 4
		case arrowipc.Timestamp:
			w = 8
		case arrowipc.FixedSizeBinary:
			w = t.ByteWidth
		}
		if w <= 0 || w*row+w > len(a.Data) {
			return "", false
		}
		b = append(b, a.Data[w*row:w*row+w]...)
	}
	return string(b), true
}
