package deltasession

import (
	"encoding/binary"
	"math"

	"github.com/pqscan/pqscan/internal/errf"

	"github.com/pqscan/pqscan/internal/decode/arrowipc"
)

// Rows turns one batch of the engine's Arrow arrays (the columns of a checkpoint or sidecar
// Parquet file) into the generic rows delta.ActionsFromRows takes: structs as map[string]any,
// lists as []any, maps as []any of {"key","value"} maps, null as nil. It reads the engine's
// own in-memory arrays (no arrow-go inside the wasm module, docs/ARCHITECTURE.md), the same
// shapes the Go host gets from arrow-go in delta_rows.go. Types a Delta action never holds
// outside stats_parsed / partitionValues_parsed (which ActionsFromRows drops) read as nil.
func Rows(s *arrowipc.Schema, n int, cols []*arrowipc.Array) ([]map[string]any, error) {
	if len(cols) != len(s.Fields) {
		return nil, errf.Errorf("%w: %d columns for %d fields", errRows, len(cols), len(s.Fields))
	}
	rows := make([]map[string]any, n)
	for i := range rows {
		rows[i] = make(map[string]any, len(cols))
	}
	for c, a := range cols {
		f := &s.Fields[c]
		for i := 0; i < n; i++ {
			v, err := value(&f.Type, a, i, 0)
			if err != nil {
				return nil, errf.Errorf("column %s: %w", f.Name, err)
			}
			rows[i][f.Name] = v
		}
	}
	return rows, nil
}

// maxDepth bounds the nesting walked (the engine's schemas are bounded too; this keeps a
// malformed array from recursing without end).
const maxDepth = 64

func valid(a *arrowipc.Array, i int) bool {
	if a.Validity == nil {
		return true
	}
	return i/8 < len(a.Validity) && a.Validity[i/8]&(1<<(i%8)) != 0
}

// span returns the offsets [start, end) of element i of a variable-length array.
func span(a *arrowipc.Array, i int, limit int) (int, int, error) {
	if i+1 >= len(a.Offsets) {
		return 0, 0, errf.Errorf("%w: offset %d of %d", errRows, i+1, len(a.Offsets))
	}
	s, e := int(a.Offsets[i]), int(a.Offsets[i+1])
	if s < 0 || e < s || e > limit {
		return 0, 0, errf.Errorf("%w: offsets %d..%d outside %d", errRows, s, e, limit)
	}
	return s, e, nil
}

func value(t *arrowipc.DataType, a *arrowipc.Array, i, depth int) (any, error) {
	if depth > maxDepth {
		return nil, errf.Errorf("%w: nested deeper than %d", errRows, maxDepth)
	}
	if a == nil || i >= a.Len || !valid(a, i) {
		return nil, nil
	}
	if t.Dictionary {
		if a.Dict == nil || 4*i+4 > len(a.Data) {
			return nil, errf.Errorf("%w: dictionary index %d", errRows, i)
		}
		vt := *t
		vt.Dictionary = false
		return value(&vt, a.Dict, int(int32(binary.LittleEndian.Uint32(a.Data[4*i:]))), depth+1)
	}
	switch t.ID {
	case arrowipc.Bool:
		return i/8 < len(a.Data) && a.Data[i/8]&(1<<(i%8)) != 0, nil
	case arrowipc.Int, arrowipc.Date32, arrowipc.Timestamp, arrowipc.Time:
		w := t.BitWidth / 8
		if t.ID == arrowipc.Date32 {
			w = 4
		} else if t.ID == arrowipc.Timestamp {
			w = 8
		}
		if w <= 0 || w*i+w > len(a.Data) {
			return nil, errf.Errorf("%w: value %d of %d bytes", errRows, i, len(a.Data))
		}
		b := a.Data[w*i:]
		var u uint64
		switch w {
		case 1:
			u = uint64(b[0])
		case 2:
			u = uint64(binary.LittleEndian.Uint16(b))
		case 4:
			u = uint64(binary.LittleEndian.Uint32(b))
		case 8:
			u = binary.LittleEndian.Uint64(b)
		}
		if t.ID == arrowipc.Int && !t.Signed {
			return u, nil
		}
		shift := 64 - 8*uint(w)
		return int64(u<<shift) >> shift, nil
	case arrowipc.Float:
		switch t.BitWidth {
		case 32:
			if 4*i+4 <= len(a.Data) {
				return float64(math.Float32frombits(binary.LittleEndian.Uint32(a.Data[4*i:]))), nil
			}
		case 64:
			if 8*i+8 <= len(a.Data) {
				return math.Float64frombits(binary.LittleEndian.Uint64(a.Data[8*i:])), nil
			}
		}
		return nil, errf.Errorf("%w: float value %d", errRows, i)
	case arrowipc.Utf8, arrowipc.Binary:
		s, e, err := span(a, i, len(a.Data))
		if err != nil {
			return nil, err
		}
		if t.ID == arrowipc.Utf8 {
			return string(a.Data[s:e]), nil
		}
		return append([]byte(nil), a.Data[s:e]...), nil
	case arrowipc.Struct:
		if len(a.Children) != len(t.Fields) {
			return nil, errf.Errorf("%w: struct of %d children for %d fields", errRows, len(a.Children), len(t.Fields))
		}
		m := make(map[string]any, len(t.Fields))
		for k := range t.Fields {
			v, err := value(&t.Fields[k].Type, a.Children[k], i, depth+1)
			if err != nil {
				return nil, err
			}
			m[t.Fields[k].Name] = v
		}
		return m, nil
	case arrowipc.List, arrowipc.Map:
		if len(a.Children) != 1 || t.Elem == nil {
			return nil, errf.Errorf("%w: list without its element", errRows)
		}
		el := a.Children[0]
		s, e, err := span(a, i, el.Len)
		if err != nil {
			return nil, err
		}
		out := make([]any, 0, e-s)
		for j := s; j < e; j++ {
			v, err := value(&t.Elem.Type, el, j, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil // a map's entries are {"key","value"} structs already
	}
	return nil, nil
}
