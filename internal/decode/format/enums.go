package format

import "strconv"

// Enums of parquet.thrift. Each is a named int32 with the wire values of the spec, so a value a
// newer writer adds still decodes (String shows it as e.g. "Encoding(10)"); use Valid where only
// the values known here make sense.

// Type is the physical type of a leaf column (parquet.thrift enum Type).
type Type int32

// Physical types.
const (
	Boolean           Type = 0
	Int32             Type = 1
	Int64             Type = 2
	Int96             Type = 3
	Float             Type = 4
	Double            Type = 5
	ByteArray         Type = 6
	FixedLenByteArray Type = 7
)

func (t Type) String() string {
	return enumName("Type", int32(t), "BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE",
		"BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY")
}

// Valid reports whether t is one of the eight physical types.
func (t Type) Valid() bool { return t >= Boolean && t <= FixedLenByteArray }

// ConvertedType is the deprecated logical annotation (parquet.thrift enum ConvertedType), still
// the only annotation in files from older writers.
type ConvertedType int32

// Converted types.
const (
	ConvertedUTF8            ConvertedType = 0
	ConvertedMap             ConvertedType = 1
	ConvertedMapKeyValue     ConvertedType = 2
	ConvertedList            ConvertedType = 3
	ConvertedEnum            ConvertedType = 4
	ConvertedDecimal         ConvertedType = 5
	ConvertedDate            ConvertedType = 6
	ConvertedTimeMillis      ConvertedType = 7
	ConvertedTimeMicros      ConvertedType = 8
	ConvertedTimestampMillis ConvertedType = 9
	ConvertedTimestampMicros ConvertedType = 10
	ConvertedUint8           ConvertedType = 11
	ConvertedUint16          ConvertedType = 12
	ConvertedUint32          ConvertedType = 13
	ConvertedUint64          ConvertedType = 14
	ConvertedInt8            ConvertedType = 15
	ConvertedInt16           ConvertedType = 16
	ConvertedInt32           ConvertedType = 17
	ConvertedInt64           ConvertedType = 18
	ConvertedJSON            ConvertedType = 19
	ConvertedBSON            ConvertedType = 20
	ConvertedInterval        ConvertedType = 21
)

func (c ConvertedType) String() string {
	return enumName("ConvertedType", int32(c), "UTF8", "MAP", "MAP_KEY_VALUE", "LIST", "ENUM",
		"DECIMAL", "DATE", "TIME_MILLIS", "TIME_MICROS", "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS",
		"UINT_8", "UINT_16", "UINT_32", "UINT_64", "INT_8", "INT_16", "INT_32", "INT_64", "JSON",
		"BSON", "INTERVAL")
}

// FieldRepetitionType says whether a schema node is required, optional or repeated. (The
// format repository has a proposed VECTOR = 3; it decodes as FieldRepetitionType(3) and readers
// that do not support it must reject it.)
type FieldRepetitionType int32

// Repetition types.
const (
	Required FieldRepetitionType = 0
	Optional FieldRepetitionType = 1
	Repeated FieldRepetitionType = 2
)

func (f FieldRepetitionType) String() string {
	return enumName("FieldRepetitionType", int32(f), "REQUIRED", "OPTIONAL", "REPEATED")
}

// Encoding is a page or level encoding (parquet.thrift enum Encoding; 1 was GROUP_VAR_INT and
// is unused).
type Encoding int32

// Encodings.
const (
	Plain                Encoding = 0
	PlainDictionary      Encoding = 2
	RLE                  Encoding = 3
	BitPacked            Encoding = 4
	DeltaBinaryPacked    Encoding = 5
	DeltaLengthByteArray Encoding = 6
	DeltaByteArray       Encoding = 7
	RLEDictionary        Encoding = 8
	ByteStreamSplit      Encoding = 9
	ALP                  Encoding = 10
)

func (e Encoding) String() string {
	return enumName("Encoding", int32(e), "PLAIN", "GROUP_VAR_INT", "PLAIN_DICTIONARY", "RLE",
		"BIT_PACKED", "DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY",
		"RLE_DICTIONARY", "BYTE_STREAM_SPLIT", "ALP")
}

// CompressionCodec is the page compression of a column chunk.
type CompressionCodec int32

// Codecs. Lz4 is the deprecated Hadoop-framed LZ4; Lz4Raw is the plain LZ4 block format.
const (
	Uncompressed CompressionCodec = 0
	Snappy       CompressionCodec = 1
	Gzip         CompressionCodec = 2
	Lzo          CompressionCodec = 3
	Brotli       CompressionCodec = 4
	Lz4          CompressionCodec = 5
	Zstd         CompressionCodec = 6
	Lz4Raw       CompressionCodec = 7
)

func (c CompressionCodec) String() string {
	return enumName("CompressionCodec", int32(c), "UNCOMPRESSED", "SNAPPY", "GZIP", "LZO",
		"BROTLI", "LZ4", "ZSTD", "LZ4_RAW")
}

// PageType tells which of PageHeader's sub-headers is set.
type PageType int32

// Page types.
const (
	DataPage       PageType = 0
	IndexPage      PageType = 1
	DictionaryPage PageType = 2
	DataPageV2     PageType = 3
)

func (p PageType) String() string {
	return enumName("PageType", int32(p), "DATA_PAGE", "INDEX_PAGE", "DICTIONARY_PAGE",
		"DATA_PAGE_V2")
}

// BoundaryOrder says whether a ColumnIndex's min/max lists are sorted.
type BoundaryOrder int32

// Boundary orders.
const (
	Unordered  BoundaryOrder = 0
	Ascending  BoundaryOrder = 1
	Descending BoundaryOrder = 2
)

func (b BoundaryOrder) String() string {
	return enumName("BoundaryOrder", int32(b), "UNORDERED", "ASCENDING", "DESCENDING")
}

// EdgeInterpolationAlgorithm is the edge model of a GEOGRAPHY column (default SPHERICAL).
type EdgeInterpolationAlgorithm int32

// Edge interpolation algorithms.
const (
	Spherical EdgeInterpolationAlgorithm = 0
	Vincenty  EdgeInterpolationAlgorithm = 1
	Thomas    EdgeInterpolationAlgorithm = 2
	Andoyer   EdgeInterpolationAlgorithm = 3
	Karney    EdgeInterpolationAlgorithm = 4
)

func (e EdgeInterpolationAlgorithm) String() string {
	return enumName("EdgeInterpolationAlgorithm", int32(e), "SPHERICAL", "VINCENTY", "THOMAS",
		"ANDOYER", "KARNEY")
}

func enumName(typ string, v int32, names ...string) string {
	if v >= 0 && int(v) < len(names) {
		return names[v]
	}
	return typ + "(" + strconv.Itoa(int(v)) + ")"
}
