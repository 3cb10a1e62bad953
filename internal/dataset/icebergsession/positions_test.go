package icebergsession

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/pqscan/pqscan/internal/dataset/iceberg"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/scan"
)

// positionBatch is a position delete file's batch as the engine's scanner gives it: n rows
// naming files[k] in runs (sorted by path, then position), every other position deleted.
func positionBatch(files []string, n int, dict bool) (*arrowipc.Schema, []*arrowipc.Array) {
	str := arrowipc.DataType{ID: arrowipc.Utf8, Dictionary: dict}
	schema := &arrowipc.Schema{Fields: []arrowipc.Field{{Name: "file_path", Type: str},
		{Name: "pos", Type: arrowipc.DataType{ID: arrowipc.Int, BitWidth: 64, Signed: true}}}}
	path := &arrowipc.Array{Len: n, Offsets: []int32{0}}
	pos := &arrowipc.Array{Len: n}
	per := (n + len(files) - 1) / len(files)
	if dict {
		path.Dict = &arrowipc.Array{Len: len(files), Offsets: []int32{0}}
		for _, f := range files {
			path.Dict.Data = append(path.Dict.Data, f...)
			path.Dict.Offsets = append(path.Dict.Offsets, int32(len(path.Dict.Data)))
		}
		path.Offsets = nil
	}
	for i := range n {
		k := i / per
		if dict {
			path.Data = binary.LittleEndian.AppendUint32(path.Data, uint32(k))
		} else {
			path.Data = append(path.Data, files[k]...)
			path.Offsets = append(path.Offsets, int32(len(path.Data)))
		}
		pos.Data = binary.LittleEndian.AppendUint64(pos.Data, uint64(2*(i%per)))
	}
	return schema, []*arrowipc.Array{path, pos}
}

// newPositionReads is deleteReads over data files of rows rows each, all targets.
func newPositionReads(files []string, rows int64) (*deleteReads, map[string]int) {
	d := &deleteReads{pos: make([][]int64, len(files))}
	targets := map[string]int{}
	for i, f := range files {
		d.data = append(d.data, iceberg.DataFile{Path: f, Records: rows})
		targets[f] = i
	}
	return d, targets
}

// Test_positions: each row's position goes to the data file it names (plain or dictionary
// paths), rows naming no target are skipped, and a null or out-of-range row is an error.
func Test_positions(t *testing.T) {
	files := []string{"s3://b/t/data/a.parquet", "s3://b/t/data/b.parquet", "s3://b/t/data/c.parquet"}
	for _, dict := range []bool{false, true} {
		t.Run(fmt.Sprint("dictionary ", dict), func(t *testing.T) {
			schema, cols := positionBatch(files, 9, dict)
			d, targets := newPositionReads(files, 100)
			delete(targets, files[1])
			require.NoError(t, d.positions(targets, 9, schema, cols))
			require.Equal(t, [][]int64{{0, 2, 4}, nil, {0, 2, 4}}, d.pos)

			d, targets = newPositionReads(files, 4)
			require.ErrorContains(t, d.positions(targets, 9, schema, cols), "position 4 of s3://b/t/data/a.parquet")
			cols[1].Validity, cols[1].NullCount = []byte{0xfe, 0xff}, 1
			d, targets = newPositionReads(files, 100)
			require.ErrorIs(t, d.positions(targets, 9, schema, cols), iceberg.ErrMalformed)
		})
	}
}

// Benchmark_positions: one million position deletes over 100 data files.
func Benchmark_positions(b *testing.B) {
	var files []string
	for i := range 100 {
		files = append(files, fmt.Sprintf("s3://bucket/warehouse/db/t/data/part-%05d-5f2b6c1e-8a5d-4e7b-9a57-3c1d2e4f5a6b.parquet", i))
	}
	const n = 1 << 20
	schema, cols := positionBatch(files, n, false)
	b.ReportAllocs()
	for b.Loop() {
		d, targets := newPositionReads(files, 1<<20)
		if err := d.positions(targets, n, schema, cols); err != nil {
			b.Fatal(err)
		}
	}
}

// Test_coalesce: a file's ranges at most gap apart become one; other files' stay apart.
func Test_coalesce(t *testing.T) {
	fr := func(f int, off, n int64) scan.FileRange {
		return scan.FileRange{File: f, Range: scan.Range{Off: off, Len: n}}
	}
	got := coalesce([]scan.FileRange{fr(1, 48, 52), fr(0, 4, 10), fr(1, 4, 44), fr(1, 200, 10), fr(0, 100, 1)}, 50)
	require.Equal(t, []scan.FileRange{fr(0, 4, 10), fr(0, 100, 1), fr(1, 4, 96), fr(1, 200, 10)}, got)
}
