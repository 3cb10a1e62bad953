package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// whereDraws is the predicates drawn per file; PQSCAN_WHERE_DRAWS and PQSCAN_WHERE_SALT widen
// the search beyond the suite's fixed draws.
var whereDraws, whereSalt = envInt("PQSCAN_WHERE_DRAWS", 8), uint64(envInt("PQSCAN_WHERE_SALT", 7))

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// Test_whereDuckDB is a randomized differential test of WHERE over the whole corpus: for every
// file both engines read, predicates are drawn from the file's own values (so that they land on
// row group, page and dictionary boundaries, nulls and extremes), and pqscan's count and scan
// with each predicate must equal DuckDB's count(*) with the same predicate. Every level of
// skipping (statistics, page index, dictionaries, Bloom filters, counts from metadata) is on,
// so a level that skips a matching row, or an evaluator that disagrees with SQL's semantics,
// shows as a different count. The draws are seeded by the file's path: a failure reproduces.
//
// The literals are written for each engine in its own syntax where they differ (a zoned
// timestamp); floats are written with an exponent, which both read as a double.
func Test_whereDuckDB(t *testing.T) {
	root := testcorpus.Dir(t)
	var files []string
	for _, p := range testcorpus.Files(t, ".parquet") {
		_, skip := duckFileSkips[p]
		_, refused := duckRefuses[p] // DuckDB refuses them, or misreads them (ARROW-17100)
		if !skip && !refused && !strings.Contains(p, "bad_data") && !strings.Contains(p, "fuzz") {
			files = append(files, p)
		}
	}
	if compared := whereDuckDB(t, root, files, whereDraws, duckDeviations); compared < 500 {
		t.Errorf("only %d predicates compared", compared)
	}
}

// whereDuckDB draws `draws` predicates over each file (relative to root) from its own
// values, counts each with DuckDB (duckdb/count.mjs) and with pqscan (Count and Scan), reports
// every disagreement and returns the number of predicates compared. dev lists, by file, the
// columns DuckDB misreads, which no predicate uses.
func whereDuckDB(t *testing.T, root string, paths []string, draws int, dev map[string][]duckDeviation) int {
	node := testcorpus.DuckNode(t)
	type tcase struct{ file, pq, duck string }
	var cases []tcase
	files := 0
	for _, p := range paths {
		data, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		res, err := scanBytes(data, pqscan.Options{}, pqscan.ScanOptions{}, 20*time.Second)
		if err != nil || res.rows == 0 || res.rows > 200_000 {
			continue
		}
		cols := whereColumns(p, res, dev[p])
		if len(cols) == 0 {
			continue
		}
		h := fnv.New64a()
		h.Write([]byte(p))
		rng := rand.New(rand.NewPCG(h.Sum64(), whereSalt))
		files++
		for range draws {
			pq, duck := randomWhere(rng, res, cols, 0)
			if pq != "" {
				cases = append(cases, tcase{p, pq, duck})
			}
		}
	}
	// One count.mjs run per batch of about 64 KB of arguments (the OS bounds a command line).
	var out []byte
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for i := 0; i < len(cases); {
		args, size := []string{testcorpus.DuckScript("count.mjs"), root}, 0
		for ; i < len(cases) && size < 64<<10; i++ {
			args = append(args, cases[i].file, cases[i].duck)
			size += len(cases[i].file) + len(cases[i].duck)
		}
		b, err := exec.CommandContext(ctx, node, args...).Output()
		if err != nil {
			t.Fatalf("count.mjs: %v", err)
		}
		out = append(out, b...)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	var compared, duckErrors int
	var bad []string
	for _, c := range cases {
		if !sc.Scan() {
			t.Fatal("DuckDB gave fewer answers than cases")
		}
		var r struct{ Count, Error string }
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.Error != "" {
			duckErrors++
			t.Logf("DuckDB refused %s WHERE %s: %s", c.file, c.duck, firstLine(fmt.Errorf("%s", r.Error)))
			continue
		}
		want, _ := strconv.ParseInt(r.Count, 10, 64)
		got, scanned, err := pqCountBoth(filepath.Join(root, c.file), c.pq)
		compared++
		switch {
		case err != nil:
			bad = append(bad, fmt.Sprintf("%s WHERE %s: pqscan: %v (DuckDB: %d)", c.file, c.pq, firstLine(err), want))
		case got != want || scanned != want:
			bad = append(bad, fmt.Sprintf("%s WHERE %s: pqscan count %d, scan %d, DuckDB %d", c.file, c.pq, got, scanned, want))
		}
	}
	t.Logf("%d predicates over %d files compared with DuckDB (%d DuckDB refused)", compared, files, duckErrors)
	for _, b := range bad {
		t.Error(b)
	}
	return compared
}

// pqCountBoth is File.Count and the rows of File.Scan with where.
func pqCountBoth(path, where string) (count, scanned int64, err error) {
	ctx := context.Background()
	f, err := pqscan.Open(ctx, path, pqscan.Options{})
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	if count, _, err = f.Count(ctx, pqscan.ScanOptions{Where: where}); err != nil {
		return 0, 0, err
	}
	r, err := f.Scan(ctx, pqscan.ScanOptions{Where: where})
	if err != nil {
		return 0, 0, err
	}
	res, err := collect(r)
	if err != nil {
		return 0, 0, err
	}
	return count, res.rows, nil
}

// duckFilterWrong are columns DuckDB reads right but filters wrong (file.column: why). The
// rows are known by the file's notes, and pqscan's counts match them.
var duckFilterWrong = map[string]string{
	// Values 1.00 … 24.00 (DuckDB reads them so), yet DuckDB 1.5 answers `value < 2.00` with 0
	// rows and `value > 1.00` with 24: its filter on these FIXED_LEN_BYTE_ARRAY decimals
	// disagrees with its own values.
	"parquet-testing/data/fixed_length_decimal.parquet.value":        "DuckDB filters the FLBA decimal(25,2) wrong",
	"parquet-testing/data/fixed_length_decimal_legacy.parquet.value": "DuckDB filters the FLBA decimal(13,2) wrong",
	"hyparquet/fixed_length_decimal.parquet.value":                   "DuckDB filters the FLBA decimal(25,2) wrong",
}

// colRef is a column a predicate names: a top-level column, or a field of a struct column
// (path: the top-level index, then the field indexes), with its SQL name and type.
type colRef struct {
	path []int
	name string // quoted parts joined by '.'
	typ  arrow.DataType
}

// at is the leaf array of c in rec and whether row i is null there (a null struct above it
// makes it null, as SQL's field access does).
func (c colRef) at(rec arrow.RecordBatch, i int) (arrow.Array, bool) {
	a := rec.Column(c.path[0])
	for _, j := range c.path[1:] {
		if a.IsNull(i) {
			return a, true
		}
		a = a.(*array.Struct).Field(j)
	}
	return a, a.IsNull(i)
}

// leaf is the leaf array of c in rec (its values under a null struct are unspecified).
func (c colRef) leaf(rec arrow.RecordBatch) arrow.Array {
	a := rec.Column(c.path[0])
	for _, j := range c.path[1:] {
		a = a.(*array.Struct).Field(j)
	}
	return a
}

// whereColumns are the columns a predicate can name in both engines (top-level columns and
// the fields of struct columns, two levels deep) and that compare the same way in both: not a
// column DuckDB is known to misread (dev), and not a float column holding a NaN, which pqscan
// compares as IEEE 754 does (NaN matches no comparison but !=; internal/prune's Filter) and
// DuckDB as the greatest value, equal to itself.
func whereColumns(file string, res *scanResult, dev []duckDeviation) []colRef {
	var out []colRef
	seen := map[string]bool{}
	misread := map[string]bool{}
	for _, d := range dev {
		misread[d.column] = true
	}
	quote := func(n string) string { return `"` + strings.ReplaceAll(n, `"`, `""`) + `"` }
	var walk func(path []int, name string, f arrow.Field, depth int)
	walk = func(path []int, name string, f arrow.Field, depth int) {
		c := colRef{path: path, name: name, typ: f.Type}
		switch f.Type.(type) {
		case *arrow.StructType:
			if depth < 2 {
				for j, ff := range f.Type.(*arrow.StructType).Fields() {
					if ff.Name != "" && !strings.ContainsRune(ff.Name, 0) {
						walk(append(slices.Clone(path), j), name+"."+quote(ff.Name), ff, depth+1)
					}
				}
			}
		case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type,
			*arrow.Uint8Type, *arrow.Uint16Type, *arrow.Uint32Type, *arrow.Uint64Type,
			*arrow.Float32Type, *arrow.Float64Type, *arrow.BooleanType, *arrow.StringType,
			*arrow.LargeStringType, *arrow.Date32Type, *arrow.Decimal128Type, *arrow.TimestampType:
			if !hasNaN(res, c) {
				out = append(out, c)
			}
		}
	}
	for i, f := range res.schema.Fields() {
		low := strings.ToLower(f.Name)
		if seen[low] || f.Name == "" || strings.ContainsAny(f.Name, "\x00") {
			return nil // names DuckDB would not tell apart
		}
		seen[low] = true
		if misread[f.Name] || duckFilterWrong[file+"."+f.Name] != "" {
			continue
		}
		walk([]int{i}, quote(f.Name), f, 0)
	}
	return out
}

// randomWhere draws a predicate: one to three terms joined by AND or OR, sometimes negated.
// It returns the text for pqscan and for DuckDB ("" when no term could be drawn).
func randomWhere(rng *rand.Rand, res *scanResult, cols []colRef, depth int) (string, string) {
	n := 1 + rng.IntN(3)
	join := " AND "
	if rng.IntN(2) == 0 {
		join = " OR "
	}
	var pqs, ducks []string
	for range n {
		var pq, duck string
		if depth < 1 && rng.IntN(5) == 0 {
			pq, duck = randomWhere(rng, res, cols, depth+1)
			if pq != "" {
				pq, duck = "("+pq+")", "("+duck+")"
			}
		} else if c := cols[rng.IntN(len(cols))]; rng.IntN(8) == 0 {
			pq = columnsTerm(rng, c, cols)
			duck = pq
		} else {
			pq, duck = randomTerm(rng, res, c)
		}
		if pq == "" {
			continue
		}
		if rng.IntN(6) == 0 {
			pq, duck = "NOT ("+pq+")", "NOT ("+duck+")"
		}
		pqs, ducks = append(pqs, pq), append(ducks, duck)
	}
	return strings.Join(pqs, join), strings.Join(ducks, join)
}

// columnsTerm draws a comparison of column c with another column of its class (cmpKind),
// or "".
func columnsTerm(rng *rand.Rand, c colRef, cols []colRef) string {
	k := cmpKind(c.typ)
	var same []colRef
	for _, d := range cols {
		if k != "" && cmpKind(d.typ) == k {
			same = append(same, d)
		}
	}
	if len(same) == 0 {
		return ""
	}
	return c.name + " " + []string{"=", "!=", "<", "<=", ">", ">="}[rng.IntN(6)] + " " + same[rng.IntN(len(same))].name
}

// randomTerm draws one comparison on column c with values of random rows.
func randomTerm(rng *rand.Rand, res *scanResult, c colRef) (string, string) {
	name := c.name
	v, ok := randomLiteral(rng, res, c)
	if !ok || rng.IntN(10) == 0 {
		if rng.IntN(2) == 0 {
			return name + " IS NULL", name + " IS NULL"
		}
		return name + " IS NOT NULL", name + " IS NOT NULL"
	}
	if _, isBool := c.typ.(*arrow.BooleanType); isBool {
		switch rng.IntN(3) {
		case 0:
			return name, name
		case 1:
			is := " IS " + []string{"", "NOT "}[rng.IntN(2)] + []string{"TRUE", "FALSE"}[rng.IntN(2)]
			return name + is, name + is
		}
		op := []string{"=", "!="}[rng.IntN(2)]
		return name + " " + op + " " + v.pq, name + " " + op + " " + v.duck
	}
	switch k := rng.IntN(10); {
	case k < 6:
		op := []string{"=", "!=", "<", "<=", ">", ">=", "IS DISTINCT FROM", "IS NOT DISTINCT FROM"}[rng.IntN(8)]
		return name + " " + op + " " + v.pq, name + " " + op + " " + v.duck
	case k < 8:
		w, ok := randomLiteral(rng, res, c)
		if !ok {
			return "", ""
		}
		if w.less(v) {
			v, w = w, v
		}
		not := []string{"", "NOT "}[rng.IntN(2)]
		return name + " " + not + "BETWEEN " + v.pq + " AND " + w.pq, name + " " + not + "BETWEEN " + v.duck + " AND " + w.duck
	case k < 9:
		pq, duck := []string{v.pq}, []string{v.duck}
		for range 1 + rng.IntN(4) {
			if w, ok := randomLiteral(rng, res, c); ok {
				pq, duck = append(pq, w.pq), append(duck, w.duck)
			}
		}
		not := []string{"", "NOT "}[rng.IntN(2)]
		return name + " " + not + "IN (" + strings.Join(pq, ", ") + ")", name + " " + not + "IN (" + strings.Join(duck, ", ") + ")"
	default:
		if v.prefix == "" {
			return name + " = " + v.pq, name + " = " + v.duck
		}
		pat, fold, not := drawLike(rng, v.prefix)
		l := likeSQL(name, pat, fold, not)
		return l, l
	}
}

// drawLike draws a LIKE pattern that value s matches: a prefix, or a piece anywhere between
// '%'s, with one character sometimes replaced by '_'; for ILIKE (fold) the piece's letters
// have their case flipped at random. not asks for NOT LIKE.
func drawLike(rng *rand.Rand, s string) (pat string, fold, not bool) {
	r := []rune(s)
	i := 0
	if rng.IntN(2) == 0 {
		i = rng.IntN(len(r))
	}
	piece := r[i : i+1+rng.IntN(len(r)-i)]
	if fold = rng.IntN(2) == 0; fold {
		for j, c := range piece {
			if rng.IntN(2) == 0 {
				piece[j] = unicode.ToUpper(c)
			} else {
				piece[j] = unicode.ToLower(c)
			}
		}
	}
	if len(piece) > 1 && rng.IntN(4) == 0 {
		piece[rng.IntN(len(piece))] = '_'
	}
	pat = string(piece) + "%"
	if i > 0 {
		pat = "%" + pat
	}
	return pat, fold, rng.IntN(3) == 0
}

// likeSQL renders a drawn LIKE on name.
func likeSQL(name, pat string, fold, not bool) string {
	op := " LIKE "
	if fold {
		op = " ILIKE "
	}
	if not {
		op = " NOT" + op
	}
	return name + op + "'" + strings.ReplaceAll(pat, "'", "''") + "'"
}

// likeRef is the reference LIKE: the pattern as a regular expression over characters, on
// lower case for ILIKE.
func likeRef(pat string, fold bool, s string) bool {
	var re strings.Builder
	re.WriteString("(?s)^")
	for _, c := range pat {
		switch c {
		case '%':
			re.WriteString(".*")
		case '_':
			re.WriteString(".")
		default:
			re.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	re.WriteString("$")
	if fold {
		pat, s = strings.ToLower(pat), strings.ToLower(s)
		return likeRef(pat, false, s)
	}
	return regexp.MustCompile(re.String()).MatchString(s)
}

// literal is a value in each engine's syntax; key orders values of one column (BETWEEN).
type literal struct {
	pq, duck string
	num      float64
	str      string
	prefix   string // a string value usable in LIKE (no wildcard or escape characters), else ""
}

func (a literal) less(b literal) bool {
	if a.str != "" || b.str != "" {
		return a.str < b.str
	}
	return a.num < b.num
}

// randomLiteral is the value of column c in a random row, as a literal; false for a null or a
// value that has no literal both engines read the same way (NaN, an infinity, a timestamp
// finer than a microsecond or outside years 1–9999, a string that is not UTF-8).
func randomLiteral(rng *rand.Rand, res *scanResult, c colRef) (literal, bool) {
	rec, i := res.rowAt(rng.Int64N(res.rows))
	col, null := c.at(rec, i)
	if null {
		return literal{}, false
	}
	same := func(s string, num float64) (literal, bool) { return literal{pq: s, duck: s, num: num}, true }
	// An integer is sometimes moved off the data: by one, or by a half (a decimal literal
	// against an integer column, which both engines compare exactly).
	integer := func(v int64, digits string) (literal, bool) {
		switch rng.IntN(8) {
		case 0:
			return same(strconv.FormatInt(v+1, 10), float64(v+1))
		case 1:
			if v < 0 {
				return same("-"+strings.TrimPrefix(digits, "-")+".5", float64(v)-0.5)
			}
			return same(digits+".5", float64(v)+0.5)
		}
		return same(digits, float64(v))
	}
	switch a := col.(type) {
	case *array.Int8:
		return integer(int64(a.Value(i)), strconv.Itoa(int(a.Value(i))))
	case *array.Int16:
		return integer(int64(a.Value(i)), strconv.Itoa(int(a.Value(i))))
	case *array.Int32:
		return integer(int64(a.Value(i)), strconv.Itoa(int(a.Value(i))))
	case *array.Int64:
		if v := a.Value(i); v > math.MinInt64 && v < math.MaxInt64 {
			return integer(v, strconv.FormatInt(v, 10))
		}
		return same(strconv.FormatInt(a.Value(i), 10), float64(a.Value(i)))
	case *array.Uint8:
		return same(strconv.Itoa(int(a.Value(i))), float64(a.Value(i)))
	case *array.Uint16:
		return same(strconv.Itoa(int(a.Value(i))), float64(a.Value(i)))
	case *array.Uint32:
		return same(strconv.FormatUint(uint64(a.Value(i)), 10), float64(a.Value(i)))
	case *array.Uint64:
		return same(strconv.FormatUint(a.Value(i), 10), float64(a.Value(i)))
	case *array.Float32:
		// pqscan rounds a literal to a FLOAT column's precision (internal/prune coerce:
		// `f = 0.1` matches 0.1f, as Polars casts a literal to the column's type); DuckDB
		// widens the column to the literal's DOUBLE instead, so its literal is cast to FLOAT.
		l, ok := floatLiteral(rng, float64(a.Value(i)))
		l.duck = "CAST(" + l.duck + " AS FLOAT)"
		return l, ok
	case *array.Float64:
		return floatLiteral(rng, a.Value(i))
	case *array.Boolean:
		return same(strconv.FormatBool(a.Value(i)), 0)
	case *array.String:
		return stringLiteral(offString(rng, a.Value(i)))
	case *array.LargeString:
		return stringLiteral(offString(rng, a.Value(i)))
	case *array.Date32:
		d := a.Value(i).ToTime().AddDate(0, 0, rng.IntN(3)-1) // sometimes a day off the data
		if d.Year() < 1 || d.Year() > 9999 {
			return literal{}, false
		}
		s := typedLit(rng, d.Format("2006-01-02"), "DATE", "DATE")
		return same(s, float64(d.Unix()))
	case *array.Decimal128:
		dt := a.DataType().(*arrow.Decimal128Type)
		s := a.Value(i).ToString(dt.Scale)
		return same(s, a.Value(i).ToFloat64(dt.Scale))
	case *array.Timestamp:
		dt := a.DataType().(*arrow.TimestampType)
		v := int64(a.Value(i))
		if dt.Unit == arrow.Nanosecond && v%1000 != 0 {
			return literal{}, false
		}
		ts := a.Value(i).ToTime(dt.Unit).UTC()
		if dt.Unit != arrow.Second && rng.IntN(8) == 0 {
			ts = ts.Add(time.Duration(rng.IntN(3)-1) * time.Microsecond) // a microsecond off the data
		}
		if ts.Year() < 1 || ts.Year() > 9999 {
			return literal{}, false
		}
		body := ts.Format("2006-01-02 15:04:05.000000")
		s := typedLit(rng, body, "TIMESTAMP", "TIMESTAMP")
		l := literal{pq: s, duck: s, num: float64(ts.UnixMicro())}
		if dt.TimeZone != "" {
			l.pq = typedLit(rng, body+"+00", "TIMESTAMPTZ", "TIMESTAMP WITH TIME ZONE")
			l.duck = l.pq
			if rng.IntN(4) == 0 {
				l.pq = "TIMESTAMP '" + body + "Z'"
			}
		}
		return l, true
	}
	return literal{}, false
}

// hasNaN reports whether column c of the scan holds a NaN.
func hasNaN(res *scanResult, c colRef) bool {
	for _, rec := range res.recs {
		switch a := c.leaf(rec).(type) {
		case *array.Float32:
			for i := range a.Len() {
				if a.IsValid(i) && math.IsNaN(float64(a.Value(i))) {
					return true
				}
			}
		case *array.Float64:
			for i := range a.Len() {
				if a.IsValid(i) && math.IsNaN(a.Value(i)) {
					return true
				}
			}
		}
	}
	return false
}

// floatLiteral writes v, or sometimes its neighbour a half or one ulp away.
func floatLiteral(rng *rand.Rand, v float64) (literal, bool) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return literal{}, false
	}
	switch rng.IntN(8) {
	case 0:
		v += 0.5
	case 1:
		v = math.Nextafter(v, math.Inf(1))
	}
	s := strconv.FormatFloat(v, 'e', -1, 64)
	return literal{pq: s, duck: s, num: v}, true
}

// offString is s, or sometimes a string between stored values: a proper prefix of s, or s
// with a character appended.
func offString(rng *rand.Rand, s string) string {
	r := []rune(s)
	switch rng.IntN(8) {
	case 0:
		if len(r) > 1 {
			return string(r[:rng.IntN(len(r))])
		}
	case 1:
		return s + "~"
	}
	return s
}

func stringLiteral(s string) (literal, bool) {
	if !utf8.ValidString(s) || strings.ContainsRune(s, 0) || len(s) > 1024 { // a command line bounds an argument
		return literal{}, false
	}
	q := "'" + strings.ReplaceAll(s, "'", "''") + "'"
	l := literal{pq: q, duck: q, str: "\x01" + s}
	if s != "" && !strings.ContainsAny(s, `%_\`) {
		l.prefix = s
	}
	return l, true
}

// typedLit spells a typed literal in one of the forms SQL writers use, which both engines
// read alike: TYPE 'text', 'text'::TYPE or CAST('text' AS TYPE) (castName: the type as CAST
// may spell it, e.g. TIMESTAMP WITH TIME ZONE).
func typedLit(rng *rand.Rand, text, typ, castName string) string {
	switch rng.IntN(3) {
	case 1:
		return "'" + text + "'::" + typ
	case 2:
		return "CAST('" + text + "' AS " + castName + ")"
	}
	return typ + " '" + text + "'"
}
