package decode

import (
	"strings"

	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/variant"

	"github.com/pqscan/pqscan/internal/decode/arrowipc"
)

// slots are the positions of one Arrow column's values within a leaf's level entries: slot i
// covers entries [start[i], end[i]). A nil start means the identity (slot i is entry i), the
// common case of a column with no repeated ancestor.
type slots struct {
	n          int
	start, end []int32
}

func (s *slots) first(i int) int {
	if s.start == nil {
		return i
	}
	return int(s.start[i])
}

// Assemble builds the Arrow array of column col for a batch of rows from its leaves' levels
// and values (record shredding in reverse, as in the Dremel paper). leaf returns the batch of
// a leaf column by its leaf index.
func Assemble(col *Column, rows int, leaf func(int) *LeafBatch) (*arrowipc.Array, error) {
	return assemble(col, rows, leaf, false)
}

// AssembleLeafForFilter assembles a single leaf keeping a null wherever the leaf has no value,
// even for a required leaf under a null parent: a filter on the leaf alone must see a null.
func AssembleLeafForFilter(col *Column, rows int, leaf func(int) *LeafBatch) (*arrowipc.Array, error) {
	return assemble(col, rows, leaf, true)
}

func assemble(col *Column, rows int, leaf func(int) *LeafBatch, keepNulls bool) (*arrowipc.Array, error) {
	sl := map[int]*slots{}
	for _, l := range col.Leaves(nil) {
		b := leaf(l.Node.Leaf)
		if b == nil {
			return nil, errf.Errorf("%w: leaf %s not read", ErrLevels, l.Field.Name)
		}
		if b.Rows != rows {
			return nil, errf.Errorf("%w: column %s has %d rows, expected %d", ErrLevels, l.Field.Name, b.Rows, rows)
		}
		if l.Node.RepLevel == 0 {
			if b.Entries != rows {
				return nil, errf.Errorf("%w: column %s has %d values for %d rows", ErrLevels, l.Field.Name, b.Entries, rows)
			}
			sl[l.Node.Leaf] = &slots{n: rows}
			continue
		}
		s := &slots{n: rows, start: make([]int32, 0, rows), end: make([]int32, 0, rows)}
		for e := 0; e < b.Entries; e++ {
			if b.Rep[e] == 0 {
				if len(s.start) > 0 {
					s.end = append(s.end, int32(e))
				}
				s.start = append(s.start, int32(e))
			}
		}
		if len(s.start) > 0 {
			s.end = append(s.end, int32(b.Entries))
		}
		if len(s.start) != rows || (b.Entries > 0 && b.Rep[0] != 0) {
			return nil, errf.Errorf("%w: column %s: repetition levels give %d rows, expected %d", ErrLevels, l.Field.Name, len(s.start), rows)
		}
		sl[l.Node.Leaf] = s
	}
	a := &assembler{leaf: leaf, keepNulls: keepNulls}
	return a.build(col, sl)
}

type assembler struct {
	leaf      func(int) *LeafBatch
	keepNulls bool
}

func (a *assembler) build(col *Column, sl map[int]*slots) (*arrowipc.Array, error) {
	leaves := col.Leaves(nil)
	fl := leaves[0].Node.Leaf
	s := sl[fl]
	b := a.leaf(fl)
	arr := &arrowipc.Array{Len: s.n}
	if col.Kind == KindLeaf {
		return a.buildLeaf(col, s, b, arr)
	}
	if col.Field.Nullable && col.NullDef > 0 && b.Def != nil {
		var valid []byte
		nulls := 0
		for i := 0; i < s.n; i++ {
			if b.Def[s.first(i)] < col.NullDef {
				if valid == nil {
					valid = allValid(s.n)
				}
				valid[i>>3] &^= 1 << (uint(i) & 7)
				nulls++
			}
		}
		arr.Validity, arr.NullCount = valid, nulls
	}
	switch col.Kind {
	case KindStruct:
		for _, c := range col.Children {
			ch, err := a.build(c, sl)
			if err != nil {
				return nil, err
			}
			if ch.Len != s.n {
				return nil, errf.Errorf("%w: struct %s children have different lengths", ErrLevels, col.Field.Name)
			}
			arr.Children = append(arr.Children, ch)
		}
		if col.Variant != nil {
			v, err := variant.Canonical(*col.Variant, arr)
			if err != nil {
				return nil, errf.Errorf("%w: column %s: %w", ErrValue, strings.Join(col.Node.Path, "."), err)
			}
			return v, nil
		}
		return arr, nil
	case KindList, KindMap:
		child := map[int]*slots{}
		var offsets []int32
		for _, l := range leaves {
			li := l.Node.Leaf
			lb := a.leaf(li)
			cs, offs, err := splitSlots(col, sl[li], lb)
			if err != nil {
				return nil, err
			}
			if offsets == nil {
				offsets = offs
			} else if !equalInt32(offsets, offs) {
				return nil, errf.Errorf("%w: list %s: leaves disagree on list lengths", ErrLevels, col.Field.Name)
			}
			child[li] = cs
		}
		arr.Offsets = offsets
		ch, err := a.build(col.Children[0], child)
		if err != nil {
			return nil, err
		}
		if col.Kind == KindMap && col.Children[0].Children[0].Kind == KindLeaf {
			// The key field is non-nullable, so buildLeaf drops its validity: look at the
			// key's levels instead of the key array's null count. (A group key is required,
			// mapMap checks, so each entry has one.)
			key := col.Children[0].Children[0]
			kb, ks := a.leaf(key.Node.Leaf), child[key.Node.Leaf]
			for i := 0; kb.Def != nil && i < ks.n; i++ {
				if kb.Def[ks.first(i)] < key.Node.DefLevel {
					return nil, errf.Errorf("%w: map %s has a null key", ErrLevels, col.Field.Name)
				}
			}
		}
		arr.Children = []*arrowipc.Array{ch}
		return arr, nil
	}
	return nil, errf.Errorf("%w: unknown column kind", ErrSchema)
}

// splitSlots splits each slot of a list into element slots: a slot holds elements iff its
// first definition level reaches ElemDef; a new element starts at each entry whose repetition
// level equals the list's RepLevel.
func splitSlots(col *Column, s *slots, b *LeafBatch) (*slots, []int32, error) {
	offsets := make([]int32, s.n+1)
	cs := &slots{start: make([]int32, 0, s.n), end: make([]int32, 0, s.n)}
	for i := 0; i < s.n; i++ {
		from, to := s.first(i), s.first(i)+1
		if s.start != nil {
			to = int(s.end[i])
		}
		if b.Def == nil || b.Def[from] >= col.ElemDef {
			for e := from; e < to; e++ {
				r := b.Rep[e]
				if e == from || r == col.RepLevel {
					if len(cs.start) > len(cs.end) {
						cs.end = append(cs.end, int32(e))
					}
					cs.start = append(cs.start, int32(e))
				} else if r < col.RepLevel {
					return nil, nil, errf.Errorf("%w: list %s: repetition level %d inside an element", ErrLevels, col.Field.Name, r)
				}
			}
			if len(cs.start) > len(cs.end) {
				cs.end = append(cs.end, int32(to))
			}
		}
		if len(cs.start) > 1<<31-1 {
			return nil, nil, errf.Errorf("%w: list %s has too many elements", ErrMemory, col.Field.Name)
		}
		offsets[i+1] = int32(len(cs.start))
	}
	cs.n = len(cs.start)
	return cs, offsets, nil
}

func (a *assembler) buildLeaf(col *Column, s *slots, b *LeafBatch, arr *arrowipc.Array) (*arrowipc.Array, error) {
	n := s.n
	maxDef := col.Node.DefLevel
	if s.start != nil {
		for i := 0; i < n; i++ {
			if s.end[i]-s.start[i] != 1 {
				return nil, errf.Errorf("%w: column %s: a leaf value spans %d level entries", ErrLevels, col.Field.Name, s.end[i]-s.start[i])
			}
		}
	}
	v := &b.Vals
	if col.Conv.kind == convNull {
		arr.NullCount = n
		arr.Validity = make([]byte, (n+7)/8)
		return arr, nil
	}
	// present[i]: slot i holds a value.
	var valid []byte
	nulls := 0
	if b.Def != nil {
		for i := 0; i < n; i++ {
			if b.Def[s.first(i)] != maxDef {
				if valid == nil {
					valid = allValid(n)
				}
				valid[i>>3] &^= 1 << (uint(i) & 7)
				nulls++
			}
		}
	}
	if n-nulls > v.N {
		return nil, errf.Errorf("%w: column %s: %d values for %d non-null slots", ErrLevels, col.Field.Name, v.N, n-nulls)
	}
	if nulls > 0 && !col.Field.Nullable && !hasNullableAncestor(col) {
		return nil, errf.Errorf("%w: column %s is required but has nulls", ErrLevels, col.Field.Name)
	}
	arr.Validity, arr.NullCount = valid, nulls
	switch {
	case v.Width > 0:
		w := v.Width
		if nulls == 0 {
			arr.Data = v.Fixed[:n*w]
			break
		}
		data := make([]byte, n*w)
		k := 0
		switch w {
		case 4, 8:
			// Typed moves: a copy per value is a runtime call, slow in wasm.
			if w == 4 {
				d, src := asUint32(data), asUint32(v.Fixed)
				for i := 0; i < n; i++ {
					if isSet(valid, i) {
						d[i] = src[k]
						k++
					}
				}
			} else {
				d, src := asUint64(data), asUint64(v.Fixed)
				for i := 0; i < n; i++ {
					if isSet(valid, i) {
						d[i] = src[k]
						k++
					}
				}
			}
		default:
			for i := 0; i < n; i++ {
				if isSet(valid, i) {
					copy(data[i*w:], v.Fixed[k*w:(k+1)*w])
					k++
				}
			}
		}
		arr.Data = data
	case v.Width < 0:
		if nulls == 0 {
			arr.Data = v.Bits[:(n+7)/8]
			break
		}
		data := make([]byte, (n+7)/8)
		k := 0
		for i := 0; i < n; i++ {
			if isSet(valid, i) {
				if getBit(v.Bits, k) {
					data[i>>3] |= 1 << (uint(i) & 7)
				}
				k++
			}
		}
		arr.Data = data
	default:
		arr.Data = v.Data
		if nulls == 0 {
			arr.Offsets = v.Offsets[:n+1]
			break
		}
		offs := make([]int32, n+1)
		k := 0
		for i := 0; i < n; i++ {
			if isSet(valid, i) {
				k++
			}
			offs[i+1] = v.Offsets[k]
		}
		arr.Offsets = offs
	}
	if b.Dict != nil {
		d := b.Dict
		arr.Dict = &arrowipc.Array{Len: d.N, Data: d.Data, Offsets: d.Offsets}
		if d.Width > 0 {
			arr.Dict.Data, arr.Dict.Offsets = d.Fixed, nil
		}
	}
	if !col.Field.Nullable && !a.keepNulls {
		// Arrow readers reject nulls in a non-nullable field; the slots of a required field
		// under a null parent carry no meaning there.
		arr.Validity, arr.NullCount = nil, 0
	}
	return arr, nil
}

func hasNullableAncestor(col *Column) bool {
	for n := col.Node.Parent; n != nil; n = n.Parent {
		if n.Repetition != 0 { // optional or repeated ancestors create null/empty slots
			return true
		}
	}
	return false
}

// allValid is a validity bitmap of n set bits; the padding bits of the last byte stay zero.
func allValid(n int) []byte {
	b := make([]byte, (n+7)/8)
	for i := range b {
		b[i] = 0xff
	}
	if r := n & 7; r != 0 {
		b[len(b)-1] = 1<<r - 1
	}
	return b
}

func equalInt32(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// isSet reports whether bit i of a validity bitmap is set; a nil bitmap is all set. (A small
// function the compiler inlines, unlike a closure.)
func isSet(b []byte, i int) bool { return b == nil || b[i>>3]&(1<<(uint(i)&7)) != 0 }
