// Package mctest helps the metadata cache's tests: a generated Parquet file whose rows are
// known by construction, and a server of one replaceable file that logs its requests.
package mctest

import (
	"bytes"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// File writes n rows (id = i, v = base + i%1000) in row groups of 4096 rows with a page
// index, uncompressed and without dictionaries, so that its size depends on n alone.
func File(t testing.TB, n, base int64) []byte {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil)
	ib, vb := array.NewInt64Builder(memory.DefaultAllocator), array.NewInt64Builder(memory.DefaultAllocator)
	for i := range n {
		ib.Append(i)
		vb.Append(base + i%1000)
	}
	rec := array.NewRecordBatch(schema, []arrow.Array{ib.NewArray(), vb.NewArray()}, n)
	defer rec.Release()
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(4096), parquet.WithDataPageSize(4096),
		parquet.WithDictionaryDefault(false), parquet.WithCompression(compress.Codecs.Uncompressed),
		parquet.WithPageIndexEnabled(true), parquet.WithStats(true))
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(schema, &buf, props, pqarrow.DefaultWriterProps())
	if err == nil {
		err = w.Write(rec)
	}
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Want is the answer by construction over rows [lo, hi) of File(_, n, base): the row count,
// the sum of id and the sum of v.
func Want(lo, hi, base int64) (rows, ids, vsum int64) {
	for i := lo; i < hi; i++ {
		rows, ids, vsum = rows+1, ids+i, vsum+base+i%1000
	}
	return
}

// Server serves one replaceable file with Range, an ETag (when set) and Last-Modified, and
// logs the Range header of every request.
type Server struct {
	mu   sync.Mutex
	data []byte
	etag string
	mod  time.Time
	log  []string
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.log = append(s.log, r.Header.Get("Range"))
	data, etag, mod := s.data, s.etag, s.mod
	s.mu.Unlock()
	if etag != "" {
		w.Header().Set("ETag", etag)
	}
	http.ServeContent(w, r, "f.parquet", mod, bytes.NewReader(data))
}

// Set replaces the file.
func (s *Server) Set(data []byte, etag string, mod time.Time) {
	s.mu.Lock()
	s.data, s.etag, s.mod = data, etag, mod
	s.mu.Unlock()
}

// Take returns the Range headers logged since the last call, sorted (requests in flight
// together arrive in any order).
func (s *Server) Take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.log
	s.log = nil
	slices.Sort(l)
	return l
}

// RangeOf parses a Range header: [off, end), or suffix for "bytes=-n".
func RangeOf(h string) (off, end int64, suffix bool) {
	spec := strings.TrimPrefix(h, "bytes=")
	if strings.HasPrefix(spec, "-") {
		n, _ := strconv.ParseInt(spec[1:], 10, 64)
		return -n, 0, true
	}
	a, b, _ := strings.Cut(spec, "-")
	off, _ = strconv.ParseInt(a, 10, 64)
	end, _ = strconv.ParseInt(b, 10, 64)
	return off, end + 1, false
}

// Bytes adds up the lengths of logged ranges (a suffix counts -off... its n).
func Bytes(log []string) int64 {
	var n int64
	for _, h := range log {
		off, end, suffix := RangeOf(h)
		if suffix {
			n += -off
		} else {
			n += end - off
		}
	}
	return n
}
