package conformance

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/metacache/mctest"
	"github.com/pqscan/pqscan/internal/require"
)

type mcRun struct {
	ids, vsum int64
	rows      int64
	rep       pqscan.Report
	log       []string
	info      *pqscan.FileInfo
	stats     pqscan.SourceStats
	err       error
}

// mcScan opens url with the store and scans v for id in [lo, hi).
func mcScan(t *testing.T, s *mctest.Server, url string, store pqscan.MetadataStore, lo, hi int64) mcRun {
	t.Helper()
	return mcScanWith(t, s, url, store, nil, pqscan.ScanOptions{Columns: []string{"id", "v"}, Where: "id >= " + strconv.FormatInt(lo, 10) + " AND id < " + strconv.FormatInt(hi, 10)})
}

// mcScanWith opens url with the store and engine (nil: native) and scans o, adding up its
// first column in ids and its second, if any, in vsum.
func mcScanWith(t *testing.T, s *mctest.Server, url string, store pqscan.MetadataStore, engine pqscan.Engine, o pqscan.ScanOptions) mcRun {
	t.Helper()
	ctx := context.Background()
	var out mcRun
	f, err := pqscan.Open(ctx, url, pqscan.Options{Engine: engine, MetadataCache: store, TailSize: 1024, HTTP: pqscan.HTTPOptions{MaxRetries: -1, TailSize: 1024}})
	if err != nil {
		out.err = err
		out.log = s.Take()
		return out
	}
	defer f.Close()
	rd, err := f.Scan(ctx, o)
	if err == nil {
		for {
			var rec arrow.RecordBatch
			if rec, err = rd.Next(); err != nil {
				break
			}
			for _, v := range rec.Column(0).(*array.Int64).Int64Values() {
				out.ids += v
			}
			if rec.NumCols() > 1 {
				for _, v := range rec.Column(1).(*array.Int64).Int64Values() {
					out.vsum += v
				}
			}
			out.rows += rec.NumRows()
			rec.Release()
		}
		out.rep = rd.Report()
		rd.Close()
	}
	if errors.Is(err, io.EOF) {
		err = nil
	}
	out.err, out.log, out.info, out.stats = err, s.Take(), f.Metadata(), f.Source().Stats()
	return out
}

func TestMetadataCache_returningVisit(t *testing.T) {
	data := mctest.File(t, 40000, 0)
	s := &mctest.Server{}
	s.Set(data, `"v1"`, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	ts := httptest.NewServer(s)
	defer ts.Close()
	url := ts.URL + "/f.parquet"
	store, err := pqscan.MetadataDir(t.TempDir(), 0)
	require.NoError(t, err)

	const lo, hi = 10000, 10050
	wr, wi, wv := mctest.Want(lo, hi, 0)
	first := mcScan(t, s, url, store, lo, hi)
	require.NoError(t, first.err)
	require.Equal(t, []int64{wr, wi, wv}, []int64{first.rows, first.ids, first.vsum})
	require.True(t, len(first.rep.MetadataFromCache) == 0)
	start := first.info.IndexStart
	require.True(t, start > 0, "the writer puts the page index before the footer")

	second := mcScan(t, s, url, store, lo, hi)
	require.NoError(t, second.err)
	require.Equal(t, []int64{wr, wi, wv}, []int64{second.rows, second.ids, second.vsum})
	require.Equal(t, []string{"tail", "plan"}, second.rep.MetadataFromCache)
	// The second visit's requests are the first's minus those of the tail and page index.
	var want []string
	for _, h := range first.log {
		if off, _, suffix := mctest.RangeOf(h); !suffix && off < start {
			want = append(want, h)
		}
	}
	require.True(t, len(want) > 0)
	require.Equal(t, want, second.log)
	require.Equal(t, int64(len(first.log)-len(want)), second.rep.RequestsSaved)
	require.True(t, second.rep.RoundTripsSaved >= 1, "round trips saved")
	t.Logf("first visit %d requests %v, returning %d %v; saved %d requests, %d round trips",
		len(first.log), first.log, len(second.log), second.log, second.rep.RequestsSaved, second.rep.RoundTripsSaved)
}

// replacements are the ways a file is replaced between two visits: File(_, 40000, 0) served
// with etag1 becomes File(_, n2, base2) with etag2 an hour later.
var replacements = []struct {
	name         string
	etag1, etag2 string
	n2, base2    int64
}{
	{name: "same size, new ETag", etag1: `"a"`, etag2: `"b"`, n2: 40000, base2: 7},
	{name: "another size", etag1: `"a"`, etag2: `"c"`, n2: 30000, base2: 3},
	{name: "no ETag, new Last-Modified", n2: 40000, base2: 11},
}

// mcServer serves File(_, 40000, 0) with etag (none when "") modified at mod, until the test
// ends; url is the file's.
func mcServer(t *testing.T, etag string, mod time.Time) (s *mctest.Server, url string) {
	t.Helper()
	s = &mctest.Server{}
	s.Set(mctest.File(t, 40000, 0), etag, mod)
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return s, ts.URL + "/f.parquet"
}

func TestMetadataCache_replacedBetweenVisits(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const lo, hi = 5000, 5100
	for _, c := range replacements {
		t.Run(c.name, func(t *testing.T) {
			s, url := mcServer(t, c.etag1, t0)
			store, err := pqscan.MetadataDir(t.TempDir(), 0)
			require.NoError(t, err)
			first := mcScan(t, s, url, store, lo, hi)
			require.NoError(t, first.err)

			data2 := mctest.File(t, c.n2, c.base2)
			if c.n2 == 40000 {
				require.Equal(t, len(mctest.File(t, 40000, 0)), len(data2), "the replacement has the same size")
			}
			s.Set(data2, c.etag2, t0.Add(time.Hour))
			second := mcScan(t, s, url, store, lo, hi)
			require.NoError(t, second.err)
			wr, wi, wv := mctest.Want(lo, hi, c.base2)
			require.Equal(t, []int64{wr, wi, wv}, []int64{second.rows, second.ids, second.vsum}, "the new file's rows")
			require.True(t, len(second.rep.MetadataFromCache) == 0, "the stale entry was dropped")
			require.Equal(t, c.n2, second.info.NumRows)

			// The new version is stored: a third visit starts from it.
			third := mcScan(t, s, url, store, lo, hi)
			require.NoError(t, third.err)
			require.Equal(t, []int64{wr, wi, wv}, []int64{third.rows, third.ids, third.vsum})
			require.Equal(t, []string{"tail", "plan"}, third.rep.MetadataFromCache, "the new version's plan")
		})
	}
}

// A file replaced after the scan returned rows is ErrFileChanged, as without a store.
func TestMetadataCache_changedDuringScan(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := &mctest.Server{}
	s.Set(mctest.File(t, 40000, 0), `"a"`, t0)
	ts := httptest.NewServer(s)
	defer ts.Close()
	url := ts.URL + "/f.parquet"
	store, err := pqscan.MetadataDir(t.TempDir(), 0)
	require.NoError(t, err)
	require.NoError(t, mcScan(t, s, url, store, 0, 10).err)

	ctx := context.Background()
	f, err := pqscan.Open(ctx, url, pqscan.Options{MetadataCache: store, HTTP: pqscan.HTTPOptions{MaxRetries: -1}})
	require.NoError(t, err)
	defer f.Close()
	rd, err := f.Scan(ctx, pqscan.ScanOptions{Columns: []string{"id", "v"}, Where: "v < 500", BatchRows: 512, MemoryCap: 256 << 10})
	require.NoError(t, err)
	defer rd.Close()
	rec, err := rd.Next()
	require.NoError(t, err)
	rec.Release()
	s.Set(mctest.File(t, 40000, 1), `"b"`, t0.Add(time.Hour))
	for err == nil {
		if rec, err = rd.Next(); err == nil {
			rec.Release()
		}
	}
	require.ErrorIs(t, err, pqscan.ErrFileChanged)
}

// A store folder whose entries are garbage, truncated or of another format version is
// ignored: the scan reads the file and answers right.
func TestMetadataCache_garbageFolder(t *testing.T) {
	s := &mctest.Server{}
	s.Set(mctest.File(t, 40000, 0), `"a"`, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	ts := httptest.NewServer(s)
	defer ts.Close()
	url := ts.URL + "/f.parquet"
	dir := t.TempDir()
	store, err := pqscan.MetadataDir(dir, 0)
	require.NoError(t, err)
	first := mcScan(t, s, url, store, 0, 100)
	require.NoError(t, first.err)
	entries, err := filepath.Glob(filepath.Join(dir, "*.pqmc"))
	require.NoError(t, err)
	require.True(t, len(entries) > 0)
	good, err := os.ReadFile(entries[0])
	require.NoError(t, err)
	other := bytes.Clone(good)
	other[4]++ // the format version
	flipped := bytes.Clone(good)
	flipped[len(flipped)/2] ^= 1
	for name, b := range map[string][]byte{"garbage": []byte("garbage"), "empty": {}, "truncated": good[:len(good)-9], "other version": other, "flipped byte": flipped} {
		for _, e := range entries {
			require.NoError(t, os.WriteFile(e, b, 0o644))
		}
		got := mcScan(t, s, url, store, 0, 100)
		require.NoError(t, got.err, name)
		wr, wi, wv := mctest.Want(0, 100, 0)
		require.Equal(t, []int64{wr, wi, wv}, []int64{got.rows, got.ids, got.vsum}, name)
		require.True(t, len(got.rep.MetadataFromCache) == 0, name)
		require.Equal(t, first.log, got.log, name+": the file is read as without a store")
	}
}

// A count answered from the footer alone makes no data request: a one-byte request confirms
// the stored footer first, so a file replaced since is counted anew, never from the old one.
func TestMetadataCache_countOfReplacedFile(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := &mctest.Server{}
	s.Set(mctest.File(t, 40000, 0), `"a"`, t0)
	ts := httptest.NewServer(s)
	defer ts.Close()
	url := ts.URL + "/f.parquet"
	store, err := pqscan.MetadataDir(t.TempDir(), 0)
	require.NoError(t, err)
	count := func() (int64, pqscan.Report) {
		ctx := context.Background()
		f, err := pqscan.Open(ctx, url, pqscan.Options{MetadataCache: store})
		require.NoError(t, err)
		defer f.Close()
		n, rep, err := f.Count(ctx, pqscan.ScanOptions{})
		require.NoError(t, err)
		return n, rep
	}
	n, _ := count()
	require.Equal(t, int64(40000), n)
	s.Take()
	n, rep := count()
	require.Equal(t, int64(40000), n)
	require.Equal(t, []string{"tail"}, rep.MetadataFromCache)
	require.Equal(t, []string{"bytes=" + strconv.Itoa(len(mctest.File(t, 40000, 0))-1) + "-" + strconv.Itoa(len(mctest.File(t, 40000, 0))-1)}, s.Take(), "one byte confirms the stored footer")
	s.Set(mctest.File(t, 30000, 0), `"b"`, t0.Add(time.Hour))
	n, rep = count()
	require.Equal(t, int64(30000), n)
	require.True(t, len(rep.MetadataFromCache) == 0, rep.MetadataFromCache)
}

// Scans of one File opened from a stale entry, run at once, each give the new file's rows:
// the first to see the change reads the footer again, the others start from it.
func TestMetadataCache_concurrentScansOfReplacedFile(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := &mctest.Server{}
	s.Set(mctest.File(t, 40000, 0), `"a"`, t0)
	ts := httptest.NewServer(s)
	defer ts.Close()
	url := ts.URL + "/f.parquet"
	store, err := pqscan.MetadataDir(t.TempDir(), 0)
	require.NoError(t, err)
	require.NoError(t, mcScan(t, s, url, store, 0, 10).err)
	s.Set(mctest.File(t, 40000, 3), `"b"`, t0.Add(time.Hour))
	ctx := context.Background()
	f, err := pqscan.Open(ctx, url, pqscan.Options{MetadataCache: store})
	require.NoError(t, err)
	defer f.Close()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	sums := make([]int64, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rd, err := f.Scan(ctx, pqscan.ScanOptions{Columns: []string{"v"}, Where: "id >= 100 AND id < 200"})
			for err == nil {
				var rec arrow.RecordBatch
				if rec, err = rd.Next(); err == nil {
					for _, v := range rec.Column(0).(*array.Int64).Int64Values() {
						sums[i] += v
					}
					rec.Release()
				}
			}
			if rd != nil {
				rd.Close()
			}
			if !errors.Is(err, io.EOF) {
				errs[i] = err
			}
		}()
	}
	wg.Wait()
	_, _, want := mctest.Want(100, 200, 3)
	for i := range errs {
		require.NoError(t, errs[i])
		require.Equal(t, want, sums[i])
	}
}
