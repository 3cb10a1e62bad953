package scan

import (
	"encoding/binary"
	"strings"
	"unsafe"

	"github.com/pqscan/pqscan/internal/errf"

	"github.com/pqscan/pqscan/internal/decode"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/geo"
	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/prune/pqstats"
)

// predicate is the bound WHERE expression and the leaf column behind each path it uses.
type predicate struct {
	bound *prune.Bound
	paths []string // the file columns it reads (not the row index)
	leaf  map[string]*decode.Column
	types map[string]prune.ColumnType
	// rowIndex is the row index column's name (Options.RowIndex) when the predicate uses it:
	// its values are the rows' positions, known without reading anything (rowindex.go).
	rowIndex string
	// stages are the groups of AND-ed conjuncts the row filter evaluates one after the
	// other (order.go); one stage, the whole predicate, when it is not such an AND.
	stages []stage
	// pre, when not nil, runs before the predicate round over the covering columns of a
	// spatial term (preStage).
	pre *stage
	// fileBox is the GeoParquet metadata's bounding box of a planar geometry column: every
	// row group's, when its chunk has no geospatial statistics (GeoParquet 1.0 files).
	fileBox map[string]*geo.Rect
}

// bindWhere parses and binds Options.Where against the file's schema.
func (s *Scanner) bindWhere() error {
	var e prune.Expr
	if len(s.extra) > 0 {
		// Tightened before the footer (tighten.go): the conjuncts join Options.Where.
		e = s.whereExprs()
	} else if strings.TrimSpace(s.opts.Where) != "" {
		var err error
		if e, err = prune.Parse(s.opts.Where); err != nil {
			return err
		}
	}
	e, cover, err := expandSpatial(e, s.schema, s.meta.KeyValueMetadata)
	if err != nil {
		return err
	}
	p, err := bindPredicateExpr(s.schema, e, s.opts.RowIndex)
	if err != nil {
		return err
	}
	if p != nil {
		if p.pre, err = preStage(e, cover, p); err != nil {
			return err
		}
		if cover != nil { // a spatial predicate
			p.fileBox = fileBoxes(s.meta.KeyValueMetadata)
		}
	}
	s.pred = p
	return nil
}

// bindPredicate parses where and binds it to schema's leaf columns (and rowIndex, when not
// empty, to the row index: an int64 column); nil for an empty where. It is pure (the
// planners' tests bind predicates with it, without a Scanner).
func bindPredicate(schema *decode.Schema, where, rowIndex string) (*predicate, error) {
	if strings.TrimSpace(where) == "" {
		return nil, nil
	}
	e, err := prune.Parse(where)
	if err != nil {
		return nil, err
	}
	return bindPredicateExpr(schema, e, rowIndex)
}

// bindPredicateExpr is bindPredicate over a parsed expression (nil: no predicate).
func bindPredicateExpr(schema *decode.Schema, e prune.Expr, rowIndex string) (*predicate, error) {
	if e == nil {
		return nil, nil
	}
	p := &predicate{leaf: map[string]*decode.Column{}, types: map[string]prune.ColumnType{}}
	var lookupErr error
	lookup := func(path string) (prune.ColumnType, bool) {
		if rowIndex != "" && path == rowIndex {
			p.rowIndex = path
			return rowIndexType, true
		}
		c, ok := schema.Find(path)
		if !ok {
			return prune.ColumnType{}, false
		}
		if c.Kind != decode.KindLeaf {
			what := "a struct, list or map; only its leaf fields can be filtered"
			if c.Variant != nil {
				what = "a VARIANT, which cannot be filtered"
			}
			lookupErr = errf.Errorf("%w: WHERE on %q: it is %s", ErrOptions, path, what)
			return prune.ColumnType{}, false
		}
		if c.Node.RepLevel > 0 {
			lookupErr = errf.Errorf("%w: WHERE on %q, a column inside a list, is not supported", ErrOptions, path)
			return prune.ColumnType{}, false
		}
		t, ok := pruneType(c)
		if !ok {
			lookupErr = errf.Errorf("%w: WHERE on %q: its type %v cannot be filtered", ErrOptions, path, int(c.Field.Type.ID))
			return prune.ColumnType{}, false
		}
		p.leaf[path], p.types[path] = c, t
		return t, true
	}
	b, err := prune.Bind(e, lookup)
	if lookupErr != nil {
		return nil, lookupErr
	}
	if err != nil {
		return nil, err
	}
	p.bound = b
	for _, path := range b.Columns() {
		if path != p.rowIndex {
			p.paths = append(p.paths, path)
		}
	}
	if p.stages, err = splitStages(e, p, lookup); err != nil {
		return nil, err
	}
	return p, nil
}

// statsColumn is what the statistics rules (package pqstats) need to know about the predicate
// column path in a file written by w with column orders co.
func (p *predicate) statsColumn(path string, w format.WriterVersion, co []format.ColumnOrder) pqstats.Column {
	return statsOf(p.leaf[path], p.types[path], w, co)
}

// statsOf is what the statistics rules (package pqstats) need to know about leaf c, compared
// as t, in a file written by w with column orders co: every user of a file's min/max builds it
// here, so that none forgets a rule (an annotation the reader ignores bounds nothing).
func statsOf(c *decode.Column, t prune.ColumnType, w format.WriterVersion, co []format.ColumnOrder) pqstats.Column {
	return pqstats.Column{Type: t, Writer: w, Order: pqstats.OrderOf(co, c.Node.Leaf),
		Nullable: c.Node.DefLevel > 0, Unordered: c.AnnotationIgnored}
}

// usesBloom reports whether the predicate has an equality conjunct on path that a bloom
// filter could refute (MayMatchBloom consults the filter only then).
func (p *predicate) usesBloom(path string) bool {
	used := false
	p.bound.MayMatchBloom(path, func(uint64) bool { used = true; return true })
	return used
}

// pruneType maps a leaf column to the domain its values are compared in.
func pruneType(c *decode.Column) (prune.ColumnType, bool) {
	e := c.Node.Elem
	t := prune.ColumnType{Physical: pqstats.PhysicalOf(*e.Type)}
	if *e.Type == format.FixedLenByteArray {
		t.TypeLength = *e.TypeLength
	}
	dt := c.Field.Type
	switch dt.ID {
	case arrowipc.Bool:
		t.Kind = prune.Bool
	case arrowipc.Int:
		t.Kind = prune.Int
		if !dt.Signed {
			t.Kind = prune.Uint
		}
	case arrowipc.Float: // FLOAT16 too: FIXED_LEN_BYTE_ARRAY(2), values widened by vector
		t.Kind = prune.Float
	case arrowipc.Utf8, arrowipc.Binary, arrowipc.FixedSizeBinary:
		t.Kind = prune.Bytes
	case arrowipc.Decimal:
		t.Kind, t.Scale, t.Precision = prune.Decimal, int32(dt.Scale), int32(dt.Precision)
	case arrowipc.Date32:
		t.Kind = prune.Date
	case arrowipc.Timestamp, arrowipc.Time:
		t.Kind = prune.Timestamp
		if dt.ID == arrowipc.Time {
			t.Kind = prune.Time
		}
		t.Unit = [...]prune.Unit{prune.Second, prune.Milli, prune.Micro, prune.Nano}[dt.Unit]
		t.UTC = dt.TZ != ""
	default:
		return t, false
	}
	return t, true
}

// vector exposes an assembled flat Arrow array to the row evaluator without copying, except
// for decimals, which the evaluator takes big-endian.
func vector(a *arrowipc.Array, t prune.ColumnType, dt arrowipc.DataType) *prune.Vector {
	v := &prune.Vector{Kind: t.Kind, Len: a.Len, Valid: a.Validity}
	n := a.Len
	switch dt.ID {
	case arrowipc.Bool:
		v.Bools = a.Data
	case arrowipc.Int, arrowipc.Date32, arrowipc.Time, arrowipc.Timestamp:
		bw := dt.BitWidth
		if dt.ID == arrowipc.Date32 {
			bw = 32
		} else if dt.ID == arrowipc.Timestamp {
			bw = 64
		}
		switch bw {
		case 8, 16:
			// Widen narrow integers.
			if dt.Signed {
				v.I64 = make([]int64, n)
				for i := 0; i < n; i++ {
					if bw == 8 {
						v.I64[i] = int64(int8(a.Data[i]))
					} else {
						v.I64[i] = int64(int16(binary.LittleEndian.Uint16(a.Data[2*i:])))
					}
				}
			} else {
				v.U64 = make([]uint64, n)
				for i := 0; i < n; i++ {
					if bw == 8 {
						v.U64[i] = uint64(a.Data[i])
					} else {
						v.U64[i] = uint64(binary.LittleEndian.Uint16(a.Data[2*i:]))
					}
				}
			}
		case 32:
			if t.Kind == prune.Uint {
				v.U32 = unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(a.Data))), n)
			} else {
				v.I32 = unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(a.Data))), n)
			}
		default:
			if t.Kind == prune.Uint {
				v.U64 = unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(a.Data))), n)
			} else {
				v.I64 = unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(a.Data))), n)
			}
		}
	case arrowipc.Float:
		switch dt.BitWidth {
		case 16:
			v.F32 = make([]float32, n)
			for i := range v.F32 {
				v.F32[i] = pqstats.Float16(binary.LittleEndian.Uint16(a.Data[2*i:]))
			}
		case 32:
			v.F32 = unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(a.Data))), n)
		default:
			v.F64 = unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(a.Data))), n)
		}
	case arrowipc.Utf8, arrowipc.Binary:
		v.Offsets, v.Data = a.Offsets, a.Data
	case arrowipc.FixedSizeBinary:
		v.Width, v.Data = dt.ByteWidth, a.Data
	case arrowipc.Decimal:
		w := dt.BitWidth / 8
		be := make([]byte, n*w)
		for i := 0; i < n; i++ {
			for k := 0; k < w; k++ {
				be[i*w+k] = a.Data[i*w+w-1-k]
			}
		}
		v.Width, v.Data = w, be
	}
	return v
}
