package pqscan

import (
	"context"
	"errors"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
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
