package scan

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// pruneFiles have page indexes, bloom filters, dictionaries, nulls, NaN or truncated stats.
var pruneFiles = []string{
	"parquet-testing/data/alltypes_tiny_pages.parquet",
	"parquet-testing/data/alltypes_tiny_pages_plain.parquet",
	"parquet-testing/data/alltypes_plain.parquet",
	"parquet-testing/data/alltypes_dictionary.parquet",
	"parquet-testing/data/int32_with_null_pages.parquet",
	"parquet-testing/data/data_index_bloom_encoding_stats.parquet",
	"parquet-testing/data/data_index_bloom_encoding_with_length.parquet",
	"parquet-testing/data/floating_orders_nan_count.parquet",
	"parquet-testing/data/binary_truncated_min_max.parquet",
	"parquet-testing/data/sort_columns.parquet",
	"parquet-testing/data/nan_in_stats.parquet",
	"hyparquet/page_index.parquet",
	"hyparquet/rowgroups.parquet",
	"hyparquet/bloom_filter.parquet",
	"hyparquet/dictionary_offset_indexed.parquet",
}

// column is one flat column of a decoded file, as Go values (nil = null).
type column struct {
	name string
	typ  arrow.DataType
	vals []any
}

// readAll decodes a whole file with the engine (no pruning) into flat columns.
func readAll(t *testing.T, file []byte) []column {
	streams, _, err := drive(t, file, Options{NoPrune: true})
	require.NoError(t, err)
	var cols []column
	forEachRecord(t, streams, func(rec arrow.RecordBatch) {
		if cols == nil {
			for _, f := range rec.Schema().Fields() {
				cols = append(cols, column{name: f.Name, typ: f.Type})
			}
		}
		for i := range cols {
			cols[i].vals = append(cols[i].vals, goValues(rec.Column(i))...)
		}
	})
	return cols
}

func goValues(a arrow.Array) []any {
	out := make([]any, a.Len())
	for i := range out {
		if a.IsNull(i) {
			continue
		}
		switch c := a.(type) {
		case *array.Int32:
			out[i] = int64(c.Value(i))
		case *array.Int64:
			out[i] = c.Value(i)
		case *array.Int16:
			out[i] = int64(c.Value(i))
		case *array.Int8:
			out[i] = int64(c.Value(i))
		case *array.Float32:
			out[i] = float64(c.Value(i))
		case *array.Float16: // FLOAT16 columns (IEEE_754_TOTAL_ORDER and TYPE_ORDER statistics)
			out[i] = float64(c.Value(i).Float32())
		case *array.Float64:
			out[i] = c.Value(i)
		case *array.String:
			out[i] = c.Value(i)
		case *array.Boolean:
			out[i] = c.Value(i)
		default:
			return nil // unsupported type: the column is not used for predicates
		}
	}
	return out
}

func literal(v any) string {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return "'" + strings.ReplaceAll(x, "'", "''") + "'"
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

// holds evaluates "v op lit" in SQL semantics (null → false).
func holds(v any, op string, lit any) bool {
	if v == nil {
		return false
	}
	var c int
	switch x := v.(type) {
	case int64:
		y := lit.(int64)
		c = cmpOrd(x, y)
	case float64:
		y := lit.(float64)
		if math.IsNaN(x) || math.IsNaN(y) {
			return op == "!="
		}
		c = cmpOrd(x, y)
	case string:
		c = strings.Compare(x, lit.(string))
	case bool:
		c = cmpOrd(boolInt(x), boolInt(lit.(bool)))
	}
	switch op {
	case "=":
		return c == 0
	case "!=":
		return c != 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	}
	panic(op)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func cmpOrd[T int | int64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Test_pruneDifferential: for random predicates over files with every kind of skipping
// metadata, the pruned scan returns exactly the rows a brute-force filter over the whole
// decoded file selects, and the same bytes as an unpruned scan; a count (Options.Count,
// partly answered from metadata) gives the brute force's number.
func Test_pruneDifferential(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	ops := []string{"=", "!=", "<", "<=", ">", ">="}
	cases, nonEmpty := 0, 0
	var fromMeta int64        // rows counts took from metadata
	var riRows int64          // row index values checked
	var tkRows, tkSkipped int // rows of sorted scans checked, units their bound skipped
	mmCases := 0              // min/max answers checked
	for _, f := range pruneFiles {
		file := testcorpus.Read(t, f)
		cols := readAll(t, file)
		var usable []column
		for _, c := range cols {
			if c.vals != nil && len(c.vals) > 0 {
				usable = append(usable, c)
			}
		}
		if len(usable) == 0 {
			t.Fatalf("%s: no usable column", f)
		}
		n := len(usable[0].vals)
		all := make([]bool, n)
		for i := range all {
			all[i] = true
		}
		for i := range usable { // without a predicate: where statistics answer most
			mmCases += checkMinMax(t, file, "", &usable[i], all)
		}
		for k := 0; k < 25; k++ {
			// One or two comparisons joined by AND or OR.
			type cmp struct {
				col *column
				op  string
				lit any
			}
			var terms []cmp
			for j := 0; j < 1+rng.Intn(2); j++ {
				c := &usable[rng.Intn(len(usable))]
				lit := c.vals[rng.Intn(n)]
				if lit == nil {
					continue
				}
				if x, ok := lit.(float64); ok && (math.IsNaN(x) || math.IsInf(x, 0)) {
					continue
				}
				terms = append(terms, cmp{c, ops[rng.Intn(len(ops))], lit})
			}
			if len(terms) == 0 {
				continue
			}
			join := " AND "
			if rng.Intn(3) == 0 {
				join = " OR "
			}
			var parts []string
			for _, tm := range terms {
				parts = append(parts, fmt.Sprintf("%q %s %s", tm.col.name, tm.op, literal(tm.lit)))
			}
			where := strings.Join(parts, join)
			want := int64(0)
			base := make([]bool, n)
			for i := 0; i < n; i++ {
				ok := join == " AND "
				for _, tm := range terms {
					h := holds(tm.col.vals[i], tm.op, tm.lit)
					if join == " AND " {
						ok = ok && h
					} else {
						ok = ok || h
					}
				}
				if ok {
					want++
				}
				base[i] = ok
			}
			// In-page skipping at a random threshold (1: every gap of filtered rows), against
			// an unpruned scan that decodes whole pages (threshold -1).
			threshold := []int{1, 2, 20}[rng.Intn(3)]
			rounds, pruned, ps := runRounds(t, file, Options{Where: where, BatchRows: 1000, LateMaterializationThreshold: threshold})
			if got := ps.Report().RowsReturned; got != want {
				t.Fatalf("%s WHERE %s: %d rows, brute force %d", f, where, got, want)
			}
			// No byte is fetched twice: every surviving chunk is read once.
			if seen, total := fetchedSet(rounds); httprange.Total(seen) != total {
				t.Fatalf("%s WHERE %s: %d bytes fetched for %d distinct", f, where, total, httprange.Total(seen))
			}
			// The same predicate as a count: row groups and pages the statistics decide are
			// counted from metadata, the rest read; the same number as the brute force.
			_, counted, cs := runRounds(t, file, Options{Where: where, Count: true})
			if c := countOf(t, counted); c != want {
				t.Fatalf("%s WHERE %s: count %d, brute force %d", f, where, c, want)
			}
			fromMeta += cs.Report().RowsCountedFromMetadata
			mmCases += checkMinMax(t, file, where, &usable[rng.Intn(len(usable))], base)
			full, _, err := drive(t, file, Options{Where: where, BatchRows: 1000, NoPrune: true, LateMaterializationThreshold: -1})
			require.NoError(t, err)
			all := concatBatches(t, full)
			if !bytes.Equal(concatBatches(t, pruned), all) {
				t.Fatalf("%s WHERE %s: pruned and unpruned scans return different rows", f, where)
			}
			// The same filter with an offset and a limit: the rows of the full result from
			// offset on, read in limit probes (a tiny round-trip cost makes them cut row
			// groups at many page boundaries).
			off, lim := int64(rng.Intn(20)), int64(1+rng.Intn(60))
			rtb := int64(1 + rng.Intn(8192))
			limited, _, err := drive(t, file, Options{Where: where, BatchRows: 1000, Offset: off, Limit: lim, RoundTripBytes: rtb})
			require.NoError(t, err, f, where)
			lines := bytes.SplitAfter(all, []byte("\n"))
			if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
				lines = lines[:len(lines)-1]
			}
			lo, hi := min(off, int64(len(lines))), min(off+lim, int64(len(lines)))
			if got := concatBatches(t, limited); !bytes.Equal(got, bytes.Join(lines[lo:hi], nil)) {
				t.Fatalf("%s WHERE %s OFFSET %d LIMIT %d (round trip %d B): rows differ from the full result's", f, where, off, lim, rtb)
			}
			// The row index: the predicate joined with a range of positions (a slice as a
			// predicate); the emitted positions are the brute force's, also under a limit.
			a := int64(rng.Intn(n))
			b := a + int64(rng.Intn(n/3+1))
			rjoin := []string{" AND ", " OR "}[rng.Intn(2)]
			rwhere := fmt.Sprintf("(%s)%s__ri BETWEEN %d AND %d", where, rjoin, a, b)
			var wantPos []int64
			for i := 0; i < n; i++ {
				in := int64(i) >= a && int64(i) <= b
				if rjoin == " AND " && base[i] && in || rjoin == " OR " && (base[i] || in) {
					wantPos = append(wantPos, int64(i))
				}
			}
			for _, lim := range []int64{0, 1 + int64(rng.Intn(40))} {
				_, ristreams, _ := runRounds(t, file, Options{Where: rwhere, RowIndex: "__ri", Columns: []string{"__ri"}, Limit: lim, RoundTripBytes: rtb})
				var gotPos []int64
				forEachRecord(t, ristreams, func(rec arrow.RecordBatch) {
					gotPos = append(gotPos, rec.Column(0).(*array.Int64).Int64Values()...)
				})
				exp := wantPos
				if lim > 0 {
					exp = wantPos[:min(int64(len(wantPos)), lim)]
				}
				if !slices.Equal(gotPos, exp) {
					t.Fatalf("%s WHERE %s LIMIT %d: row index %v, brute force %v", f, rwhere, lim, gotPos, exp)
				}
				riRows += int64(len(gotPos))
			}
			// ORDER BY a random column, with a random offset and limit (or none): the
			// brute force's rows in its order (topk_test.go).
			tkn, tks := checkTopK(t, rng, f, file, where, &usable[rng.Intn(len(usable))], base, lines)
			tkRows += tkn
			tkSkipped += tks
			cases++
			if want > 0 {
				nonEmpty++
			}
		}
	}
	t.Logf("%d predicates, %d with matches, %d rows counted from metadata, %d row index values, %d sorted rows, %d top-k units skipped, %d min/max",
		cases, nonEmpty, fromMeta, riRows, tkRows, tkSkipped, mmCases)
	require.True(t, cases > 200 && nonEmpty > 50 && fromMeta > 10000 && riRows > 10000 && tkRows > 10000 && tkSkipped > 100 && mmCases > 150,
		"too few meaningful cases", cases, nonEmpty, fromMeta, riRows, tkRows, tkSkipped, mmCases)
}

// checkMinMax compares Options.MinMax of c over the rows where selects with a brute-force
// min and max (nulls ignored, NaN above every float). It returns 1 when it checked, 0 for a
// column type min/max refuses (FLOAT16).
func checkMinMax(t *testing.T, file []byte, where string, c *column, sel []bool) int {
	t.Helper()
	var lo, hi any
	nan := false
	for i, v := range c.vals {
		if !sel[i] || v == nil {
			continue
		}
		if x, ok := v.(float64); ok && math.IsNaN(x) {
			nan = true
			continue
		}
		if lo == nil || holds(v, "<", lo) {
			lo = v
		}
		if hi == nil || holds(v, ">", hi) {
			hi = v
		}
	}
	if nan {
		hi = math.NaN()
		if lo == nil {
			lo = math.NaN()
		}
	}
	streams, _, err := drive(t, file, Options{Where: where, MinMax: c.name})
	if errors.Is(err, ErrOptions) && c.typ.ID() == arrow.FLOAT16 {
		return 0
	}
	require.NoError(t, err, c.name, where)
	var got []any
	forEachRecord(t, streams, func(rec arrow.RecordBatch) {
		got = append(goValues(rec.Column(0)), goValues(rec.Column(1))...)
	})
	same := func(a, b any) bool {
		x, xf := a.(float64)
		y, yf := b.(float64)
		if xf && yf && math.IsNaN(x) && math.IsNaN(y) {
			return true
		}
		return a == b || a != nil && b != nil && holds(a, "=", b)
	}
	if len(got) != 2 || !same(got[0], lo) || !same(got[1], hi) {
		t.Fatalf("min/max of %s WHERE %s: %v, brute force [%v %v]", c.name, where, got, lo, hi)
	}
	return 1
}

// concatBatches renders every row of the streams as text, so batch boundaries do not matter.
func concatBatches(t *testing.T, streams [][]byte) []byte {
	var buf bytes.Buffer
	forEachRecord(t, streams, func(rec arrow.RecordBatch) {
		for i := 0; i < int(rec.NumRows()); i++ {
			for j := 0; j < int(rec.NumCols()); j++ {
				fmt.Fprintf(&buf, "%v|", rec.Column(j).ValueStr(i))
			}
			buf.WriteByte('\n')
		}
	})
	return buf.Bytes()
}
