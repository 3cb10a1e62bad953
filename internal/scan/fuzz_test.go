package scan

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// fuzzScanSeeds are small corpus files covering flat, nested, dictionary, v2, page-index,
// bloom-filter and legacy layouts.
var fuzzScanSeeds = []string{
	"parquet-testing/data/alltypes_plain.parquet",
	"parquet-testing/data/alltypes_dictionary.parquet",
	"parquet-testing/data/nested_lists.snappy.parquet",
	"parquet-testing/data/nested_maps.snappy.parquet",
	"parquet-testing/data/null_list.parquet",
	"parquet-testing/data/old_list_structure.parquet",
	"parquet-testing/data/repeated_no_annotation.parquet",
	"parquet-testing/data/map_no_value.parquet",
	"parquet-testing/data/datapage_v2.snappy.parquet",
	"parquet-testing/data/int96_from_spark.parquet",
	"parquet-testing/data/data_index_bloom_encoding_stats.parquet",
	"parquet-testing/data/byte_array_decimal.parquet",
	"parquet-testing/data/rle_boolean_encoding.parquet",
}

// fuzzResult is what a scan produced: its batches and its error text.
type fuzzResult struct {
	streams [][]byte
	err     error
}

// fuzzDrive runs one scan with a 16 MiB cap. piece > 0 pushes each requested range in pieces
// of that many bytes, last piece first, each extended by a few bytes past its end (extra
// bytes are allowed); piece == 0 pushes exactly the requested ranges.
//
// With unknownSize the scan starts without the file size and is told it on its suffix request.
func fuzzDrive(t *testing.T, file []byte, o Options, piece int, unknownSize bool) fuzzResult {
	size := int64(len(file))
	if unknownSize {
		size = 0
	} else if size == 0 {
		return fuzzResult{err: errors.New("empty file")} // size 0 means unknown
	}
	o.FileSize, o.MemoryCap = size, 16<<20
	s, err := New(o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	var res fuzzResult
	needs := 0
	for steps := 0; ; steps++ {
		if steps > 100_000 {
			t.Fatalf("no end after %d steps", steps)
		}
		st := s.Next()
		switch st.Kind {
		case NeedRanges:
			needs++
			if needs > 1000 {
				t.Fatalf("asked for ranges %d times", needs)
			}
			if len(st.Ranges) == 1 && st.Ranges[0].Off < 0 && unknownSize {
				// A suffix request: report the size, then push the tail.
				if err := s.SetFileSize(int64(len(file))); err != nil {
					return fuzzResult{err: err}
				}
				n := min(st.Ranges[0].Len, int64(len(file)))
				if err := s.Push(int64(len(file))-n, file[int64(len(file))-n:]); err != nil {
					t.Fatalf("push: %v", err)
				}
				continue
			}
			for _, r := range st.Ranges {
				if r.Off < 0 || r.Len <= 0 || r.End() > int64(len(file)) {
					t.Fatalf("asked for range %+v of a %d-byte file", r, len(file))
				}
				if piece == 0 {
					if err := s.Push(r.Off, file[r.Off:r.End()]); err != nil {
						t.Fatalf("push: %v", err)
					}
					continue
				}
				for off := r.End(); off > r.Off; {
					lo := max(r.Off, off-int64(piece))
					hi := min(int64(len(file)), off+3)
					if err := s.Push(lo, file[lo:hi]); err != nil {
						t.Fatalf("push: %v", err)
					}
					off = lo
				}
			}
		case Batch:
			res.streams = append(res.streams, append([]byte(nil), st.IPC...))
		case Done:
			return res
		case Error:
			res.err = st.Err
			if errors.Is(st.Err, ErrInternal) {
				t.Fatalf("internal error (a check is missing): %v", st.Err)
			}
			return res
		default:
			t.Fatalf("step kind %v", st.Kind)
		}
	}
}

// FuzzScan feeds whole fuzzed files to the engine. The first byte picks the batch size, the
// push piece size, a filter, whether the second scan starts without the file size, a row index
// (also in the filter) and a count (answers from metadata). The engine must end (no hang), never report ErrInternal
// (a recovered panic or an invalid Arrow result), return batches arrow-go reads, and give
// the same result whether bytes arrive exactly as asked or in pieces out of order.
func FuzzScan(f *testing.F) {
	for i, p := range fuzzScanSeeds {
		f.Add(append([]byte{byte(i * 37)}, testcorpus.Read(f, p)...))
	}
	for i, q := range quirkFiles { // the writer quirks of testdata/quirks
		f.Add(append([]byte{byte(i * 53)}, q.build().build()...))
	}
	for i, p := range fuzzScanSeeds[:4] { // row index and count, with and without the filter
		f.Add(append([]byte{byte(0x40 | 0x10 | i)}, testcorpus.Read(f, p)...))
		f.Add(append([]byte{byte(0x80 | 0x40 | 0x10 | i<<2)}, testcorpus.Read(f, p)...))
		f.Add(append([]byte{byte(0x80 | i)}, testcorpus.Read(f, p)...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 || len(data) > 1<<20 {
			return
		}
		ctl, file := data[0], data[1:]
		batchRows := []int{0, 1, 3, 100}[ctl&3]
		piece := []int{1, 7, 64, 4096}[ctl>>2&3]
		o := Options{BatchRows: batchRows}
		if ctl&0x10 != 0 {
			o.Where = "id > 2" // a column many seeds have; an unknown column is an error
		}
		if ctl&0x40 != 0 {
			o.RowIndex = "__ri"
			if o.Where != "" {
				o.Where += " OR __ri BETWEEN 1 AND 3"
			}
		}
		o.Count = ctl&0x80 != 0
		exact := fuzzDrive(t, file, o, 0, false)
		for _, st := range exact.streams {
			rd, err := ipc.NewReader(bytes.NewReader(st))
			if err != nil {
				t.Fatalf("arrow-go cannot read our IPC: %v", err)
			}
			for rd.Next() {
			}
			// arrow-go refuses arrays nested deeper than 64 levels (kMaxNestingDepth); the
			// engine writes up to 128 (Impala and Hive files nest 100 deep).
			if rd.Err() != nil && !strings.Contains(rd.Err().Error(), "nested type limit reached") {
				t.Fatalf("arrow-go cannot read our IPC: %v", rd.Err())
			}
			rd.Release()
		}
		pieces := fuzzDrive(t, file, o, piece, ctl&0x20 != 0)
		if fmt.Sprint(exact.err) != fmt.Sprint(pieces.err) || len(exact.streams) != len(pieces.streams) {
			t.Fatalf("exact pushes: %d batches, error %v; pieces of %d: %d batches, error %v",
				len(exact.streams), exact.err, piece, len(pieces.streams), pieces.err)
		}
		for i := range exact.streams {
			if !bytes.Equal(exact.streams[i], pieces.streams[i]) {
				t.Fatalf("batch %d differs between exact pushes and pieces of %d", i, piece)
			}
		}
	})
}
