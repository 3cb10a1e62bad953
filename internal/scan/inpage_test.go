package scan

import (
	"bytes"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Late materialization inside pages and predicate order, checked against a
// brute force: the rows an unfiltered scan returns (whole pages decoded, nothing selected),
// kept where a Go evaluation of the predicate says so.

// inPageFile writes, with arrow-go, rows over every kind of page the selective decoding
// meets: a clustered key k (so that filters on it keep runs of every length), dictionary
// and PLAIN pages with nulls, DELTA_BINARY_PACKED, BYTE_STREAM_SPLIT, DELTA_BYTE_ARRAY and
// DELTA_LENGTH_BYTE_ARRAY columns, booleans, a nullable list and a struct; small pages
// (about a hundred rows), a page index, and data pages v1 or v2.
func inPageFile(t testing.TB, seed int64, v2 bool) []byte {
	rng := rand.New(rand.NewSource(seed))
	const n = 6000
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau")
	st := arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true})
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "m", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "p", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "d", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "db", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "dl", Type: arrow.BinaryTypes.String},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
		{Name: "st", Type: st, Nullable: true},
	}, nil)
	bld := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer bld.Release()
	k, run := int64(0), 0
	for i := 0; i < n; i++ {
		if run == 0 { // runs of 1..80 rows share a key
			k, run = int64(rng.Intn(100)), 1+rng.Intn(80)
		}
		run--
		null := func(pct int) bool { return rng.Intn(100) < pct }
		bld.Field(0).(*array.Int64Builder).Append(k)
		if null(20) {
			bld.Field(1).AppendNull()
		} else {
			bld.Field(1).(*array.Int32Builder).Append(int32(rng.Intn(10)))
		}
		if null(10) {
			bld.Field(2).AppendNull()
		} else {
			bld.Field(2).(*array.StringBuilder).Append(words[rng.Intn(len(words))])
		}
		if null(15) {
			bld.Field(3).AppendNull()
		} else {
			bld.Field(3).(*array.StringBuilder).Append(fmt.Sprintf("p%d-%s", rng.Intn(1000), strings.Repeat("x", rng.Intn(12))))
		}
		if null(5) {
			bld.Field(4).AppendNull()
		} else {
			bld.Field(4).(*array.Int64Builder).Append(int64(i)*3 + int64(rng.Intn(5)))
		}
		if null(5) {
			bld.Field(5).AppendNull()
		} else {
			bld.Field(5).(*array.Float64Builder).Append(float64(rng.Intn(2000)) / 8)
		}
		if null(5) {
			bld.Field(6).AppendNull()
		} else {
			bld.Field(6).(*array.StringBuilder).Append(fmt.Sprintf("prefix-%05d", i/3))
		}
		bld.Field(7).(*array.StringBuilder).Append(words[i%len(words)] + strings.Repeat("!", i%4))
		if null(10) {
			bld.Field(8).AppendNull()
		} else {
			bld.Field(8).(*array.BooleanBuilder).Append(rng.Intn(2) == 0)
		}
		lb := bld.Field(9).(*array.ListBuilder)
		if null(10) {
			lb.AppendNull()
		} else {
			lb.Append(true)
			for j := rng.Intn(4); j > 0; j-- {
				if null(10) {
					lb.ValueBuilder().AppendNull()
				} else {
					lb.ValueBuilder().(*array.Int32Builder).Append(int32(rng.Intn(50)))
				}
			}
		}
		sb := bld.Field(10).(*array.StructBuilder)
		if null(10) {
			sb.AppendNull()
		} else {
			sb.Append(true)
			sb.FieldBuilder(0).(*array.Int32Builder).Append(int32(i))
			sb.FieldBuilder(1).(*array.StringBuilder).Append(words[(i/7)%len(words)])
		}
	}
	rec := bld.NewRecordBatch()
	defer rec.Release()
	version := parquet.DataPageV1
	if v2 {
		version = parquet.DataPageV2
	}
	props := parquet.NewWriterProperties(
		parquet.WithDataPageVersion(version), parquet.WithDataPageSize(512), parquet.WithBatchSize(50),
		parquet.WithMaxRowGroupLength(2500), parquet.WithPageIndexEnabled(true), parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithDictionaryFor("p", false), parquet.WithDictionaryFor("d", false), parquet.WithEncodingFor("d", parquet.Encodings.DeltaBinaryPacked),
		parquet.WithDictionaryFor("f", false), parquet.WithEncodingFor("f", parquet.Encodings.ByteStreamSplit),
		parquet.WithDictionaryFor("db", false), parquet.WithEncodingFor("db", parquet.Encodings.DeltaByteArray),
		parquet.WithDictionaryFor("dl", false), parquet.WithEncodingFor("dl", parquet.Encodings.DeltaLengthByteArray),
		parquet.WithDictionaryFor("b", false), parquet.WithDictionaryFor("k", false))
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(schema, &buf, props, pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// inPageFiles: the generated files and corpus files with nested columns, nulls and the
// DELTA and BYTE_STREAM_SPLIT encodings.
func inPageFiles(t *testing.T) map[string][]byte {
	files := map[string][]byte{"generated v1": inPageFile(t, 1, false), "generated v2": inPageFile(t, 2, true)}
	for _, f := range []string{
		"parquet-testing/data/delta_encoding_optional_column.parquet",
		"parquet-testing/data/byte_stream_split_extended.gzip.parquet",
		"parquet-testing/data/alltypes_tiny_pages_plain.parquet",
		"parquet-testing/data/nullable.impala.parquet",
		"parquet-testing/data/datapage_v2.snappy.parquet",
	} {
		files[f] = testcorpus.Read(t, f)
	}
	return files
}

// Test_inPageDifferential: random AND/OR predicates of up to three comparisons over the
// flat columns, at thresholds from 1 (every gap skipped) to 1000 (only page edges), return
// exactly the brute force's rows with every column (nested ones included); values are
// skipped and the predicate order departs from the written one in some cases, so both
// mechanisms were exercised.
func Test_inPageDifferential(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	ops := []string{"=", "!=", "<", "<=", ">", ">="}
	var skipped int64
	cases, reordered, matched := 0, 0, 0
	for name, file := range inPageFiles(t) {
		whole, _, err := drive(t, file, Options{LateMaterializationThreshold: -1})
		require.NoError(t, err, name)
		lines := bytes.SplitAfter(concatBatches(t, whole), []byte("\n"))
		lines = lines[:len(lines)-1]
		var usable []column
		for _, c := range readAll(t, file) {
			if c.vals != nil {
				usable = append(usable, c)
			}
		}
		require.True(t, len(usable) > 0 && len(usable[0].vals) == len(lines), name)
		for range 30 {
			type cmp struct {
				col *column
				op  string
				lit any
			}
			var terms []cmp
			for range 1 + rng.Intn(3) {
				c := &usable[rng.Intn(len(usable))]
				if lit := c.vals[rng.Intn(len(lines))]; lit != nil {
					terms = append(terms, cmp{c, ops[rng.Intn(len(ops))], lit})
				}
			}
			if len(terms) == 0 {
				continue
			}
			and := rng.Intn(4) > 0
			var parts []string
			for _, tm := range terms {
				parts = append(parts, fmt.Sprintf("%q %s %s", tm.col.name, tm.op, literal(tm.lit)))
			}
			where := strings.Join(parts, map[bool]string{true: " AND ", false: " OR "}[and])
			var want []byte
			for i := range lines {
				ok := and
				for _, tm := range terms {
					if h := holds(tm.col.vals[i], tm.op, tm.lit); and {
						ok = ok && h
					} else {
						ok = ok || h
					}
				}
				if ok {
					want = append(want, lines[i]...)
					matched++
				}
			}
			threshold := []int{1, 3, 20, 1000}[rng.Intn(4)]
			_, streams, s := runRounds(t, file, Options{Where: where, BatchRows: 700, LateMaterializationThreshold: threshold})
			if got := concatBatches(t, streams); !bytes.Equal(got, want) {
				t.Fatalf("%s WHERE %s (threshold %d): %d bytes of rows, brute force %d", name, where, threshold, len(got), len(want))
			}
			rep := s.Report()
			skipped += rep.ValuesSkipped
			for _, rg := range rep.RowGroups {
				if len(rg.PredicateOrder) > 1 && rg.PredicateOrder[0] != terms[0].col.name {
					reordered++
					break
				}
			}
			cases++
		}
	}
	t.Logf("%d predicates, %d matching rows, %d values skipped, %d reordered", cases, matched, skipped, reordered)
	require.True(t, cases > 150 && matched > 10000 && skipped > 10000 && reordered > 5, "too few meaningful cases", cases, matched, skipped, reordered)
}
