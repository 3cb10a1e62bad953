package tablescan

import (
	"slices"
	"strconv"
	"strings"

	"github.com/pqscan/pqscan/internal/decode"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
)

// Column mapping (Delta PROTOCOL.md "Column Mapping"): a host's table schema (Options.Table)
// may name, in a field's metadata at any depth, the file column that feeds it: by Parquet
// field id (MetaFieldID) or by physical name (MetaPhysicalName). Such a field never matches a
// file column by its own name, so a renamed column finds its data under the name it was
// written with, and a column dropped and added back under the same name does not find the
// dropped column's data.
//
// Each file's schema is seen through a logical view (logicalFields): every file field that
// feeds a table field, at any depth, takes that table field's name, and every other file
// field a name no table field has. The rest of the package (resolution, widening, nested
// structs, predicates) then works on table names unchanged; only what is handed to the file's
// own scan (its projection and its predicate's column paths) goes back to the file's names.
// The mapping metadata stays out of the output schema.

const (
	// MetaPhysicalName is the field metadata key of the name of the file column that feeds a
	// table field (Delta's delta.columnMapping.physicalName), exactly or else equal but for
	// case.
	MetaPhysicalName = "delta.columnMapping.physicalName"
	// MetaFieldID is the field metadata key of the Parquet field_id of the file column that
	// feeds a table field (Delta's id mode; the key Arrow's Parquet readers use). A file
	// without field ids is matched by MetaPhysicalName instead.
	MetaFieldID = "PARQUET:field_id"
)

// unmatched starts the view's name of a file field that feeds no table field: Delta column
// names cannot hold NUL, so neither an exact nor a case-folded lookup finds it.
const unmatched = "\x00"

func metaValue(md [][2]string, key string) (string, bool) {
	for _, kv := range md {
		if kv[0] == key {
			return kv[1], true
		}
	}
	return "", false
}

// isMapping reports whether a metadata key is one of column mapping's.
func isMapping(key string) bool { return key == MetaPhysicalName || key == MetaFieldID }

// mapped reports whether any field of fs, at any depth, names its file column by mapping.
func mapped(fs []arrowipc.Field) bool {
	for _, f := range fs {
		for _, kv := range f.Metadata {
			if isMapping(kv[0]) {
				return true
			}
		}
		if mapped(f.Type.Fields) || f.Type.Elem != nil && mapped([]arrowipc.Field{*f.Type.Elem}) {
			return true
		}
	}
	return false
}

// fieldIDs are the Parquet field ids of a file's fields in the shape of their Arrow types:
// kids follow a struct's fields, or hold a list's element or a map's entries.
type fieldIDs struct {
	id   string // "" when the field has none
	kids []fieldIDs
}

// fileFieldIDs reads the field ids of a file's columns (decode's Arrow mapping of its
// schema); any says whether the file has one at all.
func fileFieldIDs(cols []*decode.Column) (ids []fieldIDs, any bool) {
	ids = make([]fieldIDs, len(cols))
	for i, c := range cols {
		if c.Node != nil && c.Node.Elem.FieldID != nil {
			ids[i].id, any = strconv.Itoa(int(*c.Node.Elem.FieldID)), true
		}
		var k bool
		ids[i].kids, k = fileFieldIDs(c.Children)
		any = any || k
	}
	return ids, any
}

// logicalFields is the view of a file's fields (one struct level) through the table's:
// ids are the file's field ids, nil to match by physical names.
func logicalFields(table, file []arrowipc.Field, ids []fieldIDs) []arrowipc.Field {
	out := make([]arrowipc.Field, len(file))
	for j, ff := range file {
		out[j] = ff
		out[j].Name = unmatched + ff.Name
	}
	for _, tf := range table {
		j := mappedIndex(file, ids, tf)
		if j < 0 || !strings.HasPrefix(out[j].Name, unmatched) {
			continue // absent, or already feeding another table field
		}
		var kids *fieldIDs
		if j < len(ids) {
			kids = &ids[j]
		}
		out[j].Name = tf.Name
		out[j].Type = logicalType(tf.Type, file[j].Type, kids)
	}
	return out
}

// mappedIndex is the index of the file field that feeds table field tf: by field id when tf
// has one and the file has ids, else by physical name, else (tf is not mapped) by its name.
func mappedIndex(file []arrowipc.Field, ids []fieldIDs, tf arrowipc.Field) int {
	if id, ok := metaValue(tf.Metadata, MetaFieldID); ok && ids != nil {
		for j := range file {
			if j < len(ids) && ids[j].id == id {
				return j
			}
		}
		return -1
	}
	if p, ok := metaValue(tf.Metadata, MetaPhysicalName); ok {
		return fieldIndex(file, p)
	}
	return fieldIndex(file, tf.Name)
}

// logicalType is the view of a file column's type from through the table's type to: struct
// fields by logicalFields, list elements and map keys and values by position. ids are the
// column's field ids (nil: none).
func logicalType(to, from arrowipc.DataType, ids *fieldIDs) arrowipc.DataType {
	var kids []fieldIDs
	if ids != nil {
		kids = ids.kids
	}
	switch {
	case from.ID != to.ID:
	case from.ID == arrowipc.Struct:
		if kids == nil || len(kids) != len(from.Fields) {
			kids = nil
		}
		from.Fields = logicalFields(to.Fields, from.Fields, kids)
	case (from.ID == arrowipc.List || from.ID == arrowipc.Map) && from.Elem != nil && to.Elem != nil:
		var el *fieldIDs
		if len(kids) == 1 {
			el = &kids[0]
		}
		e := *from.Elem
		if from.ID == arrowipc.List {
			e.Type = logicalType(to.Elem.Type, e.Type, el)
		} else if len(e.Type.Fields) == 2 && len(to.Elem.Type.Fields) == 2 {
			// Map entries: the key and the value by position.
			fs := make([]arrowipc.Field, 2)
			for k := range fs {
				var kid *fieldIDs
				if el != nil && len(el.kids) == 2 {
					kid = &el.kids[k]
				}
				fs[k] = e.Type.Fields[k]
				fs[k].Type = logicalType(to.Elem.Type.Fields[k].Type, fs[k].Type, kid)
			}
			e.Type.Fields = fs
		}
		from.Elem = &e
	}
	return from
}

// fileSuffix rewrites the struct steps of a predicate path under a column (rest: ".a.b"),
// from the view's names (view) to the file's own (own): ok is false when the table has
// the field and the file does not (it is then null in every row). Steps the table lacks,
// or below a list or a map, are left for the file's scan to report.
func fileSuffix(view, own, table arrowipc.DataType, rest string) (string, bool) {
	var b strings.Builder
	steps := strings.Split(rest, ".")[1:]
	for n, step := range steps {
		if view.ID != arrowipc.Struct || table.ID != arrowipc.Struct || len(view.Fields) != len(own.Fields) {
			return b.String() + "." + strings.Join(steps[n:], "."), true
		}
		t := fieldIndex(table.Fields, step)
		if t < 0 {
			return b.String() + "." + strings.Join(steps[n:], "."), true
		}
		i := fieldIndex(view.Fields, table.Fields[t].Name)
		if i < 0 {
			return "", false
		}
		b.WriteString("." + own.Fields[i].Name)
		view, own, table = view.Fields[i].Type, own.Fields[i].Type, table.Fields[t].Type
	}
	return b.String(), true
}

// unmappedFields is fs without the mapping metadata, at any depth: the output schema.
func unmappedFields(fs []arrowipc.Field) []arrowipc.Field {
	if fs == nil {
		return nil
	}
	out := make([]arrowipc.Field, len(fs))
	for i, f := range fs {
		var md [][2]string
		for _, kv := range f.Metadata {
			if !isMapping(kv[0]) {
				md = append(md, kv)
			}
		}
		f.Metadata = md
		f.Type.Fields = unmappedFields(f.Type.Fields)
		if f.Type.Elem != nil {
			e := unmappedFields([]arrowipc.Field{*f.Type.Elem})[0]
			f.Type.Elem = &e
		}
		out[i] = f
	}
	return out
}

// mapFile puts a file's fields, just read from its footer, in the logical view of the
// table's mapped schema, keeping its own fields for what its scan is given.
func (t *Table) mapFile(f *fileState) error {
	s, err := decode.BuildSchema(f.foot.Metadata().Schema)
	if err != nil {
		return err
	}
	ids, any := fileFieldIDs(s.Columns)
	switch {
	case !any && t.opts.NameMapping != nil:
		ids = namedIDs(f.fields, t.opts.NameMapping)
	case !any || len(ids) != len(f.fields):
		ids = nil
	}
	f.own = f.fields
	f.fields = logicalFields(t.all, f.fields, ids)
	return nil
}

// NameMapping is one entry of a name mapping (Iceberg spec, Column Projection, and its
// "Name Mapping Serialization" appendix): the field id of the file columns named by any of
// Names, with Fields mapping a struct's fields, a list's element ("element"), or a map's key
// and value ("key", "value"). An entry without a field id names columns that feed no field.
type NameMapping struct {
	FieldID *int          `json:"field-id,omitempty"`
	Names   []string      `json:"names"`
	Fields  []NameMapping `json:"fields,omitempty"`
}

// namedIDs gives a file without field ids (one written before its table was Iceberg) the
// ids its columns' names map to, in the shape fileFieldIDs gives: its columns then match
// table fields by id as any other file's do. A column the mapping does not name has no id,
// so it feeds no table field.
func namedIDs(fs []arrowipc.Field, m []NameMapping) []fieldIDs {
	ids := make([]fieldIDs, len(fs))
	for i, f := range fs {
		ids[i] = namedID(f, m, f.Name)
	}
	return ids
}

// namedID is the ids of field f found in m under name.
func namedID(f arrowipc.Field, m []NameMapping, name string) fieldIDs {
	var out fieldIDs
	e := findName(m, name)
	if e == nil {
		return out
	}
	if e.FieldID != nil {
		out.id = strconv.Itoa(*e.FieldID)
	}
	t := f.Type
	switch {
	case t.ID == arrowipc.Struct:
		out.kids = namedIDs(t.Fields, e.Fields)
	case t.ID == arrowipc.List && t.Elem != nil:
		out.kids = []fieldIDs{namedID(*t.Elem, e.Fields, "element")}
	case t.ID == arrowipc.Map && t.Elem != nil && len(t.Elem.Type.Fields) == 2:
		kv := t.Elem.Type.Fields
		out.kids = []fieldIDs{{kids: []fieldIDs{namedID(kv[0], e.Fields, "key"), namedID(kv[1], e.Fields, "value")}}}
	}
	return out
}

// findName is the entry of m naming name, or nil.
func findName(m []NameMapping, name string) *NameMapping {
	for i := range m {
		if slices.Contains(m[i].Names, name) {
			return &m[i]
		}
	}
	return nil
}

// ownName is the file's own name of its top-level column j.
func (f *fileState) ownName(j int) string {
	if f.own != nil {
		return f.own[j].Name
	}
	return f.fields[j].Name
}

// unmapOutput keeps the mapping metadata out of the projected table schema, which batches
// and the Metadata step carry: it says where columns are in files, not what they are.
func (t *Table) unmapOutput() {
	if t.mapped {
		t.table = unmappedFields(t.table)
	}
}
