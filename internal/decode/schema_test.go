package decode

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/variant"
)

// Schema element builders: el is a schema element; options set its annotations.

type elOpt func(*format.SchemaElement)

func ptr[T any](v T) *T { return &v }

func el(name string, rep format.FieldRepetitionType, opts ...elOpt) format.SchemaElement {
	e := format.SchemaElement{Name: name, RepetitionType: ptr(rep)}
	for _, o := range opts {
		o(&e)
	}
	return e
}

func root(n int) format.SchemaElement {
	return format.SchemaElement{Name: "schema", NumChildren: ptr(int32(n))}
}

func children(n int) elOpt { return func(e *format.SchemaElement) { e.NumChildren = ptr(int32(n)) } }
func typ(t format.Type) elOpt {
	return func(e *format.SchemaElement) { e.Type = ptr(t) }
}
func tlen(n int32) elOpt { return func(e *format.SchemaElement) { e.TypeLength = ptr(n) } }
func conv(c format.ConvertedType) elOpt {
	return func(e *format.SchemaElement) { e.ConvertedType = ptr(c) }
}
func logical(lt format.LogicalType) elOpt {
	return func(e *format.SchemaElement) { e.LogicalType = &lt }
}
func decimal(p, s int32) elOpt {
	return func(e *format.SchemaElement) {
		e.ConvertedType, e.Precision, e.Scale = ptr(format.ConvertedDecimal), ptr(p), ptr(s)
	}
}

const (
	req = format.Required
	opt = format.Optional
	rpt = format.Repeated
)

// fieldString renders an Arrow field compactly: name, "?" when nullable, ":" and the type;
// extension names follow in braces.
func fieldString(f arrowipc.Field) string {
	s := f.Name
	if f.Nullable {
		s += "?"
	}
	s += ":" + typeString(f.Type)
	for _, kv := range f.Metadata {
		if kv[0] == "ARROW:extension:name" {
			s += "{" + kv[1] + "}"
		}
	}
	return s
}

func typeString(t arrowipc.DataType) string {
	units := []string{"s", "ms", "us", "ns"}
	switch t.ID {
	case arrowipc.Null:
		return "null"
	case arrowipc.Bool:
		return "bool"
	case arrowipc.Int:
		if t.Signed {
			return fmt.Sprintf("int%d", t.BitWidth)
		}
		return fmt.Sprintf("uint%d", t.BitWidth)
	case arrowipc.Float:
		return fmt.Sprintf("float%d", t.BitWidth)
	case arrowipc.Utf8:
		return "utf8"
	case arrowipc.Binary:
		return "binary"
	case arrowipc.FixedSizeBinary:
		return fmt.Sprintf("fsb%d", t.ByteWidth)
	case arrowipc.Decimal:
		return fmt.Sprintf("decimal%d(%d,%d)", t.BitWidth, t.Precision, t.Scale)
	case arrowipc.Date32:
		return "date32"
	case arrowipc.Time:
		return fmt.Sprintf("time%d[%s]", t.BitWidth, units[t.Unit])
	case arrowipc.Timestamp:
		if t.TZ != "" {
			return fmt.Sprintf("timestamp[%s,%s]", units[t.Unit], t.TZ)
		}
		return fmt.Sprintf("timestamp[%s]", units[t.Unit])
	case arrowipc.IntervalMonthDayNano:
		return "interval_mdn"
	case arrowipc.List:
		return "list<" + fieldString(*t.Elem) + ">"
	case arrowipc.Map:
		return "map<" + fieldString(*t.Elem) + ">"
	case arrowipc.Struct:
		var fs []string
		for _, f := range t.Fields {
			fs = append(fs, fieldString(f))
		}
		return "struct<" + strings.Join(fs, ",") + ">"
	}
	return fmt.Sprintf("type%d", t.ID)
}

// levelString renders the level thresholds of a column tree: leaves as "leaf(null)", lists
// and maps as "list(null rep elem)[child]", structs as "struct(null)[children]".
func levelString(c *Column) string {
	var kids []string
	for _, ch := range c.Children {
		kids = append(kids, levelString(ch))
	}
	switch c.Kind {
	case KindLeaf:
		return fmt.Sprintf("leaf(%d)", c.NullDef)
	case KindList, KindMap:
		k := "list"
		if c.Kind == KindMap {
			k = "map"
		}
		return fmt.Sprintf("%s(%d %d %d)[%s]", k, c.NullDef, c.RepLevel, c.ElemDef, strings.Join(kids, " "))
	}
	return fmt.Sprintf("struct(%d)[%s]", c.NullDef, strings.Join(kids, " "))
}

func Test_BuildSchema_nested(t *testing.T) {
	i32 := typ(format.Int32)
	str := func(e *format.SchemaElement) {
		e.Type, e.ConvertedType = ptr(format.ByteArray), ptr(format.ConvertedUTF8)
	}
	list := conv(format.ConvertedList)
	tests := []struct {
		name   string
		elems  []format.SchemaElement
		want   string // fieldString of the first column
		levels string // levelString of the first column ("" = not checked)
	}{
		{
			name:   "3-level list, nullable list and elements",
			elems:  []format.SchemaElement{root(1), el("a", opt, children(1), list), el("list", rpt, children(1)), el("element", opt, i32)},
			want:   "a?:list<element?:int32>",
			levels: "list(1 1 2)[leaf(3)]",
		},
		{
			name: "3-level list, LogicalType only, required list and elements",
			elems: []format.SchemaElement{root(1), el("a", req, children(1), logical(format.LogicalType{Kind: format.LogicalList})),
				el("list", rpt, children(1)), el("element", req, i32)},
			want:   "a:list<element:int32>",
			levels: "list(0 1 1)[leaf(1)]",
		},
		{
			name:   "3-level list with unusual names is still 3-level",
			elems:  []format.SchemaElement{root(1), el("a", opt, children(1), list), el("bag", rpt, children(1)), el("item", opt, str)},
			want:   "a?:list<item?:utf8>",
			levels: "list(1 1 2)[leaf(3)]",
		},
		{
			name:   "rule 1: repeated primitive is the required element",
			elems:  []format.SchemaElement{root(1), el("a", opt, children(1), list), el("element", rpt, i32)},
			want:   "a?:list<element:int32>",
			levels: "list(1 1 2)[leaf(2)]",
		},
		{
			name: "rule 2: repeated group with two children is the required element",
			elems: []format.SchemaElement{root(1), el("a", opt, children(1), list), el("element", rpt, children(2)),
				el("str", req, str), el("num", req, i32)},
			want:   "a?:list<element:struct<str:utf8,num:int32>>",
			levels: "list(1 1 2)[struct(2)[leaf(2) leaf(2)]]",
		},
		{
			// LogicalTypes.md rule 3 makes the repeated group the element (list<struct<num:
			// list<int32>>>); pqscan, like arrow-go and arrow-cpp, reads the group's one child
			// as the element instead. Levels are the same; only the shape differs.
			name: "rule 3 (as arrow-go): repeated group whose one child is repeated",
			elems: []format.SchemaElement{root(1), el("a", opt, children(1), list), el("element", rpt, children(1)),
				el("num", rpt, i32)},
			want:   "a?:list<num:list<num:int32>>",
			levels: "list(1 1 2)[list(2 2 3)[leaf(3)]]",
		},
		{
			name: "rule 4: repeated group named array is the required element",
			elems: []format.SchemaElement{root(1), el("a", opt, children(1), list), el("array", rpt, children(1)),
				el("str", req, str)},
			want:   "a?:list<array:struct<str:utf8>>",
			levels: "list(1 1 2)[struct(2)[leaf(2)]]",
		},
		{
			name: "rule 4: repeated group named <list>_tuple is the required element",
			elems: []format.SchemaElement{root(1), el("my_list", opt, children(1), list), el("my_list_tuple", rpt, children(1)),
				el("str", opt, str)},
			want:   "my_list?:list<my_list_tuple:struct<str?:utf8>>",
			levels: "list(1 1 2)[struct(2)[leaf(3)]]",
		},
		{
			name: "rule 5: repeated group named element with one child is 3-level",
			elems: []format.SchemaElement{root(1), el("a", opt, children(1), list), el("element", rpt, children(1)),
				el("str", req, str)},
			want:   "a?:list<str:utf8>",
			levels: "list(1 1 2)[leaf(2)]",
		},
		{
			name: "nested lists: list<list<int>>",
			elems: []format.SchemaElement{root(1), el("a", opt, children(1), list), el("list", rpt, children(1)),
				el("element", opt, children(1), list), el("list", rpt, children(1)), el("element", opt, i32)},
			want:   "a?:list<element?:list<element?:int32>>",
			levels: "list(1 1 2)[list(3 2 4)[leaf(5)]]",
		},
		{
			// parquet-testing old_list_structure: the spec and parquet-java read
			// list<list<int32>> ([[1, 2], [3, 4]]), and so does pqscan: the repeated element
			// group is itself LIST-annotated. (arrow-go reads list<struct<list<int32>>>.)
			name: "nested 2-level lists (old_list_structure, as the spec)",
			elems: []format.SchemaElement{root(1), el("a", req, children(1), list), el("array", rpt, children(1), list),
				el("array", rpt, i32)},
			want:   "a:list<array:list<array:int32>>",
			levels: "list(0 1 1)[list(1 2 2)[leaf(2)]]",
		},
		{
			name:   "bare repeated primitive: required list of required elements",
			elems:  []format.SchemaElement{root(1), el("a", rpt, i32)},
			want:   "a:list<a:int32>",
			levels: "list(0 1 1)[leaf(1)]",
		},
		{
			name:   "bare repeated group: required list of required structs",
			elems:  []format.SchemaElement{root(1), el("a", rpt, children(2)), el("x", opt, i32), el("y", rpt, i32)},
			want:   "a:list<a:struct<x?:int32,y:list<y:int32>>>",
			levels: "list(0 1 1)[struct(1)[leaf(2) list(1 2 2)[leaf(2)]]]",
		},
		{
			name:   "LIST annotation on a group whose child is not repeated: a struct",
			elems:  []format.SchemaElement{root(1), el("a", opt, children(1), list), el("x", opt, i32)},
			want:   "a?:struct<x?:int32>",
			levels: "struct(1)[leaf(2)]",
		},
		{
			name: "MAP with key and optional value",
			elems: []format.SchemaElement{root(1), el("m", opt, children(1), conv(format.ConvertedMap)),
				el("key_value", rpt, children(2)), el("key", req, str), el("value", opt, i32)},
			want:   "m?:map<entries:struct<key:utf8,value?:int32>>",
			levels: "map(1 1 2)[struct(2)[leaf(2) leaf(3)]]",
		},
		{
			name: "MAP as LogicalType with other names",
			elems: []format.SchemaElement{root(1), el("m", req, children(1), logical(format.LogicalType{Kind: format.LogicalMap})),
				el("map", rpt, children(2)), el("k", req, i32), el("v", req, str)},
			want:   "m:map<entries:struct<key:int32,value:utf8>>",
			levels: "map(0 1 1)[struct(1)[leaf(1) leaf(1)]]",
		},
		{
			name: "MAP_KEY_VALUE (legacy) annotation",
			elems: []format.SchemaElement{root(1), el("m", opt, children(1), conv(format.ConvertedMapKeyValue)),
				el("map", rpt, children(2)), el("key", req, str), el("value", opt, str)},
			want:   "m?:map<entries:struct<key:utf8,value?:utf8>>",
			levels: "map(1 1 2)[struct(2)[leaf(2) leaf(3)]]",
		},
		{
			name: "MAP with an optional key: the key field becomes non-nullable",
			elems: []format.SchemaElement{root(1), el("m", opt, children(1), conv(format.ConvertedMap)),
				el("key_value", rpt, children(2)), el("key", opt, str), el("value", opt, i32)},
			want:   "m?:map<entries:struct<key:utf8,value?:int32>>",
			levels: "map(1 1 2)[struct(2)[leaf(3) leaf(3)]]",
		},
		{
			name: "MAP without value: a list of keys",
			elems: []format.SchemaElement{root(1), el("m", opt, children(1), conv(format.ConvertedMap)),
				el("key_value", rpt, children(1)), el("key", req, i32)},
			want:   "m?:list<key:int32>",
			levels: "list(1 1 2)[leaf(2)]",
		},
		{
			name: "MAP with a required struct key: a map with struct keys",
			elems: []format.SchemaElement{root(1), el("m", opt, children(1), conv(format.ConvertedMap)),
				el("key_value", rpt, children(2)), el("key", req, children(2)), el("k", req, i32), el("s", opt, str),
				el("value", opt, i32)},
			want:   "m?:map<entries:struct<key:struct<k:int32,s?:utf8>,value?:int32>>",
			levels: "map(1 1 2)[struct(2)[struct(2)[leaf(2) leaf(3)] leaf(3)]]",
		},
		{
			name: "MAP with a required list key: a map with list keys",
			elems: []format.SchemaElement{root(1), el("m", req, children(1), logical(format.LogicalType{Kind: format.LogicalMap})),
				el("key_value", rpt, children(2)), el("key", req, children(1), list), el("list", rpt, children(1)),
				el("element", opt, i32), el("value", opt, str)},
			want:   "m:map<entries:struct<key:list<element?:int32>,value?:utf8>>",
			levels: "map(0 1 1)[struct(1)[list(1 2 2)[leaf(3)] leaf(2)]]",
		},
		{
			name: "MAP with an optional struct key: against the spec, a struct",
			elems: []format.SchemaElement{root(1), el("m", opt, children(1), conv(format.ConvertedMap)),
				el("key_value", rpt, children(2)), el("key", opt, children(1)), el("k", req, i32), el("value", opt, i32)},
			want: "m?:struct<key_value:list<key_value:struct<key?:struct<k:int32>,value?:int32>>>",
		},
		{
			name: "MAP with a repeated key: against the spec, a struct",
			elems: []format.SchemaElement{root(1), el("m", opt, children(1), conv(format.ConvertedMap)),
				el("key_value", rpt, children(2)), el("key", rpt, i32), el("value", opt, i32)},
			want: "m?:struct<key_value:list<key_value:struct<key:list<key:int32>,value?:int32>>>",
		},
		{
			name: "map of lists",
			elems: []format.SchemaElement{root(1), el("m", opt, children(1), conv(format.ConvertedMap)),
				el("key_value", rpt, children(2)), el("key", req, str), el("value", opt, children(1), list),
				el("list", rpt, children(1)), el("element", opt, i32)},
			want:   "m?:map<entries:struct<key:utf8,value?:list<element?:int32>>>",
			levels: "map(1 1 2)[struct(2)[leaf(2) list(3 2 4)[leaf(5)]]]",
		},
		{
			name: "struct with required and optional children",
			elems: []format.SchemaElement{root(1), el("s", opt, children(3)), el("a", req, i32), el("b", opt, str),
				el("c", req, children(1)), el("d", opt, i32)},
			want:   "s?:struct<a:int32,b?:utf8,c:struct<d?:int32>>",
			levels: "struct(1)[leaf(1) leaf(2) struct(1)[leaf(2)]]",
		},
		{
			name: "list of structs",
			elems: []format.SchemaElement{root(1), el("a", opt, children(1), list), el("list", rpt, children(1)),
				el("element", opt, children(2)), el("x", opt, i32), el("y", req, str)},
			want:   "a?:list<element?:struct<x?:int32,y:utf8>>",
			levels: "list(1 1 2)[struct(3)[leaf(4) leaf(3)]]",
		},
		{
			// parquet-go writes groups without children (a writer quirk); arrow-rs skips them.
			name: "empty groups are skipped",
			elems: []format.SchemaElement{root(1), el("s", opt, children(4)), el("e", opt), el("z", opt, children(0)),
				el("a", req, i32), el("w", req, children(1)), el("e2", opt, children(0))},
			want:   "s?:struct<a:int32>",
			levels: "struct(1)[leaf(1)]",
		},
		{
			// parquet-java reads the MAP-annotated repeated group of a two-level list as the
			// element: a list of maps (a legacy writer's shape).
			name: "two-level list whose repeated element is a MAP",
			elems: []format.SchemaElement{root(1), el("l", opt, children(1), list), el("m", rpt, children(1), conv(format.ConvertedMap)),
				el("key_value", rpt, children(2)), el("key", req, str), el("value", opt, i32)},
			want:   "l?:list<m:map<entries:struct<key:utf8,value?:int32>>>",
			levels: "list(1 1 2)[map(2 2 3)[struct(3)[leaf(3) leaf(4)]]]",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := BuildSchema(tc.elems)
			require.NoError(t, err)
			require.Equal(t, tc.want, fieldString(s.Columns[0].Field))
			if tc.levels != "" {
				require.Equal(t, tc.levels, levelString(s.Columns[0]))
			}
			// Every leaf is reachable from the columns exactly once, in leaf order.
			var leaves []*Column
			for _, c := range s.Columns {
				leaves = c.Leaves(leaves)
			}
			require.Equal(t, len(s.Leaves), len(leaves))
			for i, l := range leaves {
				require.Equal(t, i, l.Node.Leaf)
			}
		})
	}
}

func Test_BuildSchema_malformed(t *testing.T) {
	i32 := typ(format.Int32)
	deep := []format.SchemaElement{root(1)}
	for i := 0; i < maxSchemaDepth+5; i++ {
		deep = append(deep, el(fmt.Sprint("g", i), opt, children(1)))
	}
	deep = append(deep, el("x", opt, i32))
	tests := []struct {
		name  string
		elems []format.SchemaElement
		want  string
	}{
		{name: "empty", elems: nil, want: "empty schema"},
		{name: "root claims more children than present", elems: []format.SchemaElement{root(3), el("a", req, i32)}, want: "claims 3 children"},
		{name: "group claims children past the end", elems: []format.SchemaElement{root(1), el("g", opt, children(5)), el("a", req, i32)}, want: "claims 5 children"},
		{name: "negative num_children", elems: []format.SchemaElement{root(1), el("g", opt, children(-1)), el("a", req, i32)}, want: "claims -1 children"},
		{name: "negative root num_children", elems: []format.SchemaElement{root(-2)}, want: "claims -2 children"},
		{name: "huge num_children", elems: []format.SchemaElement{root(1 << 30), el("a", req, i32)}, want: "children"},
		{name: "elements left over", elems: []format.SchemaElement{root(1), el("a", req, i32), el("b", req, i32)}, want: "left over"},
		{name: "depth over the cap", elems: deep, want: "nesting deeper than 128"},
		{name: "FLBA without type_length", elems: []format.SchemaElement{root(1), el("f", req, typ(format.FixedLenByteArray))}, want: "type_length"},
		{name: "FLBA with type_length 0", elems: []format.SchemaElement{root(1), el("f", req, typ(format.FixedLenByteArray), tlen(0))}, want: "type_length"},
		{name: "FLBA with negative type_length", elems: []format.SchemaElement{root(1), el("f", req, typ(format.FixedLenByteArray), tlen(-4))}, want: "type_length"},
		{name: "unknown physical type", elems: []format.SchemaElement{root(1), el("a", req, typ(format.Type(8)))}, want: "unknown physical type"},
		{name: "negative physical type", elems: []format.SchemaElement{root(1), el("a", req, typ(format.Type(-1)))}, want: "unknown physical type"},
		{name: "unknown repetition", elems: []format.SchemaElement{root(1), el("a", format.FieldRepetitionType(3), i32)}, want: "repetition type 3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := BuildSchema(tc.elems)
			require.ErrorIs(t, err, ErrSchema)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func Test_leafType(t *testing.T) {
	lt := func(l format.LogicalType) elOpt { return logical(l) }
	tests := []struct {
		name  string
		t     format.Type
		opts  []elOpt
		want  string
		width int // Converter.OutWidth
	}{
		{name: "boolean", t: format.Boolean, want: "bool", width: -1},
		{name: "int32", t: format.Int32, want: "int32", width: 4},
		{name: "int64", t: format.Int64, want: "int64", width: 8},
		{name: "float", t: format.Float, want: "float32", width: 4},
		{name: "double", t: format.Double, want: "float64", width: 8},
		{name: "byte array", t: format.ByteArray, want: "binary", width: 0},
		{name: "FLBA", t: format.FixedLenByteArray, opts: []elOpt{tlen(7)}, want: "fsb7", width: 7},
		{name: "INT96 is timestamp[us]", t: format.Int96, want: "timestamp[us]", width: 8},
		{name: "INT96 ignores a converted annotation", t: format.Int96, opts: []elOpt{conv(format.ConvertedTimestampMillis)}, want: "timestamp[us]", width: 8},

		{name: "INT_8", t: format.Int32, opts: []elOpt{conv(format.ConvertedInt8)}, want: "int8", width: 1},
		{name: "INT_16", t: format.Int32, opts: []elOpt{conv(format.ConvertedInt16)}, want: "int16", width: 2},
		{name: "INT_32", t: format.Int32, opts: []elOpt{conv(format.ConvertedInt32)}, want: "int32", width: 4},
		{name: "UINT_8", t: format.Int32, opts: []elOpt{conv(format.ConvertedUint8)}, want: "uint8", width: 1},
		{name: "UINT_16", t: format.Int32, opts: []elOpt{conv(format.ConvertedUint16)}, want: "uint16", width: 2},
		{name: "UINT_32", t: format.Int32, opts: []elOpt{conv(format.ConvertedUint32)}, want: "uint32", width: 4},
		{name: "UINT_64", t: format.Int64, opts: []elOpt{conv(format.ConvertedUint64)}, want: "uint64", width: 8},
		{name: "INT_64", t: format.Int64, opts: []elOpt{conv(format.ConvertedInt64)}, want: "int64", width: 8},
		{name: "INTEGER(8, signed)", t: format.Int32, opts: []elOpt{lt(format.LogicalType{Kind: format.LogicalInteger, BitWidth: 8, IsSigned: true})}, want: "int8", width: 1},
		{name: "INTEGER(16, unsigned)", t: format.Int32, opts: []elOpt{lt(format.LogicalType{Kind: format.LogicalInteger, BitWidth: 16})}, want: "uint16", width: 2},
		{name: "INTEGER(32, unsigned)", t: format.Int32, opts: []elOpt{lt(format.LogicalType{Kind: format.LogicalInteger, BitWidth: 32})}, want: "uint32", width: 4},
		{name: "INTEGER(64, unsigned)", t: format.Int64, opts: []elOpt{lt(format.LogicalType{Kind: format.LogicalInteger, BitWidth: 64})}, want: "uint64", width: 8},
		{name: "INTEGER(64, signed)", t: format.Int64, opts: []elOpt{lt(format.LogicalType{Kind: format.LogicalInteger, BitWidth: 64, IsSigned: true})}, want: "int64", width: 8},
		{name: "INTEGER with a bad width on INT32 degrades to int32", t: format.Int32, opts: []elOpt{lt(format.LogicalType{Kind: format.LogicalInteger, BitWidth: 13, IsSigned: true})}, want: "int32", width: 4},

		{name: "DATE", t: format.Int32, opts: []elOpt{conv(format.ConvertedDate)}, want: "date32", width: 4},
		{name: "DATE logical", t: format.Int32, opts: []elOpt{lt(format.LogicalType{Kind: format.LogicalDate})}, want: "date32", width: 4},
		{name: "TIME_MILLIS", t: format.Int32, opts: []elOpt{conv(format.ConvertedTimeMillis)}, want: "time32[ms]", width: 4},
		{name: "TIME(MILLIS) logical", t: format.Int32, opts: []elOpt{lt(format.LogicalType{Kind: format.LogicalTime, Unit: format.Millis})}, want: "time32[ms]", width: 4},
		{name: "TIME_MICROS", t: format.Int64, opts: []elOpt{conv(format.ConvertedTimeMicros)}, want: "time64[us]", width: 8},
		{name: "TIME(MICROS)", t: format.Int64, opts: []elOpt{lt(format.LogicalType{Kind: format.LogicalTime, Unit: format.Micros})}, want: "time64[us]", width: 8},
		{name: "TIME(NANOS)", t: format.Int64, opts: []elOpt{lt(format.LogicalType{Kind: format.LogicalTime, Unit: format.Nanos})}, want: "time64[ns]", width: 8},
		{name: "TIMESTAMP_MILLIS", t: format.Int64, opts: []elOpt{conv(format.ConvertedTimestampMillis)}, want: "timestamp[ms,UTC]", width: 8},
		{name: "TIMESTAMP_MICROS", t: format.Int64, opts: []elOpt{conv(format.ConvertedTimestampMicros)}, want: "timestamp[us,UTC]", width: 8},
		{name: "TIMESTAMP(NANOS, UTC)", t: format.Int64, opts: []elOpt{lt(format.LogicalType{Kind: format.LogicalTimestamp, Unit: format.Nanos, IsAdjustedToUTC: true})}, want: "timestamp[ns,UTC]", width: 8},
		{name: "TIMESTAMP(MILLIS, local)", t: format.Int64, opts: []elOpt{lt(format.LogicalType{Kind: format.LogicalTimestamp, Unit: format.Millis})}, want: "timestamp[ms]", width: 8},

		{name: "UTF8", t: format.ByteArray, opts: []elOpt{conv(format.ConvertedUTF8)}, want: "utf8", width: 0},
		{name: "STRING", t: format.ByteArray, opts: []elOpt{lt(format.LogicalType{Kind: format.LogicalString})}, want: "utf8", width: 0},
		{name: "ENUM", t: format.ByteArray, opts: []elOpt{conv(format.ConvertedEnum)}, want: "utf8", width: 0},
		{name: "JSON", t: format.ByteArray, opts: []elOpt{lt(format.LogicalType{Kind: format.LogicalJSON})}, want: "utf8{arrow.json}", width: 0},
		{name: "JSON converted", t: format.ByteArray, opts: []elOpt{conv(format.ConvertedJSON)}, want: "utf8{arrow.json}", width: 0},
		{name: "BSON is binary", t: format.ByteArray, opts: []elOpt{conv(format.ConvertedBSON)}, want: "binary", width: 0},
		{name: "UUID", t: format.FixedLenByteArray, opts: []elOpt{tlen(16), lt(format.LogicalType{Kind: format.LogicalUUID})}, want: "fsb16{arrow.uuid}", width: 16},
		{name: "UUID of the wrong width is plain fsb", t: format.FixedLenByteArray, opts: []elOpt{tlen(8), lt(format.LogicalType{Kind: format.LogicalUUID})}, want: "fsb8", width: 8},
		{name: "FLOAT16", t: format.FixedLenByteArray, opts: []elOpt{tlen(2), lt(format.LogicalType{Kind: format.LogicalFloat16})}, want: "float16", width: 2},
		{name: "FLOAT16 of the wrong width is plain fsb", t: format.FixedLenByteArray, opts: []elOpt{tlen(4), lt(format.LogicalType{Kind: format.LogicalFloat16})}, want: "fsb4", width: 4},
		{name: "INTERVAL", t: format.FixedLenByteArray, opts: []elOpt{tlen(12), conv(format.ConvertedInterval)}, want: "interval_mdn", width: 16},
		// parquet-mr 1.11-1.12 wrote LogicalType UNKNOWN next to ConvertedType INTERVAL;
		// parquet-java uses the converted type when the two disagree.
		{name: "INTERVAL next to logical UNKNOWN", t: format.FixedLenByteArray, opts: []elOpt{tlen(12), conv(format.ConvertedInterval), lt(format.LogicalType{Kind: format.LogicalUnknown})}, want: "interval_mdn", width: 16},
		{name: "converted type wins a disagreement", t: format.Int32, opts: []elOpt{conv(format.ConvertedDate), lt(format.LogicalType{Kind: format.LogicalInteger, BitWidth: 16, IsSigned: true})}, want: "date32", width: 4},
		{name: "agreeing annotations keep the logical type", t: format.Int64, opts: []elOpt{conv(format.ConvertedTimestampMicros), lt(format.LogicalType{Kind: format.LogicalTimestamp, Unit: format.Micros})}, want: "timestamp[us]", width: 8},
		{name: "UNKNOWN alone is null", t: format.Int32, opts: []elOpt{lt(format.LogicalType{Kind: format.LogicalUnknown})}, want: "null", width: 0},
		{name: "INTERVAL of the wrong width is plain fsb", t: format.FixedLenByteArray, opts: []elOpt{tlen(8), conv(format.ConvertedInterval)}, want: "fsb8", width: 8},

		{name: "DECIMAL on INT32", t: format.Int32, opts: []elOpt{decimal(9, 2)}, want: "decimal128(9,2)", width: 16},
		{name: "DECIMAL on INT64", t: format.Int64, opts: []elOpt{decimal(18, 0)}, want: "decimal128(18,0)", width: 16},
		{name: "DECIMAL logical on INT64", t: format.Int64, opts: []elOpt{lt(format.LogicalType{Kind: format.LogicalDecimal, Precision: 10, Scale: 3})}, want: "decimal128(10,3)", width: 16},
		{name: "DECIMAL on BYTE_ARRAY", t: format.ByteArray, opts: []elOpt{decimal(20, 4)}, want: "decimal128(20,4)", width: 16},
		{name: "DECIMAL on FLBA", t: format.FixedLenByteArray, opts: []elOpt{tlen(9), decimal(20, 4)}, want: "decimal128(20,4)", width: 16},
		{name: "DECIMAL precision 38 is Decimal128", t: format.FixedLenByteArray, opts: []elOpt{tlen(16), decimal(38, 2)}, want: "decimal128(38,2)", width: 16},
		{name: "DECIMAL precision 39 on FLBA is Decimal256", t: format.FixedLenByteArray, opts: []elOpt{tlen(17), decimal(39, 2)}, want: "decimal256(39,2)", width: 32},
		{name: "DECIMAL precision 76 on BYTE_ARRAY is Decimal256", t: format.ByteArray, opts: []elOpt{lt(format.LogicalType{Kind: format.LogicalDecimal, Precision: 76, Scale: 5})}, want: "decimal256(76,5)", width: 32},
		{name: "DECIMAL precision 77 degrades to binary", t: format.ByteArray, opts: []elOpt{decimal(77, 0)}, want: "binary", width: 0},
		{name: "DECIMAL on FLBA wider than 32 bytes degrades to fsb", t: format.FixedLenByteArray, opts: []elOpt{tlen(33), decimal(38, 0)}, want: "fsb33", width: 33},
		{name: "DECIMAL precision 40 on INT64 degrades to int64", t: format.Int64, opts: []elOpt{decimal(40, 0)}, want: "int64", width: 8},
		{name: "DECIMAL with scale > precision degrades", t: format.Int32, opts: []elOpt{decimal(2, 3)}, want: "int32", width: 4},
		{name: "DECIMAL with precision 0 degrades", t: format.Int32, opts: []elOpt{decimal(0, 0)}, want: "int32", width: 4},
		{name: "DECIMAL with negative scale degrades", t: format.Int64, opts: []elOpt{decimal(5, -1)}, want: "int64", width: 8},
		{name: "DECIMAL converted without precision degrades", t: format.Int32, opts: []elOpt{conv(format.ConvertedDecimal)}, want: "int32", width: 4},
		{name: "DECIMAL on DOUBLE degrades", t: format.Double, opts: []elOpt{decimal(5, 1)}, want: "float64", width: 8},

		{name: "UNKNOWN (always null)", t: format.Int32, opts: []elOpt{lt(format.LogicalType{Kind: format.LogicalUnknown})}, want: "null", width: 0},
		{name: "unrecognized logical type falls back to physical", t: format.ByteArray, opts: []elOpt{lt(format.LogicalType{Kind: format.LogicalUnrecognized})}, want: "binary", width: 0},
		{name: "unrecognized logical type uses the converted type", t: format.ByteArray, opts: []elOpt{lt(format.LogicalType{Kind: format.LogicalUnrecognized}), conv(format.ConvertedUTF8)}, want: "utf8", width: 0},
		{name: "VARIANT on a leaf falls back to physical", t: format.ByteArray, opts: []elOpt{lt(format.LogicalType{Kind: format.LogicalVariant})}, want: "binary", width: 0},
		{name: "GEOMETRY falls back to binary", t: format.ByteArray, opts: []elOpt{lt(format.LogicalType{Kind: format.LogicalGeometry})}, want: "binary", width: 0},
		{name: "STRING on INT32 is ignored", t: format.Int32, opts: []elOpt{lt(format.LogicalType{Kind: format.LogicalString})}, want: "int32", width: 4},
		{name: "TIMESTAMP on INT32 is ignored", t: format.Int32, opts: []elOpt{lt(format.LogicalType{Kind: format.LogicalTimestamp, Unit: format.Millis})}, want: "int32", width: 4},
		{name: "DATE on INT64 is ignored", t: format.Int64, opts: []elOpt{conv(format.ConvertedDate)}, want: "int64", width: 8},
		{name: "UTF8 on FLBA is ignored", t: format.FixedLenByteArray, opts: []elOpt{tlen(3), conv(format.ConvertedUTF8)}, want: "fsb3", width: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := BuildSchema([]format.SchemaElement{root(1), el("c", opt, append([]elOpt{typ(tc.t)}, tc.opts...)...)})
			require.NoError(t, err)
			c := s.Columns[0]
			require.Equal(t, "c?:"+tc.want, fieldString(c.Field))
			require.Equal(t, tc.width, c.Conv.OutWidth)
			require.Equal(t, KindLeaf, c.Kind)
		})
	}
}

// Test_BuildSchema_variant: a VARIANT-annotated group is a variant column (canonical output,
// physical children kept, its fields not findable); a group annotated VARIANT that cannot hold
// one stays the struct it declares.
func Test_BuildSchema_variant(t *testing.T) {
	vt := logical(format.LogicalType{Kind: format.LogicalVariant})
	bin := typ(format.ByteArray)
	tests := []struct {
		name    string
		elems   []format.SchemaElement
		variant bool
	}{
		{"unshredded", []format.SchemaElement{root(1), el("v", format.Optional, children(2), vt),
			el("metadata", format.Required, bin), el("value", format.Required, bin)}, true},
		{"shredded, value after typed_value", []format.SchemaElement{root(1), el("v", format.Optional, children(3), vt),
			el("metadata", format.Required, bin), el("typed_value", format.Optional, typ(format.Int64)), el("value", format.Optional, bin)}, true},
		{"no metadata", []format.SchemaElement{root(1), el("v", format.Optional, children(1), vt), el("value", format.Required, bin)}, false},
		{"value not binary", []format.SchemaElement{root(1), el("v", format.Optional, children(2), vt),
			el("metadata", format.Required, bin), el("value", format.Required, typ(format.Int32))}, false},
		{"another field", []format.SchemaElement{root(1), el("v", format.Optional, children(2), vt),
			el("metadata", format.Required, bin), el("extra", format.Required, bin)}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := BuildSchema(tc.elems)
			require.NoError(t, err)
			c := s.Columns[0]
			require.Equal(t, tc.variant, c.Variant != nil)
			_, found := s.Find("v.metadata")
			require.Equal(t, !tc.variant && c.Field.Type.Fields[0].Name == "metadata", found)
			if tc.variant {
				require.Equal(t, variant.ArrowType, c.Field.Type)
				require.Equal(t, variant.ArrowMeta, c.Field.Metadata)
				require.Equal(t, len(tc.elems)-2, len(c.Children))
				_, err := s.Project([]string{"v.value"})
				require.ErrorIs(t, err, ErrSchema)
			}
		})
	}
}

// Test_annotationIgnored: a leaf whose annotation leafType applies keeps its statistics; one
// it does not (unknown, or on a physical type the annotation is not defined for) is flagged.
func Test_annotationIgnored(t *testing.T) {
	lt := func(l format.LogicalType) elOpt { return logical(l) }
	tests := []struct {
		name    string
		t       format.Type
		opts    []elOpt
		ignored bool
	}{
		{"bare INT32", format.Int32, nil, false},
		{"bare FLBA", format.FixedLenByteArray, []elOpt{tlen(12)}, false},
		{"STRING", format.ByteArray, []elOpt{lt(format.LogicalType{Kind: format.LogicalString})}, false},
		{"UTF8 on FLBA", format.FixedLenByteArray, []elOpt{tlen(3), conv(format.ConvertedUTF8)}, true},
		{"TIMESTAMP(NANOS) on INT64", format.Int64, []elOpt{lt(format.LogicalType{Kind: format.LogicalTimestamp, Unit: format.Nanos})}, false},
		{"TIMESTAMP(NANOS) on FLBA(12)", format.FixedLenByteArray, []elOpt{tlen(12), lt(format.LogicalType{Kind: format.LogicalTimestamp, Unit: format.Nanos, IsAdjustedToUTC: true})}, true},
		{"an unrecognized logical type", format.ByteArray, []elOpt{lt(format.LogicalType{Kind: format.LogicalUnrecognized})}, true},
		{"UUID", format.FixedLenByteArray, []elOpt{tlen(16), lt(format.LogicalType{Kind: format.LogicalUUID})}, false},
		{"UUID of 12 bytes", format.FixedLenByteArray, []elOpt{tlen(12), lt(format.LogicalType{Kind: format.LogicalUUID})}, true},
		{"FLOAT16", format.FixedLenByteArray, []elOpt{tlen(2), lt(format.LogicalType{Kind: format.LogicalFloat16})}, false},
		{"DECIMAL(9,2) on INT32", format.Int32, []elOpt{lt(format.LogicalType{Kind: format.LogicalDecimal, Precision: 9, Scale: 2})}, false},
		{"DECIMAL with scale above precision", format.Int32, []elOpt{lt(format.LogicalType{Kind: format.LogicalDecimal, Precision: 2, Scale: 3})}, true},
		{"INTEGER(13)", format.Int32, []elOpt{lt(format.LogicalType{Kind: format.LogicalInteger, BitWidth: 13, IsSigned: true})}, true},
		{"UINT_8", format.Int32, []elOpt{conv(format.ConvertedUint8)}, false},
		{"UINT_8 on INT64", format.Int64, []elOpt{conv(format.ConvertedUint8)}, true},
		{"DATE on INT64", format.Int64, []elOpt{lt(format.LogicalType{Kind: format.LogicalDate})}, true},
		{"INTERVAL", format.FixedLenByteArray, []elOpt{tlen(12), conv(format.ConvertedInterval)}, false},
		{"UNKNOWN (always null)", format.Int32, []elOpt{lt(format.LogicalType{Kind: format.LogicalUnknown})}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := BuildSchema([]format.SchemaElement{root(1), el("c", opt, append([]elOpt{typ(tc.t)}, tc.opts...)...)})
			require.NoError(t, err)
			require.Equal(t, tc.ignored, s.Columns[0].AnnotationIgnored)
		})
	}
}
