package iceberg

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"

	"github.com/pqscan/pqscan/internal/prune"
)

// Column metrics and partition summaries as prune statistics (spec § Manifests "lower_bounds",
// Appendix D "Single-value serialization"): bounds decode by the column's type into the
// values prune compares predicates with, so that a file's metrics skip it as Delta statistics
// do. A type without a prune reading here (uuid, fixed, nested) has no statistics: unknown.

// PruneType is the prune type of a primitive Iceberg type, as the engine reads its Parquet
// column (ArrowFields).
func PruneType(p string) (prune.ColumnType, bool) {
	switch p {
	case "boolean":
		return prune.ColumnType{Kind: prune.Bool, Physical: prune.Boolean}, true
	case "int":
		return prune.ColumnType{Kind: prune.Int, Physical: prune.Int32}, true
	case "long":
		return prune.ColumnType{Kind: prune.Int, Physical: prune.Int64}, true
	case "float":
		return prune.ColumnType{Kind: prune.Float, Physical: prune.PhysFloat}, true
	case "double":
		return prune.ColumnType{Kind: prune.Float, Physical: prune.Double}, true
	case "date":
		return prune.ColumnType{Kind: prune.Date, Physical: prune.Int32}, true
	case "time":
		return prune.ColumnType{Kind: prune.Time, Unit: prune.Micro, Physical: prune.Int64}, true
	case "timestamp", "timestamptz", "timestamp_ns", "timestamptz_ns":
		u := prune.Micro
		if strings.HasSuffix(p, "_ns") {
			u = prune.Nano
		}
		return prune.ColumnType{Kind: prune.Timestamp, Unit: u, UTC: strings.HasPrefix(p, "timestamptz"), Physical: prune.Int64}, true
	case "string", "binary":
		return prune.ColumnType{Kind: prune.Bytes, Physical: prune.ByteArray}, true
	}
	if prec, scale, ok := decimalType(p); ok {
		// The physical type bounds the literals prune binds: an unscaled value of up to 18
		// digits fits an int64; a wider one is a bound of any length (minimal big-endian bytes),
		// so no range may fold a comparison to a constant.
		phys := prune.Int64
		if prec > 18 {
			phys = prune.ByteArray
		}
		return prune.ColumnType{Kind: prune.Decimal, Precision: int32(prec), Scale: int32(scale), Physical: phys}, true
	}
	return prune.ColumnType{}, false
}

// decimalType reads "decimal(P,S)".
func decimalType(p string) (prec, scale int, ok bool) {
	in, ok := strings.CutPrefix(p, "decimal(")
	if in, ok = strings.CutSuffix(in, ")"); !ok {
		return 0, 0, false
	}
	ps, ss, _ := strings.Cut(in, ",")
	prec, err1 := strconv.Atoi(strings.TrimSpace(ps))
	scale, err2 := strconv.Atoi(strings.TrimSpace(ss))
	return prec, scale, err1 == nil && err2 == nil && prec >= 1 && prec <= 38 && scale >= 0 && scale <= prec
}

// DecodeBound reads a bound in the single-value serialization of primitive type p. A long
// or double column promoted from int or float keeps its older files' 4-byte bounds, so both
// widths read. ok is false for a length that fits no reading (unknown, never an error).
func DecodeBound(p string, b []byte) (prune.Value, bool) {
	t, ok := PruneType(p)
	if !ok {
		return prune.Value{}, false
	}
	le := func() (int64, bool) {
		switch len(b) {
		case 4:
			return int64(int32(binary.LittleEndian.Uint32(b))), true
		case 8:
			return int64(binary.LittleEndian.Uint64(b)), true
		}
		return 0, false
	}
	switch t.Kind {
	case prune.Bool:
		if len(b) != 1 || b[0] > 1 {
			return prune.Value{}, false
		}
		return prune.BoolValue(b[0] == 1), true
	case prune.Int, prune.Date, prune.Time, prune.Timestamp:
		v, ok := le()
		if !ok || (t.Physical == prune.Int32 && len(b) != 4) {
			return prune.Value{}, false
		}
		return prune.Value{Kind: t.Kind, I: v}, true
	case prune.Float:
		switch {
		case len(b) == 4:
			return prune.FloatValue(float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))), true
		case len(b) == 8 && t.Physical == prune.Double:
			return prune.FloatValue(math.Float64frombits(binary.LittleEndian.Uint64(b))), true
		}
		return prune.Value{}, false
	case prune.Bytes:
		return prune.BytesValue(b), true
	case prune.Decimal:
		if len(b) == 0 || len(b) > 16 {
			return prune.Value{}, false
		}
		if len(b) <= 8 { // sign-extended to an int64
			v := int64(int8(b[0]))
			for _, c := range b[1:] {
				v = v<<8 | int64(c)
			}
			return prune.DecimalInt64(v), true
		}
		return prune.DecimalBytes(b), true
	}
	return prune.Value{}, false
}

// Column is a column with statistics: its path (dotted through structs) and primitive type.
type Column struct{ Path, Prim string }

// StatTypes is the prune type of each column path of fields (dotted through structs; lists
// and maps have no statistics), and each such column by field id.
func StatTypes(fields []StructField) (types map[string]prune.ColumnType, byID map[int]Column) {
	types, byID = map[string]prune.ColumnType{}, map[int]Column{}
	var walk func(fs []StructField, prefix string)
	walk = func(fs []StructField, prefix string) {
		for _, f := range fs {
			if f.Type.Kind == "struct" {
				walk(f.Type.Fields, prefix+f.Name+".")
			} else if t, ok := PruneType(f.Type.Prim); ok {
				types[prefix+f.Name], byID[f.ID] = t, Column{prefix + f.Name, f.Type.Prim}
			}
		}
	}
	walk(fields, "")
	return types, byID
}
