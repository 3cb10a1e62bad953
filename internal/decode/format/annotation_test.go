package format

import (
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

func Test_AnnotationConflict(t *testing.T) {
	ct := func(c ConvertedType) *ConvertedType { return &c }
	tests := []struct {
		name string
		lt   *LogicalType
		ct   *ConvertedType
		want bool
	}{
		{name: "logical only", lt: &LogicalType{Kind: LogicalString}},
		{name: "converted only", ct: ct(ConvertedInterval)},
		{name: "STRING and UTF8 agree", lt: &LogicalType{Kind: LogicalString}, ct: ct(ConvertedUTF8)},
		{name: "UNKNOWN next to INTERVAL (parquet-mr 1.11-1.12)", lt: &LogicalType{Kind: LogicalUnknown}, ct: ct(ConvertedInterval), want: true},
		{name: "INTEGER(16, unsigned) and UINT_16 agree", lt: &LogicalType{Kind: LogicalInteger, BitWidth: 16}, ct: ct(ConvertedUint16)},
		{name: "INTEGER(16, signed) and UINT_16 disagree", lt: &LogicalType{Kind: LogicalInteger, BitWidth: 16, IsSigned: true}, ct: ct(ConvertedUint16), want: true},
		{name: "local TIMESTAMP(MILLIS) and TIMESTAMP_MILLIS agree", lt: &LogicalType{Kind: LogicalTimestamp, Unit: Millis}, ct: ct(ConvertedTimestampMillis)},
		{name: "TIMESTAMP(NANOS) has no converted type", lt: &LogicalType{Kind: LogicalTimestamp, Unit: Nanos}, ct: ct(ConvertedTimestampMicros), want: true},
		{name: "TIME(MICROS) and TIME_MICROS agree", lt: &LogicalType{Kind: LogicalTime, Unit: Micros}, ct: ct(ConvertedTimeMicros)},
		{name: "MAP and MAP_KEY_VALUE disagree", lt: &LogicalType{Kind: LogicalMap}, ct: ct(ConvertedMapKeyValue), want: true},
		{name: "unrecognized logical type", lt: &LogicalType{Kind: LogicalUnrecognized}, ct: ct(ConvertedDate), want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := SchemaElement{LogicalType: tc.lt, ConvertedType: tc.ct}
			require.Equal(t, tc.want, e.AnnotationConflict())
		})
	}
}
