package scan

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/golang/snappy"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

const testCap = 16 << 20

// scanMeasured scans file with the given memory cap, pushing exactly the ranges asked for,
// and returns the error and the bytes allocated meanwhile (runtime TotalAlloc delta).
func scanMeasured(t *testing.T, file []byte, memCap int64) (error, uint64) {
	t.Helper()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s, err := New(Options{FileSize: int64(len(file)), MemoryCap: memCap})
	require.NoError(t, err)
	var scanErr error
	for i := 0; i < 10000; i++ {
		st := s.Next()
		if st.Kind == NeedRanges {
			for _, r := range st.Ranges {
				require.NoError(t, s.Push(r.Off, file[r.Off:r.End()]))
			}
			continue
		}
		if st.Kind == Error {
			scanErr = st.Err
		}
		if st.Kind == Error || st.Kind == Done {
			break
		}
	}
	runtime.ReadMemStats(&after)
	return scanErr, after.TotalAlloc - before.TotalAlloc
}

func int32Schema(rep format.FieldRepetitionType) []schemaEl {
	return []schemaEl{{name: "schema", children: 1}, {name: "a", typ: typePtr(format.Int32), rep: rep}}
}

func Test_craftFile_valid(t *testing.T) {
	// Positive control for the crafted files below: the same layout with honest sizes reads.
	body := le32s(1, 2, 3)
	pages := append(v1Header(len(body), len(body), 3, format.Plain), body...)
	file := craftFile(int32Schema(format.Required), 3, []craftColumn{{typ: format.Int32, path: []string{"a"}, pages: pages, numValues: 3}})
	_, rows, err := drive(t, file, Options{MemoryCap: testCap})
	require.NoError(t, err)
	require.Equal(t, int64(3), rows)

	// Dictionary-encoded strings with an optional column and snappy.
	dict := append(le32s(2), "hi"...)
	cdict := snappy.Encode(nil, dict)
	dpage := append(dictPageHeader(len(dict), len(cdict), 1), cdict...)
	data := append(lenPrefixed(rleRun(4, 1, 1)), append([]byte{1}, rleRun(4, 0, 1)...)...)
	comp := snappy.Encode(nil, data)
	pages = append(dpage, append(v1Header(len(data), len(comp), 4, format.RLEDictionary), comp...)...)
	file = craftFile([]schemaEl{{name: "schema", children: 1}, {name: "s", typ: typePtr(format.ByteArray), rep: format.Optional}}, 4,
		[]craftColumn{{typ: format.ByteArray, codec: format.Snappy, path: []string{"s"}, pages: pages, dictLen: len(dpage), numValues: 4}})
	_, rows, err = drive(t, file, Options{MemoryCap: testCap})
	require.NoError(t, err)
	require.Equal(t, int64(4), rows)
}

// Test_resourceBounds: hostile sizes and counts end in a clear error, quickly, without
// allocating past about twice the memory cap.
func Test_resourceBounds(t *testing.T) {
	flba := format.FixedLenByteArray
	tests := []struct {
		name string
		file func(t *testing.T) []byte
		want []string // the error must contain one of these
	}{
		{
			name: "page claims 2 GiB uncompressed (snappy)",
			file: func(*testing.T) []byte {
				comp := snappy.Encode(nil, le32s(1, 2, 3))
				pages := append(v1Header(1<<31-1, len(comp), 3, format.Plain), comp...)
				return craftFile(int32Schema(format.Required), 3, []craftColumn{{typ: format.Int32, codec: format.Snappy, path: []string{"a"}, pages: pages, numValues: 3}})
			},
			want: []string{"memory cap"},
		},
		{
			name: "page claims 2 GiB uncompressed (uncompressed)",
			file: func(*testing.T) []byte {
				body := le32s(1, 2, 3)
				pages := append(v1Header(1<<31-1, len(body), 3, format.Plain), body...)
				return craftFile(int32Schema(format.Required), 3, []craftColumn{{typ: format.Int32, path: []string{"a"}, pages: pages, numValues: 3}})
			},
			want: []string{"memory cap"},
		},
		{
			name: "snappy body that really expands to 64 MiB",
			file: func(*testing.T) []byte {
				raw := make([]byte, 64<<20)
				comp := snappy.Encode(nil, raw)
				pages := append(v1Header(len(raw), len(comp), 3, format.Plain), comp...)
				return craftFile(int32Schema(format.Required), 3, []craftColumn{{typ: format.Int32, codec: format.Snappy, path: []string{"a"}, pages: pages, numValues: 3}})
			},
			want: []string{"memory cap"},
		},
		{
			name: "dictionary page claims 10^9 int32 entries",
			file: func(*testing.T) []byte {
				dict := le32s(7, 8)
				dpage := append(dictPageHeader(len(dict), len(dict), 1e9), dict...)
				data := []byte{1, 2 << 1, 0}
				pages := append(dpage, append(v1Header(len(data), len(data), 2, format.RLEDictionary), data...)...)
				return craftFile(int32Schema(format.Required), 2, []craftColumn{{typ: format.Int32, path: []string{"a"}, pages: pages, dictLen: len(dpage), numValues: 2}})
			},
			// The count is checked against the bytes present, before the memory cap.
			want: []string{"memory cap", "PLAIN values of 4 bytes need more than the 8 bytes present"},
		},
		{
			name: "dictionary page claims 10^9 string entries",
			file: func(*testing.T) []byte {
				dict := append(le32s(2), "hi"...)
				dpage := append(dictPageHeader(len(dict), len(dict), 1e9), dict...)
				data := []byte{1, 2 << 1, 0}
				pages := append(dpage, append(v1Header(len(data), len(data), 2, format.RLEDictionary), data...)...)
				return craftFile([]schemaEl{{name: "schema", children: 1}, {name: "s", typ: typePtr(format.ByteArray), rep: format.Required}}, 2,
					[]craftColumn{{typ: format.ByteArray, path: []string{"s"}, pages: pages, dictLen: len(dpage), numValues: 2}})
			},
			want: []string{"memory cap", "PLAIN byte arrays need more than"},
		},
		{
			name: "RLE dictionary indices repeat a 1 MiB string 4M times",
			file: func(*testing.T) []byte {
				dict := append(le32s(1<<20), make([]byte, 1<<20)...)
				dpage := append(dictPageHeader(len(dict), len(dict), 1), dict...)
				data := append([]byte{1}, rleRun(4_000_000, 0, 1)...)
				pages := append(dpage, append(v1Header(len(data), len(data), 4_000_000, format.RLEDictionary), data...)...)
				return craftFile([]schemaEl{{name: "schema", children: 1}, {name: "s", typ: typePtr(format.ByteArray), rep: format.Required}}, 4_000_000,
					[]craftColumn{{typ: format.ByteArray, path: []string{"s"}, pages: pages, dictLen: len(dpage), numValues: 4_000_000}})
			},
			want: []string{"memory cap"},
		},
		{
			name: "RLE dictionary indices repeat a 1 MiB FIXED_LEN_BYTE_ARRAY 64 times",
			file: func(*testing.T) []byte {
				dict := make([]byte, 1<<20)
				dpage := append(dictPageHeader(len(dict), len(dict), 1), dict...)
				data := append([]byte{1}, rleRun(64, 0, 1)...)
				pages := append(dpage, append(v1Header(len(data), len(data), 64, format.RLEDictionary), data...)...)
				return craftFile([]schemaEl{{name: "schema", children: 1}, {name: "f", typ: &flba, typeLen: 1 << 20, rep: format.Required}}, 64,
					[]craftColumn{{typ: flba, path: []string{"f"}, pages: pages, dictLen: len(dpage), numValues: 64}})
			},
			want: []string{"memory cap"},
		},
		{
			name: "RLE definition levels expand to 10^8 entries",
			file: func(*testing.T) []byte {
				data := append(lenPrefixed(rleRun(1e8, 0, 1)), 0)
				pages := append(v1Header(len(data), len(data), 1e8, format.Plain), data...)
				return craftFile(int32Schema(format.Optional), 1e8, []craftColumn{{typ: format.Int32, path: []string{"a"}, pages: pages, numValues: 1e8}})
			},
			want: []string{"memory cap"},
		},
		{
			name: "one row whose list spans 50 pages of 2M RLE entries each",
			file: func(*testing.T) []byte {
				list := format.ConvertedList
				schema := []schemaEl{{name: "schema", children: 1}, {name: "a", rep: format.Optional, children: 1, conv: &list},
					{name: "list", rep: format.Repeated, children: 1}, {name: "element", typ: typePtr(format.Int32), rep: format.Optional}}
				const n = 2_000_000
				var pages []byte
				for p := 0; p < 50; p++ {
					rep := rleRun(n, 1, 1)
					if p == 0 {
						rep = append(rleRun(1, 0, 1), rleRun(n-1, 1, 1)...)
					}
					data := append(lenPrefixed(rep), lenPrefixed(rleRun(n, 2, 2))...) // empty... null elements
					pages = append(pages, append(v1Header(len(data), len(data), n, format.Plain), data...)...)
				}
				return craftFile(schema, 1, []craftColumn{{typ: format.Int32, path: []string{"a", "list", "element"}, pages: pages, numValues: 50 * n}})
			},
			want: []string{"memory cap"},
		},
		{
			name: "schema nested 200 groups deep",
			file: func(*testing.T) []byte {
				schema := []schemaEl{{name: "schema", children: 1}}
				for i := 0; i < 200; i++ {
					schema = append(schema, schemaEl{name: "g", rep: format.Optional, children: 1})
				}
				schema = append(schema, schemaEl{name: "x", typ: typePtr(format.Int32), rep: format.Optional})
				return craftFile(schema, 0, nil)
			},
			want: []string{"nesting deeper than 128"},
		},
		{
			name: "parquet-testing large_string_map.brotli.parquet",
			file: func(t *testing.T) []byte {
				return testcorpus.Read(t, "parquet-testing/data/large_string_map.brotli.parquet")
			},
			want: []string{"memory cap"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := tc.file(t)
			start := time.Now()
			err, alloc := scanMeasured(t, file, testCap)
			took := time.Since(start)
			t.Logf("%v after %v, %.1f MiB allocated", err, took.Round(time.Millisecond), float64(alloc)/(1<<20))
			require.Error(t, err)
			require.True(t, !errors.Is(err, ErrInternal), "internal error:", err)
			ok := false
			for _, w := range tc.want {
				ok = ok || strings.Contains(err.Error(), w)
			}
			require.True(t, ok, "error", err, "should mention one of", tc.want)
			// Allowance: about twice the cap (a page and a batch may each reach it; TotalAlloc
			// also counts slice growth), plus the engine's copy of the file's bytes.
			limit := uint64(testCap)*9/4 + 2*uint64(len(file))
			require.True(t, alloc <= limit, "allocated", alloc, "bytes, limit", limit)
			t.Logf("took %v", took) // the allocation bound above is the check, not wall time
		})
	}
}
