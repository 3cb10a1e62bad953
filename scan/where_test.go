package scan

import (
	"bytes"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_whereRows checks filtered scans against row counts known from the files' contents.
func Test_whereRows(t *testing.T) {
	tests := []struct {
		name, file, where string
		cols              []string
		limit, offset     int64
		want              int64
	}{
		{name: "int gt", file: "parquet-testing/data/alltypes_plain.parquet", where: "id > 3", want: 4},
		{name: "int eq", file: "parquet-testing/data/alltypes_plain.parquet", where: "id = 3", want: 1},
		{name: "bool", file: "parquet-testing/data/alltypes_plain.parquet", where: "bool_col = true", want: 4},
		{name: "and or", file: "parquet-testing/data/alltypes_plain.parquet", where: "id >= 2 AND (id < 4 OR id = 7)", want: 3},
		{name: "not projected", file: "parquet-testing/data/alltypes_plain.parquet", where: "id < 2", cols: []string{"bool_col"}, want: 2},
		{name: "limit offset", file: "parquet-testing/data/alltypes_plain.parquet", where: "id > 0", limit: 2, offset: 3, want: 2},
		{name: "none", file: "parquet-testing/data/alltypes_plain.parquet", where: "id > 100", want: 0},
		{name: "strings", file: "hyparquet/strings.parquet", where: "bytes IS NOT NULL", want: -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := testcorpus.Read(t, tc.file)
			o := Options{Where: tc.where, Columns: tc.cols, Limit: tc.limit, Offset: tc.offset}
			pruned, rows, err := drive(t, b, o)
			require.NoError(t, err)
			if tc.want >= 0 {
				require.Equal(t, tc.want, rows)
			}
			o.NoPrune = true
			full, rows2, err := drive(t, b, o)
			require.NoError(t, err)
			require.Equal(t, rows, rows2)
			require.True(t, bytes.Equal(bytes.Join(pruned, nil), bytes.Join(full, nil)), "pruned and unpruned scans differ")
		})
	}
}
