package format

// Reconciling the two annotations of a SchemaElement (parquet-format LogicalTypes.md,
// "Backward compatibility" and the ConvertedType notes in parquet.thrift).
//
// Writers set both the LogicalType and the legacy ConvertedType. When they disagree,
// parquet-java (ParquetMetadataConverter, "Converted type and logical type metadata mismatch")
// uses the converted type: parquet-mr 1.11 and 1.12, for one, wrote LogicalType UNKNOWN next to
// ConvertedType INTERVAL, which has no logical type. Readers here follow the same rule.

// ConvertedEquivalent is the ConvertedType that stands for the same annotation as lt, as
// parquet-java's LogicalTypeAnnotation.toOriginalType maps it; false when there is none
// (UNKNOWN, UUID, FLOAT16, TIME and TIMESTAMP in nanoseconds, VARIANT, GEOMETRY, GEOGRAPHY and
// union members this package does not know).
func (lt *LogicalType) ConvertedEquivalent() (ConvertedType, bool) {
	switch lt.Kind {
	case LogicalString:
		return ConvertedUTF8, true
	case LogicalMap:
		return ConvertedMap, true
	case LogicalList:
		return ConvertedList, true
	case LogicalEnum:
		return ConvertedEnum, true
	case LogicalDecimal:
		return ConvertedDecimal, true
	case LogicalDate:
		return ConvertedDate, true
	case LogicalJSON:
		return ConvertedJSON, true
	case LogicalBSON:
		return ConvertedBSON, true
	case LogicalTime:
		switch lt.Unit {
		case Millis:
			return ConvertedTimeMillis, true
		case Micros:
			return ConvertedTimeMicros, true
		}
	case LogicalTimestamp:
		switch lt.Unit {
		case Millis:
			return ConvertedTimestampMillis, true
		case Micros:
			return ConvertedTimestampMicros, true
		}
	case LogicalInteger:
		base := ConvertedInt8
		if !lt.IsSigned {
			base = ConvertedUint8
		}
		switch lt.BitWidth {
		case 8:
			return base, true
		case 16:
			return base + 1, true
		case 32:
			return base + 2, true
		case 64:
			return base + 3, true
		}
	}
	return 0, false
}

// AnnotationConflict reports whether e carries both annotations and they disagree, in which
// case the converted type is the one to use (see the comment at the top of this file).
func (e *SchemaElement) AnnotationConflict() bool {
	if e.LogicalType == nil || e.ConvertedType == nil {
		return false
	}
	ct, ok := e.LogicalType.ConvertedEquivalent()
	return !ok || ct != *e.ConvertedType
}
