package scan

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pqscan/pqscan/internal/require"
)

// Test_alpColumns reads the ALP-encoded columns of testdata/quirks/alp_columns.parquet back
// bit for bit against the values they were built from (NaN payloads, -0 and subnormals
// included), whole, through small batches and behind a filter.
func Test_alpColumns(t *testing.T) {
	file := quirkFile(t, "alp_columns")
	for _, opts := range []Options{{}, {BatchRows: 333}, {Columns: []string{"f"}}} {
		streams, rows, err := drive(t, file, opts)
		require.NoError(t, err)
		require.Equal(t, int64(alpRows), rows)
		i := 0
		forEachRecord(t, streams, func(rec arrow.RecordBatch) {
			for c, f := range rec.Schema().Fields() {
				for r := 0; r < int(rec.NumRows()); r++ {
					row := i + r
					switch a := rec.Column(c).(type) {
					case *array.Float64:
						want, ok := alpValue(row)
						require.Equal(t, !ok, a.IsNull(r), f.Name, row)
						if ok && math.Float64bits(a.Value(r)) != want {
							t.Fatalf("d row %d: %x, want %x", row, math.Float64bits(a.Value(r)), want)
						}
					case *array.Float32:
						want, ok := alpValue32(row)
						require.Equal(t, !ok, a.IsNull(r), f.Name, row)
						if ok && math.Float32bits(a.Value(r)) != want {
							t.Fatalf("f row %d: %x, want %x", row, math.Float32bits(a.Value(r)), want)
						}
					default:
						t.Fatalf("column %s is %T", f.Name, a)
					}
				}
			}
			i += int(rec.NumRows())
		})
	}

	want := 0
	for i := 0; i < alpRows; i++ {
		if b, ok := alpValue(i); ok {
			if v := math.Float64frombits(b); v >= 0 && v <= 5 {
				want++
			}
		}
	}
	_, rows, err := drive(t, file, Options{Where: "d BETWEEN 0 AND 5"})
	require.NoError(t, err)
	require.Equal(t, int64(want), rows)
}
