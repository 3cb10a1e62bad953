package wazerohost

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pqscan/pqscan/internal/faultserver"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// loadFiles mix sizes, codecs, nesting and one malformed file (whose error must match too).
var loadFiles = []string{
	"parquet-testing/data/alltypes_plain.parquet",
	"parquet-testing/data/alltypes_tiny_pages_plain.parquet",
	"parquet-testing/data/nested_lists.snappy.parquet",
	"parquet-testing/data/nested_structs.rust.parquet",
	"parquet-testing/data/byte_stream_split.zstd.parquet",
	"parquet-testing/data/datapage_v2.snappy.parquet",
	"parquet-testing/data/delta_byte_array.parquet",
	"parquet-testing/data/lz4_raw_compressed_larger.parquet",
	"parquet-testing/data/nation.dict-malformed.parquet",
}

// loadJob is one kind of scan the load test runs; via is "" for an in-memory ReaderAt, else
// the faultserver path prefix ("/" for the good variant, "/fault/<mode>/" for a fault).
type loadJob struct {
	name string
	file []byte
	opts scan.Options
	via  string // "": in memory; else the faultserver path prefix before srv
	srv  string // the file's name on the server
	want result
	rows int64 // rows of want (decoded with arrow-go)
}

// TestLoad: 64 scans at once (many goroutines, one Host, a small pool, 2 cores) over corpus
// files in memory and over HTTP on 127.0.0.1 (good and retried-fault variants). Every result
// equals the native engine's (IPC bytes, or the arrow-go row count, or the error message);
// afterwards the pool holds at most PoolSize instances and every other instance was closed,
// and after Close the goroutines and the heap are back to their baseline.
//
// Run it under the race detector with `go test -race -run Load ./wazerohost`. -short runs one
// wave of 64 scans instead of two.
func TestLoad(t *testing.T) {
	const (
		concurrency = 64
		poolSize    = 4
	)
	waves := 2
	if testing.Short() {
		waves = 1
	}

	// The expected results, computed before the baseline is taken.
	var jobs []*loadJob
	add := func(name string, file []byte, opts scan.Options, via, srvName string) {
		want := runNative(t, file, opts)
		var rows int64
		for _, s := range want.streams {
			rdr, err := ipc.NewReader(bytes.NewReader(s), ipc.WithAllocator(memory.DefaultAllocator))
			require.NoError(t, err)
			require.True(t, rdr.Next(), "a stream without a batch")
			rec := rdr.RecordBatch()
			require.NoError(t, err)
			rows += rec.NumRows()
			rdr.Release()
		}
		jobs = append(jobs, &loadJob{name: name, file: file, opts: opts, via: via, srv: srvName, want: want.comparable(), rows: rows})
	}
	srvFiles := map[string][]byte{}
	for i, f := range loadFiles {
		file := testcorpus.Read(t, f)
		name := fmt.Sprintf("f%d.parquet", i)
		srvFiles[name] = file
		add(f, file, scan.Options{}, "", name)
		add(f+" over HTTP", file, scan.Options{}, "/", name)
	}
	// alltypes_tiny_pages_plain is the largest file (811 KB) and costs about a second per full
	// scan in wasm: besides its plain full scans above, it is scanned selectively.
	big := srvFiles["f1.parquet"]
	add("tiny_pages where", big, scan.Options{Columns: []string{"id", "string_col"}, Where: "id >= 5000 AND id < 5100"}, "/", "f1.parquet")
	add("tiny_pages limit", big, scan.Options{Columns: []string{"id"}, Limit: 10, Offset: 7}, "", "f1.parquet")
	add("tiny_pages batches", big, scan.Options{Columns: []string{"id", "bool_col"}, BatchRows: 1000, Where: "bool_col = true"}, "", "f1.parquet")
	add("tiny_pages reset-once", big, scan.Options{Columns: []string{"int_col"}, Where: "int_col > 3"}, "/fault/"+faultserver.ModeResetOnce+"/", "f1.parquet")
	add("tiny_pages 503-once", big, scan.Options{Columns: []string{"id", "timestamp_col"}, Where: "month = 7"}, "/fault/"+faultserver.Mode503Once+"/", "f1.parquet")
	add("alltypes ignore-range", srvFiles["f0.parquet"], scan.Options{}, "/fault/"+faultserver.ModeIgnoreRange+"/", "f0.parquet")
	add("nested_lists 429-once", srvFiles["f2.parquet"], scan.Options{}, "/fault/"+faultserver.Mode429Once+"/", "f2.parquet")

	// Compile the module once outside the measurement (the test cache keeps it).
	warm := newHost(t, Config{})
	_, err := runWasm(t, warm, srvFiles["f0.parquet"], scan.Options{})
	require.NoError(t, err)
	require.NoError(t, warm.Close(context.Background()))

	heapBase := heapAfterGC()
	goBase := runtime.NumGoroutine()

	srv := faultserver.New(faultserver.Options{})
	for name, b := range srvFiles {
		srv.Add(name, b)
	}
	base, err := srv.Start("127.0.0.1:0")
	require.NoError(t, err)
	tr := &http.Transport{MaxIdleConnsPerHost: concurrency, DisableCompression: true}
	client := &http.Client{Transport: tr}
	h, err := New(context.Background(), Config{Cache: testCache, PoolSize: poolSize})
	require.NoError(t, err)
	closed := false
	defer func() {
		if !closed {
			h.Close(context.Background())
			srv.Close()
			tr.CloseIdleConnections()
		}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	var (
		mu       sync.Mutex
		failures []string
		scans    int
		sessions int // a decoding scan opens the file first: two sessions
		peakHeap uint64
	)
	for wave := range waves {
		ready, gate := sync.WaitGroup{}, make(chan struct{})
		var wg sync.WaitGroup
		for g := range concurrency {
			j := jobs[(g+wave*7)%len(jobs)]
			decode := (g+wave)%2 == 1 // half the scans decode with arrow-go, half compare IPC bytes
			ready.Add(1)
			wg.Go(func() {
				ready.Done()
				<-gate // start together
				msg, n := runLoadJob(ctx, h, client, base, j, decode)
				mu.Lock()
				scans++
				sessions += n
				if msg != "" {
					failures = append(failures, fmt.Sprintf("wave %d goroutine %d %s: %s", wave, g, j.name, msg))
				}
				mu.Unlock()
			})
		}
		ready.Wait()
		close(gate)
		wg.Wait()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peakHeap = max(peakHeap, ms.HeapAlloc)
	}
	elapsed := time.Since(start)
	for _, f := range failures {
		t.Error(f)
	}

	st := h.Stats()
	idle := len(h.pool)
	t.Logf("%d scans (%d at once, %d waves) in %v; %+v; %d idle; server %+v; heap base %d MiB, after a wave %d MiB",
		scans, concurrency, waves, elapsed.Round(time.Millisecond), st, idle, srv.Total(), heapBase>>20, peakHeap>>20)
	require.Equal(t, concurrency*waves, scans)
	require.Equal(t, int64(sessions), st.Instantiated+st.Reused, "sessions that got an instance")
	require.True(t, idle <= poolSize, "idle instances beyond PoolSize:", idle)
	require.Equal(t, int64(idle), st.Instantiated-st.Discarded, "instances neither pooled nor closed")

	require.NoError(t, h.Close(context.Background()))
	require.NoError(t, srv.Close())
	tr.CloseIdleConnections()
	closed = true
	st = h.Stats()
	require.Equal(t, 0, len(h.pool), "idle after Close")
	require.Equal(t, st.Instantiated, st.Discarded, "instances still open after Close")

	// Goroutines: back to the baseline within a short wait (connections and servers wind down
	// asynchronously).
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > goBase && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > goBase {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		t.Errorf("goroutines: %d after Close, %d before the load:\n%s", n, goBase, buf)
	}

	// Memory: every instance's linear memory is Go heap in wazero; after Close and a GC the
	// heap is back near the baseline (slack for the allocator and runtime bookkeeping).
	heapEnd := heapAfterGC()
	t.Logf("heap after Close: %d MiB (baseline %d MiB)", heapEnd>>20, heapBase>>20)
	require.True(t, heapEnd <= heapBase+32<<20, "heap after Close", heapEnd>>20, "MiB, baseline", heapBase>>20, "MiB")
}

// runLoadJob runs one scan and returns "" or what differed from the native engine, and the
// engine sessions it started.
func runLoadJob(ctx context.Context, h *Host, client *http.Client, base string, j *loadJob, decode bool) (string, int) {
	var src httpclient.Source
	if j.via == "" {
		src = httpclient.NewReaderAt(bytes.NewReader(j.file), int64(len(j.file)))
	} else {
		src = httpclient.NewHTTP(base+j.via+j.srv, httpclient.Options{
			Client: client, Backoff: 5 * time.Millisecond, MaxBackoff: 20 * time.Millisecond,
		})
	}
	if decode {
		rows, sessions, err := scanRows(ctx, h, src, j.opts)
		return decodeDiff(j, rows, err), sessions
	}
	return compareIPC(ctx, h, src, j), 1
}

// decodeDiff says what a decoded scan got wrong against the native engine ("" if nothing).
func decodeDiff(j *loadJob, rows int64, err error) string {
	switch {
	case j.want.err != "" && err == nil:
		return fmt.Sprintf("%d rows, want the native error %q", rows, j.want.err)
	case j.want.err != "" && engineMessage(err) != j.want.err:
		return fmt.Sprintf("error %q, want %q", err, j.want.err)
	case j.want.err == "" && err != nil:
		return "error: " + err.Error()
	case j.want.err == "" && rows != j.rows:
		return fmt.Sprintf("%d rows, want %d", rows, j.rows)
	}
	return ""
}

// compareIPC runs a raw session and says how its IPC or report differ from the native
// engine's ("" if they do not).
func compareIPC(ctx context.Context, h *Host, src httpclient.Source, j *loadJob) string {
	var got result
	rep, err := runRaw(ctx, h, src, j.opts, func(b []byte) error {
		got.streams = append(got.streams, bytes.Clone(b))
		return nil
	})
	got.report = rep
	if err != nil {
		got.err = engineMessage(err)
	}
	got = got.comparable()
	if got.err != j.want.err {
		return fmt.Sprintf("error %q, want %q", got.err, j.want.err)
	}
	if len(got.streams) != len(j.want.streams) {
		return fmt.Sprintf("%d batches, want %d", len(got.streams), len(j.want.streams))
	}
	for i := range got.streams {
		if !bytes.Equal(got.streams[i], j.want.streams[i]) {
			return fmt.Sprintf("batch %d differs from the native engine's", i)
		}
	}
	if j.via == "" {
		// Over HTTP the byte counters legitimately differ (the size probe reads a larger tail).
		if a, b := fmt.Sprint(got.report), fmt.Sprint(j.want.report); a != b {
			return "report differs:\n" + a + "\n" + b
		}
	}
	return ""
}

func heapAfterGC() uint64 {
	var ms runtime.MemStats
	for range 2 {
		runtime.GC()
	}
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
