package scan

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// driveReport runs a scan to its end over an in-memory file and returns its report.
func driveReport(t *testing.T, b []byte, opts Options) Report {
	t.Helper()
	return runToEnd(t, b, opts, nil).Report()
}

// runToEnd runs a scan to its end over an in-memory file, pushing exactly the ranges asked
// for and handing each batch's IPC to onBatch (if not nil), and returns the finished Scanner.
func runToEnd(t *testing.T, b []byte, opts Options, onBatch func(ipc []byte)) *Scanner {
	t.Helper()
	opts.FileSize = int64(len(b))
	s, err := New(opts)
	require.NoError(t, err)
	for range 1_000_000 {
		st := s.Next()
		switch st.Kind {
		case NeedRanges:
			for _, r := range st.Ranges {
				require.NoError(t, s.Push(r.Off, b[r.Off:r.End()]))
			}
		case Batch:
			if onBatch != nil {
				onBatch(st.IPC)
			}
		case Done:
			return s
		case Error:
			t.Fatalf("scan: %v", st.Err)
		}
	}
	t.Fatal("scan did not finish")
	return nil
}

// pageOracle computes, with arrow-go alone (its page index reader for the page boundaries, its
// reader for the values), what each page of the id and string_col columns of a one-row-group
// file should say for "id BETWEEN lo AND hi": an id page is kept by the page index iff its
// values' range meets [lo, hi]; a string_col page outside the kept id pages' rows is the page
// index's, one holding a matching row is read, the others late materialization's.
func pageOracle(t *testing.T, b []byte, lo, hi int32) map[string]string {
	t.Helper()
	rd, err := file.NewParquetReader(bytes.NewReader(b))
	require.NoError(t, err)
	defer rd.Close()
	require.Equal(t, 1, rd.NumRowGroups())
	pir, err := rd.GetPageIndexReader().RowGroup(0)
	require.NoError(t, err)
	fr, err := pqarrow.NewFileReader(rd, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	require.NoError(t, err)
	tbl, err := fr.ReadTable(context.Background())
	require.NoError(t, err)
	defer tbl.Release()
	n := int(rd.NumRows())
	ids := make([]int32, 0, n)
	idCol := tbl.Column(tbl.Schema().FieldIndices("id")[0])
	for _, c := range idCol.Data().Chunks() {
		ids = append(ids, c.(*array.Int32).Int32Values()...)
	}
	bounds := func(name string) [][2]int {
		oi, err := pir.GetOffsetIndex(rd.MetaData().Schema.ColumnIndexByName(name))
		require.NoError(t, err)
		locs := oi.GetPageLocations()
		out := make([][2]int, len(locs))
		for p, l := range locs {
			end := n
			if p+1 < len(locs) {
				end = int(locs[p+1].FirstRowIndex)
			}
			out[p] = [2]int{int(l.FirstRowIndex), end}
		}
		return out
	}
	match := func(i int) bool { return ids[i] >= lo && ids[i] <= hi }
	cand := make([]bool, n)
	var idPages, strPages strings.Builder
	for _, pg := range bounds("id") {
		mn, mx := ids[pg[0]], ids[pg[0]]
		for i := pg[0]; i < pg[1]; i++ {
			mn, mx = min(mn, ids[i]), max(mx, ids[i])
		}
		if mx < lo || mn > hi {
			idPages.WriteByte(PagePageIndex)
			continue
		}
		idPages.WriteByte(PageRead)
		for i := pg[0]; i < pg[1]; i++ {
			cand[i] = true
		}
	}
	for _, pg := range bounds("string_col") {
		inCand, matched := false, false
		for i := pg[0]; i < pg[1]; i++ {
			inCand = inCand || cand[i]
			matched = matched || match(i)
		}
		switch {
		case matched:
			strPages.WriteByte(PageRead)
		case inCand:
			strPages.WriteByte(PageLateMat)
		default:
			strPages.WriteByte(PagePageIndex)
		}
	}
	return map[string]string{"id": idPages.String(), "string_col": strPages.String()}
}

func columnPages(r Report) map[string]string {
	out := map[string]string{}
	for _, g := range r.RowGroups {
		for _, c := range g.Columns {
			out[c.Column] += c.Pages
		}
	}
	return out
}

// Test_pageOutcomes: the report's letters per page match the arrow-go oracle on a corpus file
// with a page index (one row group, hundreds of pages per column), with late materialization
// forced on; and the slice and explain letters.
func Test_pageOutcomes(t *testing.T) {
	b := testcorpus.Read(t, tinyPlainFile)
	cols := []string{"id", "string_col"}
	t.Run("filter", func(t *testing.T) {
		for _, q := range []struct {
			name   string
			lo, hi int32
		}{{"narrow", 100, 120}, {"wide", 1000, 3000}, {"none", 100000, 100001}} {
			t.Run(q.name, func(t *testing.T) {
				where := "id BETWEEN " + itoa(q.lo) + " AND " + itoa(q.hi)
				r := driveReport(t, b, Options{Columns: cols, Where: where, RoundTripBytes: 1})
				want := pageOracle(t, b, q.lo, q.hi)
				got := columnPages(r)
				if q.name == "none" {
					// The row group's statistics skip it: no page of it was considered.
					require.Equal(t, "statistics", r.RowGroups[0].SkippedBy)
					require.Equal(t, 0, len(got))
					require.Equal(t, 0, strings.Count(want["id"], "R"))
					return
				}
				require.Equal(t, want, got)
				require.True(t, strings.Contains(got["string_col"], "L"), "late materialization skipped pages")
				require.True(t, strings.Contains(got["id"], "I"), "the page index skipped pages")
			})
		}
	})
	t.Run("limit", func(t *testing.T) {
		r := driveReport(t, b, Options{Columns: cols, Limit: 10})
		got := columnPages(r)
		for _, c := range cols {
			p := got[c]
			require.True(t, len(p) > 10, c)
			require.Equal(t, "R"+strings.Repeat("S", len(p)-1), p, c)
		}
	})
	t.Run("filtered limit stops early", func(t *testing.T) {
		r := driveReport(t, b, Options{Columns: cols, Where: "id >= 0", Limit: 5, RoundTripBytes: 1})
		p := columnPages(r)["id"]
		require.Equal(t, byte(PageRead), p[0])
		require.Equal(t, byte(PageSlice), p[len(p)-1], "pages after the limit was met")
		require.Equal(t, 0, strings.Count(p, "P")+strings.Count(p, "I"))
	})
	t.Run("explain", func(t *testing.T) {
		r := driveReport(t, b, Options{Columns: cols, Where: "id BETWEEN 100 AND 120", Explain: true})
		want := pageOracle(t, b, 100, 120)
		got := columnPages(r)
		require.Equal(t, strings.ReplaceAll(want["id"], "R", "P"), got["id"])
	})
}

func itoa(v int32) string { return strconv.Itoa(int(v)) }
