package delta

import (
	"math"
	"strconv"

	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/jsonv"

	"github.com/pqscan/pqscan/internal/dataset/schema"
)

// Column mapping (PROTOCOL.md "Column Mapping", "Reader Requirements for Column Mapping"). A
// table property, delta.columnMapping.mode, says how data files name their columns:
//
//   - "none" (or absent): by the schema's names; any mapping metadata is ignored;
//   - "name": by each field's delta.columnMapping.physicalName, which every struct field (at
//     any depth) must carry;
//   - "id": by the Parquet field_id given by each field's delta.columnMapping.id, which every
//     struct field must carry with its physical name. A file without any field id is read by
//     physical names, where the protocol allows refusing it or reading nulls: writers name
//     columns by physical names in both modes, and a physical name is never reused, so the
//     names find the same data the ids would.
//
// Physical names, and in id mode ids, are unique across the schema (at any depth): a schema
// where two columns share one is refused, as either could read the other's data. In both
// mapped modes partition values and statistics are keyed by physical names. A physical name
// never changes: a renamed column keeps it and still finds its data, a dropped column's data
// is never named again, and a column added back under an old name gets a new physical name,
// so it does not pick up the dropped column's data.
//
// List elements and map keys and values match by position: a list has one element and a map
// one key and one value, which no schema change can rename, reorder or replace without
// replacing the column that holds them (a new physical name and id). Their nested ids
// (delta.columnMapping.nested.ids, "IcebergCompatV2") therefore never change which file
// field is read and are not used; the struct fields inside elements and values carry their
// own physical names and ids and match by them.
//
// Matching files against the mapped schema is the table scan's (package tablescan reads the
// physical names and ids from each field's metadata); this file reads them from the schema
// and applies the mode.

const (
	metaPhysicalName = "delta.columnMapping.physicalName"
	metaColumnID     = "delta.columnMapping.id"
)

// readColumnMapping records a field's mapping metadata (its physical name and id) in f. The
// mode decides later whether they are used (applyColumnMapping). md is the field's metadata
// object (nil when absent).
func readColumnMapping(f *schema.Field, md *jsonv.Value, path string) error {
	if v := md.Get(metaPhysicalName); v != nil {
		if v.Kind != jsonv.String || v.S == "" {
			return errf.Errorf("%w: column %q: %s is not a name", ErrSchema, path, metaPhysicalName)
		}
		f.PhysicalName = v.S
	}
	if v := md.Get(metaColumnID); v != nil {
		id, ok := columnID(v)
		if !ok {
			return errf.Errorf("%w: column %q: %s %s is not a positive 32-bit integer", ErrSchema, path, metaColumnID, v.Raw)
		}
		f.FieldID = id
	}
	return nil
}

// columnID reads an id; Parquet field ids are 32-bit, and writers assign them from 1. Any
// number of integer value is taken (5.0, 5e0), as a reader of the metadata as doubles does.
func columnID(v *jsonv.Value) (int32, bool) {
	if v.Kind != jsonv.Number || v.Big || v.N != math.Trunc(v.N) || v.N < 1 || v.N > math.MaxInt32 {
		return 0, false
	}
	return int32(v.N), true
}

// applyColumnMapping applies the mode to the mapping read from the schema: without a mode
// the names are the schema's; "name" keeps the physical names and drops the ids, which must
// not be used; "id" keeps both. A mapped mode requires them on every struct field.
func applyColumnMapping(fields []schema.Field, mode string) error {
	switch mode {
	case "", "none", "name", "id":
	default:
		return errf.Errorf("%w: columnMapping (mode %q)", ErrUnsupportedFeature, mode)
	}
	return mapFields(fields, mode, "", map[string]string{})
}

// mapFields applies the mode to fields and what they hold. seen holds the physical names and
// ids met so far (each with its column's path): every column has its own (PROTOCOL.md), and
// two columns sharing one would read each other's data.
func mapFields(fields []schema.Field, mode, prefix string, seen map[string]string) error {
	for i := range fields {
		f := &fields[i]
		path := prefix + f.Name
		switch mode {
		case "name", "id":
			if f.PhysicalName == "" {
				return errf.Errorf("%w: column %q has no %s (column mapping mode %q)", ErrSchema, path, metaPhysicalName, mode)
			}
			if mode == "id" && f.FieldID == 0 {
				return errf.Errorf("%w: column %q has no %s (column mapping mode %q)", ErrSchema, path, metaColumnID, mode)
			}
			keys := []string{metaPhysicalName + " " + strconv.Quote(f.PhysicalName)}
			if mode == "id" {
				keys = append(keys, metaColumnID+" "+strconv.Itoa(int(f.FieldID)))
			}
			for _, k := range keys {
				if other, dup := seen[k]; dup {
					return errf.Errorf("%w: columns %q and %q have the same %s (column mapping mode %q)", ErrSchema, other, path, k, mode)
				}
				seen[k] = path
			}
		default:
			f.PhysicalName = ""
		}
		if mode != "id" {
			f.FieldID = 0
		}
		if err := mapNested(f, mode, path, seen); err != nil {
			return err
		}
	}
	return nil
}

// mapNested applies the mode to the struct fields inside f: its own, or those of the structs
// its list elements and map keys and values hold (which are not struct fields themselves).
func mapNested(f *schema.Field, mode, path string, seen map[string]string) error {
	switch f.Type.Kind {
	case schema.Struct:
		return mapFields(f.Children, mode, path+".", seen)
	case schema.List, schema.Map:
		for i := range f.Children {
			c := &f.Children[i]
			if err := mapNested(c, mode, path+"."+c.Name, seen); err != nil {
				return err
			}
		}
	}
	return nil
}
