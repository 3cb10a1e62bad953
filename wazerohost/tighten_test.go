package wazerohost_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
	"github.com/pqscan/pqscan/wazerohost"
)

// rangeLog serves one file over HTTP on 127.0.0.1 and records the byte range of every GET.
type rangeLog struct {
	mu   sync.Mutex
	file []byte
	got  []httprange.Range
}

func (l *rangeLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var a, b int64
	if _, err := fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-%d", &a, &b); err == nil {
		l.mu.Lock()
		l.got = append(l.got, httprange.Range{Off: a, Len: b - a + 1})
		l.mu.Unlock()
	}
	http.ServeContent(w, r, "f.parquet", time0, bytes.NewReader(l.file))
}

func (l *rangeLog) since(n int) []httprange.Range {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]httprange.Range(nil), l.got[n:]...)
}

// Test_tightenOverHTTP: a scan of hyparquet/page_index.parquet (2 row groups of 1500 rows,
// page index) over HTTP is tightened after its first row group's batch, on the native engine
// and inside the module: a conjunct that does not bind is refused (ErrTighten) and changes
// nothing; then `id >= 2000 AND id < 2100` makes every later request one of the second row
// group's offset and column indexes or a page of id and word holding rows 500–599, and the
// rows are the first row group's plus ids 2000–2099 (brute force over the rows not yet
// emitted).
func Test_tightenOverHTTP(t *testing.T) {
	ctx := context.Background()
	h, err := wazerohost.New(ctx, wazerohost.Config{})
	require.NoError(t, err)
	defer h.Close(ctx)
	file := testcorpus.Read(t, "hyparquet/page_index.parquet")
	meta, err := format.DecodeFileMetaData(file[footerStart(file) : len(file)-8])
	require.NoError(t, err)
	// What the tightened rounds may read: row group 1's indexes of id and word, id's pages
	// that hold rows 500-599 of that row group (their min/max), and word's pages over the rows
	// of those id pages (the candidate rows).
	var allowed []httprange.Range
	lo, hi := int64(500), int64(600)
	for _, leaf := range []int{0, 1} {
		cc := &meta.RowGroups[1].Columns[leaf]
		oiR := httprange.Range{Off: *cc.OffsetIndexOffset, Len: int64(*cc.OffsetIndexLength)}
		allowed = append(allowed, oiR, httprange.Range{Off: *cc.ColumnIndexOffset, Len: int64(*cc.ColumnIndexLength)})
		oi, err := format.DecodeOffsetIndex(file[oiR.Off:oiR.End()])
		require.NoError(t, err)
		nlo, nhi := hi, lo
		for p, loc := range oi.PageLocations {
			end := int64(1500)
			if p+1 < len(oi.PageLocations) {
				end = oi.PageLocations[p+1].FirstRowIndex
			}
			if loc.FirstRowIndex < hi && end > lo {
				allowed = append(allowed, httprange.Range{Off: loc.Offset, Len: int64(loc.CompressedPageSize)})
				nlo, nhi = min(nlo, loc.FirstRowIndex), max(nhi, end)
			}
		}
		lo, hi = nlo, nhi // id's candidate rows, for word
	}
	require.True(t, hi-lo < 1500, "id's pages do not narrow row group 1")
	var want []int64
	for i := int64(0); i < 3000; i++ {
		if i < 1500 || i >= 2000 && i < 2100 {
			want = append(want, i)
		}
	}
	for _, engine := range []pqscan.Engine{pqscan.Native{}, h} {
		log := &rangeLog{file: file}
		srv := httptest.NewServer(log)
		f, err := pqscan.Open(ctx, srv.URL+"/f.parquet", pqscan.Options{Engine: engine, TailSize: 1024, HTTP: pqscan.HTTPOptions{TailSize: 1024}})
		require.NoError(t, err)
		// One row group per round: a quarter of the cap holds one row group's id and word.
		rd, err := f.Scan(ctx, pqscan.ScanOptions{Columns: []string{"id", "word"}, BatchRows: 1500, MaxGap: 1, MemoryCap: 80_000})
		require.NoError(t, err)
		var ids []int64
		mark := -1
		for {
			rec, err := rd.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err)
			for _, v := range rec.Column(0).(*array.Int32).Int32Values() {
				ids = append(ids, int64(v))
			}
			rec.Release()
			if mark < 0 {
				require.ErrorIs(t, rd.Tighten("nope > 1"), pqscan.ErrTighten)
				require.ErrorIs(t, rd.Tighten("id > 'a'"), pqscan.ErrTighten)
				log.mu.Lock()
				mark = len(log.got)
				log.mu.Unlock()
				require.NoError(t, rd.Tighten("id >= 2000", "id < 2100"))
			}
		}
		after := log.since(mark)
		rep := rd.Report()
		rd.Close()
		f.Close()
		srv.Close()
		name := fmt.Sprintf("%T", engine)
		require.True(t, slices.Equal(want, ids), name, len(ids))
		require.Equal(t, 1, rep.RuntimeFilters, name)
		require.True(t, len(after) >= 2, name, after)
		for _, r := range after {
			require.True(t, coveredBy(r, allowed), name, "a request outside the tightened plan:", r)
		}
	}
}

var time0 = time.Time{}

// coveredBy reports whether every byte of r lies in some range of set.
func coveredBy(r httprange.Range, set []httprange.Range) bool {
	var in []httprange.Range
	for _, x := range set {
		lo, hi := max(r.Off, x.Off), min(r.End(), x.End())
		if lo < hi {
			in = append(in, httprange.Range{Off: lo, Len: hi - lo})
		}
	}
	return httprange.Total(httprange.Coalesce(in, httprange.CoalesceOptions{})) == r.Len
}

func footerStart(file []byte) int {
	n := int(file[len(file)-8]) | int(file[len(file)-7])<<8 | int(file[len(file)-6])<<16 | int(file[len(file)-5])<<24
	return len(file) - 8 - n
}
