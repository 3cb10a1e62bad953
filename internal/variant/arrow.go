package variant

import (
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
)

// ArrowMeta is the Arrow field metadata of the canonical Variant extension type.
var ArrowMeta = [][2]string{{"ARROW:extension:name", "arrow.parquet.variant"}, {"ARROW:extension:metadata", ""}}

// ArrowType is the storage pqscan gives every variant: arrow.parquet.variant unshredded, the
// metadata and the whole value, both binary and both present in every non-null row. One type
// whatever the writer shredded, so that every file of a table reads alike.
var ArrowType = arrowipc.DataType{ID: arrowipc.Struct, Fields: []arrowipc.Field{
	{Name: "metadata", Type: arrowipc.DataType{ID: arrowipc.Binary}},
	{Name: "value", Type: arrowipc.DataType{ID: arrowipc.Binary}},
}}

// IsGroup reports whether t can be the physical type of a variant (VariantShredding.md): a
// struct with a binary metadata field, an optional binary value field and an optional
// typed_value field of any type, and nothing else.
func IsGroup(t arrowipc.DataType) bool {
	if t.ID != arrowipc.Struct || t.Dictionary {
		return false
	}
	meta := false
	for _, f := range t.Fields {
		switch f.Name {
		case "metadata", "value":
			if f.Type.ID != arrowipc.Binary || f.Type.Dictionary {
				return false
			}
			meta = meta || f.Name == "metadata"
		case "typed_value":
		default:
			return false
		}
	}
	return meta
}

func bitSet(b []byte, i int) bool { return b == nil || b[i>>3]&(1<<(uint(i)&7)) != 0 }

// JSONMeta is the field metadata of a variant rendered as JSON text: the canonical arrow.json
// extension, which readers such as DuckDB take as JSON.
var JSONMeta = [][2]string{{"ARROW:extension:name", "arrow.json"}, {"ARROW:extension:metadata", ""}}

// IsField reports whether f is a variant in the canonical form (ArrowType with ArrowMeta).
func IsField(f arrowipc.Field) bool {
	if f.Type.ID != arrowipc.Struct || len(f.Type.Fields) != 2 || f.Type.Dictionary {
		return false
	}
	for _, kv := range f.Metadata {
		if kv[0] == "ARROW:extension:name" {
			return kv[1] == "arrow.parquet.variant" && f.Type.Fields[0].Name == "metadata" && f.Type.Fields[1].Name == "value"
		}
	}
	return false
}
