package format

import (
	"github.com/pqscan/pqscan/internal/decode/thrift"
)

// Decoders for the footer: FileMetaData, RowGroup, ColumnChunk and their small helpers
// (parquet.thrift "FileMetaData", "RowGroup", "ColumnChunk", "KeyValue", "SortingColumn",
// "ColumnOrder").

// DecodeFileMetaData decodes the footer's FileMetaData from b, which holds exactly the
// footer_length bytes that precede the final length and magic. Trailing bytes after the struct
// are ignored. The result does not alias b.
func DecodeFileMetaData(b []byte) (*FileMetaData, error) {
	if len(b) == 0 {
		return nil, ErrEmpty
	}
	return readFileMetaData(thrift.NewReader(b))
}

var fileMetaDataSpec = structSpec{name: "FileMetaData", fields: []field{
	{1, thrift.I32, true, "version"},
	{2, thrift.List, true, "schema"},
	{3, thrift.I64, true, "num_rows"},
	{4, thrift.List, true, "row_groups"},
	{5, thrift.List, false, "key_value_metadata"},
	{6, thrift.Binary, false, "created_by"},
	{7, thrift.List, false, "column_orders"},
	{8, thrift.Struct, false, "encryption_algorithm"},
	{9, thrift.Binary, false, "footer_signing_key_metadata"},
}}

func readFileMetaData(r *thrift.Reader) (*FileMetaData, error) {
	m := &FileMetaData{}
	a := &alloc{}
	err := readStruct(r, &fileMetaDataSpec, func(f *field, t thrift.Type) (err error) {
		switch f.id {
		case 1:
			m.Version, err = r.I32()
		case 2:
			m.Schema, err = readList(r, thrift.Struct, minSchemaElement, func() (SchemaElement, error) { return readSchemaElement(r) })
		case 3:
			m.NumRows, err = r.I64()
		case 4:
			m.RowGroups, err = readList(r, thrift.Struct, minRowGroup, func() (RowGroup, error) { return readRowGroup(r, a) })
		case 5:
			m.KeyValueMetadata, err = readKeyValues(r)
		case 6:
			m.CreatedBy, err = optString(r)
		case 7:
			m.ColumnOrders, err = readList(r, thrift.Struct, minColumnOrder, func() (ColumnOrder, error) { return readColumnOrder(r) })
		case 8:
			m.Encrypted = true
			err = r.Skip(t)
		case 9:
			m.FooterSigningKeyMetadata, err = r.Binary()
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

var keyValueSpec = structSpec{name: "KeyValue", fields: []field{
	{1, thrift.Binary, true, "key"},
	{2, thrift.Binary, false, "value"},
}}

func readKeyValues(r *thrift.Reader) ([]KeyValue, error) {
	return readList(r, thrift.Struct, minKeyValue, func() (KeyValue, error) {
		var kv KeyValue
		err := readStruct(r, &keyValueSpec, func(f *field, _ thrift.Type) (err error) {
			if f.id == 1 {
				kv.Key, err = r.String()
			} else {
				kv.Value, err = optString(r)
			}
			return err
		})
		return kv, err
	})
}

var rowGroupSpec = structSpec{name: "RowGroup", fields: []field{
	{1, thrift.List, true, "columns"},
	{2, thrift.I64, true, "total_byte_size"},
	{3, thrift.I64, true, "num_rows"},
	{4, thrift.List, false, "sorting_columns"},
	{5, thrift.I64, false, "file_offset"},
	{6, thrift.I64, false, "total_compressed_size"},
	{7, thrift.I16, false, "ordinal"},
}}

// readRowGroup reads one RowGroup; a holds the footer's slabs for the chunks' fast path.
func readRowGroup(r *thrift.Reader, a *alloc) (RowGroup, error) {
	var g RowGroup
	err := readStruct(r, &rowGroupSpec, func(f *field, _ thrift.Type) (err error) {
		switch f.id {
		case 1:
			g.Columns, err = readList(r, thrift.Struct, minColumnChunk, func() (ColumnChunk, error) { return readColumnChunk(r, a) })
		case 2:
			g.TotalByteSize, err = r.I64()
		case 3:
			g.NumRows, err = r.I64()
		case 4:
			g.SortingColumns, err = readList(r, thrift.Struct, minSortingColumn, func() (SortingColumn, error) { return readSortingColumn(r) })
		case 5:
			g.FileOffset, err = optI64(r)
		case 6:
			g.TotalCompressedSize, err = optI64(r)
		case 7:
			var v int16
			v, err = r.I16()
			g.Ordinal = &v
		}
		return err
	})
	return g, err
}

var sortingColumnSpec = structSpec{name: "SortingColumn", fields: []field{
	{1, thrift.I32, true, "column_idx"},
	{2, thrift.BoolTrue, true, "descending"},
	{3, thrift.BoolTrue, true, "nulls_first"},
}}

func readSortingColumn(r *thrift.Reader) (SortingColumn, error) {
	var s SortingColumn
	err := readStruct(r, &sortingColumnSpec, func(f *field, t thrift.Type) (err error) {
		switch f.id {
		case 1:
			s.ColumnIdx, err = r.I32()
		case 2:
			s.Descending = t == thrift.BoolTrue
		case 3:
			s.NullsFirst = t == thrift.BoolTrue
		}
		return err
	})
	return s, err
}

var columnOrderSpec = structSpec{name: "ColumnOrder", fields: []field{
	{1, thrift.Struct, false, "TYPE_ORDER"},
	{2, thrift.Struct, false, "IEEE_754_TOTAL_ORDER"},
	{3, thrift.Struct, false, "INT96_TIMESTAMP_ORDER"},
}}

func readColumnOrder(r *thrift.Reader) (ColumnOrder, error) {
	var o ColumnOrder
	err := readStruct(r, &columnOrderSpec, func(f *field, t thrift.Type) error {
		switch f.id {
		case 1:
			o.TypeDefinedOrder = true
		case 2:
			o.IEEE754TotalOrder = true
		case 3:
			o.Int96TimestampOrder = true
		}
		return r.Skip(t) // the members are empty structs; skip tolerates future fields
	})
	return o, err
}

var columnChunkSpec = structSpec{name: "ColumnChunk", fields: []field{
	{1, thrift.Binary, false, "file_path"},
	{2, thrift.I64, true, "file_offset"},
	{3, thrift.Struct, false, "meta_data"},
	{4, thrift.I64, false, "offset_index_offset"},
	{5, thrift.I32, false, "offset_index_length"},
	{6, thrift.I64, false, "column_index_offset"},
	{7, thrift.I32, false, "column_index_length"},
	{8, thrift.Struct, false, "crypto_metadata"},
	{9, thrift.Binary, false, "encrypted_column_metadata"},
}}

func readColumnChunk(r *thrift.Reader, a *alloc) (ColumnChunk, error) {
	if fastChunks {
		if c, ok := fastColumnChunk(r, a); ok {
			return c, nil
		}
	}
	var c ColumnChunk
	err := readStruct(r, &columnChunkSpec, func(f *field, t thrift.Type) (err error) {
		switch f.id {
		case 1:
			c.FilePath, err = optString(r)
		case 2:
			c.FileOffset, err = r.I64()
		case 3:
			c.MetaData, err = readColumnMetaData(r)
		case 4:
			c.OffsetIndexOffset, err = optI64(r)
		case 5:
			c.OffsetIndexLength, err = optI32(r)
		case 6:
			c.ColumnIndexOffset, err = optI64(r)
		case 7:
			c.ColumnIndexLength, err = optI32(r)
		case 8:
			c.HasCryptoMetadata = true
			err = r.Skip(t)
		case 9:
			c.EncryptedColumnMetadata, err = r.Binary()
		}
		return err
	})
	return c, err
}
