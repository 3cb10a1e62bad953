// Package arrowipc is a minimal in-memory Arrow columnar model and an Arrow IPC stream encoder.
//
// It exists so that the wasm module can emit Arrow without linking arrow-go (which costs
// megabytes; see docs/ARCHITECTURE.md). It supports exactly the types the Parquet decoder
// produces. Buffers follow the Arrow columnar format: validity bitmaps are LSB-first, offsets are
// int32, all values little-endian.
//
// Ownership: an Array's slices belong to the Array; the encoder only reads them.
package arrowipc

// TypeID names an Arrow logical type.
type TypeID uint8

const (
	Null                 TypeID = iota // no buffers
	Bool                               // values bitmap in Data
	Int                                // BitWidth 8/16/32/64, Signed
	Float                              // BitWidth 16/32/64
	Utf8                               // Offsets + Data
	Binary                             // Offsets + Data
	FixedSizeBinary                    // ByteWidth bytes per value in Data
	Decimal                            // BitWidth 128 or 256, Precision, Scale; little-endian two's complement in Data
	Date32                             // int32 days since epoch
	Time                               // BitWidth 32 (Second/Milli) or 64 (Micro/Nano), Unit
	Timestamp                          // int64, Unit, TZ ("" = naive, "UTC" when adjusted to UTC)
	IntervalMonthDayNano               // 16 bytes: int32 months, int32 days, int64 nanoseconds
	List                               // Offsets; Children[0] is the element array; Elem is the element field
	Struct                             // Children match Fields
	Map                                // Offsets; Children[0] is a non-null Struct{key, value}; Elem is the "entries" field
)

// TimeUnit is Arrow's time unit.
type TimeUnit uint8

const (
	Second TimeUnit = iota
	Millisecond
	Microsecond
	Nanosecond
)

// DataType describes an Arrow type. Only the fields relevant to ID are meaningful.
type DataType struct {
	ID        TypeID
	BitWidth  int // Int, Float, Decimal, Time
	Signed    bool
	ByteWidth int // FixedSizeBinary
	Precision int // Decimal
	Scale     int // Decimal
	Unit      TimeUnit
	TZ        string
	// Elem is the element field of a List, or the entries field (a Struct of key and value) of a Map.
	Elem *Field
	// Fields are a Struct's children.
	Fields []Field
	// KeysSorted is the Map flag.
	KeysSorted bool
	// Dictionary, when true, means the column is dictionary-encoded: the Array holds int32
	// indices in Data and the values in Dict. The value type is this DataType with Dictionary false.
	Dictionary bool
}

// Field is a named, possibly nullable column or child.
type Field struct {
	Name     string
	Type     DataType
	Nullable bool
	// Metadata is Arrow field metadata, e.g. {"ARROW:extension:name", "arrow.uuid"}.
	Metadata [][2]string
}

// Array is one column (or child) of a record batch.
type Array struct {
	Len       int
	NullCount int
	// Validity is the LSB-first validity bitmap; nil means every value is valid (NullCount 0).
	Validity []byte
	// Offsets has Len+1 entries for Utf8, Binary, List and Map.
	Offsets []int32
	// Data holds fixed-width values, the Bool values bitmap, the bytes of Utf8/Binary, or int32
	// dictionary indices when the type is dictionary-encoded.
	Data []byte
	// Children: List and Map have one, Struct has one per field.
	Children []*Array
	// Dict holds the dictionary values of a dictionary-encoded array.
	Dict *Array
}

// Schema is the top-level list of fields plus schema metadata.
type Schema struct {
	Fields   []Field
	Metadata [][2]string
}
