package optimize

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pqscan/pqscan/internal/decode/format"
)

// Legacy INT96 timestamps carry no convention: Spark and Hive wrote UTC instants, Impala
// wall-clock times of the writer's zone (Impala's convert_legacy_hive_parquet_utc_timestamps
// exists because readers disagree). pqscan reads them as timestamp[us] without a zone; the
// rewrite writes INT64 timestamps, and Options.Int96 says which convention they follow:
// "utc" writes them as instants (isAdjustedToUTC = true, Arrow zone "UTC"), "local" as
// wall-clock times (isAdjustedToUTC = false). Either way the choice is recorded in the
// output's key-value metadata (Int96Key), so it is never guessed again.

// Int96Key is the key-value metadata key recording the convention of the columns that were
// INT96 in the input: "utc: a,b" or "local: a,b".
const Int96Key = "pqscan.int96"

// Int96Columns returns the top-level columns of a footer that are INT96 leaves.
func Int96Columns(m *format.FileMetaData) []string {
	var out []string
	if len(m.Schema) == 0 {
		return nil
	}
	// Top-level children of the root: a leaf has no NumChildren; a group is skipped whole.
	i := 1
	for c := 0; c < int(ptrOr(m.Schema[0].NumChildren)) && i < len(m.Schema); c++ {
		el := m.Schema[i]
		if el.Type != nil && *el.Type == format.Int96 && ptrOr(el.NumChildren) == 0 {
			out = append(out, el.Name)
		}
		i = skipElement(m.Schema, i)
	}
	return out
}

func ptrOr(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

// skipElement returns the index after element i and its descendants.
func skipElement(s []format.SchemaElement, i int) int {
	n := int(ptrOr(s[i].NumChildren))
	i++
	for range n {
		if i >= len(s) {
			return i
		}
		i = skipElement(s, i)
	}
	return i
}

// int96Convention returns the output schema for opts.Int96 and a function re-typing each
// input record to it (the identity when nothing changes).
func int96Convention(in *arrow.Schema, opts Options) (*arrow.Schema, func(arrow.RecordBatch) arrow.RecordBatch, error) {
	id := func(r arrow.RecordBatch) arrow.RecordBatch { return r }
	switch opts.Int96 {
	case "", "local":
		return in, id, nil
	case "utc":
	default:
		return nil, nil, fmt.Errorf("%w: --int96 %q (want utc or local)", ErrOption, opts.Int96)
	}
	fields := in.Fields()
	var idx []int
	for _, name := range opts.Int96Columns {
		for _, i := range in.FieldIndices(name) {
			ts, ok := fields[i].Type.(*arrow.TimestampType)
			if !ok || ts.TimeZone != "" {
				return nil, nil, fmt.Errorf("%w: INT96 column %q reads as %s, not a timestamp without zone", ErrType, name, fields[i].Type)
			}
			fields[i].Type = &arrow.TimestampType{Unit: ts.Unit, TimeZone: "UTC"}
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return in, id, nil
	}
	md := in.Metadata()
	out := arrow.NewSchema(fields, &md)
	return out, func(r arrow.RecordBatch) arrow.RecordBatch {
		cols := make([]arrow.Array, r.NumCols())
		for i := range cols {
			cols[i] = r.Column(i)
		}
		for _, i := range idx {
			d := cols[i].Data()
			nd := array.NewData(fields[i].Type, d.Len(), d.Buffers(), nil, d.NullN(), d.Offset())
			cols[i] = array.MakeFromData(nd)
			nd.Release()
			defer cols[i].Release()
		}
		return array.NewRecordBatch(out, cols, r.NumRows())
	}, nil
}

// int96Record is the Int96Key value for opts, "" when there is nothing to record.
func int96Record(opts Options) string {
	if opts.Int96 == "" || len(opts.Int96Columns) == 0 {
		return ""
	}
	return opts.Int96 + ": " + strings.Join(opts.Int96Columns, ",")
}
