// Package schema resolves the schema of each file of a dataset against the table's schema: which
// file column feeds each table column (by name, or by position), which casts widen it, which
// table columns read as null, and how a file's statistics go through the same mapping so that
// pruning stays correct after widening. It is DataFusion's schema_adapter as a pure function over
// a small schema model (Field), with the widening rules of Delta's typeWidening feature.
//
// Widening (file type → table type) that Resolve accepts, each exact for every value:
//   - int8 → int16 → int32 → int64 (any step up);
//   - float32 → float64; int8/16/32 → float64 (exact in a double);
//   - intN → decimal(p, s) when p - s holds every intN value (3, 5, 10, 20 digits);
//   - decimal(p1, s1) → decimal(p2, s2) when s2 >= s1 and p2 - s2 >= p1 - s1;
//   - date → timestamp without time zone (midnight), as Delta typeWidening allows;
//   - timestamp(u1) → timestamp(u2) with the same time-zone kind, any units: finer units
//     multiply, coarser units truncate sub-unit digits (as a cast to the table's unit does);
//   - string → binary; struct fields recursively (by name), list elements, map keys/values.
//
// Anything else is ErrIncompatible naming the file and the column. Extra file columns are
// ignored. Non-goals: narrowing casts, string parsing, and renames (Delta column mapping).
package schema

import (
	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/prune/exactnum"
)

// Kind is a column's logical type.
type Kind uint8

const (
	KindInvalid Kind = iota
	Bool
	Int8
	Int16
	Int32
	Int64
	Float32
	Float64
	String
	Binary
	Date
	Timestamp // Unit and UTC say which
	Decimal   // Precision and Scale
	Struct    // Children are the fields
	List      // Children[0] is the element
	Map       // Children[0] is the key, Children[1] the value
	Variant   // a semi-structured value (Parquet VARIANT); no statistics, never widened
)

var kindNames = [...]string{"invalid", "boolean", "int8", "int16", "int32", "int64", "float", "double",
	"string", "binary", "date", "timestamp", "decimal", "struct", "list", "map", "variant"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return errf.Sprintf("Kind(%d)", uint8(k))
}

// Type is a logical type; Unit/UTC apply to Timestamp, Precision/Scale to Decimal.
type Type struct {
	Kind      Kind
	Unit      prune.Unit
	UTC       bool // instant (adjusted to UTC); false: wall-clock time without zone
	Precision int32
	Scale     int32
}

func (t Type) String() string {
	switch t.Kind {
	case Timestamp:
		if t.UTC {
			return errf.Sprintf("timestamp(%s, UTC)", t.Unit)
		}
		return errf.Sprintf("timestamp(%s)", t.Unit)
	case Decimal:
		return errf.Sprintf("decimal(%d,%d)", t.Precision, t.Scale)
	}
	return t.Kind.String()
}

// Field is a column: a name, a type, nullability and, for nested types, children (see Kind).
type Field struct {
	Name     string
	Type     Type
	Nullable bool
	Children []Field
	// Widened lists the types the column had before (Delta's delta.typeChanges), oldest
	// first: older files may hold them, and statistics written in them may not be exact in
	// Type (a float's shortest decimal read as a double is not the float).
	Widened []Type
	// PhysicalName is the field's name in data files, statistics and partition values when
	// it differs from Name, the name users see (Delta column mapping); "" means Name.
	PhysicalName string
	// FieldID, when not 0, is the Parquet field_id data files' columns are matched by
	// (Delta column mapping's id mode), before PhysicalName.
	FieldID int32
}

// Physical is the field's name in data files: PhysicalName, else Name.
func (f *Field) Physical() string {
	if f.PhysicalName != "" {
		return f.PhysicalName
	}
	return f.Name
}

// WasFloat32 reports whether a double column was a float before: values and statistics of
// its older files are float32 values.
func (f *Field) WasFloat32() bool {
	for _, t := range f.Widened {
		if t.Kind == Float32 {
			return true
		}
	}
	return false
}

// Prune returns the comparison type prune evaluates a leaf of this type in; ok is false for
// nested types.
func (t Type) Prune() (prune.ColumnType, bool) {
	switch t.Kind {
	case Bool:
		return prune.ColumnType{Kind: prune.Bool, Physical: prune.Boolean}, true
	case Int8, Int16, Int32:
		return prune.ColumnType{Kind: prune.Int, Physical: prune.Int32}, true
	case Int64:
		return prune.ColumnType{Kind: prune.Int, Physical: prune.Int64}, true
	case Float32:
		return prune.ColumnType{Kind: prune.Float, Physical: prune.PhysFloat}, true
	case Float64:
		return prune.ColumnType{Kind: prune.Float, Physical: prune.Double}, true
	case String, Binary:
		return prune.ColumnType{Kind: prune.Bytes, Physical: prune.ByteArray}, true
	case Date:
		return prune.ColumnType{Kind: prune.Date, Physical: prune.Int32}, true
	case Timestamp:
		return prune.ColumnType{Kind: prune.Timestamp, Unit: t.Unit, UTC: t.UTC, Physical: prune.Int64}, true
	case Decimal:
		if t.Precision <= 18 {
			return prune.ColumnType{Kind: prune.Decimal, Precision: t.Precision, Scale: t.Scale, Physical: prune.Int64}, true
		}
		// Parquet's FIXED_LEN_BYTE_ARRAY form, of the fewest bytes that hold every value of the
		// precision: prune bounds the values (and binds literals) by that length.
		return prune.ColumnType{Kind: prune.Decimal, Precision: t.Precision, Scale: t.Scale,
			Physical: prune.FixedLenByteArray, TypeLength: decimalBytes(t.Precision)}, true
	}
	return prune.ColumnType{}, false
}

// decimalBytes is the smallest two's-complement width, in bytes, that holds every decimal of
// p digits (10^p - 1 < 2^(8n-1)).
func decimalBytes(p int32) int32 {
	most := exactnum.Pow10(int(p)).Sub(exactnum.NewInt(1))
	return int32(most.BitLen()/8 + 1)
}

func intRank(k Kind) int {
	switch k {
	case Int8:
		return 1
	case Int16:
		return 2
	case Int32:
		return 3
	case Int64:
		return 4
	}
	return 0
}

// intDigits is the number of decimal digits an integer kind needs.
func intDigits(k Kind) int32 { return [...]int32{0, 3, 5, 10, 20}[intRank(k)] }

// Widens reports whether every value of from is exactly a value of to (leaf types; nested
// types are checked by Resolve child by child).
func Widens(from, to Type) bool {
	if from == to {
		return true
	}
	switch {
	case intRank(from.Kind) > 0 && intRank(to.Kind) > 0:
		return intRank(from.Kind) <= intRank(to.Kind)
	case from.Kind == Float32 && to.Kind == Float64:
		return true
	case intRank(from.Kind) > 0 && intRank(from.Kind) <= 3 && to.Kind == Float64:
		return true
	case intRank(from.Kind) > 0 && to.Kind == Decimal:
		return to.Precision-to.Scale >= intDigits(from.Kind)
	case from.Kind == Decimal && to.Kind == Decimal:
		return to.Scale >= from.Scale && to.Precision-to.Scale >= from.Precision-from.Scale
	case from.Kind == Date && to.Kind == Timestamp:
		return !to.UTC && to.Unit != prune.UnitInvalid
	case from.Kind == Timestamp && to.Kind == Timestamp:
		return from.UTC == to.UTC && from.Unit != prune.UnitInvalid && to.Unit != prune.UnitInvalid
	case from.Kind == String && to.Kind == Binary:
		return true
	case from.Kind == Struct && to.Kind == Struct, from.Kind == List && to.Kind == List, from.Kind == Map && to.Kind == Map:
		return true // children decide
	}
	return false
}
