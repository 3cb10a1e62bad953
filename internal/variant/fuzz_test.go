package variant

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/pqscan/pqscan/internal/decode/arrowipc"
)

func FuzzAppendJSON(f *testing.F) {
	mdAB := mdKeys("a", "b")
	seeds := [][2][]byte{
		{mdKeys(), vNull()}, {mdKeys(), vBool(true)}, {mdKeys(), vI64(-1)}, {mdKeys(), vF64(math.NaN())},
		{mdKeys(), vF32(0.1)}, {mdKeys(), vDec16(3, 1, 2)}, {mdKeys(), vDate(-1)},
		{mdKeys(), v8(primTimestampNs, -1)}, {mdKeys(), v8(primTime, 5)}, {mdKeys(), vBin("\x00a")},
		{mdKeys(), vStr("é\n")}, {mdKeys(), vShort("x")}, {mdKeys(), p(primUUID, make([]byte, 16)...)},
		{mdAB, obj([]int{0, 1}, arr(vI8(1), vNull()), obj([]int{0}, vShort("q")))},
		{md(2, true, "a"), vObj(2, 3, true, []int{0}, vI16(5))},
		{mdKeys(), vArr(4, true, vDec4(2, 5), vDec8(1, -5))},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, metadata, value []byte) {
		out, err := AppendJSON([]byte("x"), metadata, value)
		if string(out[:1]) != "x" {
			t.Fatalf("dst prefix lost: %q", out)
		}
		if err != nil {
			if len(out) != 1 {
				t.Fatalf("error %v with output %q", err, out)
			}
			return
		}
		if !json.Valid(out[1:]) {
			t.Fatalf("invalid JSON %q for metadata %x value %x", out[1:], metadata, value)
		}
	})
}

// reader hands out fuzz bytes, zeros once they run out.
type reader struct{ b []byte }

func (r *reader) byte() byte {
	if len(r.b) == 0 {
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) bytes() []byte {
	n := int(r.byte() % 24)
	n = min(n, len(r.b))
	b := r.b[:n]
	r.b = r.b[n:]
	return append([]byte{}, b...)
}

// shapes are the typed_value types FuzzUnshred draws from.
func fuzzShapes() []arrowipc.DataType {
	pairOf := func(tv arrowipc.DataType) arrowipc.DataType {
		return grp(fld("value", tBinary), fld("typed_value", tv))
	}
	obj := grp(fld("a", pairOf(tInt64)), fld("b", grp(fld("value", tBinary))))
	list := arrowipc.DataType{ID: arrowipc.List, Elem: &arrowipc.Field{Name: "element", Type: pairOf(tInt32), Nullable: true}}
	return []arrowipc.DataType{
		{}, tInt64, tUtf8,
		{ID: arrowipc.Decimal, BitWidth: 128, Precision: 9, Scale: 2},
		obj,
		list,
		grp(fld("n", pairOf(obj)), fld("l", pairOf(list))),
	}
}

// fill builds an array of type t with n rows from r.
func fill(r *reader, t arrowipc.DataType, n int) *arrowipc.Array {
	valid := make([]bool, n)
	for i := range valid {
		valid[i] = r.byte()%4 != 0
	}
	var a *arrowipc.Array
	switch t.ID {
	case arrowipc.Binary, arrowipc.Utf8:
		vals := make([][]byte, n)
		for i := range vals {
			if valid[i] {
				vals[i] = r.bytes()
				if vals[i] == nil {
					vals[i] = []byte{}
				}
				if t.ID == arrowipc.Binary && len(vals[i]) > 0 && vals[i][0]%2 == 0 {
					vals[i] = fuzzValues[int(vals[i][0]/2)%len(fuzzValues)]
				}
			}
		}
		return binArr(vals...)
	case arrowipc.Int, arrowipc.Decimal:
		w := t.BitWidth / 8
		a = &arrowipc.Array{Len: n, Data: make([]byte, n*w)}
		for i := range a.Data {
			a.Data[i] = r.byte()
		}
	case arrowipc.Struct:
		a = &arrowipc.Array{Len: n}
		for _, f := range t.Fields {
			a.Children = append(a.Children, fill(r, f.Type, n))
		}
	case arrowipc.List:
		a = &arrowipc.Array{Len: n, Offsets: []int32{0}}
		total := 0
		for i := 0; i < n; i++ {
			if valid[i] {
				total += int(r.byte() % 4)
			}
			a.Offsets = append(a.Offsets, int32(total))
		}
		a.Children = []*arrowipc.Array{fill(r, t.Elem.Type, total)}
	}
	a.Validity, a.NullCount = validity(valid)
	return a
}

var fuzzValues = [][]byte{vNull(), vI8(3), vShort("s"), obj([]int{2}, vBool(true)), obj([]int{0}, vNull()), arr(vI8(1)), obj([]int{9}, vNull())}

func FuzzUnshred(f *testing.F) {
	for i := range fuzzShapes() {
		f.Add(byte(i), []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
	}
	metas := [][]byte{mdKeys("a", "b", "c"), mdKeys("c"), md(1, true, "n", "l", "a", "b"), {1, 0, 0}}
	f.Fuzz(func(t *testing.T, shape byte, data []byte) {
		shapes := fuzzShapes()
		r := &reader{b: data}
		n := int(r.byte() % 6)
		typ := variantType(shapes[int(shape)%len(shapes)])
		g := &arrowipc.Array{Len: n}
		rowValid := make([]bool, n)
		var mds [][]byte
		for i := range rowValid {
			rowValid[i] = r.byte()%5 != 0
			mds = append(mds, metas[int(r.byte())%len(metas)])
		}
		g.Validity, g.NullCount = validity(rowValid)
		g.Children = append(g.Children, binArr(mds...))
		for _, fl := range typ.Fields[1:] {
			g.Children = append(g.Children, fill(r, fl.Type, n))
		}
		m, v, err := Unshred(typ, g)
		if err != nil {
			return
		}
		bt := arrowipc.Field{Name: "x", Type: tBinary, Nullable: true}
		sch := &arrowipc.Schema{Fields: []arrowipc.Field{bt, bt}}
		if err := arrowipc.Validate(sch, n, []*arrowipc.Array{m, v}); err != nil {
			t.Fatalf("Unshred output: %v", err)
		}
		for i := 0; i < n; i++ {
			if valid(v, i) != valid(g, i) || valid(m, i) != valid(g, i) {
				t.Fatalf("row %d: validity differs from the group's", i)
			}
			if !valid(g, i) {
				continue
			}
			out, err := AppendJSON(nil, m.Data[m.Offsets[i]:m.Offsets[i+1]], v.Data[v.Offsets[i]:v.Offsets[i+1]])
			if err == nil && !json.Valid(out) {
				t.Fatalf("row %d: invalid JSON %q", i, out)
			}
		}
	})
}
