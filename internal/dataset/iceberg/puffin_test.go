package iceberg

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/roaring"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// corpusDV is a deletion vector Trino wrote (lithium__deletion_vectors: 6 of the 8 rows of
// its data file), with its manifest entry.
func corpusDV(t testing.TB) (DataFile, []byte) {
	p := filepath.Join(testcorpus.Dir(t), "iceberg", "tables", "lithium__deletion_vectors", "data",
		"dv-20260504_111849_00012_8gkte-2ed65adb-8895-4026-bb5e-efcedbf874e5.puffin")
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	dv := DataFile{Path: "dv.puffin", Records: 6, ContentOffset: 48, ContentSize: 52}
	return dv, b[48:100]
}

func Test_DecodeDV(t *testing.T) {
	dv, blob := corpusDV(t)
	data := DataFile{Path: "data.parquet", Records: 8}
	runs, err := DecodeDV(&dv, &data, blob, 0)
	require.NoError(t, err)
	require.Equal(t, []roaring.Range{{Start: 0, End: 2}, {Start: 3, End: 5}, {Start: 6, End: 8}}, runs)

	bad := func(f func(b []byte) []byte) []byte { return f(append([]byte{}, blob...)) }
	tests := []struct {
		name string
		blob []byte
		rows int64
		card int64
		want string
	}{
		{name: "bad checksum", blob: bad(func(b []byte) []byte { b[len(b)-1] ^= 1; return b }), rows: 8, card: 6, want: "checksum"},
		{name: "bad magic", blob: bad(func(b []byte) []byte { b[4] ^= 1; return b }), rows: 8, card: 6, want: "checksum"},
		{name: "past the file's rows", blob: blob, rows: 7, card: 6, want: "limit"},
		{name: "cardinality differs", blob: blob, rows: 8, card: 5, want: "the manifest says 5"},
		{name: "short", blob: blob[:30], rows: 8, card: 6, want: "the blob says 44 bytes, its size 22"},
		{name: "length disagrees", blob: bad(func(b []byte) []byte { b[3]++; return b }), rows: 8, card: 6, want: "the blob says"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := dv
			d.Records, d.ContentSize = tc.card, int64(len(tc.blob))
			_, err := DecodeDV(&d, &DataFile{Path: "data.parquet", Records: tc.rows}, tc.blob, 0)
			require.ErrorIs(t, err, ErrMalformed)
			require.ErrorContains(t, err, tc.want)
			require.ErrorContains(t, err, "dv.puffin")
			require.ErrorContains(t, err, "data.parquet")
		})
	}
}

func FuzzDecodeDV(f *testing.F) {
	_, blob := corpusDV(f)
	f.Add(blob, int64(8), int64(6))
	f.Fuzz(func(t *testing.T, b []byte, rows, card int64) {
		dv := DataFile{Path: "dv", Records: card, ContentSize: int64(len(b))}
		_, _ = DecodeDV(&dv, &DataFile{Path: "d", Records: rows}, b, 1<<16)
	})
}
