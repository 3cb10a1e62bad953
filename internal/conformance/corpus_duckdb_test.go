package conformance

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// The second oracle: DuckDB (the npm package @duckdb/node-api, pinned in duckdb/package.json,
// native binary inside the package) reads every .parquet file of the shared corpus through
// duckdb/dump.mjs, and each file it can read is compared value by value with pqscan's native
// engine. Both sides are turned into one canonical form (canon in corpus_arrowgo_test.go, then
// duckNorm): integers of any width as digits, floats as float64 (NaN and ±Inf as text),
// strings and binaries as their bytes (DuckDB's BLOB and pqscan's binary agree on bytes, not on
// the type), dates as days, times as nanoseconds, timestamps as instants with trailing zero
// digits cut (a millisecond value equals the same microsecond value), decimals as exact
// rationals, lists as arrays, structs as objects, maps as [key, value] pairs.
//
// Every disagreement that is not listed below fails the test; so does a listed one that went
// away (the list must not rot).

// duckDeviation is a known, explained difference on one column of one file.
type duckDeviation struct {
	column string
	// adjust, if set, rewrites pqscan's canonical value into what DuckDB returns and the
	// column is still compared; nil means the column is not compared.
	adjust func(v any) any
	reason string
}

// duckDeviations are DuckDB's known departures from the spec, matched by file and column.
var duckDeviations = map[string][]duckDeviation{
	// INT96 is nanoseconds of a Julian day; Spark writes microsecond timestamps through it, so
	// years past 2262 are legal (int96_from_spark.md: the last value is
	// 290000-12-31T01:00:00+02:00). pqscan returns INT96 as timestamp[us] and reads
	// 290000-12-30T23:00:00Z; DuckDB's conversion overflows int64 and wraps to year -226413.
	// Third opinion: arrow-go refuses the file ("INT96 timestamp is outside the Arrow nanosecond
	// range"). The file's own notes decide: pqscan is right (internal/scan's int96_test checks
	// all six values); only that one value is rewritten.
	"parquet-testing/data/int96_from_spark.parquet": {{column: "a", adjust: rewrite(
		"t:290000-12-30T23:00:00", "t:-226413-01-07T22:21:39.416064"),
		reason: "DuckDB overflows INT96 past year 2262 (wraps to year -226413)"}},
}

func init() {
	// VARIANT (parquet-format VariantEncoding.md): node-api hands DuckDB's decoded variant out
	// only as display text; pqscan returns the canonical variant, unshredded. Compared instead
	// by internal/variant's DuckDB differential (DuckDB's v::JSON against pqscan's JSON, 63
	// files DuckDB shreds 21 ways) and Test_hyparquetShredded (these files).
	for _, f := range []string{"shredded-array", "shredded-bool", "shredded-int", "shredded-nested-object",
		"shredded-object", "shredded-partial-object", "shredded-sparse-timestamp", "shredded-type-mismatch"} {
		col := "var"
		if strings.HasPrefix(f, "shredded-sparse") || strings.HasPrefix(f, "shredded-type") {
			col = "v"
		}
		duckDeviations["hyparquet/"+f+".parquet"] = []duckDeviation{{column: col,
			reason: "VARIANT: compared as JSON by internal/variant's tests"}}
	}
}

// rewrite is an adjust that maps exactly one pqscan value to DuckDB's.
func rewrite(from, to any) func(any) any {
	return func(v any) any {
		if v == from {
			return to
		}
		return v
	}
}

// duckFileSkips are files DuckDB reads but that are not compared at all, with the reason.
var duckFileSkips = map[string]string{
	"parquet-testing/data/large_string_map.brotli.parquet": "DuckDB reads it, but its 1 GiB string values cannot be " +
		"handed to JavaScript (V8's string limit is 512 MiB); pqscan refuses it on its 256 MiB memory cap (mustFailInData)",
}

// duckRefuses are files pqscan reads and DuckDB refuses, with the reason; the value is a
// substring of DuckDB's error.
var duckRefuses = map[string][2]string{
	"hyparquet/hadoop_lz4_compressed.parquet": {"Unsupported compression codec \"LZ4\"",
		"DuckDB has no LZ4 (the deprecated Hadoop-framed codec 5); pqscan decodes both framings as arrow does"},
	"parquet-testing/data/hadoop_lz4_compressed.parquet": {"Unsupported compression codec \"LZ4\"",
		"DuckDB has no LZ4 (the deprecated Hadoop-framed codec 5)"},
	"parquet-testing/data/hadoop_lz4_compressed_larger.parquet": {"Unsupported compression codec \"LZ4\"",
		"DuckDB has no LZ4 (the deprecated Hadoop-framed codec 5)"},
	"parquet-testing/data/non_hadoop_lz4_compressed.parquet": {"Unsupported compression codec \"LZ4\"",
		"DuckDB has no LZ4 (codec 5 in raw block framing, as parquet-cpp < 1.4 wrote it)"},
	"hyparquet/byte_stream_split_extended.gzip.parquet": {"BYTE_STREAM_SPLIT encoding is only supported for FLOAT or DOUBLE",
		"the spec allows BYTE_STREAM_SPLIT for INT32, INT64 and FIXED_LEN_BYTE_ARRAY too (parquet-format 2.11); DuckDB only for floats"},
	"parquet-testing/data/byte_stream_split_extended.gzip.parquet": {"BYTE_STREAM_SPLIT encoding is only supported for FLOAT or DOUBLE",
		"the spec allows BYTE_STREAM_SPLIT for INT32, INT64 and FIXED_LEN_BYTE_ARRAY too; DuckDB only for floats"},
	"parquet-testing/data/map_no_value.parquet": {"MAP_KEY_VALUE requires two children",
		"a MAP whose key_value group has no value field is legal (LogicalTypes.md: the value field is optional, a set); " +
			"pqscan and arrow-go read it"},
	"arrow-testing/parquet/ARROW-17100.parquet": {"Out of buffer",
		"PyArrow 2.0 compressed its DATA_PAGE_V2 pages while setting is_compressed = 0 (ARROW-10353); the arrow-testing " +
			"README asks readers to accept it for compatibility, as pqscan and arrow-cpp do; DuckDB trusts the flag"},
}

// pqscanRefuses are files DuckDB reads and pqscan refuses, with the reason; the value is a
// substring of pqscan's error.
var pqscanRefuses = map[string][2]string{
	"parquet-testing/data/datapage_v1-corrupt-checksum.parquet": {"page checksum mismatch",
		"the page CRCs are wrong on purpose (parquet-testing README); pqscan verifies CRCs, DuckDB ignores them"},
	"parquet-testing/data/rle-dict-uncompressed-corrupt-checksum.parquet": {"page checksum mismatch",
		"the dictionary page CRC is wrong on purpose; pqscan verifies CRCs, DuckDB ignores them"},
	"parquet-testing/bad_data/ARROW-GH-45185.parquet": {"invalid levels",
		"repetition levels start with 1, not 0 (bad_data README): no row starts there, the file is malformed; " +
			"DuckDB reads it anyway. (pqscan's message, \"repetition levels give 5 rows, expected 5\", names the wrong cause)"},
	"parquet-testing/bad_data/ARROW-RS-GH-6229-LEVELS.parquet": {"too few values",
		"a page holds fewer repetition levels than its header's num_values (bad_data README); DuckDB reads it anyway"},
}

func TestCorpusDuckDB(t *testing.T) {
	root := testcorpus.Dir(t)
	node := testcorpus.DuckNode(t)
	var files []string
	for _, p := range testcorpus.Files(t, ".parquet") {
		if _, ok := duckFileSkips[p]; !ok {
			files = append(files, p)
		}
	}
	start := time.Now()
	var compared, values, duckFailed, bothFailed, deviations int
	usedDeviation := map[string]bool{}
	seen := map[string]bool{}
	duckDumpEach(t, node, root, files, func(d duckFile) {
		seen[d.File] = true
		data := testcorpus.Read(t, d.File)
		res, perr := scanBytes(data, pqscan.Options{}, pqscan.ScanOptions{}, corpusTimeout)
		switch {
		case d.Error != "" && perr != nil:
			bothFailed++
			t.Logf("both refuse %s: DuckDB %q; pqscan %q", d.File, d.Error, firstLine(perr))
			return
		case d.Error != "":
			duckFailed++
			if r, ok := duckRefuses[d.File]; !ok || !strings.Contains(d.Error, r[0]) {
				t.Errorf("%s: DuckDB refuses it (%s), pqscan reads it: not in duckRefuses", d.File, d.Error)
			}
			usedDeviation["refuse:"+d.File] = true
			return
		case perr != nil:
			if r, ok := pqscanRefuses[d.File]; !ok || !strings.Contains(perr.Error(), r[0]) {
				t.Errorf("%s: pqscan refuses it (%s), DuckDB reads it: not in pqscanRefuses", d.File, firstLine(perr))
			}
			usedDeviation["refuse:"+d.File] = true
			return
		}
		compared++
		n, dev, msgs := compareWithDuckDB(d, res, usedDeviation)
		values += n
		deviations += dev
		for _, m := range msgs {
			t.Errorf("%s: %s", d.File, m)
		}
	})
	for _, f := range files {
		if !seen[f] {
			t.Errorf("%s: dump.mjs wrote nothing for it", f)
		}
	}
	for f := range duckRefuses {
		if !usedDeviation["refuse:"+f] {
			t.Errorf("duckRefuses lists %s, but DuckDB now reads it (or pqscan refuses it too): drop the entry", f)
		}
	}
	for f := range pqscanRefuses {
		if !usedDeviation["refuse:"+f] {
			t.Errorf("pqscanRefuses lists %s, but pqscan now reads it: drop the entry", f)
		}
	}
	for f, devs := range duckDeviations {
		for _, dv := range devs {
			if !usedDeviation[f+"\x00"+dv.column] {
				t.Errorf("duckDeviations lists %s column %q, but the column agrees (or is gone): drop the entry", f, dv.column)
			}
		}
	}
	t.Logf("DuckDB differential: %d files compared (%d values), %d columns under a listed deviation, %d files DuckDB refuses "+
		"and pqscan reads (listed), %d files both refuse, %d skipped; %v",
		compared, values, deviations, duckFailed, bothFailed, len(duckFileSkips), time.Since(start).Round(time.Millisecond))
}

// duckDumpEach runs duckdb/dump.mjs over files (relative to root), one process for all, and
// calls fn with each file's result, in order, as it streams in (the corpus's dumps are large).
func duckDumpEach(t *testing.T, node, root string, files []string, fn func(d duckFile)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{testcorpus.DuckScript("dump.mjs"), root}, files...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<30)
	for sc.Scan() {
		var d duckFile
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatalf("dump.mjs: %v", err)
		}
		fn(d)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("dump.mjs: %v", err)
	}
}

type duckFile struct {
	File    string `json:"file"`
	Error   string `json:"error"`
	Columns []struct {
		Name string `json:"name"`
		Type string `json:"type"`
	} `json:"columns"`
	Rows [][]any `json:"rows"`
}

// compareWithDuckDB returns the number of leaf values compared, the number of columns under a
// listed deviation, and the unlisted disagreements (at most one per column).
func compareWithDuckDB(d duckFile, res *scanResult, used map[string]bool) (int, int, []string) {
	ours := res.schema.Fields()
	if len(ours) != len(d.Columns) {
		var theirs []string
		for _, c := range d.Columns {
			theirs = append(theirs, c.Name)
		}
		return 0, 0, []string{fmt.Sprintf("pqscan has %d columns %v, DuckDB %d %v", len(ours), names(ours), len(d.Columns), theirs)}
	}
	if res.rows != int64(len(d.Rows)) {
		return 0, 0, []string{fmt.Sprintf("pqscan returned %d rows, DuckDB %d", res.rows, len(d.Rows))}
	}
	var msgs []string
	values, devs := 0, 0
	for c := range ours {
		name := ours[c].Name
		if name != d.Columns[c].Name {
			msgs = append(msgs, fmt.Sprintf("column %d: pqscan %q, DuckDB %q", c, name, d.Columns[c].Name))
			continue
		}
		// isAdjustedToUTC: DuckDB's TIMESTAMP WITH TIME ZONE is pqscan's timestamp with a zone.
		if ts, ok := ours[c].Type.(*arrow.TimestampType); ok || strings.HasPrefix(d.Columns[c].Type, "TIMESTAMP") {
			duckTZ := d.Columns[c].Type == "TIMESTAMP WITH TIME ZONE"
			if !ok || (ts.TimeZone != "") != duckTZ {
				msgs = append(msgs, fmt.Sprintf("column %q: pqscan %s, DuckDB %s (UTC adjustment differs)", name, ours[c].Type, d.Columns[c].Type))
				continue
			}
		}
		var dev *duckDeviation
		for k := range duckDeviations[d.File] {
			if duckDeviations[d.File][k].column == name {
				dev = &duckDeviations[d.File][k]
			}
		}
		if dev != nil {
			devs++
			if dev.adjust == nil {
				used[d.File+"\x00"+name] = true
				continue
			}
		}
		row := 0
		differs := false
	rows:
		for _, rec := range res.recs {
			col := rec.Column(c)
			for i := 0; i < col.Len(); i++ {
				got := duckNorm(canon(col, i, -1))
				want := duckNorm(d.Rows[row][c])
				if diffJSON(want, got, name) != "" && dev != nil {
					got = dev.adjust(got)
					differs = true
				}
				if msg := diffJSON(want, got, name); msg != "" {
					msgs = append(msgs, fmt.Sprintf("row %d column %q (pqscan %s, DuckDB %s): DuckDB %s; pqscan %s",
						row, name, ours[c].Type, d.Columns[c].Type, short(want), short(got)))
					break rows
				}
				values += countLeaves(want)
				row++
			}
		}
		if differs {
			used[d.File+"\x00"+name] = true
		}
	}
	return values, devs, msgs
}

// duckNorm brings pqscan's canon values and dump.mjs's tagged values to one form.
func duckNorm(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = duckNorm(x[i])
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = duckNorm(e)
		}
		return out
	case string:
		return duckNormString(x)
	}
	return v
}

func duckNormString(s string) any {
	tag, rest, ok := strings.Cut(s, ":")
	if !ok {
		return s
	}
	switch tag {
	case "b": // DuckDB BLOB, GEOMETRY
		b, err := base64.StdEncoding.DecodeString(rest)
		if err != nil {
			return s
		}
		return "s:" + string(b)
	case "uuid":
		b, err := hex.DecodeString(strings.ReplaceAll(rest, "-", ""))
		if err != nil {
			return s
		}
		return "s:" + string(b)
	case "date":
		days, err := strconv.ParseInt(rest, 10, 64)
		if err != nil {
			return s
		}
		return `n:"` + time.Unix(days*86400, 0).UTC().Format("2006-01-02") + `"`
	case "ts":
		u, n, _ := strings.Cut(rest, ":")
		digits, _ := strconv.Atoi(u)
		v, err := strconv.ParseInt(n, 10, 64)
		if err != nil {
			return s
		}
		per := int64(1)
		for range digits {
			per *= 10
		}
		sec, frac := floorDiv(v, per), v-floorDiv(v, per)*per
		return trimFrac(fmt.Sprintf("t:%s.%0*d", time.Unix(sec, 0).UTC().Format("2006-01-02T15:04:05"), digits, frac))
	case "t": // pqscan timestamp
		return trimFrac(s)
	case "TZ": // TIME WITH TIME ZONE: an offset of 0 is a UTC-adjusted time
		n, off, _ := strings.Cut(rest, ":")
		if off == "0" {
			return "T:" + n
		}
	case "iv": // DuckDB INTERVAL months:days:microseconds, as canon writes Arrow's month_day_nano
		f := strings.Split(rest, ":")
		us, err := strconv.ParseInt(f[len(f)-1], 10, 64)
		if len(f) != 3 || err != nil {
			return s
		}
		return fmt.Sprintf(`n:{"months":%s,"days":%s,"nanoseconds":%d}`, f[0], f[1], us*1000)
	case "D":
		r, ok := new(big.Rat).SetString(strings.Trim(rest, `"`))
		if !ok {
			return s
		}
		return "D:" + r.RatString()
	}
	return s
}

// trimFrac cuts trailing zero digits (and a bare dot) from a canonical timestamp.
func trimFrac(s string) string {
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	return s
}

func countLeaves(v any) int {
	switch x := v.(type) {
	case []any:
		n := 0
		for _, e := range x {
			n += countLeaves(e)
		}
		return n
	case map[string]any:
		n := 0
		for _, e := range x {
			n += countLeaves(e)
		}
		return n
	}
	return 1
}
