package optimize

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// timestamps reads column name of a Parquet file with reader rd ("pqscan" or arrow-go),
// as int64 values in its unit (-1 for null), with the column's Arrow type.
func timestamps(t *testing.T, b []byte, name string, arrowGo bool) ([]int64, arrow.DataType) {
	t.Helper()
	var out []int64
	var dt arrow.DataType
	add := func(rec arrow.RecordBatch) {
		i := rec.Schema().FieldIndices(name)[0]
		c := rec.Column(i).(*array.Timestamp)
		dt = c.DataType()
		for k := range c.Len() {
			v := int64(-1)
			if c.IsValid(k) {
				v = int64(c.Value(k))
			}
			out = append(out, v)
		}
	}
	if arrowGo {
		arrowRecords(t, b, add)
		return out, dt
	}
	r, err := openBytes(t, b).Scan(context.Background(), pqscan.ScanOptions{Columns: []string{name}})
	require.NoError(t, err)
	defer r.Close()
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, dt
		}
		require.NoError(t, err)
		add(rec)
		rec.Release()
	}
}

// Test_RewriteInt96: legacy INT96 timestamps (Spark's, past year 2262, and Impala's) are
// written as INT64 microseconds: --int96 utc as instants (isAdjustedToUTC, Arrow zone UTC),
// local as wall-clock times, the convention recorded in the key-value metadata; arrow-go
// reads the output's values back equal to the input's.
func Test_RewriteInt96(t *testing.T) {
	for _, c := range []struct{ file, col string }{
		{"parquet-testing/data/int96_from_spark.parquet", "a"},
		{"parquet-testing/data/alltypes_plain.parquet", "timestamp_col"},
	} {
		in := testcorpus.Read(t, c.file)
		cols := Int96Columns(footer(t, in))
		require.Equal(t, []string{c.col}, cols, c.file)
		want, _ := timestamps(t, in, c.col, false)
		for _, mode := range []string{"utc", "local"} {
			var out bytes.Buffer
			_, err := Rewrite(context.Background(), openBytes(t, in), &out, Options{Int96: mode, Int96Columns: cols})
			require.NoError(t, err, c.file, mode)
			got, dt := timestamps(t, out.Bytes(), c.col, true)
			require.Equal(t, want, got, c.file, mode)
			zone := map[string]string{"utc": "UTC", "local": ""}[mode]
			require.Equal(t, (&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: zone}).String(), dt.String(), c.file, mode)
			md := footer(t, out.Bytes())
			var rec string
			for _, kv := range md.KeyValueMetadata {
				if kv.Key == Int96Key && kv.Value != nil {
					rec = *kv.Value
				}
			}
			require.Equal(t, mode+": "+c.col, rec, c.file)
			for _, el := range md.Schema {
				if el.Name == c.col {
					require.True(t, *el.Type == format.Int64 && el.LogicalType != nil && el.LogicalType.IsAdjustedToUTC == (mode == "utc"), c.file, mode)
				}
			}
		}
	}
	_, err := Rewrite(context.Background(), openBytes(t, testcorpus.Read(t, "parquet-testing/data/alltypes_plain.parquet")), io.Discard, Options{Int96: "gmt"})
	require.ErrorIs(t, err, ErrOption)
}
