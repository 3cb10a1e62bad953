package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/pqscan/pqscan/internal/faultserver"
)

// runServe serves, on one origin: the web demo at /, the bridge bundle at /pqscan/dist/, the
// module at /pqscan/pqscan.wasm and the data directory at /data/ (faultserver: Range, ETag,
// CORS, /data/fault/<mode>/<file>). A second origin serves the same data for cross-origin tests
// (printed as "crossOrigin"). It prints one JSON line with the URLs, then serves until
// interrupted.
func runServe(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:8080", "listen address (127.0.0.1 only); a busy port falls back to a free one")
	data := fs.String("data", ".cache/sample", "data directory served at /data/")
	corpus := fs.String("corpus", "", "optional directory served at /corpus/ (tests)")
	fixtures := fs.String("fixtures", "", "optional directory of test pages served at /fixtures/")
	web := fs.String("web", "web", "web demo directory served at /")
	js := fs.String("js", "jsbridge/dist", "bridge bundle directory served at /pqscan/dist/")
	wasm := fs.String("wasm", "wazerohost/pqscan.wasm", "module served at /pqscan/pqscan.wasm")
	latency := fs.Duration("latency", 0, "latency added to every data response (e.g. 40ms, to feel a CDN)")
	query := fs.String("query", "", "a WHERE clause to put in the printed demo URL")
	fs.Parse(args)
	if !strings.HasPrefix(*addr, "127.0.0.1:") && !strings.HasPrefix(*addr, "localhost:") {
		return errors.New("serve: listen on 127.0.0.1 only")
	}

	// The cross-origin server (another port) serves the data, and the bundle and the module
	// with CORS, as a CDN would to a notebook on another origin. It is also the redirect
	// target of /data/fault/redirect/*.
	crossLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	crossURL := "http://" + crossLn.Addr().String()
	crossMux := http.NewServeMux()
	crossMux.Handle("/pqscan/", cors(noStore(assets(*js, *wasm))))
	// Its own redirect mode (/fault/redirect/* on this origin) sends clients to a third origin.
	third := faultserver.New(faultserver.Options{Dir: *data, Latency: *latency})
	thirdURL, err := third.Start("127.0.0.1:0")
	if err != nil {
		return err
	}
	defer third.Close()
	crossMux.Handle("/", faultserver.New(faultserver.Options{Dir: *data, Latency: *latency, RedirectBase: thirdURL}))
	crossSrv := &http.Server{Handler: crossMux, ReadHeaderTimeout: 10 * time.Second}
	go crossSrv.Serve(crossLn)
	defer crossSrv.Close()

	dataSrv := faultserver.New(faultserver.Options{Dir: *data, Latency: *latency, RedirectBase: crossURL})
	mux := http.NewServeMux()
	mux.Handle("/data/", http.StripPrefix("/data", dataSrv))
	// /data is also a path-style bucket: a ListObjectsV2 request for it is GET /data?list-type=2
	// (no slash), which the mux would otherwise answer with a redirect to /data/ (a second request).
	mux.Handle("/data", http.StripPrefix("/data", dataSrv))
	if *corpus != "" {
		mux.Handle("/corpus/", http.StripPrefix("/corpus", faultserver.New(faultserver.Options{Dir: *corpus})))
	}
	if *fixtures != "" {
		mux.Handle("/fixtures/", noStore(http.StripPrefix("/fixtures/", http.FileServer(http.Dir(*fixtures)))))
	}
	mux.Handle("/pqscan/", noStore(assets(*js, *wasm)))
	// /__stats: the data server's per-path counters (requests, body bytes), so that a test
	// measures what a client fetched at the server, whatever context (page, Worker) sent it.
	mux.Handle("/__stats", noStore(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(dataSrv.Stats())
	})))
	mux.Handle("/", noStore(http.FileServer(http.Dir(*web))))

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)

	base := "http://" + ln.Addr().String() + "/"
	info := map[string]string{
		"url":         base,
		"data":        base + "data/",
		"crossOrigin": crossURL + "/",
	}
	if *corpus != "" {
		info["corpus"] = base + "corpus/"
	}
	line, _ := json.Marshal(info)
	fmt.Println(string(line))
	demo := base
	if *query != "" {
		demo += "?where=" + url.QueryEscape(*query)
	}
	files, _ := filepath.Glob(filepath.Join(*data, "*.parquet"))
	for _, f := range files {
		fmt.Printf("serving %s at %sdata/%s\n", f, base, filepath.Base(f))
	}
	fmt.Printf("web demo: %s   (Ctrl-C to stop)\n", demo)
	if st, err := os.Stat(filepath.Join(*data, "ds")); err == nil && st.IsDir() {
		// The dataset mode's sample (pqserve gen-dataset), listed by the page (jsbridge listDataset, path-style).
		fmt.Printf("dataset mode: %s?dataset=/data/ds/&where=%s\n", base, url.QueryEscape(datasetWhere))
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return srv.Shutdown(sctx)
}

// assets serves the bridge bundle at /pqscan/dist/ and the modules at /pqscan/pqscan.wasm and
// /pqscan/pqscan-lean.wasm (the lean one from beside the full one, as `make wasm` leaves it):
// where the bundle's default URLs (../pqscan-lean.wasm, ../pqscan.wasm) find them.
func assets(js, wasm string) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/pqscan/dist/", http.StripPrefix("/pqscan/dist/", http.FileServer(http.Dir(js))))
	for path, file := range map[string]string{"/pqscan/pqscan.wasm": wasm, "/pqscan/pqscan-lean.wasm": filepath.Join(filepath.Dir(wasm), "pqscan-lean.wasm")} {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/wasm")
			http.ServeFile(w, r, file)
		})
	}
	return mux
}

// cors lets any origin load what h serves (module scripts and fetches across origins).
func cors(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		h.ServeHTTP(w, r)
	})
}

func noStore(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		h.ServeHTTP(w, r)
	})
}
