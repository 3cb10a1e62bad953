package pqscan

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pqscan/pqscan/internal/dataset/schema"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/prune"
)

// readCheckpointRows reads a Delta checkpoint or sidecar Parquet file with pqscan's own engine
// and returns its rows in the generic form delta.ActionsFromRows takes: structs as
// map[string]any, lists as []any, maps as []any of {"key","value"} maps, null as nil.
func readCheckpointRows(ctx context.Context, path string /* local path or URL */, opts Options) ([]map[string]any, error) {
	f, err := Open(ctx, path, Options{Engine: opts.Engine, HTTP: opts.HTTP, MemoryCap: opts.MemoryCap, TailSize: opts.TailSize, Allocator: opts.Allocator})
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := f.Scan(ctx, ScanOptions{})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var rows []map[string]any
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, err
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			row := make(map[string]any, rec.NumCols())
			for c := 0; c < int(rec.NumCols()); c++ {
				row[rec.ColumnName(c)] = arrowValue(rec.Column(c), i)
			}
			rows = append(rows, row)
		}
		rec.Release()
	}
}

// arrowValue is row i of a as a plain Go value (see readCheckpointRows).
func arrowValue(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch x := a.(type) {
	case *array.Struct:
		st := x.DataType().(*arrow.StructType)
		m := make(map[string]any, x.NumField())
		for k := 0; k < x.NumField(); k++ {
			m[st.Field(k).Name] = arrowValue(x.Field(k), i)
		}
		return m
	case *array.Map:
		start, end := x.ValueOffsets(i)
		out := make([]any, 0, end-start)
		for j := int(start); j < int(end); j++ {
			out = append(out, map[string]any{"key": arrowValue(x.Keys(), j), "value": arrowValue(x.Items(), j)})
		}
		return out
	case array.ListLike:
		start, end := x.ValueOffsets(i)
		out := make([]any, 0, end-start)
		for j := int(start); j < int(end); j++ {
			out = append(out, arrowValue(x.ListValues(), j))
		}
		return out
	case *array.String:
		return x.Value(i)
	case *array.LargeString:
		return x.Value(i)
	case *array.Binary:
		return append([]byte(nil), x.Value(i)...)
	case *array.Boolean:
		return x.Value(i)
	case *array.Int8:
		return int64(x.Value(i))
	case *array.Int16:
		return int64(x.Value(i))
	case *array.Int32:
		return int64(x.Value(i))
	case *array.Int64:
		return x.Value(i)
	case *array.Uint8:
		return uint64(x.Value(i))
	case *array.Uint16:
		return uint64(x.Value(i))
	case *array.Uint32:
		return uint64(x.Value(i))
	case *array.Uint64:
		return x.Value(i)
	case *array.Float32:
		return float64(x.Value(i))
	case *array.Float64:
		return x.Value(i)
	}
	return a.GetOneForMarshal(i)
}

// arrowFields converts a Delta schema (delta.ParseSchema) into the engine's Arrow fields, the
// types the engine's Parquet decoder gives those columns: string utf8, binary, integers of
// their width, float/double, date32, timestamp µs (UTC for Delta "timestamp", zone-less for
// timestamp_ntz), decimal128 (decimal256 above 38 digits), and nested struct/list/map.
func arrowFields(fs []schema.Field) ([]arrowipc.Field, error) {
	out := make([]arrowipc.Field, 0, len(fs))
	for _, f := range fs {
		a, err := arrowField(f)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

func arrowField(f schema.Field) (arrowipc.Field, error) {
	out := arrowipc.Field{Name: f.Name, Nullable: f.Nullable}
	t := &out.Type
	switch f.Type.Kind {
	case schema.Bool:
		t.ID = arrowipc.Bool
	case schema.Int8, schema.Int16, schema.Int32, schema.Int64:
		t.ID, t.Signed = arrowipc.Int, true
		t.BitWidth = map[schema.Kind]int{schema.Int8: 8, schema.Int16: 16, schema.Int32: 32, schema.Int64: 64}[f.Type.Kind]
	case schema.Float32:
		t.ID, t.BitWidth = arrowipc.Float, 32
	case schema.Float64:
		t.ID, t.BitWidth = arrowipc.Float, 64
	case schema.String:
		t.ID = arrowipc.Utf8
	case schema.Binary:
		t.ID = arrowipc.Binary
	case schema.Date:
		t.ID = arrowipc.Date32
	case schema.Timestamp:
		t.ID, t.Unit = arrowipc.Timestamp, arrowipc.Microsecond
		if f.Type.Unit != prune.Micro {
			return out, fmt.Errorf("%w: column %q: timestamp unit %s", ErrUnsupportedFeature, f.Name, f.Type.Unit)
		}
		if f.Type.UTC {
			t.TZ = "UTC"
		}
	case schema.Decimal:
		t.ID, t.BitWidth, t.Precision, t.Scale = arrowipc.Decimal, 128, int(f.Type.Precision), int(f.Type.Scale)
		if f.Type.Precision > 38 {
			t.BitWidth = 256
		}
	case schema.Struct:
		t.ID = arrowipc.Struct
		kids, err := arrowFields(f.Children)
		if err != nil {
			return out, err
		}
		t.Fields = kids
	case schema.List:
		el, err := arrowField(f.Children[0])
		if err != nil {
			return out, err
		}
		t.ID, t.Elem = arrowipc.List, &el
	case schema.Map:
		kids, err := arrowFields(f.Children)
		if err != nil {
			return out, err
		}
		t.ID = arrowipc.Map
		t.Elem = &arrowipc.Field{Name: "key_value", Type: arrowipc.DataType{ID: arrowipc.Struct, Fields: kids}}
	default:
		return out, fmt.Errorf("%w: column %q: type %s", ErrUnsupportedFeature, f.Name, f.Type)
	}
	return out, nil
}

// statTypes is the prune type of each leaf of fs by dotted path (the paths Delta statistics
// and predicates use; struct fields are walked, lists and maps have no statistics), for
// binding the predicate over a file's statistics.
func statTypes(fs []schema.Field, prefix string, out map[string]prune.ColumnType) map[string]prune.ColumnType {
	for _, f := range fs {
		if f.Type.Kind == schema.Struct {
			statTypes(f.Children, prefix+f.Name+".", out)
		} else if t, ok := f.Type.Prune(); ok {
			out[prefix+f.Name] = t
		}
	}
	return out
}

// fileStats materializes a file's statistics lookup (delta.Snapshot.FileStats) for the
// columns of types, as the plain data the table session takes.
func fileStats(lookup func(string) (prune.ColStats, bool), types map[string]prune.ColumnType) map[string]prune.ColStats {
	out := map[string]prune.ColStats{}
	for path := range types {
		if c, ok := lookup(path); ok {
			out[path] = c
		}
	}
	return out
}
