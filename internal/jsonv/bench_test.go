package jsonv

import (
	"encoding/json"
	"strconv"
	"testing"
)

// benchDoc is a Delta-like commit line: an add action with its statistics, the document
// jsonv reads most often in a table's log.
func benchDoc(i int) []byte {
	n := strconv.Itoa(i)
	return []byte(`{"add":{"path":"part-` + n + `-c000.snappy.parquet","partitionValues":{"date":"2024-01-0` + n[len(n)-1:] + `"},` +
		`"size":123456` + n + `,"modificationTime":1700000000000,"dataChange":true,` +
		`"stats":"{\"numRecords\":1000,\"minValues\":{\"id\":` + n + `,\"value\":0.5,\"name\":\"a\"},\"maxValues\":{\"id\":` + n + `9,\"value\":99.25,\"name\":\"z\"},\"nullCount\":{\"id\":0,\"value\":3,\"name\":1}}"}}`)
}

func BenchmarkParse(b *testing.B) {
	docs := make([][]byte, 1000)
	size := 0
	for i := range docs {
		docs[i] = benchDoc(i)
		size += len(docs[i])
	}
	doc, err := Parse(docs[1])
	if err != nil {
		b.Fatal(err)
	}
	statsDoc := []byte(doc.Get("add").Get("stats").S)
	b.Run("commit", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			for _, d := range docs {
				if _, err := Parse(d); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("stats", func(b *testing.B) {
		b.SetBytes(int64(len(statsDoc)))
		for b.Loop() {
			if _, err := Parse(statsDoc); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json-any", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			for _, d := range docs {
				var v any
				if err := json.Unmarshal(d, &v); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
