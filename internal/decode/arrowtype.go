package decode

import (
	"encoding/binary"
	"strings"

	"github.com/pqscan/pqscan/internal/errf"

	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/decode/format"
)

// convKind names a physical → Arrow value conversion.
type convKind uint8

const (
	convCopy         convKind = iota // bytes are already in Arrow layout
	convNarrow8                      // INT32 → 1-byte integer
	convNarrow16                     // INT32 → 2-byte integer
	convIntToDecimal                 // INT32/INT64 → Decimal128 (sign-extended)
	convBytesDecimal                 // big-endian two's complement (BYTE_ARRAY or FLBA) → Decimal128/256
	convInt96                        // INT96 → timestamp microseconds
	convInterval                     // FLBA(12) months/days/millis → MonthDayNano
	convNull                         // a NULL-typed column: values are dropped
)

// Converter turns a leaf's decoded physical values into Arrow values.
type Converter struct {
	Physical   format.Type
	TypeLength int // FIXED_LEN_BYTE_ARRAY width
	kind       convKind
	// OutWidth is the Arrow value width in bytes; 0 for variable-length, -1 for bits.
	OutWidth int
}

// PhysWidth is the width of one PLAIN value of the physical type, 0 for BYTE_ARRAY and -1 for BOOLEAN.
func (c *Converter) PhysWidth() int { return physWidth(c.Physical, c.TypeLength) }

func physWidth(t format.Type, typeLen int) int {
	switch t {
	case format.Boolean:
		return -1
	case format.Int32, format.Float:
		return 4
	case format.Int64, format.Double:
		return 8
	case format.Int96:
		return 12
	case format.FixedLenByteArray:
		return typeLen
	}
	return 0
}

// leafType decides the Arrow type of a primitive column from its physical type and its
// logical (or legacy converted) annotation. An annotation that does not fit the physical type,
// or one this reader does not know, degrades to the physical type.
func leafType(n *Node) (*Converter, arrowipc.DataType, [][2]string, error) {
	e := &n.Elem
	phys := *e.Type
	c := &Converter{Physical: phys}
	if e.TypeLength != nil {
		c.TypeLength = int(*e.TypeLength)
	}
	c.OutWidth = physWidth(phys, c.TypeLength)
	lt := e.LogicalType
	if lt != nil && lt.Kind == format.LogicalUnrecognized {
		lt = nil
	}
	var ct format.ConvertedType = -1
	if e.ConvertedType != nil {
		ct = *e.ConvertedType
	}
	lk := format.LogicalKind(-1)
	if lt != nil {
		lk = lt.Kind
	}
	prec, scale := 0, 0
	if lt != nil && lk == format.LogicalDecimal {
		prec, scale = int(lt.Precision), int(lt.Scale)
	} else if ct == format.ConvertedDecimal {
		if e.Precision != nil {
			prec = int(*e.Precision)
		}
		if e.Scale != nil {
			scale = int(*e.Scale)
		}
		lk = format.LogicalDecimal
	}
	dt := arrowipc.DataType{}
	var md [][2]string

	if lk == format.LogicalUnknown {
		c.kind, c.OutWidth = convNull, 0
		return c, arrowipc.DataType{ID: arrowipc.Null}, nil, nil
	}
	if lk == format.LogicalDecimal && prec > 0 && scale >= 0 && scale <= prec {
		switch phys {
		case format.Int32, format.Int64:
			if prec <= 38 {
				c.kind, c.OutWidth = convIntToDecimal, 16
				return c, arrowipc.DataType{ID: arrowipc.Decimal, BitWidth: 128, Precision: prec, Scale: scale}, nil, nil
			}
		case format.ByteArray, format.FixedLenByteArray:
			if phys == format.FixedLenByteArray && c.TypeLength > 32 {
				break
			}
			c.kind, c.OutWidth = convBytesDecimal, 16
			bw := 128
			if prec > 38 {
				c.OutWidth, bw = 32, 256
			}
			if prec > 76 {
				break
			}
			return c, arrowipc.DataType{ID: arrowipc.Decimal, BitWidth: bw, Precision: prec, Scale: scale}, nil, nil
		}
		c.kind, c.OutWidth = convCopy, physWidth(phys, c.TypeLength)
	}

	switch phys {
	case format.Boolean:
		return c, arrowipc.DataType{ID: arrowipc.Bool}, nil, nil
	case format.Int32:
		bw, signed := 32, true
		switch {
		case lk == format.LogicalInteger:
			bw, signed = int(lt.BitWidth), lt.IsSigned
		case ct >= format.ConvertedUint8 && ct <= format.ConvertedUint32:
			bw, signed = 8<<(ct-format.ConvertedUint8), false
		case ct >= format.ConvertedInt8 && ct <= format.ConvertedInt32:
			bw = 8 << (ct - format.ConvertedInt8)
		case lk == format.LogicalDate || ct == format.ConvertedDate:
			return c, arrowipc.DataType{ID: arrowipc.Date32}, nil, nil
		case (lk == format.LogicalTime && lt.Unit == format.Millis) || ct == format.ConvertedTimeMillis:
			return c, arrowipc.DataType{ID: arrowipc.Time, BitWidth: 32, Unit: arrowipc.Millisecond}, nil, nil
		}
		switch bw {
		case 8:
			c.kind, c.OutWidth = convNarrow8, 1
		case 16:
			c.kind, c.OutWidth = convNarrow16, 2
		default:
			bw = 32
		}
		return c, arrowipc.DataType{ID: arrowipc.Int, BitWidth: bw, Signed: signed}, nil, nil
	case format.Int64:
		switch {
		case lk == format.LogicalInteger && !lt.IsSigned, ct == format.ConvertedUint64:
			return c, arrowipc.DataType{ID: arrowipc.Int, BitWidth: 64}, nil, nil
		case lk == format.LogicalTimestamp:
			dt = arrowipc.DataType{ID: arrowipc.Timestamp, Unit: timeUnit(lt.Unit)}
			if lt.IsAdjustedToUTC {
				dt.TZ = "UTC"
			}
			return c, dt, nil, nil
		case ct == format.ConvertedTimestampMillis:
			return c, arrowipc.DataType{ID: arrowipc.Timestamp, Unit: arrowipc.Millisecond, TZ: "UTC"}, nil, nil
		case ct == format.ConvertedTimestampMicros:
			return c, arrowipc.DataType{ID: arrowipc.Timestamp, Unit: arrowipc.Microsecond, TZ: "UTC"}, nil, nil
		case lk == format.LogicalTime && lt.Unit != format.Millis:
			return c, arrowipc.DataType{ID: arrowipc.Time, BitWidth: 64, Unit: timeUnit(lt.Unit)}, nil, nil
		case ct == format.ConvertedTimeMicros:
			return c, arrowipc.DataType{ID: arrowipc.Time, BitWidth: 64, Unit: arrowipc.Microsecond}, nil, nil
		}
		return c, arrowipc.DataType{ID: arrowipc.Int, BitWidth: 64, Signed: true}, nil, nil
	case format.Int96:
		// INT96 (legacy Impala/Spark timestamps) becomes microseconds: int64 nanoseconds cannot
		// hold dates past 2262, which real files contain (int96_from_spark); microseconds cover
		// ±292,000 years and a value beyond that is an explicit error, never a wrapped one.
		c.kind, c.OutWidth = convInt96, 8
		return c, arrowipc.DataType{ID: arrowipc.Timestamp, Unit: arrowipc.Microsecond}, nil, nil
	case format.Float:
		return c, arrowipc.DataType{ID: arrowipc.Float, BitWidth: 32}, nil, nil
	case format.Double:
		return c, arrowipc.DataType{ID: arrowipc.Float, BitWidth: 64}, nil, nil
	case format.ByteArray:
		switch {
		case lk == format.LogicalString, lk == format.LogicalEnum, lk == format.LogicalJSON,
			ct == format.ConvertedUTF8, ct == format.ConvertedEnum, ct == format.ConvertedJSON:
			if lk == format.LogicalJSON || ct == format.ConvertedJSON {
				md = [][2]string{{"ARROW:extension:name", "arrow.json"}, {"ARROW:extension:metadata", ""}}
			}
			return c, arrowipc.DataType{ID: arrowipc.Utf8}, md, nil
		}
		return c, arrowipc.DataType{ID: arrowipc.Binary}, nil, nil
	case format.FixedLenByteArray:
		switch {
		case lk == format.LogicalUUID && c.TypeLength == 16:
			md = [][2]string{{"ARROW:extension:name", "arrow.uuid"}, {"ARROW:extension:metadata", ""}}
		case lk == format.LogicalFloat16 && c.TypeLength == 2:
			return c, arrowipc.DataType{ID: arrowipc.Float, BitWidth: 16}, nil, nil
		case ct == format.ConvertedInterval && c.TypeLength == 12:
			c.kind, c.OutWidth = convInterval, 16
			return c, arrowipc.DataType{ID: arrowipc.IntervalMonthDayNano}, nil, nil
		}
		return c, arrowipc.DataType{ID: arrowipc.FixedSizeBinary, ByteWidth: c.TypeLength}, md, nil
	}
	return nil, dt, nil, errf.Errorf("%w: column %q: unsupported physical type %v", ErrSchema, strings.Join(n.Path, "."), phys)
}

func timeUnit(u format.TimeUnit) arrowipc.TimeUnit {
	switch u {
	case format.Millis:
		return arrowipc.Millisecond
	case format.Nanos:
		return arrowipc.Nanosecond
	}
	return arrowipc.Microsecond
}

// julianEpochDay is the Julian day number of 1970-01-01.
const julianEpochDay = 2440588

// ConvertFixed converts n physical fixed-width values in src to Arrow layout, appending to dst.
func (c *Converter) ConvertFixed(dst, src []byte, n int) ([]byte, error) {
	w := c.PhysWidth()
	switch c.kind {
	case convCopy:
		return append(dst, src[:n*w]...), nil
	case convNarrow8:
		for i := 0; i < n; i++ {
			dst = append(dst, src[i*4])
		}
		return dst, nil
	case convNarrow16:
		for i := 0; i < n; i++ {
			dst = append(dst, src[i*4], src[i*4+1])
		}
		return dst, nil
	case convIntToDecimal:
		var buf [16]byte
		for i := 0; i < n; i++ {
			var v int64
			if w == 4 {
				v = int64(int32(binary.LittleEndian.Uint32(src[i*4:])))
			} else {
				v = int64(binary.LittleEndian.Uint64(src[i*8:]))
			}
			binary.LittleEndian.PutUint64(buf[:8], uint64(v))
			binary.LittleEndian.PutUint64(buf[8:], uint64(v>>63))
			dst = append(dst, buf[:]...)
		}
		return dst, nil
	case convBytesDecimal:
		for i := 0; i < n; i++ {
			var err error
			dst, err = appendDecimalBE(dst, src[i*w:(i+1)*w], c.OutWidth)
			if err != nil {
				return dst, err
			}
		}
		return dst, nil
	case convInt96:
		var buf [8]byte
		for i := 0; i < n; i++ {
			v := src[i*12:]
			nanos := int64(binary.LittleEndian.Uint64(v))
			day := int64(int32(binary.LittleEndian.Uint32(v[8:])))
			// Two's-complement arithmetic, exactly as Spark's writer computed the Julian day
			// from microseconds: values Spark wrote past year 2262 (or 294,247, where its own
			// arithmetic wrapped) read back as the microseconds Spark was given
			// (parquet-testing int96_from_spark.md).
			const usPerDay = 86400 * 1000000
			us := (day-julianEpochDay)*usPerDay + nanos/1000
			binary.LittleEndian.PutUint64(buf[:], uint64(us))
			dst = append(dst, buf[:]...)
		}
		return dst, nil
	case convInterval:
		var buf [16]byte
		for i := 0; i < n; i++ {
			v := src[i*12:]
			copy(buf[:8], v[:8]) // months, days (uint32 LE each)
			ms := int64(binary.LittleEndian.Uint32(v[8:]))
			binary.LittleEndian.PutUint64(buf[8:], uint64(ms*1000000))
			dst = append(dst, buf[:]...)
		}
		return dst, nil
	case convNull:
		return dst, nil
	}
	return dst, errf.Errorf("%w: no fixed-width conversion %d", ErrValue, int(c.kind))
}

// ConvertVar converts n variable-length values (Arrow offsets into data) to the Arrow layout.
// Only BYTE_ARRAY decimals change layout; strings and binary are already Arrow.
func (c *Converter) ConvertVar(dst []byte, offsets []int32, data []byte, n int) ([]byte, error) {
	for i := 0; i < n; i++ {
		var err error
		dst, err = appendDecimalBE(dst, data[offsets[i]:offsets[i+1]], c.OutWidth)
		if err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// appendDecimalBE appends a big-endian two's complement integer as a little-endian value of
// width bytes, sign-extended.
func appendDecimalBE(dst, be []byte, width int) ([]byte, error) {
	if len(be) > width {
		// Leading sign bytes beyond the width are allowed; anything else overflows.
		extra := be[:len(be)-width]
		sign := byte(0)
		if be[0]&0x80 != 0 {
			sign = 0xff
		}
		for _, b := range extra {
			if b != sign {
				return dst, errf.Errorf("%w: decimal of %d bytes does not fit %d bytes", ErrValue, len(be), width)
			}
		}
		be = be[len(be)-width:]
		if (be[0]^sign)&0x80 != 0 {
			// The kept bytes must carry the same sign: 00 80 00… is +2^127, not -2^127.
			return dst, errf.Errorf("%w: decimal of %d bytes does not fit %d bytes", ErrValue, len(extra)+width, width)
		}
	}
	ext := byte(0)
	if len(be) > 0 && be[0]&0x80 != 0 {
		ext = 0xff
	}
	for i := len(be) - 1; i >= 0; i-- {
		dst = append(dst, be[i])
	}
	for i := len(be); i < width; i++ {
		dst = append(dst, ext)
	}
	return dst, nil
}

// IsVar reports whether Arrow values of this converter are variable-length (offsets + data).
func (c *Converter) IsVar() bool { return c.OutWidth == 0 && c.kind != convNull }

// IsBits reports whether values are a bitmap (BOOLEAN).
func (c *Converter) IsBits() bool { return c.OutWidth == -1 }

// annotationIgnored reports whether a leaf carries an annotation leafType does not apply: a
// logical type this reader does not know, or a known one on a physical type it is not defined
// for (TIMESTAMP on FIXED_LEN_BYTE_ARRAY(12), proposed for nanoseconds past 2262, is one). The
// leaf then reads as its physical type, but its writer ordered min/max by the annotation, so
// its statistics bound nothing (Column.AnnotationIgnored). Annotations are n.Elem's, already
// reconciled (format.AnnotationConflict).
func annotationIgnored(n *Node) bool {
	e := &n.Elem
	phys := *e.Type
	tl := 0
	if e.TypeLength != nil {
		tl = int(*e.TypeLength)
	}
	if lt := e.LogicalType; lt != nil {
		switch lt.Kind {
		case format.LogicalUnknown:
			return false
		case format.LogicalString, format.LogicalEnum, format.LogicalJSON, format.LogicalBSON,
			format.LogicalGeometry, format.LogicalGeography:
			return phys != format.ByteArray
		case format.LogicalDecimal:
			return !decimalApplies(phys, tl, int(lt.Precision), int(lt.Scale))
		case format.LogicalDate:
			return phys != format.Int32
		case format.LogicalTime:
			return !(phys == format.Int32 && lt.Unit == format.Millis ||
				phys == format.Int64 && (lt.Unit == format.Micros || lt.Unit == format.Nanos))
		case format.LogicalTimestamp:
			return phys != format.Int64 || lt.Unit == format.TimeUnitUnrecognized
		case format.LogicalInteger:
			return !(phys == format.Int32 && (lt.BitWidth == 8 || lt.BitWidth == 16 || lt.BitWidth == 32) ||
				phys == format.Int64 && lt.BitWidth == 64)
		case format.LogicalUUID:
			return phys != format.FixedLenByteArray || tl != 16
		case format.LogicalFloat16:
			return phys != format.FixedLenByteArray || tl != 2
		}
		return true // unrecognized members, and group annotations on a leaf
	}
	if e.ConvertedType == nil {
		return false
	}
	switch ct := *e.ConvertedType; ct {
	case format.ConvertedUTF8, format.ConvertedEnum, format.ConvertedJSON, format.ConvertedBSON:
		return phys != format.ByteArray
	case format.ConvertedDecimal:
		p, s := 0, 0
		if e.Precision != nil {
			p = int(*e.Precision)
		}
		if e.Scale != nil {
			s = int(*e.Scale)
		}
		return !decimalApplies(phys, tl, p, s)
	case format.ConvertedDate, format.ConvertedTimeMillis, format.ConvertedUint8, format.ConvertedUint16,
		format.ConvertedUint32, format.ConvertedInt8, format.ConvertedInt16, format.ConvertedInt32:
		return phys != format.Int32
	case format.ConvertedTimeMicros, format.ConvertedTimestampMillis, format.ConvertedTimestampMicros,
		format.ConvertedUint64, format.ConvertedInt64:
		return phys != format.Int64
	case format.ConvertedInterval:
		return phys != format.FixedLenByteArray || tl != 12
	}
	return true
}

// decimalApplies mirrors leafType's decimal cases: the precisions and widths it reads as Arrow
// decimals.
func decimalApplies(phys format.Type, tl, prec, scale int) bool {
	if prec <= 0 || scale < 0 || scale > prec {
		return false
	}
	switch phys {
	case format.Int32, format.Int64:
		return prec <= 38
	case format.ByteArray:
		return prec <= 76
	case format.FixedLenByteArray:
		return tl <= 32 && prec <= 76
	}
	return false
}
