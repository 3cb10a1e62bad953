package scan

import (
	"bytes"
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/pqscan/pqscan/internal/events"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// scanPlaced runs a scan to its end and returns copies of its IPC streams and how many
// batches were decoded straight into their stream (place.go).
func scanPlaced(t *testing.T, data []byte, opts Options) ([][]byte, int) {
	t.Helper()
	var streams [][]byte
	s := runToEnd(t, data, opts, func(ipc []byte) { streams = append(streams, append([]byte(nil), ipc...)) })
	return streams, s.placed
}

// Test_placedBatches: a scan of one fixed-width column decodes its batches after the first
// straight into their IPC stream, and every stream is the one written by copying (placement
// off) byte for byte; the `value` doubles equal arrow-go's reading of the file. Shapes that
// must not be placed (two columns, a filter, a row index, a string column) are not.
func Test_placedBatches(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, events.Generate(&buf, events.Config{Rows: 3 << 15, Layout: events.SmallRG}))
	data := buf.Bytes()

	for _, tc := range []struct {
		name   string
		opts   Options
		placed bool
	}{
		{name: "double", opts: Options{Columns: []string{"value"}, BatchRows: 5000}, placed: true},
		{name: "int64, limit and offset", opts: Options{Columns: []string{"user_id"}, BatchRows: 4096, Offset: 777, Limit: 50_001}, placed: true},
		{name: "timestamp", opts: Options{Columns: []string{"event_time"}, BatchRows: 8191}, placed: true},
		{name: "two columns", opts: Options{Columns: []string{"value", "user_id"}, BatchRows: 5000}},
		{name: "filter", opts: Options{Columns: []string{"value"}, Where: "value > 10", BatchRows: 5000}},
		{name: "row index", opts: Options{Columns: []string{"value"}, RowIndex: "_row", BatchRows: 5000}},
		{name: "string", opts: Options{Columns: []string{"country"}, BatchRows: 5000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			placeBatches = false
			want, n := scanPlaced(t, data, tc.opts)
			placeBatches = true
			require.Equal(t, 0, n, "placed with placement off")
			got, n := scanPlaced(t, data, tc.opts)
			require.Equal(t, len(want), len(got), "batches")
			for i := range want {
				require.True(t, bytes.Equal(want[i], got[i]), "batch", i, "differs")
			}
			if tc.placed {
				require.Equal(t, len(got)-1, n, "batches placed (all but the first)")
			} else {
				require.Equal(t, 0, n, "batches placed")
			}
		})
	}

	// A nullable int32 column whose pages are all-null, mixed and null-free: batches with nulls
	// move the values (validity first, a new data buffer), so the guesses after them are wrong
	// until a null-free batch comes; the streams stay those of copying.
	t.Run("nulls in some batches", func(t *testing.T) {
		data := testcorpus.Read(t, "parquet-testing/data/int32_with_null_pages.parquet")
		opts := Options{Columns: []string{"int32_field"}, BatchRows: 13}
		placeBatches = false
		want, _ := scanPlaced(t, data, opts)
		placeBatches = true
		got, n := scanPlaced(t, data, opts)
		require.Equal(t, len(want), len(got), "batches")
		for i := range want {
			require.True(t, bytes.Equal(want[i], got[i]), "batch", i, "differs")
		}
		require.True(t, n > 0 && n < len(got)-1, "placed", n, "of", len(got))
	})

	// The oracle: arrow-go's own reading of the value column.
	rd, err := file.NewParquetReader(bytes.NewReader(data))
	require.NoError(t, err)
	fr, err := pqarrow.NewFileReader(rd, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	require.NoError(t, err)
	tbl, err := fr.ReadTable(context.Background())
	require.NoError(t, err)
	defer tbl.Release()
	var want []float64
	col := tbl.Column(tbl.Schema().FieldIndices("value")[0])
	for _, c := range col.Data().Chunks() {
		want = append(want, c.(*array.Float64).Float64Values()...)
	}
	streams, n := scanPlaced(t, data, Options{Columns: []string{"value"}, BatchRows: 5000})
	require.True(t, n > 0, "no batch placed")
	var got []float64
	forEachRecord(t, streams, func(rec arrow.RecordBatch) {
		got = append(got, rec.Column(0).(*array.Float64).Float64Values()...)
	})
	require.Equal(t, want, got)
}
