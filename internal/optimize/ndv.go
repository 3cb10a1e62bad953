package optimize

import (
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// kmv estimates a distinct count with the k-minimum-values sketch: keep the k smallest
// distinct 64-bit hashes; with fewer than k the count is exact (up to hash collisions), else it
// is (k-1)·2^64 / (k-th smallest hash), with a relative standard error of about 1/√k (2 % at
// k = 2048). Memory is bounded by 4k hashes.
type kmv struct {
	k     int
	hs    []uint64 // sorted, distinct, at most k after compact
	buf   []uint64
	rows  int64
	nulls int64
	bytes int64 // value bytes of string and binary columns
}

const kmvK = 2048

func newKMV() *kmv { return &kmv{k: kmvK} }

func (s *kmv) add(h uint64) {
	if len(s.hs) == s.k && h >= s.hs[len(s.hs)-1] {
		return
	}
	s.buf = append(s.buf, h)
	if len(s.buf) >= 2*s.k {
		s.compact()
	}
}

func (s *kmv) compact() {
	s.hs = append(s.hs, s.buf...)
	s.buf = s.buf[:0]
	slices.Sort(s.hs)
	s.hs = slices.Compact(s.hs)
	if len(s.hs) > s.k {
		s.hs = s.hs[:s.k]
	}
}

// estimate returns the distinct count estimate of the non-null values.
func (s *kmv) estimate() int64 {
	s.compact()
	if len(s.hs) < s.k {
		return int64(len(s.hs))
	}
	kth := float64(s.hs[s.k-1]) / math.Exp2(64)
	if kth == 0 {
		return int64(len(s.hs))
	}
	return int64(float64(s.k-1) / kth)
}

// mix64 is splitmix64's finalizer: a bijection that spreads integers over 64 bits.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

func hashBytes(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return mix64(h)
}

func hashString(b string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(b); i++ {
		h ^= uint64(b[i])
		h *= 1099511628211
	}
	return mix64(h)
}

// bloomCandidate reports whether --bloom auto considers a column of type t: integers that are
// not dates, times or timestamps, strings and binaries.
func bloomCandidate(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT32, arrow.INT64, arrow.UINT32, arrow.UINT64,
		arrow.STRING, arrow.LARGE_STRING, arrow.BINARY, arrow.LARGE_BINARY, arrow.FIXED_SIZE_BINARY:
		return true
	}
	return false
}

// addArray feeds every value of arr into the sketch.
func (s *kmv) addArray(arr arrow.Array) {
	s.rows += int64(arr.Len())
	s.nulls += int64(arr.NullN())
	valid := func(i int) bool { return arr.NullN() == 0 || arr.IsValid(i) }
	switch a := arr.(type) {
	case *array.Int32:
		for i, v := range a.Int32Values() {
			if valid(i) {
				s.add(mix64(uint64(v)))
			}
		}
	case *array.Int64:
		for i, v := range a.Int64Values() {
			if valid(i) {
				s.add(mix64(uint64(v)))
			}
		}
	case *array.Uint32:
		for i, v := range a.Uint32Values() {
			if valid(i) {
				s.add(mix64(uint64(v)))
			}
		}
	case *array.Uint64:
		for i, v := range a.Uint64Values() {
			if valid(i) {
				s.add(mix64(v))
			}
		}
	case *array.String:
		for i := range a.Len() {
			if valid(i) {
				v := a.Value(i)
				s.bytes += int64(len(v))
				s.add(hashString(v))
			}
		}
	case *array.LargeString:
		for i := range a.Len() {
			if valid(i) {
				v := a.Value(i)
				s.bytes += int64(len(v))
				s.add(hashString(v))
			}
		}
	case interface{ Value(int) []byte }:
		for i := range arr.Len() {
			if valid(i) {
				v := a.Value(i)
				s.bytes += int64(len(v))
				s.add(hashBytes(v))
			}
		}
	}
}
