package format

import "strconv"

// SchemaElement is one node of the flattened (depth-first) schema tree.
type SchemaElement struct {
	Type           *Type
	TypeLength     *int32
	RepetitionType *FieldRepetitionType
	Name           string
	NumChildren    *int32
	ConvertedType  *ConvertedType
	Scale          *int32
	Precision      *int32
	FieldID        *int32
	LogicalType    *LogicalType
}

// LogicalKind says which member of the LogicalType union is set. Values are the thrift field ids.
type LogicalKind int32

// Logical kinds. LogicalUnknown is the spec's UNKNOWN (the always-null type); a union member
// this package does not know decodes as LogicalUnrecognized, so that readers can fall back to
// the physical type instead of failing.
const (
	LogicalUnrecognized LogicalKind = 0
	LogicalString       LogicalKind = 1
	LogicalMap          LogicalKind = 2
	LogicalList         LogicalKind = 3
	LogicalEnum         LogicalKind = 4
	LogicalDecimal      LogicalKind = 5
	LogicalDate         LogicalKind = 6
	LogicalTime         LogicalKind = 7
	LogicalTimestamp    LogicalKind = 8
	LogicalInteger      LogicalKind = 10
	LogicalUnknown      LogicalKind = 11
	LogicalJSON         LogicalKind = 12
	LogicalBSON         LogicalKind = 13
	LogicalUUID         LogicalKind = 14
	LogicalFloat16      LogicalKind = 15
	LogicalVariant      LogicalKind = 16
	LogicalGeometry     LogicalKind = 17
	LogicalGeography    LogicalKind = 18
)

var logicalNames = [...]string{"UNRECOGNIZED", "STRING", "MAP", "LIST", "ENUM", "DECIMAL", "DATE",
	"TIME", "TIMESTAMP", "", "INTEGER", "UNKNOWN", "JSON", "BSON", "UUID", "FLOAT16", "VARIANT",
	"GEOMETRY", "GEOGRAPHY"}

func (k LogicalKind) String() string {
	if k >= 0 && int(k) < len(logicalNames) && logicalNames[k] != "" {
		return logicalNames[k]
	}
	return "LogicalKind(" + strconv.Itoa(int(k)) + ")"
}

// TimeUnit is the unit of TIME and TIMESTAMP; values are the thrift field ids of union TimeUnit.
type TimeUnit int32

// Time units. TimeUnitUnrecognized means the union held a member unknown here.
const (
	TimeUnitUnrecognized TimeUnit = 0
	Millis               TimeUnit = 1
	Micros               TimeUnit = 2
	Nanos                TimeUnit = 3
)

func (u TimeUnit) String() string {
	return enumName("TimeUnit", int32(u), "UNRECOGNIZED", "MILLIS", "MICROS", "NANOS")
}

// LogicalType is the LogicalType union flattened into one struct: Kind says which member was
// set, and only the fields of that member are meaningful.
type LogicalType struct {
	Kind LogicalKind
	// DECIMAL
	Precision, Scale int32
	// TIME and TIMESTAMP
	IsAdjustedToUTC bool
	Unit            TimeUnit
	// INTEGER
	BitWidth int8
	IsSigned bool
	// VARIANT: specification_version, nil when absent.
	SpecificationVersion *int8
	// GEOMETRY and GEOGRAPHY: crs, nil when absent (the spec's default is "OGC:CRS84").
	CRS *string
	// GEOGRAPHY: algorithm, nil when absent (the spec's default is SPHERICAL).
	Algorithm *EdgeInterpolationAlgorithm
}
