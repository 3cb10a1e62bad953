package format

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Fuzz targets for every decoder, seeded from the corpus. Each checks: no panic, the
// allocation bound of memory_test.go, n within the input for the prefix decoders, and that the
// result does not alias the input (scribbling over the input leaves it unchanged).

// corpusSeeds returns, for each valid or fuzz corpus file, the decoded footer and the raw
// bytes. It is used to seed the fuzzers; files whose footer does not decode give only bytes.
type seedFile struct {
	file []byte
	meta []byte
	m    *FileMetaData
}

func corpusSeeds(f *testing.F, max int) []seedFile {
	root, ok := testcorpus.Find()
	if !ok {
		return nil
	}
	var out []seedFile
	_ = filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || len(out) >= max {
			return err
		}
		if !strings.HasSuffix(p, ".parquet") && !strings.Contains(p, "fuzzing/clusterfuzz") && !strings.Contains(p, "fuzzing/crash") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		meta, _, ok := footer(b)
		if !ok || len(meta) > 64<<10 {
			return nil
		}
		m, _ := DecodeFileMetaData(meta)
		out = append(out, seedFile{file: b, meta: meta, m: m})
		return nil
	})
	return out
}

func scribble(b []byte) {
	for i := range b {
		b[i] ^= 0x5a
	}
}

// checkStable decodes in twice (once from a copy that is then scribbled over) and requires the
// same result, so decoded values cannot alias their input; and it applies the allocation bound.
func checkStable[T any](t *testing.T, in []byte, decode func([]byte) (T, error)) (T, error) {
	var got T
	var err error
	checkExpansion(t, "decode", in, func(b []byte) { got, err = decode(b) })
	cp := append([]byte(nil), in...)
	again, err2 := decode(cp)
	scribble(cp)
	if (err == nil) != (err2 == nil) || !equalNaN(reflect.ValueOf(got), reflect.ValueOf(again)) {
		t.Fatalf("decoding is not stable or aliases its input: %v / %v", err, err2)
	}
	return got, err
}

// equalNaN is reflect.DeepEqual for decoded Thrift values, except that a float equals
// another of the same bits: a NaN read twice from the same bytes is the same value, while
// DeepEqual calls it unequal (NaN != NaN). The fuzzer found this with a NaN in a geospatial
// bounding box (regression seed FuzzFileMetaData/6dce47ace616ec8d).
func equalNaN(a, b reflect.Value) bool {
	if a.IsValid() != b.IsValid() || (a.IsValid() && a.Type() != b.Type()) {
		return false
	}
	if !a.IsValid() {
		return true
	}
	switch a.Kind() {
	case reflect.Float32, reflect.Float64:
		return math.Float64bits(a.Float()) == math.Float64bits(b.Float())
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return equalNaN(a.Elem(), b.Elem())
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if !equalNaN(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice, reflect.Array:
		if a.Kind() == reflect.Slice && (a.IsNil() != b.IsNil() || a.Len() != b.Len()) {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !equalNaN(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		for _, k := range a.MapKeys() {
			if !equalNaN(a.MapIndex(k), b.MapIndex(k)) {
				return false
			}
		}
		return true
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() == b.Uint()
	case reflect.String:
		return a.String() == b.String()
	default: // unexported fields cannot give Interface(); no other kinds occur here
		panic("equalNaN: unexpected kind " + a.Kind().String())
	}
}

func FuzzFileMetaData(f *testing.F) {
	for _, s := range corpusSeeds(f, 400) {
		f.Add(s.meta)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		_, _ = checkStable(t, in, DecodeFileMetaData)
	})
}

func FuzzPageHeader(f *testing.F) {
	f.Add([]byte(v2Header(50, nil)))
	for _, s := range corpusSeeds(f, 400) {
		if s.m == nil || len(s.m.RowGroups) == 0 {
			continue
		}
		for _, c := range s.m.RowGroups[0].Columns[:min(2, len(s.m.RowGroups[0].Columns))] {
			if md := c.MetaData; md != nil && md.DataPageOffset >= 0 && md.DataPageOffset < int64(len(s.file)) {
				f.Add(s.file[md.DataPageOffset:min(int64(len(s.file)), md.DataPageOffset+128)])
			}
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		type result struct {
			h *PageHeader
			n int
		}
		r, err := checkStable(t, in, func(b []byte) (result, error) {
			h, n, err := DecodePageHeader(b)
			return result{h, n}, err
		})
		if err != nil {
			if r.h != nil || r.n != 0 {
				t.Fatalf("error %v with a result", err)
			}
			return
		}
		if r.n <= 0 || r.n > len(in) || r.h.CompressedPageSize < 0 || r.h.UncompressedPageSize < 0 {
			t.Fatalf("n=%d of %d, header %+v", r.n, len(in), r.h)
		}
		if v2 := r.h.DataPageHeaderV2; v2 != nil && int64(v2.DefinitionLevelsByteLength)+int64(v2.RepetitionLevelsByteLength) > int64(r.h.CompressedPageSize) {
			t.Fatalf("levels exceed page: %+v", v2)
		}
	})
}

// pageIndexSeeds returns the column index and offset index bytes of corpus files.
func pageIndexSeeds(f *testing.F, column bool) [][]byte {
	var out [][]byte
	for _, s := range corpusSeeds(f, 400) {
		if s.m == nil {
			continue
		}
		for _, rg := range s.m.RowGroups {
			for _, c := range rg.Columns {
				off, n := c.OffsetIndexOffset, c.OffsetIndexLength
				if column {
					off, n = c.ColumnIndexOffset, c.ColumnIndexLength
				}
				if off != nil && n != nil && *off >= 0 && *n >= 0 && *off+int64(*n) <= int64(len(s.file)) && len(out) < 200 {
					out = append(out, s.file[*off:*off+int64(*n)])
				}
			}
		}
	}
	return out
}

func FuzzColumnIndex(f *testing.F) {
	for _, b := range pageIndexSeeds(f, true) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		_, _ = checkStable(t, in, DecodeColumnIndex)
	})
}

func FuzzOffsetIndex(f *testing.F) {
	for _, b := range pageIndexSeeds(f, false) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		_, _ = checkStable(t, in, DecodeOffsetIndex)
	})
}

func FuzzBloomFilterHeader(f *testing.F) {
	if root, ok := testcorpus.Find(); ok {
		for _, name := range []string{"parquet-testing/data/bloom_filter.xxhash.bin", "parquet-testing/data/bloom_filter.bin"} {
			if b, err := os.ReadFile(filepath.Join(root, name)); err == nil {
				f.Add(b[:min(len(b), 64)])
			}
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		type result struct {
			h *BloomFilterHeader
			n int
		}
		r, err := checkStable(t, in, func(b []byte) (result, error) {
			h, n, err := DecodeBloomFilterHeader(b)
			return result{h, n}, err
		})
		if err == nil && (r.n <= 0 || r.n > len(in) || r.h.NumBytes < 0) {
			t.Fatalf("n=%d of %d, header %+v", r.n, len(in), r.h)
		}
	})
}
