// Package format holds Go types for the Thrift structures of parquet.thrift (FileMetaData,
// PageHeader, ColumnIndex, OffsetIndex, BloomFilterHeader) and their decoders, built on the
// bounds-checked compact-protocol reader in decode/thrift.
//
// Spec: apache/parquet-format src/main/thrift/parquet.thrift (field ids and names follow it;
// Go names are the CamelCase of the thrift names).
//
// Conventions: optional scalars are pointers (nil = absent); optional binaries are []byte
// (nil = absent, non-nil empty = present and empty); enums are named int32 types that keep
// values unknown to this package. Decoded values never alias the input. Unknown fields are
// skipped, so files from newer writers decode. Required fields are enforced. Decoders check
// only what is needed for memory safety and for safe arithmetic on page sizes; semantic checks
// (schema tree shape, offsets inside the file, enum values) are the caller's job.
//
// Memory: every list count is checked against the remaining input (at the smallest size a
// valid element can have) before anything is allocated, and lists are allocated once at their
// final length. Decoding n bytes therefore allocates O(n) whatever the input; the tests hold
// hostile inputs to at most 48 bytes allocated per input byte (realistic footers are far
// below), so a caller bounds memory by bounding the footer and page-index lengths it accepts.
package format

// Magic is the 4-byte marker at the start and end of a Parquet file with a plaintext footer.
const Magic = "PAR1"

// MagicEncrypted ends a file written with Parquet Modular Encryption and an encrypted footer;
// such a footer is a FileCryptoMetaData followed by encrypted bytes and cannot be decoded here.
const MagicEncrypted = "PARE"

// FileMetaData is the footer of a Parquet file (parquet.thrift struct FileMetaData).
type FileMetaData struct {
	Version          int32
	Schema           []SchemaElement
	NumRows          int64
	RowGroups        []RowGroup
	KeyValueMetadata []KeyValue
	CreatedBy        *string
	ColumnOrders     []ColumnOrder
	// Encrypted is true when encryption_algorithm (field 8) is set, which happens only in
	// encrypted files with a plaintext footer: the footer is readable, the column data is not.
	Encrypted                bool
	FooterSigningKeyMetadata []byte
}

// KeyValue is a key/value metadata pair; Value is nil when the writer gave only a key.
type KeyValue struct {
	Key   string
	Value *string
}

// RowGroup is one horizontal partition of the file.
type RowGroup struct {
	Columns             []ColumnChunk
	TotalByteSize       int64
	NumRows             int64
	SortingColumns      []SortingColumn
	FileOffset          *int64
	TotalCompressedSize *int64
	Ordinal             *int16
}

// SortingColumn says a row group is sorted by one leaf column.
type SortingColumn struct {
	ColumnIdx  int32
	Descending bool
	NullsFirst bool
}

// ColumnChunk locates one column's data in one row group.
type ColumnChunk struct {
	FilePath   *string
	FileOffset int64
	// MetaData is nil when the writer left it out (the spec marks it optional; encrypted
	// columns may carry only EncryptedColumnMetadata). Callers must check before use.
	MetaData          *ColumnMetaData
	OffsetIndexOffset *int64
	OffsetIndexLength *int32
	ColumnIndexOffset *int64
	ColumnIndexLength *int32
	// HasCryptoMetadata is true when crypto_metadata (field 8) is set: the column is encrypted.
	HasCryptoMetadata bool
	// EncryptedColumnMetadata is field 9; when set, MetaData may be absent or a redacted copy.
	EncryptedColumnMetadata []byte
}

// IsEncrypted reports whether the chunk's data (and possibly its metadata) is encrypted, which
// this module cannot read.
func (c *ColumnChunk) IsEncrypted() bool {
	return c.HasCryptoMetadata || c.EncryptedColumnMetadata != nil
}

// ColumnMetaData describes a column chunk: its type, codec, sizes, page offsets and statistics.
type ColumnMetaData struct {
	Type                  Type
	Encodings             []Encoding
	PathInSchema          []string
	Codec                 CompressionCodec
	NumValues             int64
	TotalUncompressedSize int64
	TotalCompressedSize   int64
	KeyValueMetadata      []KeyValue
	DataPageOffset        int64
	IndexPageOffset       *int64
	DictionaryPageOffset  *int64
	Statistics            *Statistics
	EncodingStats         []PageEncodingStats
	BloomFilterOffset     *int64
	BloomFilterLength     *int32
	SizeStatistics        *SizeStatistics
	GeospatialStatistics  *GeospatialStatistics
}

// Statistics are min/max/null counts for a column chunk or a page. Values are PLAIN-encoded
// without the length prefix of BYTE_ARRAY. Max and Min are the deprecated signed-order fields;
// MaxValue and MinValue follow the column's ColumnOrder.
type Statistics struct {
	Max             []byte
	Min             []byte
	NullCount       *int64
	DistinctCount   *int64
	MaxValue        []byte
	MinValue        []byte
	IsMaxValueExact *bool
	IsMinValueExact *bool
	// NanCount (field 9) counts NaNs of FLOAT/DOUBLE/FLOAT16 columns; nil means NaNs may exist.
	NanCount *int64
}

// PageEncodingStats counts the pages of one type and encoding in a column chunk.
type PageEncodingStats struct {
	PageType PageType
	Encoding Encoding
	Count    int32
}

// SizeStatistics estimate the unencoded size of a chunk and give level histograms.
type SizeStatistics struct {
	UnencodedByteArrayDataBytes *int64
	RepetitionLevelHistogram    []int64
	DefinitionLevelHistogram    []int64
}

// GeospatialStatistics are statistics of GEOMETRY and GEOGRAPHY columns.
type GeospatialStatistics struct {
	BBox            *BoundingBox
	GeospatialTypes []int32
}

// BoundingBox is the bounding box of the geometries in a chunk.
type BoundingBox struct {
	Xmin, Xmax, Ymin, Ymax float64
	Zmin, Zmax, Mmin, Mmax *float64
}

// ColumnOrder (a thrift union) says how MinValue/MaxValue and the column index are ordered.
// When no flag is set the writer used an order unknown here and min/max must be ignored.
type ColumnOrder struct {
	TypeDefinedOrder    bool
	IEEE754TotalOrder   bool
	Int96TimestampOrder bool
}
