package scan

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// tightenFile is 4 row groups of 1000 rows with a page index and pages of 100 rows: id is
// the position, k = 4*(id mod 1000) + id/1000 (every row group's min/max spans all of k,
// each page's a narrow range), s a string.
func tightenFile(t testing.TB) []byte {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := 0; i < 4000; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.Int64Builder).Append(int64(4*(i%1000) + i/1000))
		b.Field(2).(*array.StringBuilder).Append(fmt.Sprintf("row-%05d", i))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithPageIndexEnabled(true), parquet.WithDataPageSize(512),
		parquet.WithBatchSize(50), parquet.WithDictionaryDefault(false), parquet.WithStats(true),
		parquet.WithMaxRowGroupLength(1000))
	w, err := pqarrow.NewFileWriter(schema, &buf, props, pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// pageRanges is the byte ranges of leaf's data pages in row group rg that hold a row of
// [lo, hi), from the file's offset index.
func pageRanges(t *testing.T, file []byte, meta *format.FileMetaData, rg, leaf int, lo, hi int64) []httprange.Range {
	t.Helper()
	cc := &meta.RowGroups[rg].Columns[leaf]
	oi, err := format.DecodeOffsetIndex(file[*cc.OffsetIndexOffset : *cc.OffsetIndexOffset+int64(*cc.OffsetIndexLength)])
	require.NoError(t, err)
	var out []httprange.Range
	for p, loc := range oi.PageLocations {
		end := meta.RowGroups[rg].NumRows
		if p+1 < len(oi.PageLocations) {
			end = oi.PageLocations[p+1].FirstRowIndex
		}
		if loc.FirstRowIndex < hi && end > lo {
			out = append(out, httprange.Range{Off: loc.Offset, Len: int64(loc.CompressedPageSize)})
		}
	}
	return out
}

// tightenRun drives a scan over file, calling tighten after the batch number at (1-based;
// 0: before the first Next), and returns the ids emitted, the ranges requested after the
// tighten, and the scanner.
func tightenRun(t *testing.T, file []byte, opts Options, at int, tighten string) (ids []int64, after []httprange.Range, s *Scanner) {
	t.Helper()
	opts.FileSize = int64(len(file))
	s, err := New(opts)
	require.NoError(t, err)
	batches := 0
	done := false
	if at == 0 {
		require.NoError(t, s.Tighten(tighten))
		done = true
	}
	for i := 0; ; i++ {
		require.True(t, i < 10000, "too many steps")
		st := s.Next()
		switch st.Kind {
		case NeedRanges:
			for _, r := range st.Ranges {
				if done {
					after = append(after, r)
				}
				require.NoError(t, s.Push(r.Off, file[r.Off:r.End()]))
			}
		case Batch:
			forEachRecord(t, [][]byte{append([]byte(nil), st.IPC...)}, func(rec arrow.RecordBatch) {
				ids = append(ids, rec.Column(0).(*array.Int64).Int64Values()...)
			})
			if batches++; batches == at {
				require.NoError(t, s.Tighten(tighten))
				done = true
			}
		case Done:
			return ids, after, s
		case Error:
			t.Fatalf("scan failed: %v", st.Err)
		}
	}
}

// Test_tightenSkipsRequests: a tighten that arrives after the first row group's batch keeps
// the later rounds' requests to exactly the pages the tightened predicate needs (the
// statistics drop row groups 1 and 3, the page index all of row group 2 but rows 500–699),
// and the rows are the first row group's plus the tightened predicate's.
func Test_tightenSkipsRequests(t *testing.T) {
	file := tightenFile(t)
	meta, err := format.DecodeFileMetaData(file[footerStart(file) : len(file)-8])
	require.NoError(t, err)
	require.Equal(t, 4, len(meta.RowGroups))
	// One row group per window: the budget (a quarter of the cap) holds one row group's
	// chunks, not two.
	var rg0 int64
	for _, leaf := range []int{0, 2} {
		rg0 += meta.RowGroups[0].Columns[leaf].MetaData.TotalCompressedSize
	}
	base := Options{Columns: []string{"id", "s"}, BatchRows: 1000, MaxGap: 1, TailSize: 8, MemoryCap: 4 * rg0 * 6 / 5}
	for _, c := range []struct {
		name, where, tighten string
		want                 []httprange.Range // the ranges read after the tighten, in order
		wantIDs              func(id int64) bool
	}{
		{"range", "", "id >= 2500 AND id < 2700", append(pageRanges(t, file, meta, 2, 0, 500, 700), pageRanges(t, file, meta, 2, 2, 500, 700)...),
			func(id int64) bool { return id < 1000 || id >= 2500 && id < 2700 }},
		// An IN set over a column the scan did not filter on: k's column index (not fetched
		// before) comes in one index round, then k's and the projected columns' pages of the
		// values' rows only (k 1750 is row 2437, k 1919 row 3479, k 2001 row 1500, which the
		// first window read).
		{"in", "id >= 1000", "k IN (1750, 1919, 2001, 4001)", nil,
			func(id int64) bool { return id >= 1000 && id < 2000 || id == 3479 || id == 2437 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := base
			opts.Where = c.where
			ids, after, s := tightenRun(t, file, opts, 1, c.tighten)
			var want []int64
			for i := int64(0); i < 4000; i++ {
				if c.wantIDs(i) {
					want = append(want, i)
				}
			}
			require.True(t, slices.Equal(want, ids), len(want), head(want), len(ids), head(ids))
			rep := s.Report()
			require.Equal(t, 1, rep.RuntimeFilters)
			if c.want != nil {
				// One index round (id's column index, id's and s's offset indexes: the scan
				// had no predicate, so it had fetched none), then the pages.
				var idx []httprange.Range
				for _, leaf := range []int{0, 2} {
					cc := &meta.RowGroups[2].Columns[leaf]
					idx = append(idx, httprange.Range{Off: *cc.OffsetIndexOffset, Len: int64(*cc.OffsetIndexLength)})
				}
				cc := &meta.RowGroups[2].Columns[0]
				idx = append(idx, httprange.Range{Off: *cc.ColumnIndexOffset, Len: int64(*cc.ColumnIndexLength)})
				want := append(httprange.Coalesce(idx, httprange.CoalesceOptions{MaxGap: 1}), httprange.Coalesce(c.want, httprange.CoalesceOptions{MaxGap: 1})...)
				require.Equal(t, want, after)
				require.Equal(t, 2, rep.RowGroupsSkippedRuntime)
				require.Equal(t, "runtime", rep.RowGroups[1].SkippedBy)
				require.Equal(t, "runtime", rep.RowGroups[3].SkippedBy)
				require.Equal(t, strings.Repeat("T", 5)+"RR"+strings.Repeat("T", 3), pagesOf(rep, 2, "id"))
				return
			}
			// No byte of row groups 2 and 3 but their k, id and s pages over the rows of
			// the k pages that hold a value of the set (k's pages are 100 rows: [400, 500)
			// holds rows 437 and 479), plus the indexes.
			var allowed []httprange.Range
			for rg := 2; rg < 4; rg++ {
				require.Equal(t, 1, len(pageRanges(t, file, meta, rg, 1, 400, 500)))
				for leaf := 0; leaf < 3; leaf++ {
					allowed = append(allowed, pageRanges(t, file, meta, rg, leaf, 400, 500)...)
				}
			}
			for leaf := 1; leaf < 3; leaf++ { // k's column and offset indexes
				cc := &meta.RowGroups[2].Columns[leaf]
				for rg := 2; rg < 4; rg++ {
					cc = &meta.RowGroups[rg].Columns[leaf]
					allowed = append(allowed, httprange.Range{Off: *cc.ColumnIndexOffset, Len: int64(*cc.ColumnIndexLength)},
						httprange.Range{Off: *cc.OffsetIndexOffset, Len: int64(*cc.OffsetIndexLength)})
				}
			}
			for _, r := range after {
				require.True(t, covered(r, allowed), "a request outside the wanted pages and indexes:", r)
			}
			require.True(t, len(after) > 0)
		})
	}
}

// covered reports whether every byte of r lies in some range of set.
func covered(r httprange.Range, set []httprange.Range) bool {
	var in []httprange.Range
	for _, x := range set {
		lo, hi := max(r.Off, x.Off), min(r.End(), x.End())
		if lo < hi {
			in = append(in, httprange.Range{Off: lo, Len: hi - lo})
		}
	}
	return httprange.Total(httprange.Coalesce(in, httprange.CoalesceOptions{})) == r.Len
}

// pagesOf is the page letters of column col in row group rg.
func pagesOf(rep Report, rg int, col string) string {
	for _, c := range rep.RowGroups[rg].Columns {
		if c.Column == col {
			return c.Pages
		}
	}
	return ""
}

// footerStart is where the FileMetaData of a Parquet file begins.
func footerStart(file []byte) int {
	n := int(file[len(file)-8]) | int(file[len(file)-7])<<8 | int(file[len(file)-6])<<16 | int(file[len(file)-5])<<24
	return len(file) - 8 - n
}

// Test_tightenErrors: a conjunct that does not parse or bind is an error and the scan goes on
// as if it had not been given; count, minMax and sorted scans refuse one after the footer.
func Test_tightenErrors(t *testing.T) {
	file := tightenFile(t)
	want, _, _ := tightenRun(t, file, Options{Columns: []string{"id"}, Where: "id < 1500", BatchRows: 100}, 1, "id >= 0")
	for _, bad := range []string{"", "id >", "nope = 1", "s > 3", "id IN ('a')"} {
		opts := Options{Columns: []string{"id"}, Where: "id < 1500", BatchRows: 100, FileSize: int64(len(file))}
		s, err := New(opts)
		require.NoError(t, err)
		var ids []int64
		for i := 0; ; i++ {
			require.True(t, i < 10000)
			st := s.Next()
			if st.Kind == Metadata || i == 3 {
				err := s.Tighten(bad)
				require.True(t, errors.Is(err, ErrOptions), bad, err)
			}
			if st.Kind == NeedRanges {
				for _, r := range st.Ranges {
					require.NoError(t, s.Push(r.Off, file[r.Off:r.End()]))
				}
			}
			if st.Kind == Batch {
				forEachRecord(t, [][]byte{append([]byte(nil), st.IPC...)}, func(rec arrow.RecordBatch) {
					ids = append(ids, rec.Column(0).(*array.Int64).Int64Values()...)
				})
			}
			if st.Kind == Done || st.Kind == Error {
				require.NoError(t, st.Err)
				break
			}
		}
		require.True(t, slices.Equal(want, ids), bad, len(want), len(ids))
		require.Equal(t, 0, s.Report().RuntimeFilters, bad)
	}
	for _, o := range []Options{{Count: true, Where: "k = 5"}, {MinMax: "id", Where: "k = 5"}, {OrderBy: "id", Limit: 3, Where: "k = 5"}} {
		o.FileSize = int64(len(file))
		s, err := New(o)
		require.NoError(t, err)
		for st := s.Next(); st.Kind == NeedRanges && s.Metadata() == nil; st = s.Next() {
			for _, r := range st.Ranges {
				require.NoError(t, s.Push(r.Off, file[r.Off:r.End()]))
			}
		}
		require.True(t, errors.Is(s.Tighten("id > 3"), ErrOptions), o)
	}
}

// Test_tightenDifferential: over the pruning corpus, a scan (with or without a WHERE, with
// or without a limit, with a small memory cap so it reads in several rounds) is tightened at
// a random step with a random comparison or IN set; the rows it returns are exactly those a
// brute force selects: the WHERE's for the rows read before the tighten took effect, and
// the WHERE's and the tighten's for the rest.
func Test_tightenDifferential(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	ops := []string{"=", "!=", "<", "<=", ">", ">="}
	files := append([]string{""}, pruneFiles...)
	cases, effective, skipped, mid := 0, 0, 0, 0
	for _, f := range files {
		var file []byte
		if f == "" {
			file = tightenFile(t)
		} else {
			file = testcorpus.Read(t, f)
		}
		cols := readAll(t, file)
		var usable []*column
		for i := range cols {
			if cols[i].vals != nil {
				usable = append(usable, &cols[i])
			}
		}
		n := len(usable[0].vals)
		// term is a random comparison or IN list over a usable column, with its truth per row.
		term := func() (string, []bool) {
			c := usable[rng.Intn(len(usable))]
			var lits []any
			for len(lits) < 1+rng.Intn(40) {
				v := c.vals[rng.Intn(n)]
				if v != nil && literal(v) != "" && !isNaN(v) {
					lits = append(lits, v)
				}
				if rng.Intn(50) == 0 {
					break
				}
			}
			if len(lits) == 0 {
				return "", nil
			}
			sel := make([]bool, n)
			if rng.Intn(2) == 0 {
				op := ops[rng.Intn(len(ops))]
				for i, v := range c.vals {
					sel[i] = holds(v, op, lits[0])
				}
				return fmt.Sprintf("%q %s %s", c.name, op, literal(lits[0])), sel
			}
			var ls []string
			for _, l := range lits {
				ls = append(ls, literal(l))
			}
			for i, v := range c.vals {
				for _, l := range lits {
					sel[i] = sel[i] || holds(v, "=", l)
				}
			}
			return fmt.Sprintf("%q IN (%s)", c.name, strings.Join(ls, ", ")), sel
		}
		iters := 40
		if f == "" {
			iters = 300 // four row groups: read in several rounds
		}
		for k := 0; k < iters; k++ {
			where, base := "", []bool(nil)
			if rng.Intn(3) > 0 {
				where, base = term()
			}
			tight, tsel := term()
			if tight == "" {
				continue
			}
			lim := int64(0)
			if rng.Intn(2) == 0 {
				lim = int64(1 + rng.Intn(200))
			}
			opts := Options{Where: where, RowIndex: "__ri", Limit: lim, BatchRows: 1 + rng.Intn(300),
				RoundTripBytes: int64(1 + rng.Intn(8192)), MemoryCap: int64(1<<14 + rng.Intn(1<<18)),
				FileSize: int64(len(file))}
			if rng.Intn(4) == 0 {
				opts.Columns = []string{"__ri"}
			}
			s, err := New(opts)
			require.NoError(t, err)
			after := make([]bool, n) // rows the tighten applies to
			early := false           // it took effect before the index round: a plain WHERE
			s.tightenHook = func(all bool, plan []*rgState) {
				early = early || all
				if !all && len(plan) > 0 {
					mid++ // it took effect between two rounds, with row groups still to read
				}
				for i := range after {
					after[i] = after[i] || all
				}
				for _, g := range plan {
					sel := g.cand
					if g.filtered {
						sel = g.match
					}
					for _, run := range sel {
						for r := run.Start; r < run.End; r++ {
							after[s.rgStarts[g.idx]+r] = true
						}
					}
				}
			}
			at, atBatch, batches := rng.Intn(8), 0, 0
			if rng.Intn(2) == 0 {
				at, atBatch = -1, 1+rng.Intn(3) // after a batch instead of at a step
			}
			var got []int64
			for i := 0; ; i++ {
				require.True(t, i < 100000, "too many steps")
				if i == at {
					require.NoError(t, s.Tighten(tight), f, tight)
				}
				st := s.Next()
				if st.Kind == NeedRanges {
					for _, r := range st.Ranges {
						require.NoError(t, s.Push(r.Off, file[r.Off:r.End()]))
					}
					continue
				}
				if st.Kind == Batch {
					forEachRecord(t, [][]byte{append([]byte(nil), st.IPC...)}, func(rec arrow.RecordBatch) {
						ri := rec.Schema().FieldIndices("__ri")[0]
						got = append(got, rec.Column(ri).(*array.Int64).Int64Values()...)
					})
					if batches++; batches == atBatch {
						require.NoError(t, s.Tighten(tight), f, tight)
					}
					continue
				}
				if st.Kind == Error && errors.Is(st.Err, ErrMemoryCap) {
					skipped++ // a cap too small for one page of this file
					got = nil
					break
				}
				require.NoError(t, st.Err, f, where, tight)
				break
			}
			if got == nil && skipped > 0 && s.st == stFailed {
				continue
			}
			var want []int64
			for i := 0; i < n; i++ {
				if (base == nil || base[i]) && (!after[i] || tsel[i]) {
					want = append(want, int64(i))
				}
			}
			if where == "" && lim > 0 && !early {
				// Without a WHERE the limit was a slice by position: the tighten filters it.
				want = nil
				for i := 0; i < min(n, int(lim)); i++ {
					if !after[i] || tsel[i] {
						want = append(want, int64(i))
					}
				}
			} else if lim > 0 {
				want = want[:min(len(want), int(lim))]
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s WHERE %q LIMIT %d, tightened at step %d with %q: %d rows %v, brute force %d %v",
					f, where, lim, at, tight, len(got), head(got), len(want), head(want))
			}
			cases++
			for i := range after {
				if after[i] && !tsel[i] && (base == nil || base[i]) {
					effective++ // a row the tighten removed
					break
				}
			}
		}
	}
	t.Logf("%d tightened scans, %d where the tighten removed rows, %d between rounds, %d skipped (memory cap)", cases, effective, mid, skipped)
	require.True(t, cases > 600 && effective > 150 && mid > 50, "too few meaningful cases", cases, effective, mid)
}

func isNaN(v any) bool { x, ok := v.(float64); return ok && x != x }

func head(a []int64) []int64 { return a[:min(len(a), 12)] }

// BenchmarkTighten100k: a join's build side as one IN list of 100,000 keys, parsed, bound and
// checked against a four-row-group file's statistics and page index, then the scan run
// to its end (go test -bench Tighten100k ./internal/scan).
func BenchmarkTighten100k(b *testing.B) {
	file := tightenFile(b)
	var sb strings.Builder
	sb.WriteString("k IN (")
	for i := 0; i < 100_000; i++ {
		if i > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, "%d", 4000+i*3) // none in the file but the first few hundred
	}
	sb.WriteString(")")
	where := sb.String()
	b.SetBytes(int64(len(where)))
	for b.Loop() {
		s, _ := New(Options{FileSize: int64(len(file)), Columns: []string{"id"}})
		for st := s.Next(); ; st = s.Next() {
			if st.Kind == NeedRanges {
				for _, r := range st.Ranges {
					_ = s.Push(r.Off, file[r.Off:r.End()])
				}
				if s.Metadata() != nil && s.extra == nil {
					if err := s.Tighten(where); err != nil {
						b.Fatal(err)
					}
				}
				continue
			}
			if st.Kind == Done || st.Kind == Error {
				break
			}
		}
	}
}

// BenchmarkParse100k is the parse alone of that IN list.
func BenchmarkParse100k(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("k IN (")
	for i := 0; i < 100_000; i++ {
		if i > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, "%d", 4000+i*3)
	}
	sb.WriteString(")")
	where := sb.String()
	b.SetBytes(int64(len(where)))
	for b.Loop() {
		if _, err := prune.Parse(where); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzTighten: any text tightened into a scan of tightenFile either is refused with ErrOptions
// (the scan then returns what it would have) or is applied; the scan never fails with an
// internal error (a recovered panic). Tightened before the first step, it is the scan's WHERE:
// the same rows, or the same error, as Options.Where.
func FuzzTighten(f *testing.F) {
	for _, seed := range []string{"id < 10", "k IN (1, 2, 3)", "s LIKE 'row-0001%'", "id BETWEEN 5 AND 2", "nope = 1", "id >", "(", "k IN ()", "s = 3", "id IS NULL OR k > 3999"} {
		f.Add(seed, uint8(0))
		f.Add(seed, uint8(5))
	}
	file := tightenFile(f)
	run := func(t *testing.T, opts Options, where string, at int) ([]int64, error) {
		opts.FileSize = int64(len(file))
		s, err := New(opts)
		require.NoError(t, err)
		var ids []int64
		for i := 0; i < 100000; i++ {
			if where != "" && i == at {
				if err := s.Tighten(where); err != nil && !errors.Is(err, ErrOptions) {
					t.Fatalf("tighten %q: %v is not ErrOptions", where, err)
				}
			}
			st := s.Next()
			switch st.Kind {
			case NeedRanges:
				for _, r := range st.Ranges {
					require.NoError(t, s.Push(r.Off, file[r.Off:r.End()]))
				}
			case Batch:
				forEachRecord(t, [][]byte{append([]byte(nil), st.IPC...)}, func(rec arrow.RecordBatch) {
					ids = append(ids, rec.Column(0).(*array.Int64).Int64Values()...)
				})
			case Done:
				return ids, nil
			case Error:
				if errors.Is(st.Err, ErrInternal) {
					t.Fatalf("tighten %q at step %d: %v", where, at, st.Err)
				}
				return ids, st.Err
			}
		}
		t.Fatal("scan did not finish")
		return nil, nil
	}
	f.Fuzz(func(t *testing.T, where string, at uint8) {
		opts := Options{Columns: []string{"id"}, BatchRows: 700, MemoryCap: 40_000, TailSize: 8}
		got, gerr := run(t, opts, where, int(at%12))
		if at%12 != 0 || strings.TrimSpace(where) == "" {
			return
		}
		if _, err := prune.Parse(where); err != nil {
			return // refused: the scan ran without it
		}
		opts.Where = where
		want, werr := run(t, opts, "", 0)
		require.Equal(t, werr == nil, gerr == nil, where, werr, gerr)
		require.True(t, slices.Equal(want, got), where, len(want), len(got))
	})
}
