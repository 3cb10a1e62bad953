package tablescan

import (
	"testing"

	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/variant"
)

// Test_nullsNested: a column a file lacks reads as nulls whatever its type, nested ones
// included (a struct, list, map or variant column added to a table after the file was
// written); the arrays are valid Arrow, non-nullable children included.
func Test_nullsNested(t *testing.T) {
	i64 := arrowipc.DataType{ID: arrowipc.Int, BitWidth: 64, Signed: true}
	str := arrowipc.DataType{ID: arrowipc.Utf8}
	st := arrowipc.DataType{ID: arrowipc.Struct, Fields: []arrowipc.Field{
		{Name: "a", Type: i64}, {Name: "b", Type: str, Nullable: true},
		{Name: "l", Type: arrowipc.DataType{ID: arrowipc.List, Elem: &arrowipc.Field{Name: "element", Type: i64}}}}}
	mp := arrowipc.DataType{ID: arrowipc.Map, Elem: &arrowipc.Field{Name: "key_value", Type: arrowipc.DataType{ID: arrowipc.Struct,
		Fields: []arrowipc.Field{{Name: "key", Type: str}, {Name: "value", Type: st, Nullable: true}}}}}
	for _, tc := range []struct {
		name string
		typ  arrowipc.DataType
		meta [][2]string
	}{
		{"struct", st, nil},
		{"list", arrowipc.DataType{ID: arrowipc.List, Elem: &arrowipc.Field{Name: "element", Type: st, Nullable: true}}, nil},
		{"map", mp, nil},
		{"variant", variant.ArrowType, variant.ArrowMeta},
		{"null", arrowipc.DataType{ID: arrowipc.Null}, nil},
	} {
		for _, n := range []int{0, 1, 9} {
			a, err := nulls(tc.typ, n)
			require.NoError(t, err, tc.name)
			require.Equal(t, n, a.NullCount, tc.name)
			s := &arrowipc.Schema{Fields: []arrowipc.Field{{Name: "c", Type: tc.typ, Nullable: true, Metadata: tc.meta}}}
			require.NoError(t, arrowipc.Validate(s, n, []*arrowipc.Array{a}), tc.name, n)
			_, err = arrowipc.WriteStream(nil, s, n, []*arrowipc.Array{a})
			require.NoError(t, err, tc.name, n)
		}
	}
	_, err := nulls(arrowipc.DataType{ID: arrowipc.Utf8, Dictionary: true}, 3)
	require.ErrorIs(t, err, ErrUnsupported)
}
