package bench

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/pqscan/pqscan/internal/drive"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/scan"
)

// rowHasher folds rows, in order, into an order-sensitive checksum. A row's hash mixes the
// hashes of its values in column order, so the oracle (arrow-go arrays from pqarrow) and the
// engine (arrow-go arrays read back from our IPC) agree whatever the array layout.
type rowHasher struct{ sum uint64 }

func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

func hashBytes(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h
}

// valueHash hashes value i of a, by value (strings by their bytes, timestamps as µs).
func valueHash(a arrow.Array, i int) uint64 {
	if a.IsNull(i) {
		return 0x6e756c6c
	}
	switch a := a.(type) {
	case *array.Int64:
		return mix(uint64(a.Value(i)))
	case *array.Timestamp:
		return mix(uint64(a.Value(i)))
	case *array.Float64:
		return mix(math.Float64bits(a.Value(i)))
	case *array.String:
		return hashBytes([]byte(a.Value(i)))
	case *array.LargeString:
		return hashBytes([]byte(a.Value(i)))
	case *array.Binary:
		return hashBytes(a.Value(i))
	case *array.Dictionary:
		return valueHash(a.Dictionary(), a.GetValueIndex(i))
	}
	panic(fmt.Sprintf("bench: cannot hash %T", a))
}

// add folds rows (indexes into every array of cols) into the checksum.
func (h *rowHasher) add(cols []arrow.Array, rows []int64) {
	for _, r := range rows {
		x := uint64(0x9e3779b97f4a7c15)
		for _, c := range cols {
			x = mix(x ^ valueHash(c, int(r)))
		}
		h.sum = mix(h.sum ^ x)
	}
}

// Result is what one engine scan did.
type Result struct {
	Rows     int64
	Checksum uint64
	Sum      float64
	Report   scan.Report
	Rounds   [][]scan.Range // the ranges of each NeedRanges step
	Elapsed  time.Duration
}

// Drive runs the native engine over a file held in memory through the Go driver
// (internal/drive, the loop every Go host uses), recording the ranges of each round, and
// checksums the rows it returns (read back with arrow-go).
func Drive(file []byte, q Query, opts scan.Options) (Result, error) {
	opts.FileSize = int64(len(file))
	opts.Where, opts.Columns, opts.Limit = q.Where, q.Columns, q.Limit
	var res Result
	t0 := time.Now()
	s, err := scan.New(opts)
	if err != nil {
		return res, err
	}
	var h rowHasher
	names := q.columns()
	d := drive.Driver{
		Sess: s, Src: httpclient.NewReaderAt(bytes.NewReader(file), int64(len(file))), Sized: true,
		OnRound: func(rs []scan.Range) { res.Rounds = append(res.Rounds, slices.Clone(rs)) },
	}
	for {
		st, err := d.Step(context.Background())
		if err != nil {
			res.Report = s.Report()
			return res, err
		}
		switch st.Kind {
		case scan.Batch:
			rd, err := ipc.NewReader(bytes.NewReader(st.IPC))
			if err != nil {
				return res, fmt.Errorf("arrow-go cannot read the IPC: %w", err)
			}
			for rd.Next() {
				rec := rd.RecordBatch()
				n := rec.NumRows()
				cols := make([]arrow.Array, len(names))
				for i, name := range names {
					idx := rec.Schema().FieldIndices(name)
					if len(idx) != 1 {
						rd.Release()
						return res, fmt.Errorf("batch has no column %q", name)
					}
					cols[i] = rec.Column(idx[0])
					if name == "value" {
						for _, v := range cols[i].(*array.Float64).Float64Values() {
							res.Sum += v
						}
					}
				}
				rows := make([]int64, n)
				for i := range rows {
					rows[i] = int64(i)
				}
				h.add(cols, rows)
				res.Rows += n
			}
			err = rd.Err()
			rd.Release()
			if err != nil {
				return res, fmt.Errorf("arrow-go cannot read the IPC: %w", err)
			}
		case scan.Done:
			res.Elapsed = time.Since(t0)
			res.Checksum = h.sum
			res.Report = s.Report()
			return res, nil
		}
	}
}
