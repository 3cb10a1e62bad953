package conformance

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"path"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/rowfmt"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// hyparquetSkip lists the hyparquet files whose expected JSON uses conventions this test cannot
// reproduce from Arrow values, with the reason. Every other file must match.
var hyparquetSkip = map[string]string{
	// GeoParquet / GEOMETRY / GEOGRAPHY columns are expected as GeoJSON objects decoded from
	// WKB; pqscan returns the WKB bytes, and a WKB → GeoJSON converter is out of scope here.
	"geoparquet": "GeoJSON geometry objects decoded from WKB",
	"geospatial": "GeoJSON geometry objects decoded from WKB",
	// VARIANT columns: pqscan returns the canonical unshredded variant; internal/variant's
	// Test_hyparquetShredded compares its JSON with these files' (hyparquet renders dates and
	// timestamps as ISO strings, and lists shredded keys first).
	"shredded-array":            "VARIANT values: internal/variant's Test_hyparquetShredded",
	"shredded-bool":             "VARIANT values: internal/variant's Test_hyparquetShredded",
	"shredded-int":              "VARIANT values: internal/variant's Test_hyparquetShredded",
	"shredded-nested-object":    "VARIANT values: internal/variant's Test_hyparquetShredded",
	"shredded-object":           "VARIANT values: internal/variant's Test_hyparquetShredded",
	"shredded-partial-object":   "VARIANT values: internal/variant's Test_hyparquetShredded",
	"shredded-sparse-timestamp": "VARIANT values: internal/variant's Test_hyparquetShredded",
	"shredded-type-mismatch":    "VARIANT values: internal/variant's Test_hyparquetShredded",
}

// hyparquetDuplicates are the parquet-testing files byte-identical to hyparquet files (corpus
// README, "Duplicates"): hyparquet's JSON gives their expected rows too.
var hyparquetDuplicates = []string{
	"byte_array_decimal", "byte_stream_split.zstd", "byte_stream_split_extended.gzip",
	"concatenated_gzip_members", "datapage_v2.snappy", "delta_binary_packed", "delta_byte_array",
	"delta_encoding_optional_column", "delta_encoding_required_column", "delta_length_byte_array",
	"fixed_length_decimal", "float16_nonzeros_and_nans", "hadoop_lz4_compressed",
	"incorrect_map_schema", "lz4_raw_compressed", "nested_structs.rust", "nonnullable.impala",
	"nullable.impala", "plain-dict-uncompressed-checksum", "repeated_no_annotation",
	"rle_boolean_encoding",
}

// hyparquetEmptyRepeatedAsNull lists files where hyparquet writes null for a bare repeated
// primitive column (no LIST annotation) with zero repetitions. The Parquet spec
// (LogicalTypes.md, backward-compatibility rules for lists) reads such a field as a required
// list, so zero repetitions is an empty list, which is what pqscan (and arrow-go) return; only
// that difference is tolerated for these files.
var hyparquetEmptyRepeatedAsNull = map[string]bool{"duckdb2557": true}

const corpusTimeout = 60 * time.Second

func TestCorpusHyparquet(t *testing.T) {
	type job struct{ parquet, json string }
	var jobs []job
	for _, p := range testcorpus.Files(t, ".parquet") {
		if strings.HasPrefix(p, "hyparquet/") {
			jobs = append(jobs, job{p, strings.TrimSuffix(p, ".parquet") + ".json"})
		}
	}
	for _, name := range hyparquetDuplicates {
		pt := "parquet-testing/data/" + name + ".parquet"
		if !bytes.Equal(testcorpus.Read(t, pt), testcorpus.Read(t, "hyparquet/"+name+".parquet")) {
			t.Errorf("%s is not byte-identical to hyparquet/%s.parquet", pt, name)
			continue
		}
		jobs = append(jobs, job{pt, "hyparquet/" + name + ".json"})
	}
	var passed, skipped int
	var failed []string
	for _, j := range jobs {
		name := strings.TrimSuffix(path.Base(j.parquet), ".parquet")
		t.Run(j.parquet, func(t *testing.T) {
			if why, ok := hyparquetSkip[name]; ok {
				skipped++
				t.Skip(why)
			}
			msg := checkHyparquet(t, j.parquet, j.json, hyparquetEmptyRepeatedAsNull[name])
			if msg != "" {
				failed = append(failed, j.parquet+": "+msg)
				t.Error(msg)
				return
			}
			passed++
		})
	}
	t.Logf("hyparquet JSON oracle: %d files, %d passed, %d failed, %d skipped", len(jobs), passed, len(failed), skipped)
	for _, f := range failed {
		t.Logf("FAIL %s", f)
	}
}

// checkHyparquet scans one file and compares it with the expected JSON; it returns "" or a
// description of the first difference.
func checkHyparquet(t *testing.T, parquetPath, jsonPath string, emptyAsNull bool) string {
	var want []any
	if err := json.Unmarshal(testcorpus.Read(t, jsonPath), &want); err != nil {
		t.Fatalf("%s: %v", jsonPath, err)
	}
	res, err := scanBytes(testcorpus.Read(t, parquetPath), pqscan.Options{}, pqscan.ScanOptions{}, corpusTimeout)
	if err != nil {
		return "scan error: " + err.Error()
	}
	if res.rows != int64(len(want)) {
		return fmt.Sprintf("got %d rows, want %d", res.rows, len(want))
	}
	fields := res.schema.Fields()
	for i := range want {
		wrow, ok := want[i].([]any)
		if !ok || len(wrow) != len(fields) {
			return fmt.Sprintf("row %d: expected row has %d entries, the schema %d fields", i, len(wrow), len(fields))
		}
		rec, k := res.rowAt(int64(i))
		for c, f := range fields {
			got := hyValue(f, rec.Column(c), k)
			if l, ok := got.([]any); ok && len(l) == 0 && wrow[c] == nil && emptyAsNull {
				got = nil
			}
			if d := diffJSON(wrow[c], got, f.Name); d != "" {
				return fmt.Sprintf("row %d column %q: %s", i, f.Name, d)
			}
		}
	}
	return ""
}

// hyValue converts value i of arr to what hyparquet's parquetRead + toJson + JSON.parse gives
// (corpus README, "hyparquet: expected JSON").
func hyValue(f arrow.Field, arr arrow.Array, i int) any {
	if arr.IsNull(i) {
		return nil
	}
	switch extName(f) {
	case "arrow.uuid":
		return string(bytes.Trim(rowfmt.AppendJSON(nil, f, arr, i), `"`))
	case "arrow.json":
		var v any
		s, _ := rowfmt.Text(f, arr, i)
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			return "invalid JSON: " + s
		}
		return v
	}
	if ext, ok := arr.(array.ExtensionArray); ok {
		st := ext.Storage()
		return hyValue(arrow.Field{Name: f.Name, Type: st.DataType()}, st, i)
	}
	switch a := arr.(type) {
	case *array.Null:
		return nil
	case *array.Boolean:
		return a.Value(i)
	case *array.Int8:
		return float64(a.Value(i))
	case *array.Int16:
		return float64(a.Value(i))
	case *array.Int32:
		return float64(a.Value(i))
	case *array.Int64:
		return float64(a.Value(i))
	case *array.Uint8:
		return float64(a.Value(i))
	case *array.Uint16:
		return float64(a.Value(i))
	case *array.Uint32:
		return float64(a.Value(i))
	case *array.Uint64:
		return float64(a.Value(i))
	case *array.Float16:
		return jsNumber(float64(a.Value(i).Float32()))
	case *array.Float32:
		return jsNumber(float64(a.Value(i)))
	case *array.Float64:
		return jsNumber(a.Value(i))
	case *array.String:
		return a.Value(i)
	case *array.LargeString:
		return a.Value(i)
	case *array.Binary:
		return utf8Lossy(a.Value(i))
	case *array.LargeBinary:
		return utf8Lossy(a.Value(i))
	case *array.FixedSizeBinary:
		b := a.Value(i)
		out := make([]any, len(b))
		for k, x := range b {
			out[k] = float64(x)
		}
		return out
	case *array.Date32:
		return jsDate(int64(a.Value(i)) * 86400000)
	case *array.Timestamp:
		v := int64(a.Value(i))
		switch a.DataType().(*arrow.TimestampType).Unit {
		case arrow.Second:
			v *= 1000
		case arrow.Microsecond:
			v /= 1000 // BigInt division truncates toward zero, as Go's does
		case arrow.Nanosecond:
			v /= 1000000
		}
		return jsDate(v)
	case *array.Time32:
		return float64(a.Value(i))
	case *array.Time64:
		return float64(a.Value(i))
	case *array.Decimal128:
		return decimalFloat(a.Value(i).BigInt(), a.DataType().(*arrow.Decimal128Type).Scale)
	case *array.Decimal256:
		return decimalFloat(a.Value(i).BigInt(), a.DataType().(*arrow.Decimal256Type).Scale)
	case *array.Dictionary:
		vt := a.DataType().(*arrow.DictionaryType).ValueType
		return hyValue(arrow.Field{Name: f.Name, Type: vt, Metadata: f.Metadata}, a.Dictionary(), a.GetValueIndex(i))
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		m := make(map[string]any, a.NumField())
		for k := 0; k < a.NumField(); k++ {
			m[st.Field(k).Name] = hyValue(st.Field(k), a.Field(k), i)
		}
		return m
	case *array.Map:
		mt := a.DataType().(*arrow.MapType)
		start, end := a.ValueOffsets(i)
		m := make(map[string]any, end-start)
		for j := start; j < end; j++ {
			m[jsKey(hyValue(mt.KeyField(), a.Keys(), int(j)))] = hyValue(mt.ItemField(), a.Items(), int(j))
		}
		return m
	case array.ListLike:
		ef := a.DataType().(arrow.ListLikeType).ElemField()
		start, end := a.ValueOffsets(i)
		out := make([]any, 0, end-start)
		for j := start; j < end; j++ {
			out = append(out, hyValue(ef, a.ListValues(), int(j)))
		}
		return out
	}
	return fmt.Sprintf("unsupported Arrow type %s", arr.DataType())
}

// extName is the Arrow extension name of a field, registered or in its metadata.
func extName(f arrow.Field) string {
	if et, ok := f.Type.(arrow.ExtensionType); ok {
		return et.ExtensionName()
	}
	v, _ := f.Metadata.GetValue("ARROW:extension:name")
	return v
}

// jsNumber applies JSON.stringify's rules: NaN and ±Infinity become null, -0 becomes 0.
func jsNumber(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	if v == 0 {
		return 0.0
	}
	return v
}

// utf8Lossy decodes bytes as TextDecoder does for well-formed input; invalid bytes become
// U+FFFD.
func utf8Lossy(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// decimalFloat is hyparquet's Number(unscaled) * 10 ** -scale.
func decimalFloat(unscaled *big.Int, scale int32) float64 {
	f, _ := new(big.Float).SetInt(unscaled).Float64()
	return f * math.Pow(10, -float64(scale))
}

// jsDate is Date.prototype.toJSON of new Date(ms): ISO 8601 with milliseconds, extended
// six-digit years outside 0000–9999, and null for an invalid Date (beyond ±8.64e15 ms).
func jsDate(ms int64) any {
	if ms > 8.64e15 || ms < -8.64e15 {
		return nil
	}
	t := time.UnixMilli(ms).UTC()
	rest := t.Format("-01-02T15:04:05.000Z")
	switch y := t.Year(); {
	case y >= 0 && y <= 9999:
		return fmt.Sprintf("%04d%s", y, rest)
	case y < 0:
		return fmt.Sprintf("-%06d%s", -y, rest)
	default:
		return fmt.Sprintf("+%06d%s", y, rest)
	}
}

// jsKey is String(key) for an object key.
func jsKey(v any) string {
	switch k := v.(type) {
	case string:
		return k
	case float64:
		return strconv.FormatFloat(k, 'g', -1, 64)
	case nil:
		return "null"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// diffJSON compares an expected JSON value with a converted one; a key missing from an object
// equals null (hyparquet leaves out null nested groups). It returns "" when equal.
func diffJSON(want, got any, at string) string {
	switch w := want.(type) {
	case nil:
		if got != nil {
			return fmt.Sprintf("%s: want null, got %s", at, short(got))
		}
		return ""
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: want object %s, got %s", at, short(want), short(got))
		}
		keys := map[string]bool{}
		for k := range w {
			keys[k] = true
		}
		for k := range g {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			if d := diffJSON(w[k], g[k], at+"."+k); d != "" {
				return d
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Sprintf("%s: want %s, got %s", at, short(want), short(got))
		}
		for k := range w {
			if d := diffJSON(w[k], g[k], fmt.Sprintf("%s[%d]", at, k)); d != "" {
				return d
			}
		}
		return ""
	}
	if want != got {
		return fmt.Sprintf("%s: want %s, got %s", at, short(want), short(got))
	}
	return ""
}

// short renders a value for a failure message, cut to a readable length.
func short(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte(fmt.Sprintf("%#v", v))
	}
	s := fmt.Sprintf("%T %s", v, b)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// TestCorpusBlogs compares arrow-testing's blogs.parquet with blogs.json, whose int64 values are
// exact (compared as integers, not float64) and whose null fields are left out.
func TestCorpusBlogs(t *testing.T) {
	dec := json.NewDecoder(bytes.NewReader(testcorpus.Read(t, "arrow-testing/parquet/generated_simple_numerics/blogs.json")))
	dec.UseNumber()
	var want []any
	if err := dec.Decode(&want); err != nil {
		t.Fatal(err)
	}
	res, err := scanBytes(testcorpus.Read(t, "arrow-testing/parquet/generated_simple_numerics/blogs.parquet"), pqscan.Options{}, pqscan.ScanOptions{}, corpusTimeout)
	if err != nil {
		t.Fatal(err)
	}
	if res.rows != int64(len(want)) {
		t.Fatalf("got %d rows, want %d", res.rows, len(want))
	}
	for i := range want {
		rec, k := res.rowAt(int64(i))
		row := []byte{'{'}
		for c, f := range res.schema.Fields() {
			if c > 0 {
				row = append(row, ',')
			}
			row = append(row, strconv.Quote(f.Name)...)
			row = append(row, ':')
			row = rowfmt.AppendJSON(row, f, rec.Column(c), k)
		}
		row = append(row, '}')
		d := json.NewDecoder(bytes.NewReader(row))
		d.UseNumber()
		var got any
		if err := d.Decode(&got); err != nil {
			t.Fatalf("row %d: our JSON %s: %v", i, row, err)
		}
		if diff := diffJSON(numbersExact(want[i]), numbersExact(dropNulls(got)), "row"); diff != "" {
			t.Fatalf("row %d: %s", i, diff)
		}
	}
}

// dropNulls removes null members of objects (blogs.json leaves absent fields out).
func dropNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
			} else {
				x[k] = dropNulls(e)
			}
		}
	case []any:
		for k := range x {
			x[k] = dropNulls(x[k])
		}
	}
	return v
}

// numbersExact turns json.Numbers into int64 when they are integers (exact) or float64.
func numbersExact(v any) any {
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = numbersExact(e)
		}
	case []any:
		for k := range x {
			x[k] = numbersExact(x[k])
		}
	}
	return v
}

// TestCorpusExpectCSV compares the parquet-testing files that ship a *_expect.csv with it:
// every cell as text (rowfmt.Text), nulls as empty cells.
func TestCorpusExpectCSV(t *testing.T) {
	for _, csvPath := range testcorpus.Files(t, "_expect.csv") {
		t.Run(csvPath, func(t *testing.T) {
			recs, err := csv.NewReader(bytes.NewReader(testcorpus.Read(t, csvPath))).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			res, err := scanBytes(testcorpus.Read(t, strings.TrimSuffix(csvPath, "_expect.csv")+".parquet"), pqscan.Options{}, pqscan.ScanOptions{}, corpusTimeout)
			if err != nil {
				t.Fatal(err)
			}
			header, rows := recs[0], recs[1:]
			fields := res.schema.Fields()
			if len(header) != len(fields) {
				t.Fatalf("CSV has %d columns, the scan %d", len(header), len(fields))
			}
			for c, f := range fields {
				// The CSV headers carry stray spaces (" c_customer_id") and the Parquet
				// names of delta_encoding_required_column a trailing colon ("c_customer_sk:").
				if strings.Trim(header[c], " :") != strings.Trim(f.Name, " :") {
					t.Fatalf("column %d: CSV %q, scan %q", c, header[c], f.Name)
				}
			}
			if res.rows != int64(len(rows)) {
				t.Fatalf("got %d rows, want %d", res.rows, len(rows))
			}
			for i, row := range rows {
				rec, k := res.rowAt(int64(i))
				for c, f := range fields {
					got, _ := rowfmt.Text(f, rec.Column(c), k)
					if got != row[c] {
						t.Fatalf("row %d column %q: want %q, got %q", i, f.Name, row[c], got)
					}
				}
			}
		})
	}
}
