package arrowipc

// body is the layout of one RecordBatch body (Columnar.md "Buffer Listing for Each Layout",
// IPC "Record Batch message"): one FieldNode per array in pre-order, and the buffers in the
// same order. The buffers are views of the Arrays' memory; nothing is copied until the message
// is appended to the output.
type body struct {
	nodes []fieldNode
	bufs  [][]byte
}

type fieldNode struct{ length, nulls int64 }

// size is the body length: every buffer padded to 8 bytes.
func (bd *body) size() int64 {
	var n int64
	for _, b := range bd.bufs {
		n += int64(align8(len(b)))
	}
	return n
}

func align8(n int) int { return (n + 7) &^ 7 }

// add appends the node and buffers of a (validated against t) and, recursively, its children.
func (bd *body) add(t *DataType, a *Array) {
	if t.ID == Null && !t.Dictionary {
		// Null arrays have no buffers in MetadataVersion V5; every value is null.
		bd.nodes = append(bd.nodes, fieldNode{int64(a.Len), int64(a.Len)})
		return
	}
	bd.nodes = append(bd.nodes, fieldNode{int64(a.Len), int64(a.NullCount)})
	if a.NullCount == 0 {
		bd.bufs = append(bd.bufs, nil) // all valid: a zero-length validity buffer is allowed
	} else {
		bd.bufs = append(bd.bufs, a.Validity[:bitmapLen(a.Len)])
	}
	if t.Dictionary {
		bd.bufs = append(bd.bufs, a.Data[:4*a.Len])
		return
	}
	switch t.ID {
	case Bool:
		bd.bufs = append(bd.bufs, a.Data[:bitmapLen(a.Len)])
	case Utf8, Binary:
		bd.addOffsets(a)
		end := 0
		if len(a.Offsets) > 0 {
			end = int(a.Offsets[a.Len])
		}
		bd.bufs = append(bd.bufs, a.Data[:end])
	case List, Map:
		bd.addOffsets(a)
		bd.add(&t.Elem.Type, a.Children[0])
	case Struct:
		for i := range t.Fields {
			bd.add(&t.Fields[i].Type, a.Children[i])
		}
	default:
		bd.bufs = append(bd.bufs, a.Data[:a.Len*fixedWidth(t)])
	}
}

// addOffsets appends the Len+1 offsets, supplying the single 0 of an empty array whose
// producer left Offsets nil.
func (bd *body) addOffsets(a *Array) {
	if len(a.Offsets) == 0 {
		bd.bufs = append(bd.bufs, zeroOffset)
		return
	}
	bd.bufs = append(bd.bufs, int32Bytes(a.Offsets[:a.Len+1]))
}

// dictEntry is one dictionary to emit as a DictionaryBatch before the RecordBatch.
type dictEntry struct {
	id   int64
	typ  DataType // the value type (Dictionary false)
	dict *Array
}

// collectDicts walks fields and their arrays in depth-first pre-order, the order in which
// schemaWriter assigns dictionary ids, and appends one entry per dictionary-encoded field.
func collectDicts(dst []dictEntry, fields []Field, cols []*Array) []dictEntry {
	for i := range fields {
		dst = collectDict(dst, &fields[i], cols[i])
	}
	return dst
}

func collectDict(dst []dictEntry, f *Field, a *Array) []dictEntry {
	t := &f.Type
	if t.Dictionary {
		vt := *t
		vt.Dictionary = false
		// Dictionary value types are never nested (validateType), so no ids hide below.
		return append(dst, dictEntry{id: int64(len(dst)), typ: vt, dict: a.Dict})
	}
	switch t.ID {
	case List, Map:
		return collectDict(dst, t.Elem, a.Children[0])
	case Struct:
		return collectDicts(dst, t.Fields, a.Children)
	}
	return dst
}
