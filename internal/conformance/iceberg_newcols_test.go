package conformance

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/icebergtest"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_icebergAddedColumns: columns added to a table after its files were written read as
// nulls in those files whatever their type: a v3 unknown (Arrow's null type), a variant, a
// struct, a list, a map and a geography (typed geoarrow.wkb) (the generated table's current schema gains them; no file has
// them). Natively and in the wasm module.
func Test_icebergAddedColumns(t *testing.T) {
	tbl := icebergtest.Table{Parts: 2, Files: 1, Rows: 3}
	root := t.TempDir()
	require.NoError(t, tbl.Write(root, filepath.Join(testcorpus.Dir(t), icebergtest.Template)))
	p := filepath.Join(root, "metadata", "v1.metadata.json")
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	m["format-version"] = 3
	m["next-row-id"] = 0
	added := []any{
		map[string]any{"id": 100, "name": "u", "required": false, "type": "unknown"},
		map[string]any{"id": 101, "name": "v", "required": false, "type": "variant"},
		map[string]any{"id": 102, "name": "s", "required": false, "type": map[string]any{"type": "struct", "fields": []any{
			map[string]any{"id": 103, "name": "a", "required": true, "type": "long"},
			map[string]any{"id": 104, "name": "b", "required": false, "type": "string"}}}},
		map[string]any{"id": 105, "name": "l", "required": false, "type": map[string]any{"type": "list", "element-id": 106, "element": "int", "element-required": true}},
		map[string]any{"id": 107, "name": "mp", "required": false, "type": map[string]any{"type": "map", "key-id": 108, "key": "string", "value-id": 109, "value": "double", "value-required": false}},
		map[string]any{"id": 110, "name": "g", "required": false, "type": "geography(srid:4326, karney)"},
	}
	cur := m["current-schema-id"]
	for _, s := range m["schemas"].([]any) {
		sm := s.(map[string]any)
		if sm["schema-id"] == cur {
			sm["fields"] = append(sm["fields"].([]any), added...)
		}
	}
	b, err = json.Marshal(m)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p, b, 0o644))

	for _, eng := range []pqscan.Engine{pqscan.Native{}, wasmHost(t)} {
		ds, err := pqscan.OpenDataset(context.Background(), []string{p}, pqscan.Options{Engine: eng})
		require.NoError(t, err)
		g, ok := ds.Schema().FieldsByName("g")
		require.True(t, ok && extName(g[0]) == "geoarrow.wkb", "%T: g is %v", eng, g)
		rows := datasetRows(t, ds)
		ds.Close()
		require.Equal(t, tbl.Parts*tbl.Files*tbl.Rows, len(rows))
		for _, r := range rows {
			var got map[string]any
			require.NoError(t, json.Unmarshal([]byte(r), &got))
			for _, c := range []string{"u", "v", "s", "l", "mp", "g"} {
				v, ok := got[c]
				require.True(t, ok && v == nil, "%T: column %s is %v in %s", eng, c, v, r)
			}
		}
	}
}

// Test_icebergAvroCodecs: manifests and manifest lists compressed with each codec Iceberg
// writers use (Java's default deflate; snappy and zstd by write.avro.compression-codec, which
// manifests follow since Iceberg 1.11; PyIceberg's and iceberg-rust's zstd; Paimon wrote zstd
// by default): the rows known by construction, natively and in the wasm module (whose ZSTD
// decoder is the host's).
func Test_icebergAvroCodecs(t *testing.T) {
	for _, codec := range []string{"deflate", "snappy", "zstandard"} {
		tbl := icebergtest.Table{Parts: 3, Files: 2, Rows: 4, Codec: codec}
		root := t.TempDir()
		require.NoError(t, tbl.Write(root, filepath.Join(testcorpus.Dir(t), icebergtest.Template)))
		for _, eng := range []pqscan.Engine{pqscan.Native{}, wasmHost(t)} {
			ds, err := pqscan.OpenDataset(context.Background(), []string{root + "/"}, pqscan.Options{Engine: eng})
			require.NoError(t, err, codec)
			rows := datasetRowsWhere(t, ds, pqscan.ScanOptions{Where: "c1 = 1"})
			ds.Close()
			require.Equal(t, tbl.Files*tbl.Rows, len(rows), "%s %T", codec, eng)
			for _, r := range rows {
				require.True(t, strings.HasPrefix(r, `{"c1":"1",`), "%s %T: %s", codec, eng, r)
			}
		}
	}
}
