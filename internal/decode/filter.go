package decode

// FilterRows keeps, in place, the rows of b whose sel entry is true (len(sel) == b.Rows). It
// works on levels and values, before assembly, so one routine serves flat and nested columns:
// a row is the run of level entries that starts at a repetition level of 0.
func FilterRows(b *LeafBatch, col *Column, sel []bool) {
	maxDef := col.Node.DefLevel
	hasRep := col.Node.RepLevel > 0
	v := &b.Vals
	w := v.Width
	keptRows, keptEntries, keptVals := 0, 0, 0
	row := -1
	val := 0
	var dataPos int32
	for e := 0; e < b.Entries; e++ {
		if !hasRep || b.Rep[e] == 0 {
			row++
			if sel[row] {
				keptRows++
			}
		}
		present := b.Def == nil || b.Def[e] == maxDef
		if !sel[row] {
			if present {
				val++
			}
			continue
		}
		if b.Def != nil {
			b.Def[keptEntries] = b.Def[e]
		}
		if hasRep {
			b.Rep[keptEntries] = b.Rep[e]
		}
		keptEntries++
		if !present {
			continue
		}
		if col.Conv.kind != convNull {
			switch {
			case w > 0:
				if keptVals != val {
					copy(v.Fixed[keptVals*w:(keptVals+1)*w], v.Fixed[val*w:(val+1)*w])
				}
			case w < 0:
				bit := getBit(v.Bits, val)
				setBit(&v.Bits, keptVals, bit)
			default:
				lo, hi := v.Offsets[val], v.Offsets[val+1]
				if dataPos != lo {
					copy(v.Data[dataPos:], v.Data[lo:hi])
				}
				v.Offsets[keptVals] = dataPos
				dataPos += hi - lo
			}
			keptVals++
		}
		val++
	}
	if b.Def != nil {
		b.Def = b.Def[:keptEntries]
	}
	if hasRep {
		b.Rep = b.Rep[:keptEntries]
	}
	b.Entries, b.Rows = keptEntries, keptRows
	if col.Conv.kind == convNull {
		return
	}
	switch {
	case w > 0:
		v.Fixed = v.Fixed[:keptVals*w]
	case w < 0:
		v.Bits = v.Bits[:(keptVals+7)/8]
	default:
		v.Offsets = v.Offsets[:keptVals+1]
		v.Offsets[keptVals] = dataPos
		v.Data = v.Data[:dataPos]
	}
	v.N = keptVals
}
