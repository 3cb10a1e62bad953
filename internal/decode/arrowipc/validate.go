package arrowipc

import (
	"math/bits"

	"github.com/pqscan/pqscan/internal/errf"
)

// maxDepth bounds type nesting, since schemas come from untrusted Parquet files. It matches the
// decoder's Parquet schema cap: Impala and Hive write up to 100 levels. Note that arrow-go's IPC
// reader refuses arrays nested deeper than 64 (its kMaxNestingDepth), so streams of columns
// nested deeper than that need a reader without the limit.
const maxDepth = 128

// Validate checks that cols (one Array per field of s, each of length nrows) match their types:
// lengths, buffer sizes, validity bitmaps and null counts, offsets (non-negative, monotonic,
// within Data or the child), children, and dictionary indices. WriteStream calls it so that a
// producer bug becomes an error instead of a stream that readers misinterpret.
//
// It does not check that Utf8 data is valid UTF-8 (that would be per-byte work; Arrow readers
// do not check it either) nor the values of Decimal/Timestamp data.
func Validate(s *Schema, nrows int, cols []*Array) error {
	if err := validateSchema(s); err != nil {
		return err
	}
	if nrows < 0 {
		return errf.Errorf("%w: negative row count %d", ErrArray, nrows)
	}
	if len(cols) != len(s.Fields) {
		return errf.Errorf("%w: %d columns for %d fields", ErrArray, len(cols), len(s.Fields))
	}
	for i := range s.Fields {
		if err := validateArray(&s.Fields[i], cols[i], nrows); err != nil {
			return errf.Errorf("column %d (%q): %w", i, s.Fields[i].Name, err)
		}
	}
	return nil
}

// validateSchema checks every field type; see validateType.
func validateSchema(s *Schema) error {
	if s == nil {
		return errf.Errorf("%w: nil schema", ErrType)
	}
	for i := range s.Fields {
		if err := validateType(&s.Fields[i].Type, 1); err != nil {
			return errf.Errorf("field %d (%q): %w", i, s.Fields[i].Name, err)
		}
	}
	return nil
}

// validateType checks that t is expressible in Arrow IPC and that its children are well formed.
func validateType(t *DataType, depth int) error {
	if depth > maxDepth {
		return ErrTooDeep
	}
	if t.Dictionary {
		switch t.ID {
		case Null, List, Struct, Map:
			// Parquet dictionary-encodes leaf columns only, so nested or null dictionary value
			// types are not needed; refusing them keeps the id assignment trivial.
			return errf.Errorf("%w: dictionary of type %d is not supported", ErrType, int(t.ID))
		}
	}
	switch t.ID {
	case Null, Bool, Utf8, Binary, Date32, IntervalMonthDayNano:
	case Int:
		switch t.BitWidth {
		case 8, 16, 32, 64:
		default:
			return errf.Errorf("%w: int bit width %d", ErrType, t.BitWidth)
		}
	case Float:
		switch t.BitWidth {
		case 16, 32, 64:
		default:
			return errf.Errorf("%w: float bit width %d", ErrType, t.BitWidth)
		}
	case FixedSizeBinary:
		if t.ByteWidth <= 0 || t.ByteWidth > 1<<30 {
			return errf.Errorf("%w: fixed size binary width %d", ErrType, t.ByteWidth)
		}
	case Decimal:
		maxPrec := 38
		switch t.BitWidth {
		case 128:
		case 256:
			maxPrec = 76
		default:
			return errf.Errorf("%w: decimal bit width %d", ErrType, t.BitWidth)
		}
		if t.Precision < 1 || t.Precision > maxPrec || t.Scale < -(1<<31) || t.Scale >= 1<<31 {
			return errf.Errorf("%w: decimal%d(%d, %d)", ErrType, t.BitWidth, t.Precision, t.Scale)
		}
	case Time:
		ok := (t.BitWidth == 32 && (t.Unit == Second || t.Unit == Millisecond)) ||
			(t.BitWidth == 64 && (t.Unit == Microsecond || t.Unit == Nanosecond))
		if !ok {
			return errf.Errorf("%w: time%d with unit %d", ErrType, t.BitWidth, int(t.Unit))
		}
	case Timestamp:
		if t.Unit > Nanosecond {
			return errf.Errorf("%w: timestamp unit %d", ErrType, int(t.Unit))
		}
	case List:
		if t.Elem == nil {
			return errf.Errorf("%w: list without Elem", ErrType)
		}
		return validateType(&t.Elem.Type, depth+1)
	case Map:
		e := t.Elem
		if e == nil || e.Type.ID != Struct || len(e.Type.Fields) != 2 || e.Nullable ||
			e.Type.Dictionary || e.Type.Fields[0].Nullable {
			// The IPC spec (and arrow-go's reader) require a non-nullable entries struct of
			// exactly {key, value} with a non-nullable key.
			return errf.Errorf("%w: map entries must be a non-nullable struct{non-nullable key, value}", ErrType)
		}
		return validateType(&e.Type, depth+1)
	case Struct:
		for i := range t.Fields {
			if err := validateType(&t.Fields[i].Type, depth+1); err != nil {
				return errf.Errorf("struct field %d (%q): %w", i, t.Fields[i].Name, err)
			}
		}
	default:
		return errf.Errorf("%w: unknown type id %d", ErrType, int(t.ID))
	}
	return nil
}

// fixedWidth is the byte width of one value of a fixed-width type, or 0 for other types.
func fixedWidth(t *DataType) int {
	switch t.ID {
	case Int, Float, Decimal, Time:
		return t.BitWidth / 8
	case FixedSizeBinary:
		return t.ByteWidth
	case Date32:
		return 4
	case Timestamp:
		return 8
	case IntervalMonthDayNano:
		return 16
	}
	return 0
}

// bitmapLen is the number of bytes holding n bits.
func bitmapLen(n int) int { return (n + 7) / 8 }

// maxLen bounds Array.Len so that Len*width cannot overflow int on any target.
const maxLen = 1 << 40

// validateArray checks a against field f; the caller has validated f's type. want is the
// required length, or -1 when any length is acceptable (dictionaries, list children).
func validateArray(f *Field, a *Array, want int) error {
	t := &f.Type
	if a == nil {
		return errf.Errorf("%w: nil array", ErrArray)
	}
	if a.Len < 0 || a.Len > maxLen || (want >= 0 && a.Len != want) {
		return errf.Errorf("%w: length %d, want %d", ErrArray, a.Len, want)
	}
	if t.ID == Null && !t.Dictionary {
		return nil // no buffers; every value is null whatever NullCount says
	}
	if err := validateValidity(f, a); err != nil {
		return err
	}
	if t.Dictionary {
		return validateDict(f, a)
	}
	switch t.ID {
	case Bool:
		if len(a.Data) < bitmapLen(a.Len) {
			return errf.Errorf("%w: bool data %d bytes for %d values", ErrArray, len(a.Data), a.Len)
		}
	case Utf8, Binary:
		return validateOffsets(a, len(a.Data))
	case List, Map:
		if len(a.Children) != 1 {
			return errf.Errorf("%w: list/map has %d children, want 1", ErrArray, len(a.Children))
		}
		c := a.Children[0]
		if c == nil {
			return errf.Errorf("%w: nil list/map child", ErrArray)
		}
		if err := validateOffsets(a, c.Len); err != nil {
			return err
		}
		if err := validateArray(t.Elem, c, -1); err != nil {
			return errf.Errorf("%q: %w", t.Elem.Name, err)
		}
	case Struct:
		if len(a.Children) != len(t.Fields) {
			return errf.Errorf("%w: struct has %d children for %d fields", ErrArray, len(a.Children), len(t.Fields))
		}
		for i := range t.Fields {
			if err := validateArray(&t.Fields[i], a.Children[i], a.Len); err != nil {
				return errf.Errorf("%q: %w", t.Fields[i].Name, err)
			}
		}
	default:
		w := fixedWidth(t)
		if len(a.Data) < a.Len*w {
			return errf.Errorf("%w: data %d bytes for %d values of %d bytes", ErrArray, len(a.Data), a.Len, w)
		}
	}
	return nil
}

// validateValidity checks NullCount against the bitmap. Counting set bits costs one popcount
// per 64 values, cheap next to decoding them, and catches a wrong NullCount, which readers trust.
func validateValidity(f *Field, a *Array) error {
	if a.NullCount < 0 || a.NullCount > a.Len {
		return errf.Errorf("%w: null count %d for length %d", ErrArray, a.NullCount, a.Len)
	}
	if a.NullCount > 0 && !f.Nullable {
		return errf.Errorf("%w: %d nulls in non-nullable field", ErrArray, a.NullCount)
	}
	if a.Validity == nil {
		if a.NullCount != 0 {
			return errf.Errorf("%w: null count %d without a validity bitmap", ErrArray, a.NullCount)
		}
		return nil
	}
	if len(a.Validity) < bitmapLen(a.Len) {
		return errf.Errorf("%w: validity %d bytes for %d values", ErrArray, len(a.Validity), a.Len)
	}
	if set := countSet(a.Validity, a.Len); set != a.Len-a.NullCount {
		return errf.Errorf("%w: null count %d but bitmap has %d nulls", ErrArray, a.NullCount, a.Len-set)
	}
	return nil
}

// countSet counts the set bits among the first n bits of the LSB-first bitmap b.
func countSet(b []byte, n int) int {
	full := n / 8
	c := 0
	i := 0
	for ; i+8 <= full; i += 8 {
		c += bits.OnesCount64(le64(b[i:]))
	}
	for ; i < full; i++ {
		c += bits.OnesCount8(b[i])
	}
	if r := n % 8; r != 0 {
		c += bits.OnesCount8(b[full] & (1<<r - 1))
	}
	return c
}

func le64(b []byte) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// validateOffsets checks a.Offsets: Len+1 entries, non-negative, monotonic, the last at most
// limit (the Data size or the child length). A zero-length array may omit its offsets.
func validateOffsets(a *Array, limit int) error {
	if a.Len == 0 && len(a.Offsets) == 0 {
		return nil
	}
	if len(a.Offsets) < a.Len+1 {
		return errf.Errorf("%w: %d offsets for %d values", ErrArray, len(a.Offsets), a.Len)
	}
	offs := a.Offsets[:a.Len+1]
	prev := offs[0]
	if prev < 0 {
		return errf.Errorf("%w: negative first offset %d", ErrArray, prev)
	}
	for i, o := range offs[1:] {
		if o < prev {
			return errf.Errorf("%w: offset %d at %d below previous %d", ErrArray, o, i+1, prev)
		}
		prev = o
	}
	if int(prev) > limit {
		return errf.Errorf("%w: last offset %d beyond %d", ErrArray, prev, limit)
	}
	return nil
}

// validateDict checks the int32 indices of a dictionary-encoded array and its dictionary.
func validateDict(f *Field, a *Array) error {
	if len(a.Data) < 4*a.Len {
		return errf.Errorf("%w: %d index bytes for %d values", ErrDictionary, len(a.Data), a.Len)
	}
	if a.Dict == nil {
		return errf.Errorf("%w: dictionary-encoded array without Dict", ErrDictionary)
	}
	vf := Field{Name: f.Name, Type: f.Type, Nullable: true}
	vf.Type.Dictionary = false
	if err := validateArray(&vf, a.Dict, -1); err != nil {
		return errf.Errorf("%w: %w", ErrDictionary, err)
	}
	n := uint32(a.Dict.Len)
	idx := a.Data[:4*a.Len]
	for i := 0; i < a.Len; i++ {
		if a.NullCount > 0 && a.Validity[i>>3]&(1<<(i&7)) == 0 {
			continue // a null slot's index is unspecified
		}
		v := uint32(idx[4*i]) | uint32(idx[4*i+1])<<8 | uint32(idx[4*i+2])<<16 | uint32(idx[4*i+3])<<24
		if v >= n { // also catches negative indices
			return errf.Errorf("%w: index %d at row %d, dictionary has %d values", ErrDictionary, int32(v), i, n)
		}
	}
	return nil
}
