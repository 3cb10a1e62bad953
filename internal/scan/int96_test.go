package scan

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_int96FromSpark: INT96 values Spark wrote past year 2262 (and past 294,247, where its
// Julian day arithmetic wrapped) read back as the microseconds Spark was given
// (parquet-testing data/int96_from_spark.md).
func Test_int96FromSpark(t *testing.T) {
	streams, rows, err := drive(t, testcorpus.Read(t, "parquet-testing/data/int96_from_spark.parquet"), Options{})
	require.NoError(t, err)
	require.Equal(t, int64(6), rows)
	var got []any
	for _, st := range streams {
		rd, err := ipc.NewReader(bytes.NewReader(st))
		require.NoError(t, err)
		for rd.Next() {
			rec := rd.RecordBatch()
			col := rec.Column(0)
			require.Equal(t, "timestamp[us]", col.DataType().String())
			ts := col.(*array.Timestamp)
			for i := 0; i < ts.Len(); i++ {
				if ts.IsNull(i) {
					got = append(got, nil)
					continue
				}
				got = append(got, int64(ts.Value(i)))
			}
		}
		rd.Release()
	}
	want := []any{int64(1704141296123456), int64(1704070800000000), int64(253402225200000000),
		int64(1735599600000000), nil, int64(9089380393200000000)}
	require.Equal(t, want, got)
}
