package decode

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/require"
)

// entry is one level entry of the naive model: its levels and, when present, its value.
type entry struct {
	def, rep int16
	val      []byte // fixed-width or variable bytes
	bit      bool
}

// modelBatch builds a LeafBatch from rows of entries.
func modelBatch(col *Column, rows [][]entry) *LeafBatch {
	b := &LeafBatch{}
	b.Reset(col.Conv.OutWidth)
	maxDef, hasRep := col.Node.DefLevel, col.Node.RepLevel > 0
	for _, r := range rows {
		for _, e := range r {
			if maxDef > 0 {
				b.Def = append(b.Def, e.def)
			}
			if hasRep {
				b.Rep = append(b.Rep, e.rep)
			}
			b.Entries++
			if e.def != maxDef || col.Conv.kind == convNull {
				continue
			}
			v := &b.Vals
			switch {
			case v.Width > 0:
				v.Fixed = append(v.Fixed, e.val...)
			case v.Width < 0:
				setBit(&v.Bits, v.N, e.bit)
			default:
				v.Data = append(v.Data, e.val...)
				v.Offsets = append(v.Offsets, int32(len(v.Data)))
			}
			v.N++
		}
		b.Rows++
	}
	if maxDef == 0 {
		b.Def = nil
	}
	if !hasRep {
		b.Rep = nil
	}
	return b
}

// randomRows makes rows of random levels and values for a leaf column.
func randomRows(rng *rand.Rand, col *Column, n int) [][]entry {
	maxDef, maxRep := col.Node.DefLevel, col.Node.RepLevel
	w := col.Conv.OutWidth
	rows := make([][]entry, n)
	for i := range rows {
		k := 1
		if maxRep > 0 {
			k = 1 + rng.Intn(4)
		}
		for j := 0; j < k; j++ {
			e := entry{def: int16(rng.Intn(int(maxDef) + 1))}
			if j > 0 {
				e.rep = int16(1 + rng.Intn(int(maxRep)))
			}
			if rng.Intn(3) > 0 {
				e.def = maxDef // mostly present
			}
			switch {
			case w > 0:
				e.val = make([]byte, w)
				rng.Read(e.val)
			case w < 0:
				e.bit = rng.Intn(2) == 0
			default:
				e.val = []byte(fmt.Sprint(rng.Intn(1000)))[:rng.Intn(2)]
			}
			rows[i] = append(rows[i], e)
		}
	}
	return rows
}

func Test_FilterRows(t *testing.T) {
	i32 := typ(format.Int32)
	list := conv(format.ConvertedList)
	listOf := func(leaf ...elOpt) []format.SchemaElement {
		return []format.SchemaElement{el("a", opt, children(1), list), el("list", rpt, children(1)), el("element", opt, leaf...)}
	}
	tests := []struct {
		name   string
		schema []format.SchemaElement
	}{
		{name: "flat required int32", schema: []format.SchemaElement{el("a", req, i32)}},
		{name: "flat optional int64", schema: []format.SchemaElement{el("a", opt, typ(format.Int64))}},
		{name: "flat optional INT96 (fixed width 8 after conversion)", schema: []format.SchemaElement{el("a", opt, typ(format.Int96))}},
		{name: "flat optional FLBA(3)", schema: []format.SchemaElement{el("a", opt, typ(format.FixedLenByteArray), tlen(3))}},
		{name: "flat optional int8 (width 1)", schema: []format.SchemaElement{el("a", opt, i32, conv(format.ConvertedInt8))}},
		{name: "flat optional strings", schema: []format.SchemaElement{el("a", opt, typ(format.ByteArray), conv(format.ConvertedUTF8))}},
		{name: "flat required strings", schema: []format.SchemaElement{el("a", req, typ(format.ByteArray))}},
		{name: "flat optional booleans", schema: []format.SchemaElement{el("a", opt, typ(format.Boolean))}},
		{name: "flat required booleans", schema: []format.SchemaElement{el("a", req, typ(format.Boolean))}},
		{name: "flat UNKNOWN (null) column", schema: []format.SchemaElement{el("a", opt, i32, logical(format.LogicalType{Kind: format.LogicalUnknown}))}},
		{name: "list<int32>", schema: listOf(i32)},
		{name: "list<string>", schema: listOf(typ(format.ByteArray))},
		{name: "list<bool>", schema: listOf(typ(format.Boolean))},
		{name: "list<decimal FLBA(5)> (width 16)", schema: listOf(typ(format.FixedLenByteArray), tlen(5), decimal(10, 2))},
		{name: "list<list<string>>", schema: []format.SchemaElement{el("a", opt, children(1), list), el("list", rpt, children(1)),
			el("element", opt, children(1), list), el("list", rpt, children(1)), el("element", opt, typ(format.ByteArray))}},
		{name: "bare repeated int32", schema: []format.SchemaElement{el("a", rpt, i32)}},
	}
	rng := rand.New(rand.NewSource(1))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := mustSchema(t, tc.schema...)
			col := s.Columns[0].Leaves(nil)[0]
			for iter := 0; iter < 200; iter++ {
				rows := randomRows(rng, col, rng.Intn(40))
				sel := make([]bool, len(rows))
				var kept [][]entry
				for i := range sel {
					switch iter % 4 {
					case 0:
						sel[i] = rng.Intn(2) == 0
					case 1:
						sel[i] = true
					case 2:
						sel[i] = false
					default:
						sel[i] = rng.Intn(8) == 0
					}
					if sel[i] {
						kept = append(kept, rows[i])
					}
				}
				got := modelBatch(col, rows)
				FilterRows(got, col, sel)
				want := modelBatch(col, kept)
				msg := fmt.Sprintf("iteration %d, %d rows, sel %v", iter, len(rows), sel)
				require.Equal(t, want.Entries, got.Entries, msg)
				require.Equal(t, want.Rows, got.Rows, msg)
				require.Equal(t, append([]int16{}, want.Def...), append([]int16{}, got.Def...), msg)
				require.Equal(t, append([]int16{}, want.Rep...), append([]int16{}, got.Rep...), msg)
				require.Equal(t, want.Vals.N, got.Vals.N, msg)
				switch w := col.Conv.OutWidth; {
				case col.Conv.kind == convNull:
				case w > 0:
					require.Equal(t, append([]byte{}, want.Vals.Fixed...), append([]byte{}, got.Vals.Fixed...), msg)
				case w < 0:
					for i := 0; i < want.Vals.N; i++ {
						require.Equal(t, getBit(want.Vals.Bits, i), getBit(got.Vals.Bits, i), msg, "bit", i)
					}
					require.Equal(t, (want.Vals.N+7)/8, len(got.Vals.Bits), msg)
				default:
					require.Equal(t, want.Vals.Offsets, got.Vals.Offsets, msg)
					require.Equal(t, append([]byte{}, want.Vals.Data...), append([]byte{}, got.Vals.Data...), msg)
				}
			}
		})
	}
}
