package conformance

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/rowfmt"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// arrowGoSkip are valid files not compared with arrow-go, with the reason (the broken files
// of parquet-testing/data are in mustFailInData).
var arrowGoSkip = map[string]string{
	"parquet-testing/data/old_list_structure.parquet": "arrow-go ignores the LIST annotation of the repeated element group " +
		"and reads list<struct<list<int32>>>; pqscan follows the spec (list<list<int32>>, [[1, 2], [3, 4]] per " +
		"old_list_structure.md), checked by scan's Test_oldListStructure",
}

// differentialFiles are the valid Parquet files of the corpus: parquet-testing/data (with the
// geospatial folder), hyparquet, and the valid arrow-testing files.
func differentialFiles(t *testing.T) []string {
	var out []string
	for _, p := range testcorpus.Files(t, ".parquet") {
		switch {
		case strings.HasPrefix(p, "parquet-testing/data/"), strings.HasPrefix(p, "hyparquet/"),
			strings.HasPrefix(p, "arrow-testing/parquet/") && !strings.Contains(p, "/fuzzing/"):
			out = append(out, p)
		}
	}
	return out
}

func TestCorpusArrowGo(t *testing.T) {
	var passed, failedN, skipped int
	var failed, oracleFailed []string
	for _, p := range differentialFiles(t) {
		t.Run(p, func(t *testing.T) {
			if why, ok := mustFailInData[p]; ok {
				skipped++
				t.Skipf("deliberately broken (%s): checked by TestCorpusBad", why)
			}
			if why, ok := arrowGoSkip[p]; ok {
				skipped++
				t.Skip(why)
			}
			data := testcorpus.Read(t, p)
			tbl, err := readArrowGo(data)
			if err != nil {
				skipped++
				oracleFailed = append(oracleFailed, p+": "+firstLine(err))
				t.Skipf("arrow-go cannot read it: %v", firstLine(err))
			}
			defer tbl.Release()
			msg := compareWithArrowGo(data, tbl)
			if msg != "" {
				failedN++
				failed = append(failed, p+": "+msg)
				t.Error(msg)
				return
			}
			passed++
		})
	}
	t.Logf("arrow-go differential: %d passed, %d failed, %d skipped", passed, failedN, skipped)
	for _, f := range failed {
		t.Logf("FAIL %s", f)
	}
	for _, f := range oracleFailed {
		t.Logf("arrow-go could not read %s", f)
	}
}

// readArrowGo reads a whole file with arrow-go's pqarrow; panics become errors.
func readArrowGo(data []byte) (tbl arrow.Table, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("arrow-go panicked: %v\n%s", r, debug.Stack())
		}
	}()
	rdr, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	defer rdr.Close()
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{BatchSize: 1 << 14}, memory.DefaultAllocator)
	if err != nil {
		return nil, err
	}
	return fr.ReadTable(context.Background())
}

// compareWithArrowGo scans data with pqscan and compares every value with arrow-go's table
// through canon; it returns "" or the first difference.
func compareWithArrowGo(data []byte, tbl arrow.Table) string {
	res, err := scanBytes(data, pqscan.Options{}, pqscan.ScanOptions{}, corpusTimeout)
	if err != nil {
		return "pqscan error: " + firstLine(err)
	}
	ours := res.schema.Fields()
	theirs := tbl.Schema().Fields()
	if len(ours) != len(theirs) {
		return fmt.Sprintf("pqscan has %d columns %v, arrow-go %d %v", len(ours), names(ours), len(theirs), names(theirs))
	}
	if res.rows != tbl.NumRows() {
		return fmt.Sprintf("pqscan returned %d rows, arrow-go %d", res.rows, tbl.NumRows())
	}
	for c := range ours {
		if ours[c].Name != theirs[c].Name {
			return fmt.Sprintf("column %d: pqscan %q, arrow-go %q", c, ours[c].Name, theirs[c].Name)
		}
		unit := commonUnit(ours[c].Type, theirs[c].Type)
		var want []any
		for _, chunk := range tbl.Column(c).Data().Chunks() {
			for i := 0; i < chunk.Len(); i++ {
				want = append(want, canon(chunk, i, unit))
			}
		}
		row := 0
		for _, rec := range res.recs {
			col := rec.Column(c)
			for i := 0; i < col.Len(); i++ {
				got := canon(col, i, unit)
				if d := diffJSON(want[row], got, ours[c].Name); d != "" {
					return fmt.Sprintf("row %d column %q (pqscan %s, arrow-go %s): %s", row, ours[c].Name, ours[c].Type, theirs[c].Type, d)
				}
				row++
			}
		}
	}
	return ""
}

func names(fs []arrow.Field) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name
	}
	return out
}

// commonUnit is the timestamp unit both sides are compared at: pqscan returns INT96 as
// timestamp[us] (nanoseconds overflow past 2262) while arrow-go returns timestamp[ns], so such
// columns are compared at microseconds. -1 means compare at each side's own unit.
func commonUnit(a, b arrow.DataType) arrow.TimeUnit {
	ta, ok1 := a.(*arrow.TimestampType)
	tb, ok2 := b.(*arrow.TimestampType)
	if ok1 && ok2 && ta.Unit != tb.Unit {
		return min(ta.Unit, tb.Unit)
	}
	return -1
}

// canon is a type-insensitive rendering of value i for the differential comparison: integers
// of any width as their digits, strings and binaries as their bytes, timestamps as instants,
// decimals exactly, dictionaries as their values, extension types as their storage. Type
// differences that do not change the value (int32 vs uint32 of a positive number, string vs
// large string, a dictionary) disappear; different values do not.
func canon(arr arrow.Array, i int, unit arrow.TimeUnit) any {
	if arr.IsNull(i) {
		return nil
	}
	switch a := arr.(type) {
	case *extensions.VariantArray:
		// Either side may hold it shredded (arrow-go keeps the file's layout, pqscan
		// unshreds): the values compare.
		v, err := a.Value(i)
		if err != nil {
			return "variant error: " + err.Error()
		}
		return "variant:" + variantString(v)
	case array.ExtensionArray:
		return canon(a.Storage(), i, unit)
	case *array.Null:
		return nil
	case *array.Boolean:
		return a.Value(i)
	case *array.Float16:
		return canonFloat(float64(a.Value(i).Float32()))
	case *array.Float32:
		return canonFloat(float64(a.Value(i)))
	case *array.Float64:
		return canonFloat(a.Value(i))
	case *array.String:
		return "s:" + a.Value(i)
	case *array.LargeString:
		return "s:" + a.Value(i)
	case *array.StringView:
		return "s:" + a.Value(i)
	case *array.Binary:
		return "s:" + string(a.Value(i))
	case *array.LargeBinary:
		return "s:" + string(a.Value(i))
	case *array.BinaryView:
		return "s:" + string(a.Value(i))
	case *array.FixedSizeBinary:
		return "s:" + string(a.Value(i))
	case *array.Timestamp:
		v := int64(a.Value(i))
		u := a.DataType().(*arrow.TimestampType).Unit
		if unit >= 0 {
			for ; u > unit; u-- {
				v = floorDiv(v, 1000)
			}
		}
		digits := [...]int{0, 3, 6, 9}[u]
		per := int64(math.Pow10(digits))
		sec, frac := floorDiv(v, per), v-floorDiv(v, per)*per
		return fmt.Sprintf("t:%s.%0*d", time.Unix(sec, 0).UTC().Format("2006-01-02T15:04:05"), digits, frac)
	case *array.Time32:
		return "T:" + strconv.FormatInt(int64(a.Value(i))*unitNanos(a.DataType().(*arrow.Time32Type).Unit), 10)
	case *array.Time64:
		return "T:" + strconv.FormatInt(int64(a.Value(i))*unitNanos(a.DataType().(*arrow.Time64Type).Unit), 10)
	case *array.Decimal32, *array.Decimal64, *array.Decimal128, *array.Decimal256:
		return "D:" + string(rowfmt.AppendJSON(nil, arrow.Field{Type: arr.DataType()}, arr, i))
	case *array.Dictionary:
		return canon(a.Dictionary(), a.GetValueIndex(i), unit)
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		m := make(map[string]any, a.NumField())
		for k := 0; k < a.NumField(); k++ {
			m[st.Field(k).Name] = canon(a.Field(k), i, unit)
		}
		return m
	case *array.Map:
		start, end := a.ValueOffsets(i)
		out := make([]any, 0, end-start)
		for j := start; j < end; j++ {
			out = append(out, []any{canon(a.Keys(), int(j), unit), canon(a.Items(), int(j), unit)})
		}
		return out
	case array.ListLike:
		start, end := a.ValueOffsets(i)
		out := make([]any, 0, end-start)
		for j := start; j < end; j++ {
			out = append(out, canon(a.ListValues(), int(j), unit))
		}
		return out
	}
	// Integers of every width, dates, durations and intervals: their JSON text is exact.
	return "n:" + string(rowfmt.AppendJSON(nil, arrow.Field{Type: arr.DataType()}, arr, i))
}

func canonFloat(v float64) any {
	if math.IsNaN(v) {
		return "NaN"
	}
	if math.IsInf(v, 0) {
		return fmt.Sprint(v)
	}
	return v
}

func unitNanos(u arrow.TimeUnit) int64 {
	return [...]int64{1e9, 1e6, 1e3, 1}[u]
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
