package format

import (
	"github.com/pqscan/pqscan/internal/decode/thrift"
)

// Decoders for parquet.thrift "SchemaElement" and the "LogicalType" union with its member
// structs (DecimalType, TimeType, TimestampType, TimeUnit, IntType, VariantType, GeometryType,
// GeographyType).

var schemaElementSpec = structSpec{name: "SchemaElement", fields: []field{
	{1, thrift.I32, false, "type"},
	{2, thrift.I32, false, "type_length"},
	{3, thrift.I32, false, "repetition_type"},
	{4, thrift.Binary, true, "name"},
	{5, thrift.I32, false, "num_children"},
	{6, thrift.I32, false, "converted_type"},
	{7, thrift.I32, false, "scale"},
	{8, thrift.I32, false, "precision"},
	{9, thrift.I32, false, "field_id"},
	{10, thrift.Struct, false, "logicalType"},
}}

func readSchemaElement(r *thrift.Reader) (SchemaElement, error) {
	var e SchemaElement
	err := readStruct(r, &schemaElementSpec, func(f *field, _ thrift.Type) (err error) {
		switch f.id {
		case 1:
			e.Type, err = optEnum[Type](r)
		case 2:
			e.TypeLength, err = optI32(r)
		case 3:
			e.RepetitionType, err = optEnum[FieldRepetitionType](r)
		case 4:
			e.Name, err = r.String()
		case 5:
			e.NumChildren, err = optI32(r)
		case 6:
			e.ConvertedType, err = optEnum[ConvertedType](r)
		case 7:
			e.Scale, err = optI32(r)
		case 8:
			e.Precision, err = optI32(r)
		case 9:
			e.FieldID, err = optI32(r)
		case 10:
			e.LogicalType, err = readLogicalType(r)
		}
		return err
	})
	return e, err
}

// logicalTypeSpec lists the union members known here; any other member is skipped and leaves
// Kind == LogicalUnrecognized.
var logicalTypeSpec = structSpec{name: "LogicalType", fields: []field{
	{1, thrift.Struct, false, "STRING"},
	{2, thrift.Struct, false, "MAP"},
	{3, thrift.Struct, false, "LIST"},
	{4, thrift.Struct, false, "ENUM"},
	{5, thrift.Struct, false, "DECIMAL"},
	{6, thrift.Struct, false, "DATE"},
	{7, thrift.Struct, false, "TIME"},
	{8, thrift.Struct, false, "TIMESTAMP"},
	{10, thrift.Struct, false, "INTEGER"},
	{11, thrift.Struct, false, "UNKNOWN"},
	{12, thrift.Struct, false, "JSON"},
	{13, thrift.Struct, false, "BSON"},
	{14, thrift.Struct, false, "UUID"},
	{15, thrift.Struct, false, "FLOAT16"},
	{16, thrift.Struct, false, "VARIANT"},
	{17, thrift.Struct, false, "GEOMETRY"},
	{18, thrift.Struct, false, "GEOGRAPHY"},
}}

func readLogicalType(r *thrift.Reader) (*LogicalType, error) {
	lt := &LogicalType{}
	err := readStruct(r, &logicalTypeSpec, func(f *field, t thrift.Type) error {
		lt.Kind = LogicalKind(f.id)
		switch lt.Kind {
		case LogicalDecimal:
			return readDecimalType(r, lt)
		case LogicalTime, LogicalTimestamp:
			return readTimeType(r, lt)
		case LogicalInteger:
			return readIntType(r, lt)
		case LogicalVariant:
			return readVariantType(r, lt)
		case LogicalGeometry, LogicalGeography:
			return readGeoType(r, lt)
		}
		return r.Skip(t) // empty member structs
	})
	if err != nil {
		return nil, err
	}
	return lt, nil
}

var decimalTypeSpec = structSpec{name: "DecimalType", fields: []field{
	{1, thrift.I32, true, "scale"},
	{2, thrift.I32, true, "precision"},
}}

func readDecimalType(r *thrift.Reader, lt *LogicalType) error {
	return readStruct(r, &decimalTypeSpec, func(f *field, _ thrift.Type) (err error) {
		if f.id == 1 {
			lt.Scale, err = r.I32()
		} else {
			lt.Precision, err = r.I32()
		}
		return err
	})
}

var timeTypeSpec = structSpec{name: "TimeType", fields: []field{
	{1, thrift.BoolTrue, true, "isAdjustedToUTC"},
	{2, thrift.Struct, true, "unit"},
}}

var timeUnitSpec = structSpec{name: "TimeUnit", fields: []field{
	{1, thrift.Struct, false, "MILLIS"},
	{2, thrift.Struct, false, "MICROS"},
	{3, thrift.Struct, false, "NANOS"},
}}

// readTimeType reads TimeType or TimestampType (they have the same fields).
func readTimeType(r *thrift.Reader, lt *LogicalType) error {
	return readStruct(r, &timeTypeSpec, func(f *field, t thrift.Type) error {
		if f.id == 1 {
			lt.IsAdjustedToUTC = t == thrift.BoolTrue
			return nil
		}
		lt.Unit = TimeUnitUnrecognized
		return readStruct(r, &timeUnitSpec, func(f *field, t thrift.Type) error {
			lt.Unit = TimeUnit(f.id)
			return r.Skip(t)
		})
	})
}

var intTypeSpec = structSpec{name: "IntType", fields: []field{
	{1, thrift.I8, true, "bitWidth"},
	{2, thrift.BoolTrue, true, "isSigned"},
}}

func readIntType(r *thrift.Reader, lt *LogicalType) error {
	return readStruct(r, &intTypeSpec, func(f *field, t thrift.Type) (err error) {
		if f.id == 1 {
			lt.BitWidth, err = r.I8()
		} else {
			lt.IsSigned = t == thrift.BoolTrue
		}
		return err
	})
}

var variantTypeSpec = structSpec{name: "VariantType", fields: []field{
	{1, thrift.I8, false, "specification_version"},
}}

func readVariantType(r *thrift.Reader, lt *LogicalType) error {
	return readStruct(r, &variantTypeSpec, func(_ *field, _ thrift.Type) error {
		v, err := r.I8()
		lt.SpecificationVersion = &v
		return err
	})
}

var geoTypeSpec = structSpec{name: "GeographyType", fields: []field{
	{1, thrift.Binary, false, "crs"},
	{2, thrift.I32, false, "algorithm"},
}}

// readGeoType reads GeometryType (crs only) or GeographyType (crs and algorithm).
func readGeoType(r *thrift.Reader, lt *LogicalType) error {
	return readStruct(r, &geoTypeSpec, func(f *field, _ thrift.Type) (err error) {
		if f.id == 1 {
			lt.CRS, err = optString(r)
		} else {
			lt.Algorithm, err = optEnum[EdgeInterpolationAlgorithm](r)
		}
		return err
	})
}
