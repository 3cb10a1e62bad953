package delta

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pqscan/pqscan/internal/dataset/delta/dvtest"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/roaring"
)

func i32(v int32) *int32 { return &v }

func Test_DeletionVector_Path(t *testing.T) {
	tests := []struct {
		name string
		dv   DeletionVector
		want string
		err  string
	}{
		{name: "no prefix (delta-rs table-with-dv-small)", dv: DeletionVector{StorageType: "u", PathOrInlineDv: "vBn[lx{q8@P<9BNH/isA"},
			want: "deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin"},
		{name: "random prefix", dv: DeletionVector{StorageType: "u", PathOrInlineDv: "ab" + "vBn[lx{q8@P<9BNH/isA"},
			want: "ab/deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin"},
		{name: "absolute", dv: DeletionVector{StorageType: "p", PathOrInlineDv: "s3://b/t/dv.bin"}, want: "s3://b/t/dv.bin"},
		{name: "too short", dv: DeletionVector{StorageType: "u", PathOrInlineDv: "abc"}, err: "shorter than a UUID"},
		{name: "not Z85", dv: DeletionVector{StorageType: "u", PathOrInlineDv: "vBn[lx{q8@P<9BNH/is~"}, err: "Z85 character"},
		{name: "prefix leaving the root", dv: DeletionVector{StorageType: "u", PathOrInlineDv: "../" + "vBn[lx{q8@P<9BNH/isA"}, err: "leaves the table root"},
		{name: "prefix that reads as a URI scheme", dv: DeletionVector{StorageType: "u", PathOrInlineDv: "s3:" + "vBn[lx{q8@P<9BNH/isA"}, err: "leaves the table root"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.dv.Path()
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// fileAt serves a deletion vector file's bytes as Decode asks for them.
func fileAt(b []byte) func(off, n int64) []byte {
	return func(off, n int64) []byte {
		if off < 0 || off+n > int64(len(b)) {
			return nil
		}
		return b[off : off+n]
	}
}

func Test_DeletionVector_Decode(t *testing.T) {
	dir := tableDir(t, "delta-rs/table-with-dv-small")
	real, err := os.ReadFile(filepath.Join(dir, "deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin"))
	require.NoError(t, err)
	bm := dvtest.Bitmap([]uint64{3, 4, 5, 70000})
	file, offs := dvtest.File(dvtest.Bitmap([]uint64{1}), bm)
	stored := func(off int32, card int64) DeletionVector {
		return DeletionVector{StorageType: "u", PathOrInlineDv: "vBn[lx{q8@P<9BNH/isA", Offset: i32(off), SizeInBytes: int32(len(bm)), Cardinality: card}
	}
	flip := func(b []byte, at int) []byte {
		c := append([]byte(nil), b...)
		c[at] ^= 1
		return c
	}
	tests := []struct {
		name string
		dv   DeletionVector
		file []byte
		rows int64
		want []roaring.Range
		err  error
		msg  string
	}{
		{name: "delta-rs file", dv: DeletionVector{StorageType: "u", PathOrInlineDv: "vBn[lx{q8@P<9BNH/isA", Offset: i32(1), SizeInBytes: 36, Cardinality: 2},
			file: real, rows: 10, want: []roaring.Range{{Start: 0, End: 1}, {Start: 9, End: 10}}},
		{name: "second vector of a file", dv: stored(offs[1], 4), file: file, rows: 100000, want: []roaring.Range{{Start: 3, End: 6}, {Start: 70000, End: 70001}}},
		{name: "inline, padded", dv: DeletionVector{StorageType: "i", PathOrInlineDv: dvtest.Z85(bm), SizeInBytes: int32(len(bm)), Cardinality: 4},
			rows: 100000, want: []roaring.Range{{Start: 3, End: 6}, {Start: 70000, End: 70001}}},
		{name: "rows unknown", dv: stored(offs[1], 4), file: file, want: []roaring.Range{{Start: 3, End: 6}, {Start: 70000, End: 70001}}},
		{name: "short file", dv: stored(offs[1], 4), file: file[:len(file)-1], err: ErrMissingFile, msg: "the file ends before byte"},
		{name: "checksum mismatch", dv: stored(offs[1], 4), file: flip(file, len(file)-1), err: ErrMalformed, msg: "checksum"},
		{name: "data corrupt", dv: stored(offs[1], 4), file: flip(file, int(offs[1])+10), err: ErrMalformed, msg: "checksum"},
		{name: "file version", dv: stored(offs[1], 4), file: flip(file, 0), err: ErrMalformed, msg: "file format version 0"},
		{name: "size disagrees", dv: func() DeletionVector { d := stored(offs[1], 4); d.SizeInBytes -= 2; return d }(), file: file,
			err: ErrMalformed, msg: "the file says"},
		{name: "cardinality disagrees", dv: stored(offs[1], 3), file: file, rows: 100000, err: ErrMalformed, msg: "4 rows deleted, the log says 3"},
		{name: "position past the file's rows", dv: stored(offs[1], 4), file: file, rows: 70000, err: ErrMalformed, msg: "value 70000, the bound is 70000"},
		{name: "bad magic", dv: DeletionVector{StorageType: "i", PathOrInlineDv: dvtest.Z85(flip(bm, 0)), SizeInBytes: int32(len(bm)), Cardinality: 4},
			err: ErrMalformed, msg: "magic"},
		{name: "inline too short", dv: DeletionVector{StorageType: "i", PathOrInlineDv: dvtest.Z85(bm), SizeInBytes: int32(len(bm)) + 8, Cardinality: 4},
			err: ErrMalformed, msg: "inline bytes"},
		{name: "storage type", dv: DeletionVector{StorageType: "x", SizeInBytes: 8}, err: ErrUnsupportedFeature, msg: `storage type "x"`},
		{name: "size past the cap", dv: DeletionVector{StorageType: "u", SizeInBytes: MaxDVBytes + 1}, err: ErrMalformed, msg: "sizeInBytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.dv.Decode("part-0.parquet", fileAt(tc.file), tc.rows)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				require.ErrorContains(t, err, tc.msg)
				require.ErrorContains(t, err, "part-0.parquet")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func Test_DeletionVector_Ranges(t *testing.T) {
	dv := DeletionVector{StorageType: "u", Offset: i32(1), SizeInBytes: 36}
	require.Equal(t, [][2]int64{{0, 45}}, dv.Ranges())
	dv.Offset = i32(100)
	require.Equal(t, [][2]int64{{0, 1}, {100, 44}}, dv.Ranges())
}

func FuzzDeletionVectorInline(f *testing.F) {
	f.Add(dvtest.Z85(dvtest.Bitmap([]uint64{0, 9})), int32(0), int64(2))
	f.Add(dvtest.Z85(dvtest.Bitmap([]uint64{1, 2, 1 << 33})), int32(0), int64(3))
	f.Fuzz(func(t *testing.T, s string, pad int32, card int64) {
		b, err := z85Decode(s)
		if err != nil || len(b) < 4 {
			return
		}
		dv := DeletionVector{StorageType: "i", PathOrInlineDv: s, SizeInBytes: int32(len(b)) - pad%4, Cardinality: card}
		runs, err := dv.Decode("f", nil, 1<<40)
		if err != nil {
			return
		}
		var n int64
		for _, r := range runs {
			n += int64(r.End - r.Start)
		}
		if n != card {
			t.Fatalf("%d positions, cardinality %d", n, card)
		}
	})
}

func Test_Snapshot_deletionVector(t *testing.T) {
	dir := tableDir(t, "delta-rs/table-with-dv-small")
	s, err := replayCommits(t, dir, 1)
	require.NoError(t, err)
	require.Equal(t, 1, len(s.Files))
	f := s.Files[0]
	require.True(t, f.DeletionVector != nil)
	require.Equal(t, int64(2), f.DeletionVector.Cardinality)
	require.Equal(t, int64(8), f.Rows()) // numRecords 10 less the 2 deleted
	// Version 0 has no vector: every row.
	s, err = replayCommits(t, dir, 0)
	require.NoError(t, err)
	require.True(t, s.Files[0].DeletionVector == nil)
	require.Equal(t, int64(10), s.Files[0].Rows())
}

func Test_Snapshot_deletionVectorTooLarge(t *testing.T) {
	r := NewReplay()
	acts, err := ParseCommit("0.json", []byte(`{"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["deletionVectors"]}}
{"metaData":{"id":"x","format":{"provider":"parquet"},"schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"v\",\"type\":\"integer\",\"nullable\":true,\"metadata\":{}}]}","partitionColumns":[]}}
{"add":{"path":"a.parquet","size":1,"modificationTime":0,"dataChange":true,"stats":"{\"numRecords\":3}","deletionVector":{"storageType":"i","pathOrInlineDv":"abcde","sizeInBytes":4,"cardinality":4}}}`))
	require.NoError(t, err)
	require.NoError(t, r.Commit(0, acts))
	_, err = r.Snapshot()
	require.ErrorIs(t, err, ErrMalformed)
	require.ErrorContains(t, err, "a.parquet: its deletion vector removes 4 rows of 3")
}
