package scan

import (
	"encoding/binary"
	"encoding/hex"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/require"
)

// flba12Timestamps is a FIXED_LEN_BYTE_ARRAY(12) column annotated TIMESTAMP(NANOS, UTC), the
// shape parquet-format's proposal for nanoseconds past 2262 writes (parquet-testing
// flba12_timestamp.parquet): signed 96-bit little-endian counts, with statistics in that
// signed order. pqscan does not apply the annotation, so the values read as 12-byte binaries,
// whose byte order disagrees: by value 1 < 2 < 513, so the writer's bounds are 1 and 513, but
// by bytes 01 00.. < 01 02.. < 02 00.., and 2 lies above them.
func flba12Timestamps() ([]byte, [][]byte) {
	le96 := func(v int64) []byte {
		b := binary.LittleEndian.AppendUint64(nil, uint64(v))
		return binary.LittleEndian.AppendUint32(b, uint32(v>>63)) // sign extension
	}
	vals := [][]byte{le96(1), le96(513), le96(2)}
	var plain []byte
	for _, v := range vals {
		plain = append(plain, v...)
	}
	ts := (&tstruct{}).boolean(1, true).st(2, (&tstruct{}).st(3, []byte{0}).end()).end() // TimestampType{UTC, NANOS}
	stats := (&tstruct{}).i64(3, 0).bin(5, string(le96(513))).bin(6, string(le96(1))).end()
	q := qFile{
		createdBy: "parquet-mr version 1.18.0-SNAPSHOT (build 0)",
		elems: []qEl{root(1), {name: "ts", typ: tFLBA, typeLen: 12, rep: format.Required,
			logical: (&tstruct{}).st(8, ts).end()}},
		numRows: 3,
		cols: []qCol{{typ: format.FixedLenByteArray, path: []string{"ts"}, numValues: 3, stats: stats,
			pages: []qPage{v1Page(3, format.Plain, format.RLE, format.RLE, nil, plain)}}},
		orders: [][]byte{(&tstruct{}).st(1, []byte{0}).end()}, // TYPE_ORDER
	}
	return q.build(), vals
}

// Test_ignoredAnnotationBoundsNothing: statistics ordered by an annotation pqscan does not
// apply neither answer min/max nor prune: the answers are the bytes' own.
func Test_ignoredAnnotationBoundsNothing(t *testing.T) {
	file, vals := flba12Timestamps()
	// Above the writer's max by bytes (01 03 > 01 02..), below 2's bytes (02 00..): the row
	// group must not be skipped.
	_, rows, err := drive(t, file, Options{Where: "ts > '\x01\x03'"})
	require.NoError(t, err)
	require.Equal(t, int64(1), rows)

	_, streams, _ := runRounds(t, file, Options{MinMax: "ts"})
	forEachRecord(t, streams, func(rec arrow.RecordBatch) {
		require.Equal(t, hex.EncodeToString(vals[0]), hex.EncodeToString(rec.Column(0).(*array.FixedSizeBinary).Value(0)))
		require.Equal(t, hex.EncodeToString(vals[2]), hex.EncodeToString(rec.Column(1).(*array.FixedSizeBinary).Value(0)))
	})
}
