package arrowipc

import (
	flatbuffers "github.com/google/flatbuffers/go"
)

// Flatbuffer constants from Arrow's format/Schema.fbs and format/Message.fbs. They are written
// by hand because arrow-go's generated flatbuf package is internal and linking arrow-go into
// the wasm module costs megabytes.
const (
	fbTypeNull            = 1
	fbTypeInt             = 2
	fbTypeFloatingPoint   = 3
	fbTypeBinary          = 4
	fbTypeUtf8            = 5
	fbTypeBool            = 6
	fbTypeDecimal         = 7
	fbTypeDate            = 8
	fbTypeTime            = 9
	fbTypeTimestamp       = 10
	fbTypeInterval        = 11
	fbTypeList            = 12
	fbTypeStruct          = 13
	fbTypeFixedSizeBinary = 15
	fbTypeMap             = 17

	fbPrecisionHalf   = 0
	fbPrecisionSingle = 1
	fbPrecisionDouble = 2

	fbDateUnitDay             = 0
	fbIntervalMonthDayNano    = 2
	fbMetadataV5              = 4
	fbHeaderSchema            = 1
	fbHeaderDictionaryBatch   = 2
	fbHeaderRecordBatch       = 3
	fbDictionaryIndexBitWidth = 32
)

// schemaWriter builds Schema.fbs tables. nextID numbers dictionary-encoded fields in
// depth-first (pre-order) field order; collectDicts walks the arrays in the same order.
type schemaWriter struct {
	b      *flatbuffers.Builder
	nextID int64
}

// schema builds the Schema table (endianness Little, the default) and returns its offset.
func (w *schemaWriter) schema(s *Schema) flatbuffers.UOffsetT {
	fields := w.fields(s.Fields)
	meta := w.keyValues(s.Metadata)
	b := w.b
	b.StartObject(4)
	b.PrependUOffsetTSlot(1, fields, 0)
	if meta != 0 {
		b.PrependUOffsetTSlot(2, meta, 0)
	}
	return b.EndObject()
}

// fields builds a vector of Field tables.
func (w *schemaWriter) fields(fs []Field) flatbuffers.UOffsetT {
	offs := make([]flatbuffers.UOffsetT, len(fs))
	for i := range fs {
		offs[i] = w.field(&fs[i])
	}
	return w.offsetVector(offs)
}

func (w *schemaWriter) offsetVector(offs []flatbuffers.UOffsetT) flatbuffers.UOffsetT {
	w.b.StartVector(4, len(offs), 4)
	for i := len(offs) - 1; i >= 0; i-- {
		w.b.PrependUOffsetT(offs[i])
	}
	return w.b.EndVector(len(offs))
}

// field builds one Field table. Flatbuffers cannot nest table construction, so every child
// object (name, dictionary encoding, type, children, metadata) is finished before StartObject.
func (w *schemaWriter) field(f *Field) flatbuffers.UOffsetT {
	b := w.b
	name := b.CreateString(f.Name)
	var dict flatbuffers.UOffsetT
	if f.Type.Dictionary {
		dict = w.dictEncoding(w.nextID)
		w.nextID++
	}
	var children flatbuffers.UOffsetT
	switch f.Type.ID {
	case List, Map:
		children = w.offsetVector([]flatbuffers.UOffsetT{w.field(f.Type.Elem)})
	case Struct:
		children = w.fields(f.Type.Fields)
	default:
		children = w.offsetVector(nil)
	}
	typeType, typ := w.typ(&f.Type)
	meta := w.keyValues(f.Metadata)

	b.StartObject(7)
	b.PrependUOffsetTSlot(0, name, 0)
	b.PrependBoolSlot(1, f.Nullable, false)
	b.PrependByteSlot(2, typeType, 0)
	b.PrependUOffsetTSlot(3, typ, 0)
	if dict != 0 {
		b.PrependUOffsetTSlot(4, dict, 0)
	}
	b.PrependUOffsetTSlot(5, children, 0)
	if meta != 0 {
		b.PrependUOffsetTSlot(6, meta, 0)
	}
	return b.EndObject()
}

// dictEncoding builds a DictionaryEncoding with signed int32 indices, not ordered, kind
// DenseArray (the default).
func (w *schemaWriter) dictEncoding(id int64) flatbuffers.UOffsetT {
	b := w.b
	b.StartObject(2) // Int
	b.PrependInt32Slot(0, fbDictionaryIndexBitWidth, 0)
	b.PrependBoolSlot(1, true, false)
	idx := b.EndObject()
	b.StartObject(4)
	b.PrependInt64Slot(0, id, 0)
	b.PrependUOffsetTSlot(1, idx, 0)
	return b.EndObject()
}

// typ builds the Type union member for t (its value type when dictionary-encoded) and returns
// the union tag and table offset. t has been validated.
func (w *schemaWriter) typ(t *DataType) (byte, flatbuffers.UOffsetT) {
	b := w.b
	switch t.ID {
	case Int:
		b.StartObject(2)
		b.PrependInt32Slot(0, int32(t.BitWidth), 0)
		b.PrependBoolSlot(1, t.Signed, false)
		return fbTypeInt, b.EndObject()
	case Float:
		prec := int16(fbPrecisionDouble)
		switch t.BitWidth {
		case 16:
			prec = fbPrecisionHalf
		case 32:
			prec = fbPrecisionSingle
		}
		b.StartObject(1)
		b.PrependInt16Slot(0, prec, 0)
		return fbTypeFloatingPoint, b.EndObject()
	case FixedSizeBinary:
		b.StartObject(1)
		b.PrependInt32Slot(0, int32(t.ByteWidth), 0)
		return fbTypeFixedSizeBinary, b.EndObject()
	case Decimal:
		b.StartObject(3)
		b.PrependInt32Slot(0, int32(t.Precision), 0)
		b.PrependInt32Slot(1, int32(t.Scale), 0)
		b.PrependInt32Slot(2, int32(t.BitWidth), 128)
		return fbTypeDecimal, b.EndObject()
	case Date32:
		b.StartObject(1)
		b.PrependInt16Slot(0, fbDateUnitDay, 1)
		return fbTypeDate, b.EndObject()
	case Time:
		b.StartObject(2)
		b.PrependInt16Slot(0, int16(t.Unit), 1)
		b.PrependInt32Slot(1, int32(t.BitWidth), 32)
		return fbTypeTime, b.EndObject()
	case Timestamp:
		var tz flatbuffers.UOffsetT
		if t.TZ != "" {
			tz = b.CreateString(t.TZ)
		}
		b.StartObject(2)
		b.PrependInt16Slot(0, int16(t.Unit), 0)
		if tz != 0 {
			b.PrependUOffsetTSlot(1, tz, 0)
		}
		return fbTypeTimestamp, b.EndObject()
	case IntervalMonthDayNano:
		b.StartObject(1)
		b.PrependInt16Slot(0, fbIntervalMonthDayNano, 0)
		return fbTypeInterval, b.EndObject()
	case Map:
		b.StartObject(1)
		b.PrependBoolSlot(0, t.KeysSorted, false)
		return fbTypeMap, b.EndObject()
	}
	// The remaining types are empty tables.
	var tag byte
	switch t.ID {
	case Null:
		tag = fbTypeNull
	case Bool:
		tag = fbTypeBool
	case Utf8:
		tag = fbTypeUtf8
	case Binary:
		tag = fbTypeBinary
	case List:
		tag = fbTypeList
	case Struct:
		tag = fbTypeStruct
	}
	b.StartObject(0)
	return tag, b.EndObject()
}

// keyValues builds a custom_metadata vector of KeyValue tables, or returns 0 when kv is empty.
func (w *schemaWriter) keyValues(kv [][2]string) flatbuffers.UOffsetT {
	if len(kv) == 0 {
		return 0
	}
	offs := make([]flatbuffers.UOffsetT, len(kv))
	for i, p := range kv {
		k := w.b.CreateString(p[0])
		v := w.b.CreateString(p[1])
		w.b.StartObject(2)
		w.b.PrependUOffsetTSlot(0, k, 0)
		w.b.PrependUOffsetTSlot(1, v, 0)
		offs[i] = w.b.EndObject()
	}
	return w.offsetVector(offs)
}
