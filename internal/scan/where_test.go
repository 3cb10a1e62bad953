package scan

import (
	"bytes"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
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

// Test_unknownSize: without a file size the first request is a suffix; the host reports the
// size it learned and pushes at absolute offsets.
func Test_unknownSize(t *testing.T) {
	file := testcorpus.Read(t, "parquet-testing/data/alltypes_plain.parquet")
	s, err := New(Options{TailSize: 100})
	require.NoError(t, err)
	st := s.Next()
	require.Equal(t, NeedRanges, st.Kind)
	require.Equal(t, []Range{{Off: -100, Len: 100}}, st.Ranges)
	require.NoError(t, s.SetFileSize(int64(len(file))))
	require.NoError(t, s.Push(int64(len(file))-100, file[len(file)-100:]))
	rows := 0
	for i := 0; i < 100; i++ {
		st = s.Next()
		if st.Kind == NeedRanges {
			for _, r := range st.Ranges {
				require.NoError(t, s.Push(r.Off, file[r.Off:r.End()]))
			}
			continue
		}
		require.NoError(t, st.Err)
		if st.Kind == Done {
			break
		}
		rows++
	}
	require.Equal(t, 1, rows)
	require.Equal(t, int64(8), s.Report().RowsReturned)
	require.ErrorIs(t, s.SetFileSize(5), ErrFileChanged)
}

// Test_dictionaryArrays: string columns come out as Arrow dictionary arrays with the same
// values as plain output.
func Test_dictionaryArrays(t *testing.T) {
	dictFields := 0
	for _, f := range []string{"parquet-testing/data/alltypes_dictionary.parquet", "hyparquet/page_index.parquet", "parquet-testing/data/alltypes_tiny_pages.parquet"} {
		file := testcorpus.Read(t, f)
		for _, where := range []string{"", "id > 3"} {
			if where != "" && f == "hyparquet/page_index.parquet" {
				continue
			}
			plain, n1, err := drive(t, file, Options{Where: where})
			require.NoError(t, err)
			dict, n2, err := drive(t, file, Options{Where: where, DictionaryArrays: true})
			require.NoError(t, err)
			require.Equal(t, n1, n2)
			require.Equal(t, string(concatBatches(t, plain)), string(concatBatches(t, dict)), f)
			rd, err := ipc.NewReader(bytes.NewReader(dict[0]))
			require.NoError(t, err)
			for _, fl := range rd.Schema().Fields() {
				if fl.Type.ID() == arrow.DICTIONARY {
					dictFields++
				}
			}
			rd.Release()
		}
	}
	require.True(t, dictFields > 0, "no column came out as a dictionary array")
}

// Test_oldListStructure: the value parquet-testing's old_list_structure.md documents.
func Test_oldListStructure(t *testing.T) {
	streams, rows, err := drive(t, testcorpus.Read(t, "parquet-testing/data/old_list_structure.parquet"), Options{})
	require.NoError(t, err)
	require.Equal(t, int64(1), rows)
	require.Equal(t, "[[1,2],[3,4]]|\n", string(concatBatches(t, streams)))
}
