package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// pushFunc feeds the bytes of the requested ranges to the scanner in some way.
type pushFunc func(s *scan.Scanner, data []byte, ranges []scan.Range) error

// runScanner drives scan.Scanner directly and returns a copy of every IPC stream it emitted.
func runScanner(data []byte, opts scan.Options, push pushFunc) ([][]byte, error) {
	opts.FileSize = int64(len(data))
	s, err := scan.New(opts)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for steps := 0; steps < 1_000_000; steps++ {
		st := s.Next()
		switch st.Kind {
		case scan.NeedRanges:
			if err := push(s, data, st.Ranges); err != nil {
				return nil, err
			}
		case scan.Batch:
			out = append(out, bytes.Clone(st.IPC))
		case scan.Done:
			return out, nil
		case scan.Error:
			return nil, st.Err
		}
	}
	return nil, errors.New("scanner did not finish in 1e6 steps")
}

func pushWhole(s *scan.Scanner, data []byte, ranges []scan.Range) error {
	for _, r := range ranges {
		if err := s.Push(r.Off, data[r.Off:r.End()]); err != nil {
			return err
		}
	}
	return nil
}

// pushShuffled widens each range by up to 100 bytes on each side (extra bytes), cuts it into
// random pieces of 1–300 bytes, and pushes all pieces of the step in random order.
func pushShuffled(rng *rand.Rand) pushFunc {
	return func(s *scan.Scanner, data []byte, ranges []scan.Range) error {
		type piece struct{ off, end int64 }
		var pieces []piece
		for _, r := range ranges {
			lo := max(0, r.Off-rng.Int63n(101))
			hi := min(int64(len(data)), r.End()+rng.Int63n(101))
			for off := lo; off < hi; {
				n := min(hi-off, 1+rng.Int63n(300))
				pieces = append(pieces, piece{off, off + n})
				off += n
			}
		}
		rng.Shuffle(len(pieces), func(i, j int) { pieces[i], pieces[j] = pieces[j], pieces[i] })
		for _, p := range pieces {
			if err := s.Push(p.off, data[p.off:p.end]); err != nil {
				return err
			}
		}
		return nil
	}
}

// TestPushOrderIndependence checks rule 13 of STYLE.md: the engine's output does not depend on
// how the host delivers the bytes (whole ranges, small shuffled pieces, extra bytes around).
func TestPushOrderIndependence(t *testing.T) {
	tests := []struct {
		name string
		file string
		opts scan.Options
	}{
		{name: "flat, several batches", file: "parquet-testing/data/alltypes_plain.parquet", opts: scan.Options{BatchRows: 3}},
		{name: "page index, many pages", file: "parquet-testing/data/alltypes_tiny_pages_plain.parquet", opts: scan.Options{BatchRows: 1000}},
		{name: "two row groups", file: "hyparquet/rowgroups.parquet"},
		{name: "nested lists, maps, structs", file: "parquet-testing/data/nullable.impala.parquet"},
		{name: "nested structs, 216 leaves", file: "parquet-testing/data/nested_structs.rust.parquet"},
		{name: "dictionary, projection", file: "hyparquet/page_index.parquet", opts: scan.Options{Columns: []string{"word"}}},
		{name: "small tail read", file: "parquet-testing/data/delta_byte_array.parquet", opts: scan.Options{TailSize: 64, BatchRows: 100}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := testcorpus.Read(t, tc.file)
			want, err := runScanner(data, tc.opts, pushWhole)
			if err != nil {
				t.Fatalf("whole ranges: %v", err)
			}
			if len(want) == 0 {
				t.Fatal("no batches")
			}
			for seed := int64(1); seed <= 3; seed++ {
				got, err := runScanner(data, tc.opts, pushShuffled(rand.New(rand.NewSource(seed))))
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if len(got) != len(want) {
					t.Fatalf("seed %d: %d batches, want %d", seed, len(got), len(want))
				}
				for i := range want {
					if !bytes.Equal(got[i], want[i]) {
						t.Fatalf("seed %d: batch %d differs (%d vs %d bytes)", seed, i, len(got[i]), len(want[i]))
					}
				}
			}
		})
	}
}

// TestSliceMatchesFullScan checks Offset and Limit against slicing the rows of a full scan,
// including offsets that land on and past row-group boundaries.
func TestSliceMatchesFullScan(t *testing.T) {
	files := []string{
		"hyparquet/rowgroups.parquet",  // 2 row groups: 10 + 5 rows
		"hyparquet/page_index.parquet", // 2 row groups, many pages
		"parquet-testing/data/sort_columns.parquet",
		"parquet-testing/data/floating_orders_nan_count.parquet", // 5 row groups
		"parquet-testing/data/alltypes_tiny_pages.parquet",
	}
	for _, file := range files {
		data := testcorpus.Read(t, file)
		full, err := scanBytes(data, pqscan.Options{}, pqscan.ScanOptions{}, corpusTimeout)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		n := full.rows
		for _, sl := range [][2]int64{{0, 1}, {1, 0}, {n / 3, 2}, {n / 2, 0}, {n - 1, 5}, {n, 0}, {n + 3, 1}, {rowGroupRows(t, data), 3}} {
			t.Run(fmt.Sprintf("%s offset %d limit %d", file, sl[0], sl[1]), func(t *testing.T) {
				res, err := scanBytes(data, pqscan.Options{}, pqscan.ScanOptions{Offset: sl[0], Limit: sl[1]}, corpusTimeout)
				if err != nil {
					t.Fatal(err)
				}
				want := max(0, n-sl[0])
				if sl[1] > 0 {
					want = min(want, sl[1])
				}
				if res.rows != want {
					t.Fatalf("got %d rows, want %d", res.rows, want)
				}
				for i := int64(0); i < want; i++ {
					grec, gk := res.rowAt(i)
					wrec, wk := full.rowAt(sl[0] + i)
					for c := range res.schema.Fields() {
						if d := diffJSON(canon(wrec.Column(c), wk, -1), canon(grec.Column(c), gk, -1), res.schema.Field(c).Name); d != "" {
							t.Fatalf("row %d (file row %d): %s", i, sl[0]+i, d)
						}
					}
				}
			})
		}
	}
}

// rowGroupRows is the row count of the first row group: an offset exactly on the boundary.
func rowGroupRows(t *testing.T, data []byte) int64 {
	f, err := pqscan.OpenReaderAt(context.Background(), bytes.NewReader(data), int64(len(data)), pqscan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return f.Metadata().RowGroups[0].NumRows
}

// FuzzEngine scans arbitrary bytes as a Parquet file with a 64 MiB memory cap. Errors are
// expected; a panic, a hang or the engine's internal-error path (a recovered panic) is a bug.
func FuzzEngine(f *testing.F) {
	for _, p := range []string{
		"parquet-testing/data/alltypes_plain.parquet",
		"parquet-testing/data/nullable.impala.parquet",
		"parquet-testing/data/delta_binary_packed.parquet",
		"parquet-testing/data/datapage_v2.snappy.parquet",
		"hyparquet/rowgroups.parquet",
		"hyparquet/uuid.parquet",
	} {
		f.Add(testcorpus.Read(f, p))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := scanBytes(data, pqscan.Options{MemoryCap: 64 << 20}, pqscan.ScanOptions{BatchRows: 1024}, 10*time.Second)
		if errors.Is(err, errTimeout) || errors.Is(err, scan.ErrInternal) || (err != nil && len(err.Error()) > 5 && err.Error()[:5] == "PANIC") {
			t.Fatal(err)
		}
	})
}
