package delta

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/pqscan/pqscan/internal/dataset/schema"
)

// Column mapping (PROTOCOL.md "Column Mapping", "Reader Requirements for Column Mapping"). A
// table property, delta.columnMapping.mode, says how data files name their columns:
//
//   - "none" (or absent): by the schema's names; any mapping metadata is ignored;
//   - "name": by each field's delta.columnMapping.physicalName, which every struct field (at
//     any depth) must carry;
//   - "id": by the Parquet field_id given by each field's delta.columnMapping.id, which every
//     struct field must carry with its physical name; a file without field ids is read by
//     physical names (writers name columns by them in both modes, so a file without ids
//     still names them unambiguously).
//
// In both mapped modes partition values and statistics are keyed by physical names. A
// physical name never changes: a renamed column keeps it and still finds its data, a dropped
// column's data is never named again, and a column added back under an old name gets a new
// physical name, so it does not pick up the dropped column's data. List elements and map keys
// and values match by position; their nested ids (delta.columnMapping.nested.ids) are not
// needed to read.
//
// Matching files against the mapped schema is the table scan's (package tablescan reads the
// physical names and ids from each field's metadata); this file reads them from the schema
// and applies the mode.

const (
	metaPhysicalName = "delta.columnMapping.physicalName"
	metaColumnID     = "delta.columnMapping.id"
)

// readColumnMapping records a field's mapping metadata (its physical name and id) in f. The
// mode decides later whether they are used (applyColumnMapping).
func readColumnMapping(f *schema.Field, md map[string]any, path string) error {
	if v, ok := md[metaPhysicalName]; ok {
		s, isStr := v.(string)
		if !isStr || s == "" {
			return fmt.Errorf("%w: column %q: %s is not a name", ErrSchema, path, metaPhysicalName)
		}
		f.PhysicalName = s
	}
	if v, ok := md[metaColumnID]; ok {
		id, ok := columnID(v)
		if !ok {
			return fmt.Errorf("%w: column %q: %s %v is not a positive 32-bit integer", ErrSchema, path, metaColumnID, v)
		}
		f.FieldID = id
	}
	return nil
}

// columnID reads an id as a JSON decoder may give it; Parquet field ids are 32-bit, and
// writers assign them from 1.
func columnID(v any) (int32, bool) {
	var n int64
	switch x := v.(type) {
	case float64:
		if x != math.Trunc(x) || x < 1 || x > math.MaxInt32 {
			return 0, false
		}
		n = int64(x)
	case json.Number:
		var err error
		if n, err = strconv.ParseInt(x.String(), 10, 64); err != nil {
			return 0, false
		}
	case int64:
		n = x
	case int:
		n = int64(x)
	default:
		return 0, false
	}
	if n < 1 || n > math.MaxInt32 {
		return 0, false
	}
	return int32(n), true
}

// applyColumnMapping applies the mode to the mapping read from the schema: without a mode
// the names are the schema's; "name" keeps the physical names and drops the ids, which must
// not be used; "id" keeps both. A mapped mode requires them on every struct field.
func applyColumnMapping(fields []schema.Field, mode string) error {
	switch mode {
	case "", "none", "name", "id":
	default:
		return fmt.Errorf("%w: columnMapping (mode %q)", ErrUnsupportedFeature, mode)
	}
	return mapFields(fields, mode, "")
}

func mapFields(fields []schema.Field, mode, prefix string) error {
	for i := range fields {
		f := &fields[i]
		path := prefix + f.Name
		switch mode {
		case "name", "id":
			if f.PhysicalName == "" {
				return fmt.Errorf("%w: column %q has no %s (column mapping mode %q)", ErrSchema, path, metaPhysicalName, mode)
			}
			if mode == "id" && f.FieldID == 0 {
				return fmt.Errorf("%w: column %q has no %s (column mapping mode %q)", ErrSchema, path, metaColumnID, mode)
			}
		default:
			f.PhysicalName = ""
		}
		if mode != "id" {
			f.FieldID = 0
		}
		if err := mapNested(f, mode, path); err != nil {
			return err
		}
	}
	return nil
}

// mapNested applies the mode to the struct fields inside f: its own, or those of the structs
// its list elements and map keys and values hold (which are not struct fields themselves).
func mapNested(f *schema.Field, mode, path string) error {
	switch f.Type.Kind {
	case schema.Struct:
		return mapFields(f.Children, mode, path+".")
	case schema.List, schema.Map:
		for i := range f.Children {
			c := &f.Children[i]
			if err := mapNested(c, mode, path+"."+c.Name); err != nil {
				return err
			}
		}
	}
	return nil
}
