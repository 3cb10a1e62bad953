// Package decode turns Parquet column chunks into Arrow arrays: the Parquet schema becomes an
// Arrow schema (schema.go, arrowtype.go), a column chunk's pages become definition levels,
// repetition levels and values (chunk.go, page.go), and levels become nested Arrow arrays
// (assemble.go), following parquet-format's LogicalTypes.md and its backward-compatibility rules
// for lists and maps.
//
// The package does no I/O: callers hand it the bytes of a column chunk (or of selected pages).
// It never trusts a count or length read from the file: each is checked against the bytes at
// hand and the caller's memory cap before anything is allocated.
package decode

import (
	"strings"

	"github.com/pqscan/pqscan/internal/errf"

	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/variant"
)

// maxSchemaDepth bounds recursion over hostile schemas. Impala and Hive accept 100 levels of
// nesting (Impala's MAX_NESTING_DEPTH), so files nest that deep in practice.
const maxSchemaDepth = 128

// Node is one element of the Parquet schema tree.
type Node struct {
	Name       string
	Elem       format.SchemaElement
	Repetition format.FieldRepetitionType
	Children   []*Node
	Parent     *Node
	// DefLevel and RepLevel are the maximum definition and repetition levels at this node.
	DefLevel, RepLevel int16
	// Leaf is the column index of a primitive node (its position among the leaves), or -1.
	Leaf int
	// Path is the dotted path from the root (excluding the root's name).
	Path []string
}

// IsLeaf reports whether the node is a primitive column.
func (n *Node) IsLeaf() bool { return n.Leaf >= 0 }

// Schema is a decoded Parquet schema with its Arrow mapping.
type Schema struct {
	Root   *Node
	Leaves []*Node
	// Columns are the top-level Arrow columns, in schema order.
	Columns []*Column
	// Skipped lists the dotted paths of groups without children, left out of the schema (as
	// arrow-rs does: they hold no column and no value), and Reconciled the paths whose logical
	// type disagreed with their converted type, read by the converted type (as parquet-java
	// does). Both are workarounds for real writers; inspect reports them.
	Skipped, Reconciled []string
}

// BuildSchema builds the schema tree from the flat SchemaElement list of FileMetaData.
func BuildSchema(elems []format.SchemaElement) (*Schema, error) {
	if len(elems) == 0 {
		return nil, errf.Errorf("%w: empty schema", ErrSchema)
	}
	s := &Schema{}
	pos := 0
	root, err := s.build(elems, &pos, nil, 0)
	if err != nil {
		return nil, err
	}

	if pos != len(elems) {
		return nil, errf.Errorf("%w: %d schema elements left over after the root's children", ErrSchema, len(elems)-pos)
	}
	s.Root = root
	for _, c := range root.Children {
		col, err := mapField(c, false)
		if err != nil {
			return nil, err
		}
		s.Columns = append(s.Columns, col)
	}
	return s, nil
}

func (s *Schema) build(elems []format.SchemaElement, pos *int, parent *Node, depth int) (*Node, error) {
	if depth > maxSchemaDepth {
		return nil, errf.Errorf("%w: nesting deeper than %d", ErrSchema, maxSchemaDepth)
	}
	if *pos >= len(elems) {
		return nil, errf.Errorf("%w: schema ends inside a group", ErrSchema)
	}
	e := elems[*pos]
	*pos++
	n := &Node{Name: e.Name, Elem: e, Parent: parent, Leaf: -1}
	if e.AnnotationConflict() {
		// parquet-java's rule: the converted type wins (format/annotation.go).
		n.Elem.LogicalType = nil
	}
	if parent != nil {
		n.Repetition = format.Required
		if e.RepetitionType != nil {
			n.Repetition = *e.RepetitionType
		}
		n.DefLevel, n.RepLevel = parent.DefLevel, parent.RepLevel
		switch n.Repetition {
		case format.Optional:
			n.DefLevel++
		case format.Repeated:
			n.DefLevel++
			n.RepLevel++
		case format.Required:
		default:
			return nil, errf.Errorf("%w: field %q has repetition type %d", ErrSchema, e.Name, int32(n.Repetition))
		}
		n.Path = append(append([]string(nil), parent.Path...), e.Name)
	}
	if n.Elem.LogicalType != e.LogicalType {
		s.Reconciled = append(s.Reconciled, strings.Join(n.Path, "."))
	}
	nc := 0
	if e.NumChildren != nil {
		nc = int(*e.NumChildren)
	}
	if nc < 0 || nc > len(elems)-*pos {
		return nil, errf.Errorf("%w: field %q claims %d children, %d elements remain", ErrSchema, e.Name, nc, len(elems)-*pos)
	}
	if parent == nil || nc > 0 || e.Type == nil {
		// A group. The root is always a group; a non-root element without a type is a group too.
		for i := 0; i < nc; i++ {
			c, err := s.build(elems, pos, n, depth+1)
			if err != nil {
				return nil, err
			}
			if c != nil {
				n.Children = append(n.Children, c)
			}
		}
		if parent != nil && len(n.Children) == 0 {
			// An empty group (parquet-go writes them), or one holding only empty groups: no
			// column, no value. Skipped, as arrow-rs does, so the rest of the file reads.
			s.Skipped = append(s.Skipped, strings.Join(n.Path, "."))
			return nil, nil
		}
		return n, nil
	}
	if *e.Type < format.Boolean || *e.Type > format.FixedLenByteArray {
		return nil, errf.Errorf("%w: column %q has unknown physical type %d", ErrSchema, e.Name, int32(*e.Type))
	}
	if *e.Type == format.FixedLenByteArray {
		if e.TypeLength == nil || *e.TypeLength <= 0 || *e.TypeLength > 1<<20 {
			return nil, errf.Errorf("%w: FIXED_LEN_BYTE_ARRAY column %q has an invalid type_length", ErrSchema, e.Name)
		}
	}
	n.Leaf = len(s.Leaves)
	s.Leaves = append(s.Leaves, n)
	return n, nil
}

// Kind is the shape of an Arrow column.
type Kind uint8

const (
	KindLeaf Kind = iota
	KindStruct
	KindList
	KindMap
)

// Column is one node of the Arrow schema, with the level thresholds that assemble it.
type Column struct {
	Field arrowipc.Field
	Kind  Kind
	// NullDef: a value of this column whose slot exists is non-null iff its definition level
	// is >= NullDef.
	NullDef int16
	// RepLevel and ElemDef (lists and maps): a new element starts at repetition level RepLevel;
	// the list holds at least one element iff the definition level is >= ElemDef.
	RepLevel, ElemDef int16
	Children          []*Column
	// Node is the Parquet node this column was made from (the leaf for KindLeaf).
	Node *Node
	// Conv converts a leaf's physical values to the Arrow type (KindLeaf only).
	Conv *Converter
	// AnnotationIgnored, on a leaf, says its logical or converted type is one the reader does
	// not apply (annotationIgnored): it reads as the physical type, and its statistics, which
	// the writer ordered by the annotation, bound nothing.
	AnnotationIgnored bool
	// Variant, on a struct made from a VARIANT-annotated group, is the group's physical type
	// (metadata, value, typed_value as the file stores them). Children are the physical
	// columns; Field is the output: the canonical arrow.parquet.variant, unshredded, so every
	// file of a table gives the same type however its writer shredded it (see Assemble).
	Variant *arrowipc.DataType
}

// Leaves appends the leaf columns under c in order.
func (c *Column) Leaves(dst []*Column) []*Column {
	if c.Kind == KindLeaf {
		return append(dst, c)
	}
	for _, ch := range c.Children {
		dst = ch.Leaves(dst)
	}
	return dst
}

func isListAnnotated(n *Node) bool {
	if lt := n.Elem.LogicalType; lt != nil && lt.Kind == format.LogicalList {
		return true
	}
	ct := n.Elem.ConvertedType
	return ct != nil && *ct == format.ConvertedList
}

func isMapAnnotated(n *Node) bool {
	if lt := n.Elem.LogicalType; lt != nil && lt.Kind == format.LogicalMap {
		return true
	}
	ct := n.Elem.ConvertedType
	return ct != nil && (*ct == format.ConvertedMap || *ct == format.ConvertedMapKeyValue)
}

// mapField maps a Parquet node to an Arrow column. asElement is true when n is a repeated node
// that a list or map has already accounted for, so it maps to the (required) element itself.
func mapField(n *Node, asElement bool) (*Column, error) {
	if n.Repetition == format.Repeated && !asElement {
		// A repeated field outside a LIST/MAP annotation is a required list of required elements.
		elem, err := mapField(n, true)
		if err != nil {
			return nil, err
		}
		return &Column{
			Field:    arrowipc.Field{Name: n.Name, Type: arrowipc.DataType{ID: arrowipc.List, Elem: &elem.Field}},
			Kind:     KindList,
			NullDef:  n.DefLevel - 1,
			RepLevel: n.RepLevel,
			ElemDef:  n.DefLevel,
			Children: []*Column{elem},
			Node:     n,
		}, nil
	}
	nullable := n.Repetition == format.Optional
	if n.IsLeaf() {
		conv, typ, md, err := leafType(n)
		if err != nil {
			return nil, err
		}
		return &Column{
			Field:             arrowipc.Field{Name: n.Name, Type: typ, Nullable: nullable, Metadata: md},
			Kind:              KindLeaf,
			NullDef:           n.DefLevel,
			Node:              n,
			Conv:              conv,
			AnnotationIgnored: annotationIgnored(n),
		}, nil
	}
	// A LIST-annotated group is a list even when it is itself the repeated element of an
	// outer list (old_list_structure: "repeated group array (LIST) { repeated int32 array }"
	// is list<int32>, so the file reads as list<list<int32>>, its documented value).
	if isListAnnotated(n) && len(n.Children) == 1 && n.Children[0].Repetition == format.Repeated {
		return mapList(n)
	}
	// A MAP-annotated group is a map even as the repeated element of a legacy two-level list
	// ("repeated group m (MAP) { repeated group key_value {...} }": parquet-java reads a list
	// of maps).
	if !asElement || isMapAnnotated(n) && n.Repetition == format.Repeated {
		if isMapAnnotated(n) && len(n.Children) == 1 && n.Children[0].Repetition == format.Repeated {
			if col, ok, err := mapMap(n); ok || err != nil {
				return col, err
			}
			if kv := n.Children[0]; !kv.IsLeaf() && len(kv.Children) == 1 {
				// A map without values (map_no_value): a list of its keys, as arrow-cpp reads it.
				return mapList(n)
			}
		}
	}
	col := &Column{Kind: KindStruct, NullDef: n.DefLevel, Node: n}
	col.Field = arrowipc.Field{Name: n.Name, Nullable: nullable && !asElement, Type: arrowipc.DataType{ID: arrowipc.Struct}}
	for _, c := range n.Children {
		cc, err := mapField(c, false)
		if err != nil {
			return nil, err
		}
		col.Children = append(col.Children, cc)
		col.Field.Type.Fields = append(col.Field.Type.Fields, cc.Field)
	}
	if len(col.Children) == 0 {
		return nil, errf.Errorf("%w: group %q has no children", ErrSchema, strings.Join(n.Path, "."))
	}
	if lt := n.Elem.LogicalType; lt != nil && lt.Kind == format.LogicalVariant {
		markVariant(col)
	}
	return col, nil
}

// markVariant makes a struct column made from a VARIANT-annotated group read as a Variant: its
// output becomes the canonical unshredded type. A group that cannot hold a variant (no binary
// metadata child, a value child that is not binary, another child) stays the plain struct
// the file declares: its bytes still read. (Table formats whose writers leave the annotation
// out cast such structs to the table's variant type instead: package tablescan.)
func markVariant(col *Column) {
	if col.Kind != KindStruct || !variant.IsGroup(col.Field.Type) {
		return
	}
	for _, ch := range col.Children {
		if ch.Field.Name != "typed_value" && ch.Kind != KindLeaf {
			return
		}
	}
	phys := col.Field.Type
	col.Variant = &phys
	col.Field.Type = variant.ArrowType
	col.Field.Metadata = variant.ArrowMeta
}

// mapList implements LogicalTypes.md "Lists", including the backward-compatibility rules.
func mapList(n *Node) (*Column, error) {
	rep := n.Children[0]
	var elem *Column
	var err error
	switch {
	case rep.IsLeaf(), len(rep.Children) > 1,
		rep.Name == "array", rep.Name == n.Name+"_tuple",
		isMapAnnotated(rep) && rep.Children[0].Repetition == format.Repeated:
		// Two-level list: the repeated node is the element. A MAP-annotated repeated group
		// (whose one child, key_value, is repeated) is the element too: LogicalTypes.md's
		// backward-compatibility rules and parquet-java's isElementType make it a list of
		// maps. (Other repeated groups whose one child is repeated keep arrow-go's reading,
		// see Test_BuildSchema_nested "rule 3".)
		elem, err = mapField(rep, true)
	default:
		// Three-level list: the repeated group's only child is the element.
		elem, err = mapField(rep.Children[0], false)
	}
	if err != nil {
		return nil, err
	}
	return &Column{
		Field: arrowipc.Field{Name: n.Name, Nullable: n.Repetition == format.Optional,
			Type: arrowipc.DataType{ID: arrowipc.List, Elem: &elem.Field}},
		Kind:     KindList,
		NullDef:  n.DefLevel,
		RepLevel: rep.RepLevel,
		ElemDef:  rep.DefLevel,
		Children: []*Column{elem},
		Node:     n,
	}, nil
}

// mapMap implements LogicalTypes.md "Maps". A map whose key_value group lacks a key or a value
// is not representable as an Arrow map; it falls back to a list of structs (ok = false). The
// key may be a group (Spark writes struct keys): the spec asks only that it be required, and
// an Arrow map key may be of any type. A repeated key, or an optional group key, breaks that
// rule in a way a reader cannot mend, so such a map falls back too; an optional leaf key is
// tolerated (below).
func mapMap(n *Node) (*Column, bool, error) {
	kv := n.Children[0]
	if kv.IsLeaf() || len(kv.Children) != 2 {
		return nil, false, nil
	}
	switch k := kv.Children[0]; {
	case k.Repetition == format.Repeated, k.Repetition == format.Optional && !k.IsLeaf():
		return nil, false, nil
	}
	key, err := mapField(kv.Children[0], false)
	if err != nil {
		return nil, false, err
	}
	val, err := mapField(kv.Children[1], false)
	if err != nil {
		return nil, false, err
	}
	// Arrow map keys are non-nullable; a file whose leaf key is declared optional still
	// decodes, and a null key found in the data is an error at assembly time.
	key.Field.Nullable = false
	key.Field.Name = "key"
	val.Field.Name = "value"
	entries := &Column{
		Field: arrowipc.Field{Name: "entries", Type: arrowipc.DataType{ID: arrowipc.Struct,
			Fields: []arrowipc.Field{key.Field, val.Field}}},
		Kind:     KindStruct,
		NullDef:  kv.DefLevel,
		Children: []*Column{key, val},
		Node:     kv,
	}
	return &Column{
		Field: arrowipc.Field{Name: n.Name, Nullable: n.Repetition == format.Optional,
			Type: arrowipc.DataType{ID: arrowipc.Map, Elem: &entries.Field}},
		Kind:     KindMap,
		NullDef:  n.DefLevel,
		RepLevel: kv.RepLevel,
		ElemDef:  kv.DefLevel,
		Children: []*Column{entries},
		Node:     n,
	}, true, nil
}

// Find returns the column at a dotted path, descending through structs (and list/map
// elements by their field names).
func (s *Schema) Find(path string) (*Column, bool) {
	parts := strings.Split(path, ".")
	cols := s.Columns
	var cur *Column
	for _, p := range parts {
		cur = nil
		for _, c := range cols {
			if c.Field.Name == p {
				cur = c
				break
			}
		}
		if cur == nil {
			return nil, false
		}
		cols = cur.Children
		if cur.Variant != nil {
			// A variant's physical fields are not columns of the table: its output is
			// the unshredded value.
			cols = nil
		}
	}
	return cur, cur != nil
}
