package tablescan

import (
	"reflect"
	"testing"

	"github.com/pqscan/pqscan/internal/decode/arrowipc"
)

// stdSameType is sameType as it was, through reflect.DeepEqual, the oracle of Test_sameType.
func stdSameType(a, b arrowipc.DataType) bool {
	a.Dictionary, b.Dictionary = false, false
	return reflect.DeepEqual(stdStrip(a), stdStrip(b))
}

func stdStrip(t arrowipc.DataType) arrowipc.DataType {
	if t.Elem != nil {
		e := *t.Elem
		e.Name, e.Nullable, e.Metadata, e.Type = "", false, nil, stdStrip(e.Type)
		t.Elem = &e
	}
	if t.Fields != nil {
		fs := make([]arrowipc.Field, len(t.Fields))
		for i, f := range t.Fields {
			f.Nullable, f.Metadata, f.Type = false, nil, stdStrip(f.Type)
			fs[i] = f
		}
		t.Fields = fs
	}
	return t
}

// Test_sameType: every pair of a set of types, each differing from the others in one field
// at the top or nested, compares as under reflect.DeepEqual of the stripped types. A field
// added to DataType or Field must be compared (or stripped) in sameType: the field counts
// are pinned here.
func Test_sameType(t *testing.T) {
	if n := reflect.TypeOf(arrowipc.DataType{}).NumField(); n != 12 {
		t.Fatalf("arrowipc.DataType has %d fields: compare the new ones in sameNested", n)
	}
	if n := reflect.TypeOf(arrowipc.Field{}).NumField(); n != 4 {
		t.Fatalf("arrowipc.Field has %d fields: compare the new ones in sameNested", n)
	}
	i32 := arrowipc.DataType{ID: arrowipc.Int, BitWidth: 32, Signed: true}
	base := []arrowipc.DataType{
		i32, {ID: arrowipc.Int, BitWidth: 64, Signed: true}, {ID: arrowipc.Int, BitWidth: 32}, {ID: arrowipc.Int, BitWidth: 32, Signed: true, Dictionary: true},
		{ID: arrowipc.FixedSizeBinary, ByteWidth: 16}, {ID: arrowipc.Decimal, BitWidth: 128, Precision: 10, Scale: 2}, {ID: arrowipc.Decimal, BitWidth: 128, Precision: 10, Scale: 3},
		{ID: arrowipc.Timestamp, Unit: 1, TZ: "UTC"}, {ID: arrowipc.Timestamp, Unit: 2, TZ: "UTC"}, {ID: arrowipc.Timestamp, Unit: 1},
		{ID: arrowipc.Struct}, {ID: arrowipc.Struct, Fields: []arrowipc.Field{}},
	}
	var types []arrowipc.DataType
	types = append(types, base...)
	for _, e := range base {
		for _, f := range []arrowipc.Field{{Name: "element", Type: e}, {Name: "item", Type: e, Nullable: true, Metadata: [][2]string{{"k", "v"}}}} {
			types = append(types, arrowipc.DataType{ID: arrowipc.List, Elem: &f})
			types = append(types, arrowipc.DataType{ID: arrowipc.Map, Elem: &f, KeysSorted: true})
			types = append(types, arrowipc.DataType{ID: arrowipc.Struct, Fields: []arrowipc.Field{f}})
			g := f
			g.Name = "other"
			types = append(types, arrowipc.DataType{ID: arrowipc.Struct, Fields: []arrowipc.Field{g, f}})
		}
	}
	for _, a := range types {
		for _, b := range types {
			if got, want := sameType(a, b), stdSameType(a, b); got != want {
				t.Fatalf("sameType(%+v, %+v) = %v, reflect.DeepEqual %v", a, b, got, want)
			}
		}
	}
}
