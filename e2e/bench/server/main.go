// Command server is the HTTP side of `make bench` (mk/bench-browser.mk): one origin on
// 127.0.0.1 serving the bench pages and bundles, the contenders' wasm modules, and the events
// files at /data/ through internal/faultserver (Range, strong ETag, CORS with exposed headers,
// per-request latency).
//
// Around faultserver it adds what a benchmark needs:
//   - a request log of /data/ (method, Range, start and end time, body bytes) that the driver
//     reads and clears per query (GET /__bench/log), from which it counts requests, bytes and
//     round trips;
//   - a shared link: with -mbps (or /__bench/config?mbps=) every /data/ response body goes
//     through one token bucket, so parallel requests share the bandwidth as on a real link
//     (faultserver's BytesPerSecond caps each response on its own, which would let six
//     parallel requests use six times the link);
//   - Cache-Control: no-store on /data/, so that repetitions never hit Chromium's HTTP cache;
//   - the static files brotli-compressed (-br, static.go) and, with /__bench/config?cache=1,
//     cacheable, for the cold and warm-cache page loads; a log of them (/__bench/static-log).
//
// With -month ROOT (an events.MonthCached root: month/event_date=YYYY-MM-DD/part-N.parquet and
// single.parquet), /ds/ serves that root the same way, plus ListObjectsV2 (`/ds/?list-type=2&
// prefix=month/`, or path style with the bucket "ds": `/ds?list-type=2&prefix=month/`; pages of
// -list-page keys) for the dataset workload (e2e/bench/dataset.js); its requests go to the same
// log and link.
//
// With -h2, the same handlers are also served over TLS (a self-signed certificate, HTTP/2) on a
// second port, printed as tlsURL.
//
// GET /__bench/config?latency=30ms&mbps=50[&cache=1] swaps the data servers for ones with that latency
// (faultserver.Options.Latency, added before every response) and sets the link rate (0 = none).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pqscan/pqscan/internal/faultserver"
)

type entry struct {
	Method string  `json:"method"`
	Path   string  `json:"path"`
	Range  string  `json:"range,omitempty"`
	Status int     `json:"status"`
	Start  float64 `json:"start"` // ms since the server started
	End    float64 `json:"end"`
	Bytes  int64   `json:"bytes"`
	Proto  string  `json:"proto"` // HTTP/1.1 or HTTP/2.0
}

// link is a shared token bucket: each write reserves its duration on one virtual wire.
type link struct {
	mu   sync.Mutex
	bps  float64 // bytes per second; 0 = unlimited
	free time.Time
}

func (l *link) reserve(n int) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.bps <= 0 {
		return 0
	}
	now := time.Now()
	if l.free.Before(now) {
		l.free = now
	}
	l.free = l.free.Add(time.Duration(float64(n) / l.bps * float64(time.Second)))
	return time.Until(l.free)
}

func (l *link) set(bps float64) {
	l.mu.Lock()
	l.bps, l.free = bps, time.Time{}
	l.mu.Unlock()
}

type shapedWriter struct {
	http.ResponseWriter
	l      *link
	status int
	n      int64
}

func (w *shapedWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *shapedWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	total := 0
	const chunk = 16 << 10
	for len(p) > 0 {
		c := min(chunk, len(p))
		if d := w.l.reserve(c); d > 0 {
			time.Sleep(d)
		}
		n, err := w.ResponseWriter.Write(p[:c])
		total += n
		w.n += int64(n)
		if err != nil {
			return total, err
		}
		p = p[c:]
	}
	return total, nil
}

func (w *shapedWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address (127.0.0.1 only)")
	data := flag.String("data", ".cache/events", "directory served at /data/")
	www := flag.String("www", "e2e/bench/www", "bench pages and bundles served at /")
	js := flag.String("js", "jsbridge/dist", "pqscan bridge bundle served at /pqscan/dist/")
	wasm := flag.String("wasm", "wazerohost/pqscan.wasm", "pqscan module served at /pqscan/pqscan.wasm")
	nm := flag.String("nm", "e2e/bench/node_modules", "node_modules served at /nm/ (the peers' wasm files)")
	month := flag.String("month", "", "month dataset root served at /ds/ with ListObjectsV2 (empty: none)")
	listPage := flag.Int("list-page", 100, "keys per ListObjectsV2 page of /ds/")
	brDir := flag.String("br", "", "brotli copies of the static files (DIR/<url path>.br), served with Content-Encoding: br to clients that accept it")
	h2 := flag.Bool("h2", false, "also serve everything over TLS (self-signed, HTTP/2) on a second 127.0.0.1 port")
	flag.Parse()
	if !strings.HasPrefix(*addr, "127.0.0.1:") {
		log.Fatal("server: listen on 127.0.0.1 only")
	}

	t0 := time.Now()
	var (
		mu   sync.Mutex
		logs []entry
		lk   link
		cur  atomic.Pointer[faultserver.Server]
		ds   atomic.Pointer[faultserver.Server]
	)
	servers := func(lat time.Duration) {
		cur.Store(faultserver.New(faultserver.Options{Dir: *data, Latency: lat}))
		if *month != "" {
			ds.Store(faultserver.New(faultserver.Options{Dir: *month, Latency: lat, ListPageSize: *listPage}))
		}
	}
	servers(0)
	st := &statics{brDir: *brDir, t0: t0}

	mux := http.NewServeMux()
	// prefix + "/…" is the server's "/…"; prefix alone (a path-style listing of the bucket
	// named prefix, `/ds?list-type=2`) is its "/" (no redirect to "/ds/").
	logged := func(prefix string, srv *atomic.Pointer[faultserver.Server]) {
		h := func(w http.ResponseWriter, r *http.Request) {
			start := time.Since(t0)
			w.Header().Set("Cache-Control", "no-store")
			sw := &shapedWriter{ResponseWriter: w, l: &lk}
			r2 := r.Clone(r.Context())
			r2.URL.Path, r2.URL.RawPath = strings.TrimPrefix(r.URL.Path, prefix), ""
			if r2.URL.Path == "" {
				r2.URL.Path = "/"
			}
			srv.Load().ServeHTTP(sw, r2)
			p := r.URL.Path
			if r.URL.Query().Get("list-type") == "2" {
				p += "?list-type=2"
			}
			e := entry{Method: r.Method, Path: p, Range: r.Header.Get("Range"), Status: sw.status,
				Start: ms(start), End: ms(time.Since(t0)), Bytes: sw.n, Proto: r.Proto}
			mu.Lock()
			logs = append(logs, e)
			mu.Unlock()
		}
		mux.HandleFunc(prefix+"/", h)
		mux.HandleFunc(prefix, h)
	}
	logged("/data", &cur)
	if *month != "" {
		logged("/ds", &ds)
	}
	mux.HandleFunc("/__bench/log", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		out := logs
		logs = nil
		mu.Unlock()
		if out == nil {
			out = []entry{}
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		json.NewEncoder(w).Encode(out)
	})
	mux.HandleFunc("/__bench/config", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		lat, err := time.ParseDuration(orDefault(q.Get("latency"), "0s"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mbps, err := strconv.ParseFloat(orDefault(q.Get("mbps"), "0"), 64)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		servers(lat)
		lk.set(mbps * 1e6 / 8)
		st.cacheable.Store(q.Get("cache") == "1")
		mu.Lock()
		logs = nil
		mu.Unlock()
		fmt.Fprintf(w, "latency=%v mbps=%v cache=%v\n", lat, mbps, st.cacheable.Load())
	})
	mux.HandleFunc("/__bench/static-log", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		json.NewEncoder(w).Encode(st.take())
	})
	// Static files: no-store unless /__bench/config?cache=1, brotli from -br (static.go).
	mux.Handle("/pqscan/dist/", st.wrap(http.StripPrefix("/pqscan/dist/", http.FileServer(http.Dir(*js)))))
	// The lean module from beside the full one, as `make wasm` and the package leave it.
	for p, file := range map[string]string{"/pqscan/pqscan.wasm": *wasm, "/pqscan/pqscan-lean.wasm": filepath.Join(filepath.Dir(*wasm), "pqscan-lean.wasm")} {
		mux.Handle(p, st.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/wasm")
			http.ServeFile(w, r, file)
		})))
	}
	mux.Handle("/nm/", st.wrap(http.StripPrefix("/nm/", http.FileServer(http.Dir(*nm)))))
	mux.Handle("/", st.wrap(http.FileServer(http.Dir(*www))))

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	urls := map[string]string{"url": "http://" + ln.Addr().String() + "/"}
	if *h2 {
		// The same handlers over TLS on a second port, where Chromium negotiates HTTP/2.
		cfg, err := selfSigned()
		if err != nil {
			log.Fatal(err)
		}
		tln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			log.Fatal(err)
		}
		urls["tlsURL"] = "https://" + tln.Addr().String() + "/"
		tsrv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, TLSConfig: cfg}
		go func() { log.Fatal(tsrv.ServeTLS(tln, "", "")) }()
	}
	info, _ := json.Marshal(urls)
	fmt.Println(string(info))
	os.Stdout.Sync()
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	log.Fatal(srv.Serve(ln))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
