package scan

import (
	"bytes"
	"encoding/binary"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/rowfmt"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Writer quirks: files from real writers with bugs or spec corners that other readers accept.
// Each reads a hand-built file from testdata/quirks (see quirks_files_test.go and the README
// there) that a reader without the matching workaround gets wrong.

var update = flag.Bool("update", false, "rewrite testdata/quirks from the builders")

func quirkFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "quirks", name+".parquet"))
	require.NoError(t, err)
	return b
}

// Test_quirkFilesUpToDate: the committed files are what the builders write.
func Test_quirkFilesUpToDate(t *testing.T) {
	for _, q := range quirkFiles {
		b := q.build().build()
		p := filepath.Join("testdata", "quirks", q.name+".parquet")
		if *update {
			require.NoError(t, os.WriteFile(p, b, 0o644))
			continue
		}
		got, err := os.ReadFile(p)
		require.NoError(t, err)
		require.True(t, bytes.Equal(got, b), p, "differs from its builder; run with -update")
	}
}

// jsonRows renders every row as "col=json|col=json" with rowfmt, the CLI's renderer.
func jsonRows(t *testing.T, streams [][]byte) []string {
	t.Helper()
	var out []string
	forEachRecord(t, streams, func(rec arrow.RecordBatch) {
		for i := 0; i < int(rec.NumRows()); i++ {
			var cells []string
			for j := 0; j < int(rec.NumCols()); j++ {
				f := rec.Schema().Field(j)
				cells = append(cells, f.Name+"="+string(rowfmt.AppendJSON(nil, f, rec.Column(j), i)))
			}
			out = append(out, strings.Join(cells, "|"))
		}
	})
	return out
}

func Test_quirks(t *testing.T) {
	tests := []struct {
		name, file, where string
		schema            string // arrow-go's rendering of the first field's type, if set
		want              []string
	}{
		{name: "case 1: INTERVAL next to logical UNKNOWN reads by its converted type", file: "interval_unknown_logical",
			schema: "month_day_nano_interval",
			want:   []string{`i={"months":1,"days":2,"nanoseconds":3000000}`, `i=null`}},
		{name: "case 2: PARQUET-816 short chunk is padded", file: "parquet816_short_chunk",
			want: []string{"a=10|b=1", "a=20|b=2", "a=10|b=3"}},
		{name: "case 3: a lying offset index is refused", file: "lying_offset_index",
			want: []string{"a=0", "a=1", "a=2", "a=3", "a=4", "a=5"}},
		{name: "case 3: ... and prunes nothing", file: "lying_offset_index", where: "a = 4", want: []string{"a=4"}},
		{name: "case 4: two-level list of MAP elements is a list of maps", file: "list_of_maps_two_level",
			schema: "list<m: map<utf8, int32, items_nullable>>",
			want:   []string{`l=[{"a":1,"b":2},{"c":null}]`, `l=null`, `l=[]`, `l=[{}]`}},
		{name: "case 5: empty groups are skipped", file: "empty_group",
			want: []string{`s={"x":5}|a=1`, `s=null|a=2`}},
		{name: "case 7: BIT_PACKED levels", file: "bit_packed_levels",
			want: []string{"o=1|r=[1,2]", "o=null|r=[]", "o=3|r=[3]", "o=null|r=[4]", "o=5|r=[]"}},
		{name: "case 8: negative TIME is signed", file: "negative_time",
			want: []string{`t="-00:00:01.999"`, `t="01:02:03.004"`, `t="-00:00:00.001"`}},
		{name: "writer table: PARQUET-251 statistics do not prune", file: "parquet251_binary_stats", where: "s IS NULL",
			want: []string{`s=null`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			streams, _, err := drive(t, quirkFile(t, tc.file), Options{Where: tc.where})
			require.NoError(t, err)
			if tc.schema != "" {
				rd, err := ipc.NewReader(bytes.NewReader(streams[0]))
				require.NoError(t, err)
				require.Equal(t, tc.schema, rd.Schema().Field(0).Type.String())
				rd.Release()
			}
			require.Equal(t, tc.want, jsonRows(t, streams))
		})
	}
}

// Test_quirkOffsetIndexFallback: the lying index is reported and the chunk read whole.
func Test_quirkOffsetIndexFallback(t *testing.T) {
	file := quirkFile(t, "lying_offset_index")
	opts := Options{Where: "a = 4", FileSize: int64(len(file))}
	s, err := New(opts)
	require.NoError(t, err)
	for st := s.Next(); st.Kind != Done; st = s.Next() {
		require.True(t, st.Kind != Error, st.Err)
		for _, r := range st.Ranges {
			require.NoError(t, s.Push(r.Off, file[r.Off:r.End()]))
		}
	}
	log := strings.Join(s.Report().Log, "\n")
	require.True(t, strings.Contains(log, "offset index unusable"), log)
	require.Equal(t, 0, s.Report().PagesAfterPageIndex)
}

// Test_quirkDeepNesting (case 6): 100 levels of structs read. arrow-go's IPC reader stops at 64
// levels, so the arrays are checked as the engine built them.
func Test_quirkDeepNesting(t *testing.T) {
	file := quirkFile(t, "deep_nesting_100")
	s, err := New(Options{FileSize: int64(len(file))})
	require.NoError(t, err)
	var got *arrowipc.Array
	for st := s.Next(); st.Kind != Done; st = s.Next() {
		require.True(t, st.Kind != Error, st.Err)
		for _, r := range st.Ranges {
			require.NoError(t, s.Push(r.Off, file[r.Off:r.End()]))
		}
		if st.Kind == Batch {
			got = s.arrays[0]
		}
	}
	require.True(t, got != nil)
	valid := func(a *arrowipc.Array, i int) bool { return a.Validity == nil || a.Validity[i/8]>>(i%8)&1 == 1 }
	a := got
	for depth := 0; depth < 100; depth++ {
		require.Equal(t, 3, a.Len)
		require.True(t, valid(a, 0), "row 0 null at depth", depth)
		require.Equal(t, depth < 50, valid(a, 1), "row 1 at depth", depth)
		a = a.Children[0]
	}
	require.True(t, valid(a, 0) && !valid(a, 1) && !valid(a, 2))
	require.Equal(t, int32(7), int32(binary.LittleEndian.Uint32(a.Data)))
	require.True(t, !valid(got, 2))
}

// Test_quirkNationDictMalformed: parquet-testing's PARQUET-816 file ("parquet-mr", no version)
// reads as arrow-cpp and arrow-go read it.
func Test_quirkNationDictMalformed(t *testing.T) {
	streams, rows, err := drive(t, testcorpus.Read(t, "parquet-testing/data/nation.dict-malformed.parquet"), Options{})
	require.NoError(t, err)
	require.Equal(t, int64(25), rows)
	first := jsonRows(t, streams)[0]
	require.True(t, strings.HasPrefix(first, "nation_key=0|name="), first)
}
