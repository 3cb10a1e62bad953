package conformance

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/dataset/delta"
	"github.com/pqscan/pqscan/internal/dataset/delta/dvtest"
	"github.com/pqscan/pqscan/internal/events"
	"github.com/pqscan/pqscan/internal/faultserver"
	"github.com/pqscan/pqscan/internal/optimize"
	"github.com/pqscan/pqscan/internal/splitscan"
	"github.com/pqscan/pqscan/internal/testcorpus"
	"github.com/pqscan/pqscan/wazerohost"
)

// Test_whereTables is a randomized differential test of WHERE over every Delta and Iceberg
// table of the corpus: a table's skipping happens before any footer (partition values, the
// Delta log's file statistics, Iceberg manifest summaries, column metrics and bucket values)
// and then inside each file, beside deletion vectors, deletes, column mapping and schema
// evolution. The oracle is the table read whole, without a predicate (checked against the
// corpus's expected rows by the table tests), filtered here by an evaluator of the drawn
// predicate written for this test in SQL's three-valued logic; pqscan's rows and count with
// the predicate must equal it. The draws are seeded by the table's name.
func Test_whereTables(t *testing.T) { whereTables(t, pqscan.Options{}, 4*whereDraws, 500) }

// Test_whereWasm runs both differentials through the wasm module (wazero), the engine the
// browser and Node hosts run, with fewer draws.
func Test_whereWasm(t *testing.T) {
	if testing.Short() {
		t.Skip("the wasm module's differential: -short")
	}
	ctx := context.Background()
	h, err := wazerohost.New(ctx, wazerohost.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	whereTables(t, pqscan.Options{Engine: h}, 8, 200)
	whereFiles(t, pqscan.Options{Engine: h}, 2, 200)
}

func whereTables(t *testing.T, opts pqscan.Options, draws, least int) {
	dir := testcorpus.Dir(t)
	tables := whereTableRoots(t)
	ctx := context.Background()
	preds, rows := 0, 0
	for _, root := range tables {
		name, _ := filepath.Rel(dir, root)
		ds, err := pqscan.OpenDataset(ctx, []string{root + "/"}, opts)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		p, r := checkWhere(t, name, ds, draws)
		preds, rows = preds+p, rows+r
		// Time travel: every older snapshot of the table, with fewer draws (its own files,
		// schema, deletes and statistics).
		for _, o := range olderSnapshots(t, ds, root, opts) {
			old, err := pqscan.OpenDataset(ctx, []string{root + "/"}, o.opts)
			if err != nil {
				t.Errorf("%s %s: %v", name, o.what, err)
				continue
			}
			p, r := checkWhere(t, name+" "+o.what, old, max(2, draws/4))
			preds, rows = preds+p, rows+r
			old.Close()
		}
		ds.Close()
	}
	// Generated Hive folders: day partitions (a date column), two levels with a null one
	// (__HIVE_DEFAULT_PARTITION__, an integer column), and files whose columns differ (int32
	// widened to int64, a missing column read as null, an extra one ignored).
	for i, days := range whereHives {
		root, _, _ := buildDataset(t, days)
		ds, err := pqscan.OpenDataset(ctx, []string{root + "/"}, opts)
		if err != nil {
			t.Fatal(err)
		}
		p, r := checkWhere(t, fmt.Sprintf("hive-%d", i), ds, draws)
		preds, rows = preds+p, rows+r
		ds.Close()
	}
	t.Logf("%d predicates over %d tables and %d Hive folders, %d matching rows in all", preds, len(tables), len(whereHives), rows)
	if preds < least {
		t.Errorf("only %d predicates", preds)
	}
}

// Test_whereFiles is Test_whereTables over every corpus file pqscan reads (up to 200,000
// rows): besides rows, count, min/max and top-k, an offset and a limit, which single files
// apply after every level of skipping.
func Test_whereFiles(t *testing.T) { whereFiles(t, pqscan.Options{}, whereDraws, 1000) }

func whereFiles(t *testing.T, opts pqscan.Options, draws, least int) {
	root := testcorpus.Dir(t)
	preds, rows, files := 0, 0, 0
	for _, p := range testcorpus.Files(t, ".parquet") {
		if !whereCorpusFile(p) {
			continue
		}
		f, err := pqscan.Open(context.Background(), filepath.Join(root, p), opts)
		if err != nil {
			continue
		}
		if n := f.Metadata().NumRows; n > 0 && n <= 200_000 {
			a, b := checkWhere(t, p, f, draws)
			preds, rows, files = preds+a, rows+b, files+1
			// The same scans cut into units on three threads (every row group, and runs of
			// pages, its own unit): the same rows in the same order.
			if opts.Engine == nil {
				old := splitscan.UnitMinBytes
				splitscan.UnitMinBytes = 1
				o := opts
				o.Threads = 3
				if g, err := pqscan.Open(context.Background(), filepath.Join(root, p), o); err == nil {
					checkWhere(t, p+" (3 threads)", g, draws/2)
					g.Close()
				}
				splitscan.UnitMinBytes = old
			}
		}
		f.Close()
	}
	// Generated files: the events generator's layouts (page indexes, dictionaries, small row
	// groups) and pqscan optimize's rewrites of one (sorted, tiny pages, bloom filters on a
	// high-cardinality column, other codecs).
	for _, g := range generatedFiles(t) {
		f, err := pqscan.OpenReaderAt(context.Background(), bytes.NewReader(g.data), int64(len(g.data)), opts)
		if err != nil {
			t.Fatalf("%s: %v", g.name, err)
		}
		a, b := checkWhere(t, g.name, f, max(2, draws/2))
		preds, rows, files = preds+a, rows+b, files+1
		f.Close()
	}
	t.Logf("%d predicates over %d files, %d matching rows in all", preds, files, rows)
	if preds < least {
		t.Errorf("only %d predicates", preds)
	}
}

type genFile struct {
	name string
	data []byte
}

var genFiles struct {
	once  sync.Once
	files []genFile
	err   error
}

// generatedFiles are made once per test binary (a few seconds).
func generatedFiles(t *testing.T) []genFile {
	genFiles.once.Do(func() {
		add := func(name string, b []byte) { genFiles.files = append(genFiles.files, genFile{name, b}) }
		var base []byte
		for _, l := range []events.Layout{events.Sorted, events.Unsorted, events.SmallRG} {
			var buf bytes.Buffer
			if genFiles.err = events.Generate(&buf, events.Config{Rows: 12_000, Layout: l, RowGroupRows: 3000, Seed: 3}); genFiles.err != nil {
				return
			}
			add("events-"+string(l), buf.Bytes())
			base = buf.Bytes()
		}
		for _, o := range []optimize.Options{
			{SortBy: []string{"user_id"}, PageRows: 500, Bloom: []optimize.BloomSpec{{Column: "user_id"}, {Column: "event_type"}}},
			{SortBy: []string{"event_time"}, RowGroupRows: 2000, Codec: "gzip", Bloom: []optimize.BloomSpec{{Column: "tenant_id"}}},
			{PageRows: 100, Codec: "lz4raw"},
		} {
			o.Version, o.TempDir = "test", t.TempDir()
			f, err := pqscan.OpenReaderAt(context.Background(), bytes.NewReader(base), int64(len(base)), pqscan.Options{})
			if err != nil {
				genFiles.err = err
				return
			}
			var out bytes.Buffer
			_, err = optimize.Rewrite(context.Background(), f, &out, o)
			f.Close()
			if err != nil {
				genFiles.err = err
				return
			}
			add(fmt.Sprintf("optimized %v %s", o.SortBy, o.Codec), out.Bytes())
		}
	})
	if genFiles.err != nil {
		t.Fatal(genFiles.err)
	}
	return genFiles.files
}

// whereTableRoots are the corpus's tables: its 25 Iceberg tables, then the DAT and delta-rs Delta
// tables (less the one whose data files are not shipped).
func whereTableRoots(t *testing.T) []string {
	dir := testcorpus.Dir(t)
	var tables []string
	for _, row := range testcorpus.IcebergTables(t) {
		tables = append(tables, filepath.Join(dir, "iceberg", "tables", row["name"], row["table_root"]))
	}
	dat, err := filepath.Glob(filepath.Join(dir, "delta", "dat", "*", "delta"))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := filepath.Glob(filepath.Join(dir, "delta", "delta-rs", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range append(dat, rs...) {
		if st, err := os.Stat(p); err == nil && st.IsDir() && !strings.HasSuffix(p, "with_checkpoint_no_last_checkpoint") {
			tables = append(tables, p)
		}
	}
	return tables
}

// whereHives are the generated Hive folders (buildDataset): day partitions (a date column)
// with files whose columns differ (int32 widened to int64, a missing column read as null, an
// extra one ignored), and two levels with null ones (__HIVE_DEFAULT_PARTITION__, an integer
// column), the first file in path order lacking a column.
var whereHives = [][]dayFile{
	{
		{dir: "event_date=2024-01-01", first: 0, rows: 250},
		{dir: "event_date=2024-01-02", first: 1000, rows: 120, extra: true},
		{dir: "event_date=2024-01-03", first: 2000, rows: 90, noName: true},
		{dir: "event_date=2024-01-04", first: 3000, rows: 130, idInt32: true},
	},
	{
		{dir: "region=eu/shard=1", first: 0, rows: 70},
		{dir: "region=eu/shard=2", first: 100, rows: 40},
		{dir: "region=us/shard=__HIVE_DEFAULT_PARTITION__", first: 200, rows: 60},
		{dir: "region=__HIVE_DEFAULT_PARTITION__/shard=3", first: 300, rows: 50, noName: true},
	},
}

// whereCorpusFile says whether corpus file p takes part: not a fuzz or bad_data file, nor
// one DuckDB's test skips or pqscan refuses on purpose.
func whereCorpusFile(p string) bool {
	_, skip := duckFileSkips[p]
	_, refused := pqscanRefuses[p]
	return !skip && !refused && !strings.Contains(p, "bad_data") && !strings.Contains(p, "fuzz")
}

// whereSource is a file or a table.
type whereSource interface {
	Scan(ctx context.Context, o pqscan.ScanOptions) (*pqscan.Reader, error)
	Count(ctx context.Context, o pqscan.ScanOptions) (int64, pqscan.Report, error)
	MinMax(ctx context.Context, col string, o pqscan.ScanOptions) (arrow.RecordBatch, pqscan.Report, error)
}

// checkWhere draws n predicates over src read whole and checks pqscan's answers to each
// against the rows the evaluator keeps; it returns the predicates checked and their rows.
func checkWhere(t *testing.T, name string, src whereSource, n int) (preds, rows int) {
	t.Helper()
	ctx := context.Background()
	r, err := src.Scan(ctx, pqscan.ScanOptions{})
	if err != nil {
		t.Errorf("%s: %v", name, firstLine(err))
		return 0, 0
	}
	all, err := collect(r)
	if err != nil {
		t.Errorf("%s: %v", name, firstLine(err))
		return 0, 0
	}
	if all.rows == 0 {
		return 0, 0
	}
	var cols []int
	for i, f := range all.schema.Fields() {
		if tableColumn(f.Type) && !hasNaN(all, colRef{path: []int{i}, typ: f.Type}) {
			cols = append(cols, i)
		}
	}
	if len(cols) == 0 {
		return 0, 0
	}
	canon := make([]string, all.rows)
	for i := range all.rows {
		canon[i] = canonRow(all, i)
	}
	h := fnv.New64a()
	h.Write([]byte(name))
	rng := rand.New(rand.NewPCG(h.Sum64(), whereSalt))
	for range n {
		e := drawExpr(rng, all, cols, 0)
		if e == nil {
			continue
		}
		where := e.sql()
		var want []string
		for i := range all.rows {
			if e.eval(all, i) == tTrue {
				want = append(want, canon[i])
			}
		}
		got, err := sourceRows(src, pqscan.ScanOptions{Where: where})
		if err != nil {
			t.Errorf("%s WHERE %s: %v", name, where, firstLine(err))
			continue
		}
		cnt, _, err := src.Count(ctx, pqscan.ScanOptions{Where: where})
		preds++
		rows += len(want)
		switch {
		case err != nil:
			t.Errorf("%s WHERE %s: count: %v", name, where, firstLine(err))
		case fmt.Sprint(got) != fmt.Sprint(want) || cnt != int64(len(want)):
			t.Errorf("%s WHERE %s: pqscan %d rows (count %d), filtered here %d\n got %v\nwant %v", name, where, len(got), cnt, len(want), got, want)
		}
		// A projection that may leave the predicate's columns out (read only to filter,
		// late materialization): the kept rows' projected columns, in order.
		if rng.IntN(2) == 0 {
			var proj []string
			keep := map[string]bool{}
			for _, f := range all.schema.Fields() {
				if rng.IntN(3) == 0 {
					proj = append(proj, f.Name)
					keep[f.Name] = true
				}
			}
			if len(proj) == 0 {
				f := all.schema.Field(rng.IntN(all.schema.NumFields()))
				proj, keep[f.Name] = []string{f.Name}, true
			}
			var pwant []string
			for i := range all.rows {
				if e.eval(all, i) == tTrue {
					pwant = append(pwant, canonRowOf(all, i, keep))
				}
			}
			got, err := sourceRows(src, pqscan.ScanOptions{Where: where, Columns: proj})
			if err != nil || fmt.Sprint(got) != fmt.Sprint(pwant) {
				t.Errorf("%s WHERE %s, columns %q: %v, %d rows, filtered here %d\n got %.300v\nwant %.300v", name, where, proj, err, len(got), len(pwant), got, pwant)
			}
		}
		// The engine's knobs change how it reads, never what it returns: small batches,
		// requests merged across any gap or none, a round trip worth a byte or a megabyte.
		if rng.IntN(2) == 0 {
			o := pqscan.ScanOptions{Where: where, BatchRows: 1 + rng.IntN(300), MaxGap: int64(rng.IntN(2)) << 20, RoundTripBytes: 1 + int64(rng.IntN(2))<<20}
			got, err := sourceRows(src, o)
			if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s WHERE %s, batchRows %d, maxGap %d, roundTripBytes %d: %v, %d rows, filtered here %d", name, where, o.BatchRows, o.MaxGap, o.RoundTripBytes, err, len(got), len(want))
			}
		}
		// The row index (a file's row positions) beside the predicate and a range of it.
		if f, isFile := src.(*pqscan.File); isFile && rng.IntN(3) == 0 {
			lo := rng.Int64N(all.rows)
			hi := lo + rng.Int64N(all.rows-lo)
			var wi []string
			for i := range all.rows {
				if i >= lo && i <= hi && e.eval(all, i) == tTrue {
					wi = append(wi, strconv.FormatInt(i, 10))
				}
			}
			o := pqscan.ScanOptions{Where: fmt.Sprintf("(%s) AND __ri BETWEEN %d AND %d", where, lo, hi), RowIndex: "__ri", Columns: []string{all.schema.Field(0).Name}}
			var gi []string
			r, err := f.Scan(ctx, o)
			if err == nil {
				var res *scanResult
				if res, err = collect(r); err == nil {
					for k := range res.rows {
						rec, j := res.rowAt(k)
						gi = append(gi, fmt.Sprint(arrowCanon(rec.Column(0), j)))
					}
				}
			}
			if err != nil || fmt.Sprint(gi) != fmt.Sprint(wi) {
				t.Errorf("%s WHERE %s: row index: %v %v, filtered here %v", name, o.Where, err, gi, wi)
			}
		}
		// An offset and a limit: the kept rows in order, sliced.
		off, lim := rng.IntN(3), 1+rng.IntN(4)
		if rng.IntN(2) == 0 {
			off = rng.IntN(len(want) + 1) // far enough to pass whole files
		}
		if len(want) > 0 {
			got, err := sourceRows(src, pqscan.ScanOptions{Where: where, Offset: int64(off), Limit: int64(lim)})
			w := want[min(off, len(want)):min(off+lim, len(want))]
			if err != nil || fmt.Sprint(got) != fmt.Sprint(w) {
				t.Errorf("%s WHERE %s OFFSET %d LIMIT %d: %v %v, filtered here %v", name, where, off, lim, err, got, w)
			}
			// A count applies them to the count.
			if n, _, err := src.Count(ctx, pqscan.ScanOptions{Where: where, Offset: int64(off), Limit: int64(lim)}); err != nil || n != int64(len(w)) {
				t.Errorf("%s WHERE %s OFFSET %d LIMIT %d: count %d %v, filtered here %d", name, where, off, lim, n, err, len(w))
			}
		}
		// min/max and a top-k of a column under the same predicate.
		c := cols[rng.IntN(len(cols))]
		if err := tableMinMax(src, all, e, c); err != nil {
			t.Errorf("%s WHERE %s: %v", name, where, err)
		}
		if err := tableTopK(src, all, e, c, rng.IntN(2) == 0, 1+rng.IntN(5)); err != nil {
			t.Errorf("%s WHERE %s: %v", name, where, err)
		}
	}
	return preds, rows
}

// sourceRows is the rows of src's scan o, in order, as canonRow writes them.
func sourceRows(src whereSource, o pqscan.ScanOptions) ([]string, error) {
	r, err := src.Scan(context.Background(), o)
	if err != nil {
		return nil, err
	}
	res, err := collect(r)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, res.rows)
	for i := range res.rows {
		out = append(out, canonRow(res, i))
	}
	return out, nil
}

// olderSnapshots are the options that open each older snapshot of the table at root: an
// Iceberg table's snapshots but the current one, a Delta table's versions below the latest.
func olderSnapshots(t *testing.T, ds *pqscan.Dataset, root string, opts pqscan.Options) (out []struct {
	what string
	opts pqscan.Options
}) {
	add := func(what string, o pqscan.Options) {
		out = append(out, struct {
			what string
			opts pqscan.Options
		}{what, o})
	}
	if it, err := ds.Iceberg(context.Background()); err == nil && it != nil {
		for _, sn := range it.Snapshots {
			if sn.ID != it.Snapshot {
				o := opts
				o.IcebergSnapshotID = &sn.ID
				add(fmt.Sprintf("snapshot %d", sn.ID), o)
			}
		}
		return out
	}
	commits, _ := filepath.Glob(filepath.Join(root, "_delta_log", "*.json"))
	latest := int64(-1)
	for _, c := range commits {
		if v, err := strconv.ParseInt(strings.TrimSuffix(filepath.Base(c), ".json"), 10, 64); err == nil {
			latest = max(latest, v)
		}
	}
	for v := int64(0); v < latest; v++ {
		o := opts
		o.DeltaVersion = &v
		add(fmt.Sprintf("version %d", v), o)
	}
	return out
}

// canonRow is row i as orderedRows writes it.
func canonRow(res *scanResult, i int64) string { return canonRowOf(res, i, nil) }

// canonRowOf is canonRow of the columns keep names (nil: every column).
func canonRowOf(res *scanResult, i int64, keep map[string]bool) string {
	rec, j := res.rowAt(i)
	m := map[string]any{}
	for c, f := range rec.Schema().Fields() {
		if keep == nil || keep[f.Name] {
			m[f.Name] = arrowCanon(rec.Column(c), j)
		}
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// tableColumn reports whether a predicate of this test can name a column of type dt.
func tableColumn(dt arrow.DataType) bool {
	switch dt.(type) {
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type,
		*arrow.Uint8Type, *arrow.Uint16Type, *arrow.Uint32Type,
		*arrow.Float32Type, *arrow.Float64Type, *arrow.BooleanType, *arrow.StringType,
		*arrow.Date32Type, *arrow.Decimal128Type, *arrow.TimestampType:
		return true
	}
	return false
}

// cell is a typed value: numbers, decimals, dates (days) and timestamps (seconds) as exact
// rationals; floats as float64 (f32: the column is FLOAT); strings; booleans.
type cell struct {
	rat *big.Rat
	f   float64
	f32 bool
	s   string
	b   bool
	k   byte // 'r' rational, 'f' float, 's' string, 'b' bool
}

// cellAt is the value of column c in row i (false for a null).
func cellAt(res *scanResult, c int, i int64, _ arrow.DataType) (cell, bool) {
	rec, j := res.rowAt(i)
	a := rec.Column(c)
	if a.IsNull(j) {
		return cell{}, false
	}
	ri := func(v int64) (cell, bool) { return cell{rat: new(big.Rat).SetInt64(v), k: 'r'}, true }
	switch a := a.(type) {
	case *array.Int8:
		return ri(int64(a.Value(j)))
	case *array.Int16:
		return ri(int64(a.Value(j)))
	case *array.Int32:
		return ri(int64(a.Value(j)))
	case *array.Int64:
		return ri(a.Value(j))
	case *array.Uint8:
		return ri(int64(a.Value(j)))
	case *array.Uint16:
		return ri(int64(a.Value(j)))
	case *array.Uint32:
		return ri(int64(a.Value(j)))
	case *array.Float32:
		return cell{f: float64(a.Value(j)), f32: true, k: 'f'}, true
	case *array.Float64:
		return cell{f: a.Value(j), k: 'f'}, true
	case *array.Boolean:
		return cell{b: a.Value(j), k: 'b'}, true
	case *array.String:
		return cell{s: a.Value(j), k: 's'}, true
	case *array.Date32:
		return ri(int64(a.Value(j)))
	case *array.Decimal128:
		sc := a.DataType().(*arrow.Decimal128Type).Scale
		r, _ := new(big.Rat).SetString(a.Value(j).ToString(sc))
		return cell{rat: r, k: 'r'}, true
	case *array.Timestamp:
		per := map[arrow.TimeUnit]int64{arrow.Second: 1, arrow.Millisecond: 1e3, arrow.Microsecond: 1e6, arrow.Nanosecond: 1e9}
		u := a.DataType().(*arrow.TimestampType).Unit
		return cell{rat: big.NewRat(int64(a.Value(j)), per[u]), k: 'r'}, true
	}
	return cell{}, false
}

// cmpCells orders a column value x against a literal y of the same kind; for a FLOAT column
// the literal is rounded to its precision first, as pqscan binds it.
func cmpCells(x, y cell) int {
	switch x.k {
	case 'r':
		return x.rat.Cmp(y.rat)
	case 'f':
		lit := y.f
		if x.f32 {
			lit = float64(float32(lit))
		}
		switch {
		case x.f < lit:
			return -1
		case x.f > lit:
			return 1
		}
		return 0
	case 's':
		return strings.Compare(x.s, y.s)
	}
	switch {
	case x.b == y.b:
		return 0
	case !x.b:
		return -1
	}
	return 1
}

// Three-valued logic: AND is the minimum, OR the maximum, NOT the mirror.
const (
	tFalse3 = 0
	tNull3  = 1
	tTrue   = 2
)

type wexpr interface {
	sql() string
	eval(res *scanResult, row int64) int
}

type wjoin struct {
	and  bool
	kids []wexpr
}

func (j wjoin) sql() string {
	parts := make([]string, len(j.kids))
	for i, k := range j.kids {
		parts[i] = "(" + k.sql() + ")"
	}
	if j.and {
		return strings.Join(parts, " AND ")
	}
	return strings.Join(parts, " OR ")
}

func (j wjoin) eval(res *scanResult, row int64) int {
	out := tTrue
	if !j.and {
		out = tFalse3
	}
	for _, k := range j.kids {
		v := k.eval(res, row)
		if j.and {
			out = min(out, v)
		} else {
			out = max(out, v)
		}
	}
	return out
}

type wnot struct{ e wexpr }

func (n wnot) sql() string                         { return "NOT (" + n.e.sql() + ")" }
func (n wnot) eval(res *scanResult, row int64) int { return tTrue - n.e.eval(res, row) }

// wterm is one comparison on column col: op is =, !=, <, <=, >, >=, BETWEEN, IN, LIKE,
// ILIKE, NULL (IS NULL; with not, IS NOT NULL), DISTINCT (IS DISTINCT FROM; with not, IS
// NOT DISTINCT FROM), TRUE or FALSE (IS TRUE, IS FALSE; with not, IS NOT …) or BARE (a
// boolean column alone).
type wterm struct {
	col  int
	name string
	op   string
	not  bool
	lits []cell
	text []string
}

func (w wterm) sql() string {
	not := ""
	if w.not {
		not = "NOT "
	}
	switch w.op {
	case "NULL":
		return w.name + " IS " + not + "NULL"
	case "BETWEEN":
		return w.name + " " + not + "BETWEEN " + w.text[0] + " AND " + w.text[1]
	case "IN":
		return w.name + " " + not + "IN (" + strings.Join(w.text, ", ") + ")"
	case "LIKE", "ILIKE":
		return likeSQL(w.name, w.lits[0].s, w.op == "ILIKE", w.not)
	case "DISTINCT":
		return w.name + " IS " + not + "DISTINCT FROM " + w.text[0]
	case "TRUE", "FALSE":
		return w.name + " IS " + not + w.op
	case "BARE":
		return w.name
	}
	return w.name + " " + w.op + " " + w.text[0]
}

func (w wterm) eval(res *scanResult, row int64) int {
	x, ok := cellAt(res, w.col, row, nil)
	if w.op == "NULL" {
		if ok == w.not {
			return tTrue
		}
		return tFalse3
	}
	switch {
	case w.op == "DISTINCT" && !ok:
		return map[bool]int{false: tTrue, true: tFalse3}[w.not]
	case (w.op == "TRUE" || w.op == "FALSE") && !ok:
		return map[bool]int{false: tFalse3, true: tTrue}[w.not]
	case !ok:
		return tNull3
	}
	b := func(v bool) int {
		if v != w.not {
			return tTrue
		}
		return tFalse3
	}
	switch w.op {
	case "BETWEEN":
		return b(cmpCells(x, w.lits[0]) >= 0 && cmpCells(x, w.lits[1]) <= 0)
	case "IN":
		for _, l := range w.lits {
			if cmpCells(x, l) == 0 {
				return b(true)
			}
		}
		return b(false)
	case "LIKE", "ILIKE":
		return b(likeRef(w.lits[0].s, w.op == "ILIKE", x.s))
	case "DISTINCT":
		return b(cmpCells(x, w.lits[0]) != 0)
	case "TRUE", "FALSE":
		return b(x.b == (w.op == "TRUE"))
	case "BARE":
		return b(x.b)
	}
	c := cmpCells(x, w.lits[0])
	return b(map[string]bool{"=": c == 0, "!=": c != 0, "<": c < 0, "<=": c <= 0, ">": c > 0, ">=": c >= 0}[w.op])
}

// wcols compares two columns of a row: left op right, unknown when either is null.
type wcols struct {
	left, right int
	names       [2]string
	op          string
}

func (w wcols) sql() string { return w.names[0] + " " + w.op + " " + w.names[1] }

func (w wcols) eval(res *scanResult, row int64) int {
	x, ok := cellAt(res, w.left, row, nil)
	y, ok2 := cellAt(res, w.right, row, nil)
	if !ok || !ok2 {
		return tNull3
	}
	var c int
	switch x.k {
	case 'f': // both widened to double, compared as IEEE has it (NaN: only != holds)
		if math.IsNaN(x.f) || math.IsNaN(y.f) {
			return map[bool]int{true: tTrue, false: tFalse3}[w.op == "!="]
		}
		c = cmp.Compare(x.f, y.f)
		if x.f == y.f {
			c = 0 // -0 = +0
		}
	default:
		c = cmpCells(x, y)
	}
	return map[bool]int{true: tTrue, false: tFalse3}[map[string]bool{"=": c == 0, "!=": c != 0, "<": c < 0, "<=": c <= 0, ">": c > 0, ">=": c >= 0}[w.op]]
}

// cmpKind is the class of columns of type dt that pqscan and DuckDB compare with each other
// without a cast ("" for none): integers of any width and sign, floats, strings, booleans,
// dates, decimals of one scale, timestamps with or without a zone (in any unit).
func cmpKind(dt arrow.DataType) string {
	switch t := dt.(type) {
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type, *arrow.Uint8Type, *arrow.Uint16Type, *arrow.Uint32Type:
		return "int"
	case *arrow.Float32Type, *arrow.Float64Type:
		return "float"
	case *arrow.StringType:
		return "string"
	case *arrow.BooleanType:
		return "bool"
	case *arrow.Date32Type:
		return "date"
	case *arrow.Decimal128Type:
		return fmt.Sprint("decimal", t.Scale)
	case *arrow.TimestampType:
		return fmt.Sprint("timestamp", t.TimeZone != "")
	}
	return ""
}

// drawCols draws a comparison of column c with another column of its class, or nil.
func drawCols(rng *rand.Rand, res *scanResult, c int, cols []int) wexpr {
	k := cmpKind(res.schema.Field(c).Type)
	var same []int
	for _, d := range cols {
		if k != "" && cmpKind(res.schema.Field(d).Type) == k {
			same = append(same, d)
		}
	}
	if len(same) == 0 {
		return nil
	}
	d := same[rng.IntN(len(same))]
	q := func(i int) string { return `"` + strings.ReplaceAll(res.schema.Field(i).Name, `"`, `""`) + `"` }
	return wcols{left: c, right: d, names: [2]string{q(c), q(d)}, op: []string{"=", "!=", "<", "<=", ">", ">="}[rng.IntN(6)]}
}

// drawExpr draws one to three terms (or nested groups) under AND or OR, sometimes negated.
func drawExpr(rng *rand.Rand, res *scanResult, cols []int, depth int) wexpr {
	j := wjoin{and: rng.IntN(2) == 0}
	for range 1 + rng.IntN(3) {
		var e wexpr
		if depth < 1 && rng.IntN(5) == 0 {
			e = drawExpr(rng, res, cols, depth+1)
		} else if c := cols[rng.IntN(len(cols))]; rng.IntN(8) == 0 {
			e = drawCols(rng, res, c, cols)
		} else {
			e = drawTerm(rng, res, c)
		}
		if e == nil {
			continue
		}
		if rng.IntN(6) == 0 {
			e = wnot{e}
		}
		j.kids = append(j.kids, e)
	}
	if len(j.kids) == 0 {
		return nil
	}
	return j
}

func drawTerm(rng *rand.Rand, res *scanResult, c int) wexpr {
	f := res.schema.Field(c)
	w := wterm{col: c, name: `"` + strings.ReplaceAll(f.Name, `"`, `""`) + `"`, not: rng.IntN(4) == 0}
	lit := func() (cell, string, bool) { return drawCell(rng, res, c, f.Type) }
	v, text, ok := lit()
	if !ok || rng.IntN(10) == 0 {
		w.op = "NULL"
		return w
	}
	w.lits, w.text = []cell{v}, []string{text}
	if v.k == 'b' {
		w.op = []string{"=", "!=", "TRUE", "FALSE", "BARE"}[rng.IntN(5)]
		w.not = w.not && (w.op == "TRUE" || w.op == "FALSE")
		return w
	}
	switch k := rng.IntN(10); {
	case k < 6:
		w.op = []string{"=", "!=", "<", "<=", ">", ">=", "DISTINCT"}[rng.IntN(7)]
		w.not = w.not && w.op == "DISTINCT"
	case k < 8:
		u, utext, ok := lit()
		if !ok {
			return nil
		}
		if cmpCells(u, v) < 0 {
			v, u, text, utext = u, v, utext, text
		}
		w.op, w.lits, w.text = "BETWEEN", []cell{v, u}, []string{text, utext}
	case k < 9:
		w.op = "IN"
		for range 1 + rng.IntN(4) {
			if u, utext, ok := lit(); ok {
				w.lits, w.text = append(w.lits, u), append(w.text, utext)
			}
		}
	default:
		if v.k != 's' || v.s == "" || strings.ContainsAny(v.s, `%_\`) {
			w.op, w.not = "=", false
			return w
		}
		pat, fold, not := drawLike(rng, v.s)
		w.op, w.not, w.lits = "LIKE", not, []cell{{s: pat, k: 's'}}
		if fold {
			w.op = "ILIKE"
		}
	}
	return w
}

// drawCell is the value of column c in a random row, sometimes moved off the data, and its
// literal; false for a null or a value without a literal (NaN, ±Inf, a string not UTF-8).
func drawCell(rng *rand.Rand, res *scanResult, c int, dt arrow.DataType) (cell, string, bool) {
	v, ok := cellAt(res, c, rng.Int64N(res.rows), dt)
	if !ok {
		return cell{}, "", false
	}
	off := rng.IntN(6) == 0
	switch v.k {
	case 'b':
		return v, strconv.FormatBool(v.b), true
	case 's':
		if !utf8.ValidString(v.s) || strings.ContainsRune(v.s, 0) {
			return cell{}, "", false
		}
		if off {
			v.s += "~"
		}
		return v, "'" + strings.ReplaceAll(v.s, "'", "''") + "'", true
	case 'f':
		if math.IsNaN(v.f) || math.IsInf(v.f, 0) {
			return cell{}, "", false
		}
		if off {
			v.f += 0.5
		}
		return v, strconv.FormatFloat(v.f, 'e', -1, 64), true
	}
	switch dt := dt.(type) {
	case *arrow.Date32Type:
		d := v.rat.Num().Int64()
		if off {
			d++
			v.rat = new(big.Rat).SetInt64(d)
		}
		return v, "DATE '" + time.Unix(d*86400, 0).UTC().Format("2006-01-02") + "'", true
	case *arrow.TimestampType:
		if off {
			v.rat.Add(v.rat, big.NewRat(1, 1e6))
		}
		us := new(big.Rat).Mul(v.rat, big.NewRat(1e6, 1))
		if !us.IsInt() || !us.Num().IsInt64() {
			return cell{}, "", false
		}
		ts := time.UnixMicro(us.Num().Int64()).UTC()
		if ts.Year() < 1 || ts.Year() > 9999 {
			return cell{}, "", false
		}
		zone := ""
		if dt.TimeZone != "" {
			zone = "Z"
		}
		return v, "TIMESTAMP '" + ts.Format("2006-01-02 15:04:05.000000") + zone + "'", true
	case *arrow.Decimal128Type:
		if off {
			v.rat.Add(v.rat, big.NewRat(1, 2))
		}
		return v, v.rat.FloatString(int(dt.Scale) + 1), true
	}
	if off {
		v.rat.Add(v.rat, big.NewRat(1, 2))
		return v, v.rat.FloatString(1), true
	}
	return v, v.rat.RatString(), true
}

// keyOrder orders rows i and j of column c as DuckDB does, ascending (desc: descending):
// nulls last either way.
func keyOrder(res *scanResult, c int, i, j int64, desc bool) int {
	return keyOrderNulls(res, c, i, j, desc, false)
}

// keyOrderNulls is keyOrder with the nulls first when nullsFirst.
func keyOrderNulls(res *scanResult, c int, i, j int64, desc, nullsFirst bool) int {
	x, okx := cellAt(res, c, i, nil)
	y, oky := cellAt(res, c, j, nil)
	last := 1
	if nullsFirst {
		last = -1
	}
	switch {
	case !okx && !oky:
		return 0
	case !okx:
		return last
	case !oky:
		return -last
	}
	if x.k == 'f' {
		y.f32 = false // both are stored values: no rounding
	}
	r := cmpCells(x, y)
	if desc {
		r = -r
	}
	return r
}

// matching is the rows e keeps.
func matching(res *scanResult, e wexpr) []int64 {
	var out []int64
	for i := range res.rows {
		if e.eval(res, i) == tTrue {
			out = append(out, i)
		}
	}
	return out
}

// tableMinMax compares Dataset.MinMax of column c under e with the kept rows' extremes.
func tableMinMax(ds whereSource, res *scanResult, e wexpr, c int) error {
	name := res.schema.Field(c).Name
	rec, _, err := ds.MinMax(context.Background(), name, pqscan.ScanOptions{Where: e.sql()})
	if err != nil {
		return fmt.Errorf("minMax(%s): %v", name, firstLine(err))
	}
	defer rec.Release()
	lo, hi := int64(-1), int64(-1)
	for _, i := range matching(res, e) {
		if _, ok := cellAt(res, c, i, nil); !ok {
			continue
		}
		if lo < 0 || keyOrder(res, c, i, lo, false) < 0 {
			lo = i
		}
		if hi < 0 || keyOrder(res, c, i, hi, false) > 0 {
			hi = i
		}
	}
	want := [2]any{nil, nil}
	if lo >= 0 {
		want = [2]any{cellCanon(res, c, lo), cellCanon(res, c, hi)}
	}
	got := [2]any{arrowCanon(rec.Column(0), 0), arrowCanon(rec.Column(1), 0)}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		return fmt.Errorf("minMax(%s) = %v, the table filtered here %v", name, got, want)
	}
	return nil
}

// tableTopK compares a scan ordered by column c (desc) with limit k under e with the first k
// kept rows in that order: the key values, in order (ties may come in any order).
func tableTopK(ds whereSource, res *scanResult, e wexpr, c int, desc bool, k int) error {
	name := res.schema.Field(c).Name
	order := `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
	if desc {
		order += " DESC"
	}
	// NULLS FIRST for every other draw of k (odd k).
	nullsFirst := k%2 == 1
	if nullsFirst {
		order += " NULLS FIRST"
	}
	r, err := ds.Scan(context.Background(), pqscan.ScanOptions{Where: e.sql(), OrderBy: order, Limit: int64(k)})
	if err != nil {
		return fmt.Errorf("orderBy %s limit %d: %v", order, k, firstLine(err))
	}
	top, err := collect(r)
	if err != nil {
		return fmt.Errorf("orderBy %s limit %d: %v", order, k, firstLine(err))
	}
	var got []any
	for _, rec := range top.recs {
		col := rec.Column(rec.Schema().FieldIndices(name)[0])
		for i := range int(rec.NumRows()) {
			got = append(got, arrowCanon(col, i))
		}
	}
	rows := matching(res, e)
	sort.SliceStable(rows, func(a, b int) bool { return keyOrderNulls(res, c, rows[a], rows[b], desc, nullsFirst) < 0 })
	var want []any
	for _, i := range rows[:min(k, len(rows))] {
		want = append(want, cellCanon(res, c, i))
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		return fmt.Errorf("orderBy %s limit %d: keys %v, the table filtered and sorted here %v", order, k, got, want)
	}
	return nil
}

// cellCanon is column c of row i as arrowCanon writes it.
func cellCanon(res *scanResult, c int, i int64) any {
	rec, j := res.rowAt(i)
	return arrowCanon(rec.Column(c), j)
}

// Test_topKMissingColumn: an ORDER BY over a table whose key or predicate column some files
// lack (icebird's java_bunnies added "__happy__" after its first file): those files' rows
// hold null there, sort last, and a file the predicate rules out leaves its wave.
func Test_topKMissingColumn(t *testing.T) {
	root := filepath.Join(testcorpus.Dir(t), "iceberg", "tables", "icebird__java_bunnies")
	ds, err := pqscan.OpenDataset(context.Background(), []string{root + "/"}, pqscan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	r, err := ds.Scan(context.Background(), pqscan.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	all, err := collect(r)
	if err != nil {
		t.Fatal(err)
	}
	col := func(name string) int { return all.schema.FieldIndices(name)[0] }
	happy, temper := col("__happy__"), col("Temperament")
	hasHappy := wterm{col: happy, name: `"__happy__"`, op: "NULL", not: true}
	everyRow := wterm{col: temper, name: `"Temperament"`, op: "NULL", not: true}
	for _, tc := range []struct {
		e    wexpr
		key  int
		desc bool
		k    int
	}{
		{everyRow, happy, false, 3},
		{everyRow, happy, true, 100},
		{hasHappy, temper, true, 2},
		{wnot{hasHappy}, temper, false, 4},
	} {
		if err := tableTopK(ds, all, tc.e, tc.key, tc.desc, tc.k); err != nil {
			t.Errorf("WHERE %s: %v", tc.e.sql(), err)
		}
	}
}

// Test_whereHTTP runs the differential over HTTP (127.0.0.1, S3-style listing): the corpus's
// tables opened by folder URL and a sample of its files by URL, natively and in the wasm
// module, with fewer draws. Ranges are coalesced, split and retried as over a network.
func Test_whereHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("the HTTP differential: -short")
	}
	dir := testcorpus.Dir(t)
	srv := faultserver.New(faultserver.Options{Dir: dir, ListPageSize: 50})
	base, err := srv.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	h, err := wazerohost.New(ctx, wazerohost.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	var tables []string
	for _, r := range whereTableRoots(t) {
		if rel, _ := filepath.Rel(dir, r); strings.HasPrefix(rel, "iceberg") || slices.Contains([]string{"delta/dat/basic_partitioned/delta", "delta/dat/multi_partitioned/delta",
			"delta/delta-rs/table-with-dv-small", "delta/delta-rs/table_with_column_mapping", "delta/delta-rs/delta-2.2.0-partitioned-types"}, filepath.ToSlash(rel)) {
			tables = append(tables, filepath.ToSlash(rel))
		}
	}
	preds := 0
	for _, eng := range []pqscan.Engine{pqscan.Native{}, h} {
		for _, p := range tables {
			ds, err := pqscan.OpenDataset(ctx, []string{base + "/" + p + "/"}, pqscan.Options{Engine: eng})
			if err != nil {
				t.Errorf("%s: %v", p, err)
				continue
			}
			n, _ := checkWhere(t, p+" over HTTP", ds, 4)
			preds += n
			ds.Close()
		}
		for i, p := range testcorpus.Files(t, ".parquet") {
			if i%5 != 0 || !whereCorpusFile(p) {
				continue
			}
			f, err := pqscan.Open(ctx, base+"/"+filepath.ToSlash(p), pqscan.Options{Engine: eng})
			if err != nil {
				continue // refused locally too (the files test)
			}
			if n := f.Metadata().NumRows; n > 0 && n <= 200_000 {
				n, _ := checkWhere(t, p+" over HTTP", f, 2)
				preds += n
			}
			f.Close()
		}
	}
	t.Logf("%d predicates over HTTP", preds)
	if preds < 300 {
		t.Errorf("only %d predicates", preds)
	}
}

// Test_offsetAfterDeletes: an offset over a table skips live rows only. iceberg-cxx's
// refdeletes3 has six files, each with one row deleted by a position delete: a file the offset
// passes whole counts its live rows, not its footer's.
func Test_offsetAfterDeletes(t *testing.T) {
	root := filepath.Join(testcorpus.Dir(t), "iceberg", "tables", "lithium__refdeletes3")
	for _, eng := range []pqscan.Engine{pqscan.Native{}, wasmHost(t)} {
		ds, err := pqscan.OpenDataset(context.Background(), []string{root + "/"}, pqscan.Options{Engine: eng})
		if err != nil {
			t.Fatal(err)
		}
		all, err := sourceRows(ds, pqscan.ScanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for off := range len(all) + 1 {
			got, err := sourceRows(ds, pqscan.ScanOptions{Offset: int64(off), Limit: 2})
			if err != nil || fmt.Sprint(got) != fmt.Sprint(all[off:min(off+2, len(all))]) {
				t.Errorf("offset %d: %v %v, want %v", off, err, got, all[off:min(off+2, len(all))])
			}
		}
		ds.Close()
	}
}

// Test_whereDeltaVectors runs the differential over a generated Delta table of four copies of
// delta-rs' table-with-dv-small file (value = position 0..9), three of them with inline
// deletion vectors of different rows: offsets, counts, min/max and top-k over files whose
// live rows differ from their footers' (the table's statistics say tightBounds false).
func Test_whereDeltaVectors(t *testing.T) {
	dir := dvTable(t, nil)
	data, err := os.ReadFile(filepath.Join(dir, dvSmallFile))
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for i, del := range [][]uint64{{0, 1}, nil, {2, 3, 7, 9}, {5}} {
		name := fmt.Sprintf("part-%05d-copy.snappy.parquet", i)
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		dv := ""
		if del != nil {
			b := dvtest.Bitmap(del)
			j, _ := json.Marshal(&delta.DeletionVector{StorageType: "i", PathOrInlineDv: dvtest.Z85(b), SizeInBytes: int32(len(b)), Cardinality: int64(len(del))})
			dv = `,"deletionVector":` + string(j)
		}
		actions = append(actions, `{"add":{"path":"`+name+`","partitionValues":{},"size":`+strconv.Itoa(len(data))+`,"modificationTime":1,"dataChange":true,`+
			`"stats":"{\"numRecords\":10,\"minValues\":{\"value\":0},\"maxValues\":{\"value\":9},\"nullCount\":{\"value\":0},\"tightBounds\":false}"`+dv+`}}`)
	}
	actions = append(actions, `{"remove":{"path":"`+dvSmallFile+`","deletionTimestamp":1,"dataChange":true}}`)
	writeCommits(t, dir, [][]string{actions})
	for _, eng := range []pqscan.Engine{pqscan.Native{}, wasmHost(t)} {
		ds, err := pqscan.OpenDataset(context.Background(), []string{dir + "/"}, pqscan.Options{Engine: eng})
		if err != nil {
			t.Fatal(err)
		}
		if n, _, err := ds.Count(context.Background(), pqscan.ScanOptions{}); err != nil || n != 33 {
			t.Fatalf("count %d %v, want 33 live rows", n, err)
		}
		checkWhere(t, "dv-copies", ds, 4*whereDraws)
		ds.Close()
	}
}
