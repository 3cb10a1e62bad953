package wazerohost_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/wazerohost"
)

// writeSchemaFile writes rows of the given columns (arrow-go), row groups of 25 rows.
func writeSchemaFile(t *testing.T, p string, fields []arrow.Field, rows int, fill func(b *array.RecordBuilder, i int)) {
	t.Helper()
	schema := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := 0; i < rows; i++ {
		fill(b, i)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(schema, &buf, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(25)), pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
}

// Test_schemaResolutionOverWasm: schema resolution runs in the engine, so the module's table
// sessions give the native engine's rows and counters: widened ints, floats, timestamps and
// decimals, a column a file lacks (in the projection and in the predicate), the union and
// by-position resolution, and the error naming the file and column of an incompatible type.
func Test_schemaResolutionOverWasm(t *testing.T) {
	ctx := context.Background()
	h, err := wazerohost.New(ctx, wazerohost.Config{})
	require.NoError(t, err)
	defer h.Close(ctx)
	dir := t.TempDir()
	n := func(name string, t arrow.DataType) arrow.Field {
		return arrow.Field{Name: name, Type: t, Nullable: true}
	}
	a, b, bad := filepath.Join(dir, "a.parquet"), filepath.Join(dir, "b.parquet"), filepath.Join(dir, "bad.parquet")
	writeSchemaFile(t, a, []arrow.Field{n("id", arrow.PrimitiveTypes.Int64), n("x", arrow.PrimitiveTypes.Float64),
		n("ts", &arrow.TimestampType{Unit: arrow.Microsecond}), n("d", &arrow.Decimal128Type{Precision: 10, Scale: 3}), n("gone", arrow.BinaryTypes.String)}, 100,
		func(b *array.RecordBuilder, i int) {
			b.Field(0).(*array.Int64Builder).Append(int64(i))
			b.Field(1).(*array.Float64Builder).Append(float64(i) + 0.1)
			b.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(int64(i) * 1500))
			b.Field(3).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i) * 70))
			b.Field(4).(*array.StringBuilder).Append(fmt.Sprintf("g%d", i))
		})
	writeSchemaFile(t, b, []arrow.Field{n("id", arrow.PrimitiveTypes.Int32), n("x", arrow.PrimitiveTypes.Float32),
		n("ts", &arrow.TimestampType{Unit: arrow.Millisecond}), n("d", &arrow.Decimal128Type{Precision: 5, Scale: 2}), n("added", arrow.PrimitiveTypes.Int64)}, 100,
		func(b *array.RecordBuilder, i int) {
			b.Field(0).(*array.Int32Builder).Append(int32(1000 + i))
			b.Field(1).(*array.Float32Builder).Append(float32(i) + float32(0.1))
			b.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(int64(i)))
			b.Field(3).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i) * 3))
			b.Field(4).(*array.Int64Builder).Append(int64(i) * 100)
		})
	writeSchemaFile(t, bad, []arrow.Field{n("id", arrow.BinaryTypes.String)}, 1, func(b *array.RecordBuilder, i int) {
		b.Field(0).(*array.StringBuilder).Append("x")
	})
	read := func(e pqscan.Engine, opts pqscan.Options, srcs []string, where string) ([]string, pqscan.Report, error) {
		opts.Engine = e
		ds, err := pqscan.OpenDataset(ctx, srcs, opts)
		if err != nil {
			return nil, pqscan.Report{}, err
		}
		defer ds.Close()
		r, err := ds.Scan(ctx, pqscan.ScanOptions{Where: where})
		if err != nil {
			return nil, pqscan.Report{}, err
		}
		defer r.Close()
		var rows []string
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				return rows, r.Report(), nil
			}
			if err != nil {
				return nil, pqscan.Report{}, err
			}
			for i := 0; i < int(rec.NumRows()); i++ {
				var vals []string
				for c := 0; c < int(rec.NumCols()); c++ {
					vals = append(vals, rec.ColumnName(c)+"="+rec.Column(c).ValueStr(i))
				}
				rows = append(rows, strings.Join(vals, "|"))
			}
			rec.Release()
		}
	}
	for _, opts := range []pqscan.Options{{}, {UnionSchema: true}} {
		for _, where := range []string{"", "x = 0.1", "x < 1.1", "gone IS NULL", "gone = 'g3' OR id >= 1090",
			"ts >= '1970-01-01 00:00:00.050'", "d > 1.5", "id >= 10", "added > 9000"} {
			if where == "added > 9000" && !opts.UnionSchema {
				continue
			}
			nat, nrep, err := read(pqscan.Native{}, opts, []string{a, b}, where)
			require.NoError(t, err, where)
			was, wrep, err := read(h, opts, []string{a, b}, where)
			require.NoError(t, err, where)
			require.Equal(t, nat, was, fmt.Sprintf("%+v %s", opts, where))
			require.Equal(t, nrep.FilesNoResidual, wrep.FilesNoResidual, where)
			require.Equal(t, nrep.RowGroupsAllMatch, wrep.RowGroupsAllMatch, where)
		}
	}
	// A deferred schema comes from the first scan of every column over the module too.
	ds, err := pqscan.OpenDataset(ctx, []string{a, b}, pqscan.Options{Engine: h, DeferSchema: true})
	require.NoError(t, err)
	require.True(t, ds.Schema() == nil)
	r, err := ds.Scan(ctx, pqscan.ScanOptions{Where: "id >= 1000"})
	require.NoError(t, err)
	r.Close()
	require.Equal(t, 5, ds.Schema().NumFields())
	ds.Close()
	_, _, err = read(h, pqscan.Options{}, []string{a, bad}, "")
	require.ErrorIs(t, err, wazerohost.ErrScan)
	require.True(t, strings.Contains(err.Error(), bad) && strings.Contains(err.Error(), `"id"`), err)
	// By position b's fifth column (added, int64) is the table's gone (string).
	_, _, err = read(h, pqscan.Options{SchemaByPosition: true}, []string{a, b}, "")
	require.ErrorIs(t, err, wazerohost.ErrScan)
	require.True(t, strings.Contains(err.Error(), b) && strings.Contains(err.Error(), `"gone"`), err)
}
