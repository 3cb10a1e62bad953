package conformance

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
)

// A column-mapped Delta table, generated: its data files name columns by physical names
// (col-…) and Parquet field ids, its log by logical names with the mapping in each field's
// metadata. Version 0 has id, name, s.a and the partition column p; version 1 renames name to
// title and s.a to s.b; version 2 drops title; version 3 adds a title again (a new physical
// name and id). Each version adds one file of three rows. Expectations come from the rows.

// cmRow is one row: name is the first title's value (files 0 and 1), title2 the re-added
// title's (file 3); "" means the file has no such column.
type cmRow struct {
	id     int64
	name   string
	a      int32
	p      string
	title2 string
}

// cmFiles are the rows of the file each version adds (file k at version k).
var cmFiles = [4][]cmRow{
	{{1, "n1", 1, "x", ""}, {2, "n2", 2, "x", ""}, {3, "n3", 3, "x", ""}},
	{{11, "m11", 11, "y", ""}, {12, "m12", 12, "y", ""}, {13, "m13", 13, "y", ""}},
	{{21, "", 21, "x", ""}, {22, "", 22, "x", ""}, {23, "", 23, "x", ""}},
	{{31, "", 31, "y", "z31"}, {32, "", 32, "y", "z32"}, {33, "", 33, "y", "z33"}},
}

// cmField is a field of the log's schema: logical name, type, physical name and id.
type cmField struct {
	name, typ, phys string
	id              int
	kids            []cmField
}

func (f cmField) json() map[string]any {
	var typ any = f.typ
	if f.kids != nil {
		var kids []any
		for _, k := range f.kids {
			kids = append(kids, k.json())
		}
		typ = map[string]any{"type": "struct", "fields": kids}
	}
	return map[string]any{"name": f.name, "type": typ, "nullable": true,
		"metadata": map[string]any{"delta.columnMapping.id": f.id, "delta.columnMapping.physicalName": f.phys}}
}

// cmSchemas is the log's schema at each version.
func cmSchemas() [4][]cmField {
	s := func(sub string) cmField {
		return cmField{name: "s", phys: "col-s", id: 3, kids: []cmField{{name: sub, typ: "integer", phys: "col-a", id: 4}}}
	}
	id := cmField{name: "id", typ: "long", phys: "col-id", id: 1}
	p := cmField{name: "p", typ: "string", phys: "col-p", id: 5}
	return [4][]cmField{
		{id, {name: "name", typ: "string", phys: "col-name", id: 2}, s("a"), p},
		{id, {name: "title", typ: "string", phys: "col-name", id: 2}, s("b"), p},
		{id, s("b"), p},
		{id, s("b"), p, {name: "title", typ: "string", phys: "col-title2", id: 6}},
	}
}

// cmFileField is a data file's Arrow field: in name mode the physical name with a wrong
// field id (name mode must not use ids); in id mode another name with the right id (id mode
// must not use names), unless the file has no ids (then the physical name).
func cmFileField(mode string, ids bool, phys string, id int, typ arrow.DataType) arrow.Field {
	f := arrow.Field{Name: phys, Type: typ, Nullable: true}
	switch {
	case mode == "name":
		f.Metadata = arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{strconv.Itoa(100 - id)})
	case ids:
		f.Name = "file-" + strconv.Itoa(id)
		f.Metadata = arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{strconv.Itoa(id)})
	}
	return f
}

// writeColumnMappedTable writes the table in mode "name" or "id". In id mode file 2 has no
// field ids (read by physical names). File 0 also holds a column named "title" (no physical
// name of the table's) whose values must never be returned.
func writeColumnMappedTable(t *testing.T, mode string) string {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "_delta_log"), 0o755))
	schemas := cmSchemas()
	for v, rows := range cmFiles {
		ids := mode == "id" && v != 2
		fields := []arrow.Field{cmFileField(mode, ids, "col-id", 1, arrow.PrimitiveTypes.Int64)}
		if rows[0].name != "" {
			fields = append(fields, cmFileField(mode, ids, "col-name", 2, arrow.BinaryTypes.String))
		}
		fields = append(fields, cmFileField(mode, ids, "col-s", 3, arrow.StructOf(cmFileField(mode, ids, "col-a", 4, arrow.PrimitiveTypes.Int32))))
		if rows[0].title2 != "" {
			fields = append(fields, cmFileField(mode, ids, "col-title2", 6, arrow.BinaryTypes.String))
		}
		if v == 0 {
			fields = append(fields, arrow.Field{Name: "title", Type: arrow.BinaryTypes.String, Nullable: true})
		}
		sc := arrow.NewSchema(fields, nil)
		var data []map[string]any
		lo, hi := rows[0], rows[len(rows)-1]
		for _, r := range rows {
			m := map[string]any{fields[0].Name: r.id}
			for _, f := range fields[1:] {
				switch {
				case f.Name == "title":
					m[f.Name] = "DECOY"
				case f.Type.ID() == arrow.STRUCT:
					m[f.Name] = map[string]any{f.Type.(*arrow.StructType).Field(0).Name: r.a}
				case strings.HasSuffix(f.Name, "-2") || f.Name == "col-name":
					m[f.Name] = r.name
				default:
					m[f.Name] = r.title2
				}
			}
			data = append(data, m)
		}
		rel := fmt.Sprintf("%s/part-%d.parquet", lo.p, v)
		require.NoError(t, os.MkdirAll(filepath.Join(root, lo.p), 0o755))
		size := writeParquetRows(t, filepath.Join(root, rel), sc, data)
		// Statistics by physical names, as writers record them.
		mins := map[string]any{"col-id": lo.id, "col-s": map[string]any{"col-a": lo.a}}
		maxs := map[string]any{"col-id": hi.id, "col-s": map[string]any{"col-a": hi.a}}
		if lo.name != "" {
			mins["col-name"], maxs["col-name"] = lo.name, hi.name
		}
		if lo.title2 != "" {
			mins["col-title2"], maxs["col-title2"] = lo.title2, hi.title2
		}
		stats, err := json.Marshal(map[string]any{"numRecords": len(rows), "minValues": mins, "maxValues": maxs,
			"nullCount": map[string]any{"col-id": 0, "col-s": map[string]any{"col-a": 0}}})
		require.NoError(t, err)
		var fs []any
		for _, f := range schemas[v] {
			fs = append(fs, f.json())
		}
		schemaString, err := json.Marshal(map[string]any{"type": "struct", "fields": fs})
		require.NoError(t, err)
		var log []map[string]any
		if v == 0 {
			log = append(log, map[string]any{"protocol": map[string]any{"minReaderVersion": 2, "minWriterVersion": 5}})
		}
		log = append(log,
			map[string]any{"metaData": map[string]any{"id": "mapped", "format": map[string]any{"provider": "parquet", "options": map[string]any{}},
				"schemaString": string(schemaString), "partitionColumns": []string{"p"}, "createdTime": 0,
				"configuration": map[string]any{"delta.columnMapping.mode": mode, "delta.columnMapping.maxColumnId": "6"}}},
			map[string]any{"add": map[string]any{"path": rel, "partitionValues": map[string]any{"col-p": lo.p}, "size": size,
				"modificationTime": 0, "dataChange": true, "stats": string(stats)}})
		var b strings.Builder
		for _, a := range log {
			line, err := json.Marshal(a)
			require.NoError(t, err)
			b.Write(append(line, '\n'))
		}
		require.NoError(t, os.WriteFile(filepath.Join(root, "_delta_log", fmt.Sprintf("%020d.json", v)), []byte(b.String()), 0o644))
	}
	return root
}

// cmWant is the table's rows at version v that keep selects, in canonRows' form, with the
// columns of cols (nil: all of the version's).
func cmWant(v int, keep func(cmRow) bool, cols []string) []string {
	q := func(s string) string {
		if s == "" {
			return "null"
		}
		return strconv.Quote(s)
	}
	var out []string
	for k := 0; k <= v; k++ {
		for _, r := range cmFiles[k] {
			if !keep(r) {
				continue
			}
			vals := map[string]string{"id": strconv.FormatInt(r.id, 10), "p": q(r.p)}
			switch v {
			case 0:
				vals["name"], vals["s"] = q(r.name), fmt.Sprintf(`{"a":%d}`, r.a)
			case 1:
				vals["title"], vals["s"] = q(r.name), fmt.Sprintf(`{"b":%d}`, r.a)
			case 2:
				vals["s"] = fmt.Sprintf(`{"b":%d}`, r.a)
			case 3:
				vals["title"], vals["s"] = q(r.title2), fmt.Sprintf(`{"b":%d}`, r.a)
			}
			var parts []string
			for c, val := range vals {
				if cols == nil || strings.Contains(","+strings.Join(cols, ",")+",", ","+c+",") {
					parts = append(parts, c+"="+val)
				}
			}
			slices.Sort(parts)
			out = append(out, strings.Join(parts, "|"))
		}
	}
	return out
}

// Test_deltaColumnMapping reads the generated table in both modes at every version, natively
// and in the wasm module: renamed columns keep their data, a dropped column's data is gone, a
// re-added one does not pick it up, the partition column comes from its physical key, and
// filters on renamed and nested columns prune files by statistics kept under physical names.
func Test_deltaColumnMapping(t *testing.T) {
	all := func(cmRow) bool { return true }
	cases := []struct {
		name     string
		version  int
		where    string
		cols     []string
		keep     func(cmRow) bool
		parts    int // files after partition values (-1: not checked)
		afterSts int // files after statistics (-1: not checked)
	}{
		{name: "v0", version: 0, keep: all, parts: 1, afterSts: 1},
		{name: "v1 rename", version: 1, keep: all, parts: 2, afterSts: 2},
		{name: "v2 drop", version: 2, keep: all, parts: 3, afterSts: 3},
		{name: "v3 added back", version: 3, keep: all, parts: 4, afterSts: 4},
		{name: "v0 by name", version: 0, where: "name = 'n2'", keep: func(r cmRow) bool { return r.name == "n2" }, parts: 1, afterSts: 1},
		{name: "v1 renamed column", version: 1, where: "title = 'n2'", keep: func(r cmRow) bool { return r.name == "n2" }, parts: 2, afterSts: 1},
		{name: "v1 never the decoy", version: 1, where: "title = 'DECOY'", keep: func(cmRow) bool { return false }, parts: 2, afterSts: 0},
		{name: "v1 renamed nested field", version: 1, where: "s.b >= 12", keep: func(r cmRow) bool { return r.a >= 12 }, parts: 2, afterSts: 1},
		{name: "v3 id pruned", version: 3, where: "id > 25", keep: func(r cmRow) bool { return r.id > 25 }, parts: 4, afterSts: 1},
		{name: "v3 nested range", version: 3, where: "s.b >= 12 AND s.b < 22", keep: func(r cmRow) bool { return r.a >= 12 && r.a < 22 }, parts: 4, afterSts: 2},
		{name: "v3 partition", version: 3, where: "p = 'x'", keep: func(r cmRow) bool { return r.p == "x" }, parts: 2, afterSts: 2},
		{name: "v3 re-added column", version: 3, where: "title = 'z32'", keep: func(r cmRow) bool { return r.title2 == "z32" }, parts: 4, afterSts: -1},
		{name: "v3 old rows have no title", version: 3, where: "title IS NULL", keep: func(r cmRow) bool { return r.title2 == "" }, parts: 4, afterSts: -1},
		{name: "v3 projection", version: 3, cols: []string{"title", "id"}, keep: all, parts: 4, afterSts: 4},
		{name: "v3 projection with filter", version: 3, where: "s.b < 3 OR id > 30", cols: []string{"id", "p"}, keep: func(r cmRow) bool { return r.a < 3 || r.id > 30 }, parts: 4, afterSts: -1},
	}
	h := wasmHost(t)
	for _, mode := range []string{"name", "id"} {
		root := writeColumnMappedTable(t, mode)
		for _, c := range cases {
			want := cmWant(c.version, c.keep, c.cols)
			for _, e := range []pqscan.Engine{pqscan.Native{}, h} {
				what := fmt.Sprintf("%s mode, %s (%T)", mode, c.name, e)
				v := int64(c.version)
				got, r, err := deltaRowsWith(t, root, pqscan.Options{Engine: e, DeltaVersion: &v}, pqscan.ScanOptions{Where: c.where, Columns: c.cols})
				require.NoError(t, err, what)
				sameRows(t, what, got, want)
				rep := r.Report()
				if c.parts >= 0 {
					require.Equal(t, c.parts, rep.FilesAfterPartitions, "%s: files after partitions", what)
				}
				if c.afterSts >= 0 {
					require.Equal(t, c.afterSts, rep.FilesAfterStats, "%s: files after statistics", what)
				}
				for _, f := range r.Schema().Fields() {
					require.True(t, !f.HasMetadata(), "%s: column %s carries %v", what, f.Name, f.Metadata)
				}
			}
		}
	}
}
