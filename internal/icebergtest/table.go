package icebergtest

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/pqscan/pqscan/internal/avro"
)

// Template is the corpus table a generated table takes its Avro schemas, header metadata and
// table metadata from (Trino's: c1 int, c2 date, c3 double; partitioned by identity(c1),
// identity(c2)), relative to the test data folder.
const Template = "iceberg/tables/lithium__partitioning_with_null_value"

// Day is c2 in every generated row (2025-03-03).
const Day = 20150

// Table describes a generated table: Parts partitions (c1 = 0 … Parts-1), each written by its
// own commit into its own manifest, of Files data files of Rows rows each. Row r of file f of
// partition p holds c1 = p, c2 = Day, c3 = C3(p, f, r).
type Table struct {
	Parts, Files, Rows int
	// Codec compresses the manifests and the manifest list (ContainerCodec); "": none.
	Codec string
}

// C3 is the value of c3 in row r of file f of partition p.
func (t Table) C3(p, f, r int) float64 { return float64((p*t.Files+f)*t.Rows + r) }

// DataFile is the path of file f of partition p, relative to the table root.
func DataFile(p, f int) string {
	return fmt.Sprintf("data/c1=%d/c2=2025-03-03/part-%05d.parquet", p, f)
}

// Manifest is the path of partition p's manifest, relative to the table root.
func Manifest(p int) string { return fmt.Sprintf("metadata/gen-m%d.avro", p) }

// ManifestList is the path of the manifest list.
const ManifestList = "metadata/snap-1-gen.avro"

// Write writes the table into dir from the template at tmpl (the Template folder): its data
// files, manifests, manifest list, metadata/v1.metadata.json and metadata/version-hint.text.
func (t Table) Write(dir, tmpl string) error {
	mt, err := readMetadata(tmpl)
	if err != nil {
		return err
	}
	loc, _ := mt["location"].(string)
	tm, tl, err := templateAvro(tmpl)
	if err != nil {
		return err
	}
	entry, listEntry := tm.Values[0].(map[string]any), tl.Values[0].(map[string]any)
	var list []any
	for p := range t.Parts {
		var entries []any
		for f := range t.Files {
			size, err := t.writeData(filepath.Join(dir, DataFile(p, f)), p, f)
			if err != nil {
				return err
			}
			e := clone(entry)
			e["status"], e["snapshot_id"] = int64(1), int64(1)
			df := e["data_file"].(map[string]any)
			df["file_path"], df["file_size_in_bytes"], df["record_count"] = loc+"/"+DataFile(p, f), size, int64(t.Rows)
			df["partition"] = map[string]any{"c1": int64(p), "c2": int64(Day)}
			lo, hi := t.C3(p, f, 0), t.C3(p, f, t.Rows-1)
			df["lower_bounds"] = []any{kv(1, le32(p)), kv(2, le32(Day)), kv(3, le64(lo))}
			df["upper_bounds"] = []any{kv(1, le32(p)), kv(2, le32(Day)), kv(3, le64(hi))}
			n := int64(t.Rows)
			df["value_counts"] = []any{kv(1, n), kv(2, n), kv(3, n)}
			df["null_value_counts"] = []any{kv(1, int64(0)), kv(2, int64(0)), kv(3, int64(0))}
			df["nan_value_counts"] = []any{kv(3, int64(0))}
			df["column_sizes"], df["split_offsets"] = []any{}, nil
			entries = append(entries, e)
		}
		b, err := ContainerCodec(tm, entries, t.Codec)
		if err != nil {
			return err
		}
		if err := writeFile(filepath.Join(dir, Manifest(p)), b); err != nil {
			return err
		}
		le := clone(listEntry)
		le["manifest_path"], le["manifest_length"] = loc+"/"+Manifest(p), int64(len(b))
		le["added_snapshot_id"], le["sequence_number"], le["min_sequence_number"] = int64(1), int64(1), int64(1)
		le["added_files_count"], le["added_rows_count"] = int64(t.Files), int64(t.Files*t.Rows)
		le["partitions"] = []any{
			map[string]any{"contains_null": false, "contains_nan": false, "lower_bound": le32(p), "upper_bound": le32(p)},
			map[string]any{"contains_null": false, "contains_nan": false, "lower_bound": le32(Day), "upper_bound": le32(Day)},
		}
		list = append(list, le)
	}
	b, err := ContainerCodec(tl, list, t.Codec)
	if err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, ManifestList), b); err != nil {
		return err
	}
	snap := map[string]any{"snapshot-id": 1, "sequence-number": 1, "timestamp-ms": 1741383000000, "schema-id": 0,
		"manifest-list": loc + "/" + ManifestList, "summary": map[string]any{"operation": "append"}}
	mt["snapshots"], mt["current-snapshot-id"], mt["last-sequence-number"] = []any{snap}, 1, 1
	mt["refs"] = map[string]any{"main": map[string]any{"snapshot-id": 1, "type": "branch"}}
	mt["snapshot-log"], mt["metadata-log"] = []any{}, []any{}
	js, err := json.Marshal(mt)
	if err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, "metadata/v1.metadata.json"), js); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, "metadata/version-hint.text"), []byte("1"))
}

// writeData writes file f of partition p and returns its size.
func (t Table) writeData(path string, p, f int) (int64, error) {
	id := func(n int) arrow.Metadata {
		return arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{strconv.Itoa(n)})
	}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "c1", Type: arrow.PrimitiveTypes.Int32, Nullable: true, Metadata: id(1)},
		{Name: "c2", Type: arrow.FixedWidthTypes.Date32, Nullable: true, Metadata: id(2)},
		{Name: "c3", Type: arrow.PrimitiveTypes.Float64, Nullable: true, Metadata: id(3)},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for r := range t.Rows {
		b.Field(0).(*array.Int32Builder).Append(int32(p))
		b.Field(1).(*array.Date32Builder).Append(arrow.Date32(Day))
		b.Field(2).(*array.Float64Builder).Append(t.C3(p, f, r))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(schema, &buf, nil, pqarrow.DefaultWriterProps())
	if err != nil {
		return 0, err
	}
	if err := w.Write(rec); err != nil {
		return 0, err
	}
	if err := w.Close(); err != nil {
		return 0, err
	}
	return int64(buf.Len()), writeFile(path, buf.Bytes())
}

// readMetadata reads the template's newest metadata file.
func readMetadata(tmpl string) (map[string]any, error) {
	files, err := filepath.Glob(filepath.Join(tmpl, "metadata", "*.metadata.json"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("icebergtest: no metadata in %s", tmpl)
	}
	b, err := os.ReadFile(files[len(files)-1])
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(b, &m)
}

// templateAvro reads the template's manifest and a manifest list with an entry.
func templateAvro(tmpl string) (manifest, list *avro.File, err error) {
	files, err := filepath.Glob(filepath.Join(tmpl, "metadata", "*.avro"))
	if err != nil {
		return nil, nil, err
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, nil, err
		}
		af, err := avro.Decode(b, 0)
		if err != nil || len(af.Values) == 0 {
			continue
		}
		if _, ok := af.Values[0].(map[string]any)["data_file"]; ok {
			manifest = af
		} else {
			list = af
		}
	}
	if manifest == nil || list == nil {
		return nil, nil, fmt.Errorf("icebergtest: %s has no manifest and manifest list with entries", tmpl)
	}
	return manifest, list, nil
}

func writeFile(p string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, b, 0o644)
}

// clone copies m and the records in it (the values set per entry are replaced, not edited).
func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok {
			v = clone(sub)
		}
		out[k] = v
	}
	return out
}

func kv(k int64, v any) any { return map[string]any{"key": k, "value": v} }

func le32(v int) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(int32(v))) }

func le64(f float64) []byte { return binary.LittleEndian.AppendUint64(nil, math.Float64bits(f)) }
