package tablescan

import (
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/require"
)

var i64 = arrowipc.DataType{ID: arrowipc.Int, BitWidth: 64, Signed: true}

// mf is a field with mapping metadata (phys "" or id "" leave that key out).
func mf(name, phys, id string, t arrowipc.DataType) arrowipc.Field {
	f := arrowipc.Field{Name: name, Type: t, Nullable: true}
	if phys != "" {
		f.Metadata = append(f.Metadata, [2]string{MetaPhysicalName, phys})
	}
	if id != "" {
		f.Metadata = append(f.Metadata, [2]string{MetaFieldID, id})
	}
	return f
}

func structOf(fs ...arrowipc.Field) arrowipc.DataType {
	return arrowipc.DataType{ID: arrowipc.Struct, Fields: fs}
}

// names lists a view's field names, nested ones as parent.child, unmatched ones as "-".
func names(fs []arrowipc.Field, prefix string) []string {
	var out []string
	for _, f := range fs {
		n := prefix + f.Name
		if strings.HasPrefix(f.Name, unmatched) {
			n = prefix + "-"
		}
		out = append(out, n)
		out = append(out, names(f.Type.Fields, n+".")...)
		if f.Type.Elem != nil {
			out = append(out, names(f.Type.Elem.Type.Fields, n+"[].")...)
		}
	}
	return out
}

func Test_logicalFields(t *testing.T) {
	table := []arrowipc.Field{
		mf("id", "col-1", "1", i64),
		mf("s", "col-2", "2", structOf(mf("b", "col-3", "3", i64))),
		mf("l", "col-4", "4", arrowipc.DataType{ID: arrowipc.List, Elem: &arrowipc.Field{Name: "element", Type: structOf(mf("x", "col-5", "5", i64))}}),
		{Name: "plain", Type: i64},
	}
	file := []arrowipc.Field{
		{Name: "id", Type: i64}, // a decoy: named like a mapped column
		{Name: "col-2", Type: structOf(arrowipc.Field{Name: "col-9", Type: i64}, arrowipc.Field{Name: "col-3", Type: i64})},
		{Name: "col-1", Type: i64},
		{Name: "col-4", Type: arrowipc.DataType{ID: arrowipc.List, Elem: &arrowipc.Field{Name: "item", Type: structOf(arrowipc.Field{Name: "col-5", Type: i64})}}},
		{Name: "plain", Type: i64},
	}
	// ids as a file might carry them: its names differ from the physical names.
	ids := []fieldIDs{{id: "9"}, {id: "2", kids: []fieldIDs{{id: "3"}, {id: "8"}}}, {id: "7"}, {id: "4", kids: []fieldIDs{{kids: []fieldIDs{{id: "5"}}}}}, {}}
	tests := []struct {
		name string
		ids  []fieldIDs
		want []string
	}{
		{name: "by physical name", want: []string{"-", "s", "s.-", "s.b", "id", "l", "l[].x", "plain"}},
		// By id: col-1 carries 7 (not the table's 1) and col-2's first field carries 3.
		{name: "by field id", ids: ids, want: []string{"-", "s", "s.b", "s.-", "-", "l", "l[].x", "plain"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, names(logicalFields(table, file, tc.ids), ""))
		})
	}
	require.True(t, mapped(table))
	require.True(t, !mapped(file))
	require.True(t, !mapped(unmappedFields(table)))
}

func Test_fileSuffix(t *testing.T) {
	table := structOf(mf("b", "col-3", "", structOf(mf("c", "col-4", "", i64))), mf("new", "col-6", "", i64))
	own := structOf(arrowipc.Field{Name: "col-3", Type: structOf(arrowipc.Field{Name: "col-4", Type: i64})})
	view := logicalType(table, own, nil)
	tests := []struct {
		name, rest, want string
		ok               bool
	}{
		{name: "nested twice", rest: ".b.c", want: ".col-3.col-4", ok: true},
		{name: "field the file lacks", rest: ".new", ok: false},
		{name: "field the table lacks is the file scan's to report", rest: ".zz", want: ".zz", ok: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := fileSuffix(view, own, table, tc.rest)
			require.Equal(t, tc.ok, ok)
			require.Equal(t, tc.want, got)
		})
	}
}

func Test_namedIDs(t *testing.T) {
	id := func(n int) *int { return &n }
	listOf := func(f arrowipc.Field) arrowipc.DataType {
		return arrowipc.DataType{ID: arrowipc.List, Elem: &f}
	}
	table := []arrowipc.Field{
		mf("id", "", "1", i64),
		mf("s", "", "2", structOf(mf("b", "", "3", i64))),
		mf("l", "", "4", listOf(mf("element", "", "6", structOf(mf("x", "", "5", i64))))),
		mf("extra", "", "7", i64),
	}
	// A file written before the table was Iceberg: no ids, some columns under older names.
	file := []arrowipc.Field{
		{Name: "old_id", Type: i64},
		{Name: "s", Type: structOf(arrowipc.Field{Name: "b_old", Type: i64}, arrowipc.Field{Name: "zz", Type: i64})},
		{Name: "l", Type: listOf(arrowipc.Field{Name: "item", Type: structOf(arrowipc.Field{Name: "x", Type: i64})})},
		{Name: "extra", Type: i64},
	}
	m := []NameMapping{
		{FieldID: id(1), Names: []string{"id", "old_id"}},
		{FieldID: id(2), Names: []string{"s"}, Fields: []NameMapping{{FieldID: id(3), Names: []string{"b", "b_old"}}, {Names: []string{"zz"}}}},
		{FieldID: id(4), Names: []string{"l"}, Fields: []NameMapping{{FieldID: id(6), Names: []string{"element"}, Fields: []NameMapping{{FieldID: id(5), Names: []string{"x"}}}}}},
	}
	tests := []struct {
		name string
		m    []NameMapping
		want []string
	}{
		// extra is named like a table column but the mapping does not name it: no id, no data.
		{name: "by the name mapping", m: m, want: []string{"id", "s", "s.b", "s.-", "l", "l[].x", "-"}},
		{name: "an empty mapping names nothing", m: []NameMapping{}, want: []string{"-", "-", "-.b_old", "-.zz", "-", "-[].x", "-"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, names(logicalFields(table, file, namedIDs(file, tc.m)), ""))
		})
	}
}
