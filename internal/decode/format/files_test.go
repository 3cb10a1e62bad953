package format

import (
	"testing"

	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

func decodeFooter(t *testing.T, name string) (*FileMetaData, []byte) {
	t.Helper()
	file := testcorpus.Read(t, name)
	meta, magic, ok := footer(file)
	require.True(t, ok && magic == Magic, name, magic)
	m, err := DecodeFileMetaData(meta)
	require.NoError(t, err, name)
	return m, file
}

func leafByName(m *FileMetaData, name string) *SchemaElement {
	for i := range m.Schema {
		if m.Schema[i].Name == name {
			return &m.Schema[i]
		}
	}
	return nil
}

// Test_DecodeFileMetaData_features checks fields that the hyparquet expectations do not cover,
// each on a corpus file made to exercise it (testdata/README.md, "Notable files by feature").
func Test_DecodeFileMetaData_features(t *testing.T) {
	tests := []struct {
		name  string
		file  string
		check func(t *testing.T, m *FileMetaData, file []byte)
	}{
		{name: "unknown logical type falls back", file: "parquet-testing/data/unknown-logical-type.parquet",
			check: func(t *testing.T, m *FileMetaData, _ []byte) {
				e := leafByName(m, "column with unknown type")
				require.True(t, e != nil && e.LogicalType != nil)
				require.Equal(t, LogicalUnrecognized, e.LogicalType.Kind)
				require.Equal(t, ByteArray, *e.Type)
				require.Equal(t, LogicalString, leafByName(m, "column with known type").LogicalType.Kind)
			}},
		{name: "corrupt physical type decodes and is invalid", file: "parquet-testing/bad_data/PARQUET-1481.parquet",
			check: func(t *testing.T, m *FileMetaData, _ []byte) {
				require.True(t, !m.Schema[1].Type.Valid(), m.Schema[1].Type.String())
				require.Equal(t, "Type(-7)", m.Schema[1].Type.String())
			}},
		{name: "plaintext footer of an encrypted file", file: "parquet-testing/data/encrypt_columns_plaintext_footer.parquet.encrypted",
			check: func(t *testing.T, m *FileMetaData, _ []byte) {
				require.True(t, m.Encrypted)
				var enc int
				for _, c := range m.RowGroups[0].Columns {
					if c.IsEncrypted() {
						enc++
					}
				}
				require.True(t, enc > 0, "no encrypted column chunk found")
			}},
		{name: "plain file is not encrypted", file: "parquet-testing/data/alltypes_plain.parquet",
			check: func(t *testing.T, m *FileMetaData, _ []byte) {
				require.True(t, !m.Encrypted)
				for _, c := range m.RowGroups[0].Columns {
					require.True(t, !c.IsEncrypted())
				}
			}},
		{name: "IEEE 754 total order and nan_count", file: "parquet-testing/data/floating_orders_nan_count.parquet",
			check: func(t *testing.T, m *FileMetaData, _ []byte) {
				var ieee, nan int
				for _, o := range m.ColumnOrders {
					if o.IEEE754TotalOrder {
						ieee++
					}
				}
				for _, rg := range m.RowGroups {
					for _, c := range rg.Columns {
						if s := c.MetaData.Statistics; s != nil && s.NanCount != nil {
							nan++
						}
					}
				}
				require.True(t, ieee > 0 && nan > 0, "ieee orders", ieee, "nan counts", nan)
			}},
		{name: "type defined order", file: "parquet-testing/data/alltypes_tiny_pages.parquet",
			check: func(t *testing.T, m *FileMetaData, _ []byte) {
				require.Equal(t, len(leaves(m.Schema)), len(m.ColumnOrders))
				for _, o := range m.ColumnOrders {
					require.Equal(t, ColumnOrder{TypeDefinedOrder: true}, o)
				}
			}},
		{name: "sorting columns", file: "parquet-testing/data/sort_columns.parquet",
			check: func(t *testing.T, m *FileMetaData, _ []byte) {
				require.Equal(t, 2, len(m.RowGroups))
				for _, rg := range m.RowGroups {
					require.True(t, len(rg.SortingColumns) > 0)
				}
				t.Logf("%+v", m.RowGroups[0].SortingColumns)
			}},
		{name: "column chunk key without value", file: "parquet-testing/data/column_chunk_key_value_metadata.parquet",
			check: func(t *testing.T, m *FileMetaData, _ []byte) {
				var kvs []KeyValue
				for _, c := range m.RowGroups[0].Columns {
					kvs = append(kvs, c.MetaData.KeyValueMetadata...)
				}
				var noValue int
				for _, kv := range kvs {
					if kv.Value == nil {
						noValue++
					}
				}
				require.True(t, len(kvs) > 0 && noValue > 0, kvs)
			}},
		{name: "truncated min/max are inexact", file: "parquet-testing/data/binary_truncated_min_max.parquet",
			check: func(t *testing.T, m *FileMetaData, _ []byte) {
				var inexact int
				for _, c := range m.RowGroups[0].Columns {
					s := c.MetaData.Statistics
					if s != nil && s.IsMaxValueExact != nil && !*s.IsMaxValueExact {
						inexact++
					}
				}
				require.True(t, inexact > 0)
			}},
		{name: "v2 page is_compressed false", file: "arrow-testing/parquet/ARROW-17100.parquet",
			check: func(t *testing.T, m *FileMetaData, file []byte) {
				md := m.RowGroups[0].Columns[0].MetaData
				h, _, err := DecodePageHeader(file[md.DataPageOffset:])
				require.NoError(t, err)
				require.True(t, h.DataPageHeaderV2 != nil && !h.DataPageHeaderV2.IsCompressed, h)
			}},
		{name: "page CRC", file: "parquet-testing/data/datapage_v1-snappy-compressed-checksum.parquet",
			check: func(t *testing.T, m *FileMetaData, file []byte) {
				md := m.RowGroups[0].Columns[0].MetaData
				h, _, err := DecodePageHeader(file[md.DataPageOffset:])
				require.NoError(t, err)
				require.True(t, h.CRC != nil)
			}},
		{name: "time and timestamp logical types", file: "arrow-testing/parquet/alltypes-java.parquet",
			check: func(t *testing.T, m *FileMetaData, _ []byte) {
				kinds := map[LogicalKind]int{}
				units := map[TimeUnit]int{}
				for _, e := range m.Schema {
					if lt := e.LogicalType; lt != nil {
						kinds[lt.Kind]++
						if lt.Kind == LogicalTime || lt.Kind == LogicalTimestamp {
							units[lt.Unit]++
						}
					}
				}
				t.Logf("kinds %v units %v", kinds, units)
				require.True(t, kinds[LogicalTimestamp] > 0 && kinds[LogicalTime] > 0 && kinds[LogicalInteger] > 0)
				require.Equal(t, 0, units[TimeUnitUnrecognized])
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, file := decodeFooter(t, tc.file)
			tc.check(t, m, file)
		})
	}
}

// Test_encryptedFooterMagic checks the corpus' encrypted-footer files end in MagicEncrypted,
// which is how a reader must recognise them (their footer is not a FileMetaData).
func Test_encryptedFooterMagic(t *testing.T) {
	var pare int
	for _, name := range testcorpus.Files(t, ".parquet.encrypted") {
		_, magic, _ := footer(testcorpus.Read(t, name))
		if magic == MagicEncrypted {
			pare++
		}
	}
	require.Equal(t, 11, pare)
}
