package arrowipc

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow/float16"
)

func float32FromBits(u uint32) float32 { return math.Float32frombits(u) }
func float64FromBits(u uint64) float64 { return math.Float64frombits(u) }

// gen turns fuzz bytes into choices; past the end it yields zeros, so every input is usable.
type gen struct {
	b []byte
	i int
}

func (g *gen) byte() byte {
	if g.i >= len(g.b) {
		return 0
	}
	g.i++
	return g.b[g.i-1]
}

// n returns a choice in [0, k).
func (g *gen) n(k int) int { return int(g.byte()) % k }

// field derives a random field. Struct fields of a nullable struct are nullable, because a
// null struct slot makes its children null (as the Parquet decoder produces them, and as the
// oracle's StructBuilder does).
func (g *gen) field(name string, depth int, nullable bool) Field {
	f := Field{Name: name, Nullable: nullable && g.n(4) != 0}
	if g.n(8) == 0 {
		f.Metadata = [][2]string{{"m", name}}
	}
	kind := g.n(16)
	if depth >= 3 && kind >= 12 && kind <= 14 {
		kind = 2
	}
	t := &f.Type
	switch kind {
	case 0:
		t.ID = Null
		f.Nullable = true
	case 1:
		t.ID = Bool
	case 2:
		*t = DataType{ID: Int, BitWidth: 8 << g.n(4), Signed: g.n(2) == 0}
	case 3:
		*t = DataType{ID: Float, BitWidth: 16 << g.n(3)}
	case 4:
		t.ID = Utf8
	case 5:
		t.ID = Binary
	case 6:
		*t = DataType{ID: FixedSizeBinary, ByteWidth: 1 + g.n(5)}
	case 7:
		*t = DataType{ID: Decimal, BitWidth: 128, Precision: 1 + g.n(38), Scale: g.n(10) - 2}
		if g.n(2) == 0 {
			t.BitWidth, t.Precision = 256, 1+g.n(76)
		}
	case 8:
		t.ID = Date32
	case 9:
		u := TimeUnit(g.n(4))
		*t = DataType{ID: Time, BitWidth: 32, Unit: u}
		if u >= Microsecond {
			t.BitWidth = 64
		}
	case 10:
		*t = DataType{ID: Timestamp, Unit: TimeUnit(g.n(4)), TZ: []string{"", "UTC", "+01:00"}[g.n(3)]}
	case 11:
		t.ID = IntervalMonthDayNano
	case 12:
		e := g.field("item", depth+1, true)
		*t = DataType{ID: List, Elem: &e}
	case 13:
		t.ID = Struct
		for k := g.n(4); k >= 0; k-- {
			c := g.field(fmt.Sprintf("%s_%d", name, len(t.Fields)), depth+1, true)
			// The oracle's StructBuilder appends a null to every child under a null slot.
			if f.Nullable {
				nullableStruct(&c)
			}
			t.Fields = append(t.Fields, c)
		}
	case 14:
		key := g.field("key", depth+2, false)
		if key.Type.ID >= List || key.Type.ID == Null || key.Type.Dictionary {
			key.Type = DataType{ID: Utf8}
		}
		key.Nullable = false
		val := g.field("value", depth+2, true)
		*t = mapOf(key, val, g.n(2) == 0)
	case 15:
		*t = DataType{ID: Utf8, Dictionary: true}
	}
	return f
}

// nullableStruct makes f nullable and, if f is a struct, its fields too, down through nested
// structs: a null slot of a struct is null in every struct below it (the oracle's
// StructBuilder appends nulls all the way down). Forcing only f left a nullable struct with a
// non-nullable child holding values under null slots, which the oracle reads as nulls
// (fuzz crasher 5ca89a0f1e491610: struct<struct<struct<int8, bool>>>).
func nullableStruct(f *Field) {
	f.Nullable = true
	if f.Type.ID == Struct && !f.Type.Dictionary {
		for k := range f.Type.Fields {
			nullableStruct(&f.Type.Fields[k])
		}
	}
}

// array derives a valid Array of length n for f. Rows where parentValid is false are null.
func (g *gen) array(f *Field, n int, parentValid []bool) *Array {
	t := &f.Type
	a := &Array{Len: n}
	if t.ID == Null && !t.Dictionary {
		a.NullCount = n
		return a
	}
	if f.Nullable && (parentValid != nil || g.n(2) == 0) {
		valid := make([]bool, n)
		for i := range valid {
			valid[i] = g.n(3) != 0 && (parentValid == nil || parentValid[i])
		}
		a.Validity, a.NullCount = bitmap(valid)
		if a.NullCount == 0 && g.n(2) == 0 {
			a.Validity = nil // both forms of "no nulls" are allowed
		}
	}
	isValid := func(i int) bool { return a.NullCount == 0 || a.Validity[i/8]&(1<<(i%8)) != 0 }
	// offsets gives valid rows 0..3 elements and null rows none, optionally starting above 0.
	offsets := func() int {
		start := int32(g.n(3))
		if n == 0 && g.n(2) == 0 {
			return 0 // an empty array may omit offsets
		}
		a.Offsets = append(a.Offsets, start)
		for i := 0; i < n; i++ {
			k := int32(0)
			if isValid(i) {
				k = int32(g.n(4))
			}
			a.Offsets = append(a.Offsets, a.Offsets[i]+k)
		}
		return int(a.Offsets[n]) + g.n(2) // sometimes one spare element past the end
	}
	switch {
	case t.Dictionary:
		vals := make([]string, 1+g.n(4))
		for k := range vals {
			vals[k] = fmt.Sprintf("v%d-%d", k, g.n(256))
		}
		a.Dict = strs(vals, nil)
		idx := make([]int32, n)
		for i := range idx {
			idx[i] = int32(g.n(len(vals)))
		}
		d := fixed(idx, nil)
		a.Data = d.Data
	case t.ID == Bool:
		a.Data = g.bytes(bitmapLen(n))
	case t.ID == Float:
		// Small integers only: NaN payloads would make the oracle's comparison unequal.
		for i := 0; i < n; i++ {
			v := float32(int8(g.byte()))
			switch t.BitWidth {
			case 16:
				a.Data = append(a.Data, byte(float16.New(v).Uint16()), byte(float16.New(v).Uint16()>>8))
			case 32:
				u := math.Float32bits(v)
				a.Data = append(a.Data, byte(u), byte(u>>8), byte(u>>16), byte(u>>24))
			case 64:
				u := math.Float64bits(float64(v))
				for s := 0; s < 64; s += 8 {
					a.Data = append(a.Data, byte(u>>s))
				}
			}
		}
	case t.ID == Utf8 || t.ID == Binary:
		a.Data = g.bytes(offsets())
	case t.ID == List || t.ID == Map:
		m := offsets()
		a.Children = []*Array{g.array(t.Elem, m, nil)}
	case t.ID == Struct:
		var pv []bool
		if a.NullCount > 0 {
			pv = make([]bool, n)
			for i := range pv {
				pv[i] = isValid(i)
			}
		}
		for k := range t.Fields {
			a.Children = append(a.Children, g.array(&t.Fields[k], n, pv))
		}
	default:
		a.Data = g.bytes(n * fixedWidth(t))
	}
	return a
}

// bytes returns k fuzz-derived bytes (zeros once the input runs out).
func (g *gen) bytes(k int) []byte {
	out := make([]byte, k)
	for i := range out {
		out[i] = g.byte()
	}
	return out
}
