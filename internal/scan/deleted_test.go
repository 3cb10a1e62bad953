package scan

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// runDeleted is runRounds with rows deleted (SetDeleted).
func runDeleted(t *testing.T, file []byte, opts Options, del prune.RowSelection) ([][]byte, *Scanner, error) {
	t.Helper()
	opts.FileSize = int64(len(file))
	s, err := New(opts)
	require.NoError(t, err)
	s.SetDeleted(del)
	var streams [][]byte
	for i := 0; i < 1000; i++ {
		st := s.Next()
		switch st.Kind {
		case NeedRanges:
			for _, x := range st.Ranges {
				require.NoError(t, s.Push(x.Off, file[x.Off:x.End()]))
			}
		case Batch:
			streams = append(streams, append([]byte(nil), st.IPC...))
		case Done:
			return streams, s, nil
		default:
			return nil, s, st.Err
		}
	}
	t.Fatal("too many steps")
	return nil, nil, nil
}

// idRows reads (ri, id) pairs from the batches of a scan of Columns {ri, id}.
func idRows(t *testing.T, streams [][]byte) [][2]int64 {
	var out [][2]int64
	forEachRecord(t, streams, func(rec arrow.RecordBatch) {
		for j := 0; j < int(rec.NumRows()); j++ {
			ri, err := strconv.ParseInt(rec.Column(0).ValueStr(j), 10, 64)
			require.NoError(t, err)
			id, err := strconv.ParseInt(rec.Column(1).ValueStr(j), 10, 64)
			require.NoError(t, err)
			out = append(out, [2]int64{ri, id})
		}
	})
	return out
}

// Test_deletedRows checks every way a scan can answer against a brute-force answer over the
// file's rows without the deleted ones: rows with and without a predicate, offset and limit,
// count, min/max and top-k, the row index keeping the rows' positions in the file.
func Test_deletedRows(t *testing.T) {
	file := testcorpus.Read(t, pageIndexFile) // 2 row groups of 1500 rows, id = position
	full, _, err := runDeleted(t, file, Options{RowIndex: "ri", Columns: []string{"ri", "id"}}, nil)
	require.NoError(t, err)
	all := idRows(t, full)
	require.Equal(t, 3000, len(all))
	rng := rand.New(rand.NewPCG(3, 4))
	sets := map[string]prune.RowSelection{
		"first and last row":      {{Start: 0, End: 1}, {Start: 2999, End: 3000}},
		"row group 0 wholly":      {{Start: 0, End: 1500}},
		"across the row groups":   {{Start: 1400, End: 1600}},
		"every row but one":       {{Start: 0, End: 1234}, {Start: 1235, End: 3000}},
		"scattered and in a page": nil,
	}
	var scattered prune.RowSelection
	for p := int64(0); p < 3000; p += 1 + rng.Int64N(40) {
		scattered = scattered.Add(p, p+1+rng.Int64N(3))
	}
	sets["scattered and in a page"] = scattered
	type query struct {
		where         string
		offset, limit int64
	}
	queries := []query{{}, {offset: 10, limit: 20}, {offset: 1495, limit: 10}, {limit: 1},
		{where: "id >= 1000"}, {where: "id >= 1000", offset: 5, limit: 7}, {where: "id < 10 OR id > 2990"}, {where: "ri >= 1490 AND ri < 1510"}}
	for name, del := range sets {
		var live [][2]int64
		for _, r := range all {
			if !del.Contains(r[0]) {
				live = append(live, r)
			}
		}
		for _, q := range queries {
			match := func(r [2]int64) bool {
				switch q.where {
				case "id >= 1000":
					return r[1] >= 1000
				case "id < 10 OR id > 2990":
					return r[1] < 10 || r[1] > 2990
				case "ri >= 1490 AND ri < 1510":
					return r[0] >= 1490 && r[0] < 1510
				}
				return true
			}
			var want [][2]int64
			for _, r := range live {
				if match(r) {
					want = append(want, r)
				}
			}
			n := int64(len(want))
			sliced := want[min(q.offset, n):]
			if q.limit > 0 && int64(len(sliced)) > q.limit {
				sliced = sliced[:q.limit]
			}
			label := fmt.Sprintf("%s/where=%q offset=%d limit=%d", name, q.where, q.offset, q.limit)
			t.Run(label+"/rows", func(t *testing.T) {
				streams, s, err := runDeleted(t, file, Options{RowIndex: "ri", Columns: []string{"ri", "id"}, Where: q.where, Offset: q.offset, Limit: q.limit}, del)
				require.NoError(t, err)
				got := idRows(t, streams)
				require.Equal(t, len(sliced), len(got))
				if len(got) > 0 {
					require.Equal(t, sliced, got)
				}
				require.Equal(t, int64(len(sliced)), s.Report().RowsReturned)
			})
			t.Run(label+"/count", func(t *testing.T) {
				streams, _, err := runDeleted(t, file, Options{RowIndex: "ri", Where: q.where, Count: true, Offset: q.offset, Limit: q.limit}, del)
				require.NoError(t, err)
				require.Equal(t, int64(len(sliced)), countOf(t, streams))
			})
			if q.offset == 0 && q.limit == 0 && !strings.Contains(q.where, "ri") { // minMax takes no row index
				t.Run(label+"/minmax", func(t *testing.T) {
					streams, _, err := runDeleted(t, file, Options{Where: q.where, MinMax: "id"}, del)
					require.NoError(t, err)
					lo, hi := "(null)", "(null)"
					if len(want) > 0 {
						lo, hi = strconv.FormatInt(want[0][1], 10), strconv.FormatInt(want[len(want)-1][1], 10)
					}
					forEachRecord(t, streams, func(rec arrow.RecordBatch) {
						require.Equal(t, lo, rec.Column(0).ValueStr(0))
						require.Equal(t, hi, rec.Column(1).ValueStr(0))
					})
				})
			}
			t.Run(label+"/top-k", func(t *testing.T) {
				limit := max(q.limit, 5)
				streams, _, err := runDeleted(t, file, Options{RowIndex: "ri", Columns: []string{"ri", "id"}, Where: q.where, OrderBy: "id DESC", Offset: q.offset, Limit: limit}, del)
				require.NoError(t, err)
				desc := slices.Clone(want)
				slices.Reverse(desc)
				desc = desc[min(q.offset, n):]
				desc = desc[:min(int64(len(desc)), limit)]
				got := idRows(t, streams)
				require.Equal(t, len(desc), len(got))
				if len(got) > 0 {
					require.Equal(t, desc, got)
				}
			})
		}
	}
}

func Test_deletedRowsPastTheFile(t *testing.T) {
	file := testcorpus.Read(t, pageIndexFile)
	_, _, err := runDeleted(t, file, Options{}, prune.RowSelection{{Start: 10, End: 11}, {Start: 2999, End: 3001}})
	require.ErrorIs(t, err, ErrDeleted)
	require.ErrorContains(t, err, "row 3000 is deleted, and the file has 3000 rows")
}
