// Command wasmspeed runs the same scans natively and inside the wasm module in wazero, in one
// process, interleaved (native, wazero, native, wazero, …) so that both see the same load on a
// shared machine, and prints each run's wall and CPU time and the ratios to native per query shape.
// The V8 side is e2e/bench's `node wasmspeed.js` (make bench-wasm runs both).
//
//	make bench-wasm BENCH_DIR=/path/to/cache    (or: go run ./bench/cmd/wasmspeed -dir DIR -reps 3)
//
// Each engine first runs untimed scans of each shape: at least -warmup, and for at least
// -warmuptime (its steady state is what the ratios compare; see warmUp). Every run reads the whole file from memory through the Go driver and counts the IPC bytes it
// produced; runs whose byte counts differ between engines fail the command, so a ratio is
// never printed for different work.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime/pprof"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/pqscan/pqscan/internal/drive"
	"github.com/pqscan/pqscan/internal/events"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/wazerohost"
)

// shape is one query shape: the columns a scan reads.
type shape struct {
	name    string
	columns []string // nil: every column
}

var shapes = map[string]shape{
	"all":     {"all columns", nil},
	"value":   {"value", []string{"value"}},
	"payload": {"payload", []string{"payload"}},
}

func main() {
	path := flag.String("file", "", "Parquet file to scan (read into memory once); default: the sorted events file in -dir")
	dir := flag.String("dir", ".cache/events", "cache directory of generated events files (generated there if missing)")
	rows := flag.Int("rows", 4_000_000, "rows of the generated events file")
	reps := flag.Int("reps", 3, "interleaved repetitions per engine and shape")
	batchRows := flag.Int("batchrows", 0, "scan.Options.BatchRows for every engine (0: the engine's default)")
	warmup := flag.Int("warmup", 3, "untimed scans per engine and shape first, at least (see -warmuptime): instances grow their memory, V8 tiers its hot code up")
	warmupTime := flag.Duration("warmuptime", 1500*time.Millisecond, "and each engine keeps warming up until its untimed scans of a shape add up to this: V8 compiles its hot functions with TurboFan in background threads and a value scan keeps getting faster for about a second of scanning (0.10 s the 4th scan, ~0.06 s from about the 12th)")
	which := flag.String("shapes", "value,all", "query shapes: all, value, payload (comma-separated)")
	engines := flag.String("engines", "native,wazero,v8", "engines to run, comma-separated: native, wazero, v8 (node, ZSTD by the bridge's C decoder), chromium (headless Chromium's V8, a page running the bridge as v8 does)")
	node := flag.String("node", "node", "node binary for the v8 engine")
	interrupt := flag.Bool("interrupt", false, "wazerohost.Config.InterruptGuest (the old default: a termination check in every loop)")
	script := flag.String("v8script", "bench/v8/wasmspeed.mjs", "the V8 side's script")
	chromiumScript := flag.String("chromiumscript", "bench/v8/wasmspeed-chromium.mjs", "the chromium engine's script")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of this process to the file (with -engines native: the native engine's profile; wazero runs in-process too)")
	module := flag.String("module", "", "wasm module to run in wazero instead of the embedded one (e.g. bin/pqscan-names.wasm, for perf with -tags perfmap)")
	flag.Parse()
	log.SetFlags(0)
	if *path == "" {
		p, err := events.Cached(*dir, events.Config{Rows: *rows, Layout: events.Sorted})
		if err != nil {
			log.Fatal(err)
		}
		*path = p
	}
	file, err := os.ReadFile(*path)
	if err != nil {
		log.Fatal(err)
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	ctx := context.Background()
	cfg := wazerohost.Config{InterruptGuest: *interrupt}
	if *module != "" {
		if cfg.Module, err = os.ReadFile(*module); err != nil {
			log.Fatal(err)
		}
		cfg.Cache = wazero.NewCompilationCache() // compiled in this process: perf map entries written
	}
	h, err := wazerohost.New(ctx, cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close(ctx)
	runs := map[string]func(cols []string) (result, error){
		"native": func(cols []string) (result, error) {
			return run(ctx, func(o scan.Options) (scan.Session, error) { return scan.New(o) }, file, cols, *batchRows)
		},
		"wazero": func(cols []string) (result, error) {
			return run(ctx, func(o scan.Options) (scan.Session, error) { return h.Start(ctx, o) }, file, cols, *batchRows)
		},
	}
	for _, eng := range strings.Split(*engines, ",") {
		sc := *script
		switch eng {
		case "v8":
		case "chromium":
			sc = *chromiumScript
		default:
			continue
		}
		v8, err := startV8(*node, sc, *path, *module, *batchRows)
		if err != nil {
			log.Fatal(err)
		}
		defer v8.close()
		runs[eng] = v8.scan
	}
	fmt.Printf("file %s (%.1f MB), %d reps, interleaved, wazero %+v\n", *path, float64(len(file))/1e6, *reps,
		struct{ InterruptGuest bool }{cfg.InterruptGuest})
	for _, key := range strings.Split(*which, ",") {
		sh, ok := shapes[key]
		if !ok {
			log.Fatalf("wasmspeed: unknown shape %q", key)
		}
		times := map[string][]time.Duration{}
		cpus := map[string][]time.Duration{}
		out := map[string]int64{}
		if err := warmUp(sh, strings.Split(*engines, ","), runs, *warmup, *warmupTime); err != nil {
			log.Fatal(err)
		}
		for r := 0; r < *reps; r++ {
			for _, eng := range strings.Split(*engines, ",") {
				st, ok := runs[eng]
				if !ok {
					log.Fatalf("wasmspeed: unknown engine %q", eng)
				}
				res, err := st(sh.columns)
				d, n := res.wall, res.ipcBytes
				if err != nil {
					log.Fatalf("%s %s: %v", eng, sh.name, err)
				}
				if prev, ok := out[eng]; ok && prev != n {
					log.Fatalf("%s %s: %d IPC bytes, earlier %d", eng, sh.name, n, prev)
				}
				out[eng] = n
				times[eng] = append(times[eng], d)
				cpus[eng] = append(cpus[eng], res.cpu)
				fmt.Printf("  %-12s %-8s rep %d: %8.3f s  CPU %7.3f s  (%d IPC bytes)\n", sh.name, eng, r+1, d.Seconds(), res.cpu.Seconds(), n)
			}
		}
		for eng, n := range out {
			if nat, ok := out["native"]; ok && n != nat {
				log.Fatalf("%s: native produced %d IPC bytes, %s %d", sh.name, nat, eng, n)
			}
		}
		fmt.Println(summary(sh.name, *engines, times))
		fmt.Println(summary(sh.name+" CPU", *engines, cpus))
	}
}

// warmUp runs untimed scans of sh, interleaved across engines as the timed ones are, until each
// engine has run at least min of them and spent at least d in them, and prints each engine's
// warm-up: how many, the first one's time and the last three's. Why a time and not only a count:
// what a throughput ratio should compare is each engine's steady state, and V8 reaches it by
// time (its optimizing compiles run in background threads, which on a 2-core machine wait for
// a core), not after a fixed number of scans; the first scans' cost is what the cold-page
// benchmark (make bench) measures.
func warmUp(sh shape, engines []string, runs map[string]func([]string) (result, error), min int, d time.Duration) error {
	spent := map[string]time.Duration{}
	times := map[string][]time.Duration{}
	for {
		busy := false
		for _, eng := range engines {
			st, ok := runs[eng]
			if !ok || (len(times[eng]) >= min && spent[eng] >= d) {
				continue
			}
			busy = true
			res, err := st(sh.columns)
			if err != nil {
				return fmt.Errorf("%s %s: warm-up: %v", eng, sh.name, err)
			}
			spent[eng] += res.wall
			times[eng] = append(times[eng], res.wall)
		}
		if !busy {
			break
		}
	}
	for _, eng := range engines {
		t := times[eng]
		if len(t) == 0 {
			continue
		}
		last := t[max(0, len(t)-3):]
		var ls []string
		for _, x := range last {
			ls = append(ls, fmt.Sprintf("%.3f", x.Seconds()))
		}
		fmt.Printf("  %-12s %-8s warm-up: %d scans, %.1f s; first %.3f s, last %s s\n", sh.name, eng, len(t), spent[eng].Seconds(), t[0].Seconds(), strings.Join(ls, " "))
	}
	return nil
}

// summary is one line of a shape's medians per engine and their ratios to native (of the
// medians, and per repetition).
func summary(label, engines string, t map[string][]time.Duration) string {
	line := fmt.Sprintf("%-12s", label)
	for _, eng := range strings.Split(engines, ",") {
		if m := median(t[eng]); m > 0 { // 0: an engine that does not report it (chromium's CPU)
			line += fmt.Sprintf("  %s median %.3f s", eng, m.Seconds())
		}
	}
	for _, eng := range []string{"wazero", "v8", "chromium"} {
		if len(t["native"]) > 0 && len(t[eng]) > 0 && median(t[eng]) > 0 {
			line += fmt.Sprintf("  %s/native %.2f× (per rep: %s)", eng,
				median(t[eng]).Seconds()/median(t["native"]).Seconds(), perRep(t, eng))
		}
	}
	return line
}

// result is one scan's wall time, CPU time and IPC bytes. CPU time is the whole process's
// (every thread: Go's collector and driver natively, V8's compiler and GC threads in node),
// measured around the scan: on a shared machine it moves far less with the load than wall time
// does, because time spent waiting for a core is not counted.
type result struct {
	wall, cpu time.Duration
	ipcBytes  int64
}

// processCPU is the user + system CPU time this process has used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// run scans file once with the given engine and returns the elapsed time and IPC bytes.
func run(ctx context.Context, start func(scan.Options) (scan.Session, error), file []byte, cols []string, batchRows int) (result, error) {
	t0, c0 := time.Now(), processCPU()
	s, err := start(scan.Options{FileSize: int64(len(file)), Columns: cols, BatchRows: batchRows})
	if err != nil {
		return result{}, err
	}
	var n int64
	src := httpclient.NewReaderAt(bytes.NewReader(file), int64(len(file)))
	_, err = drive.Run(ctx, s, src, true, func(b []byte) error { n += int64(len(b)); return nil })
	return result{time.Since(t0), processCPU() - c0, n}, err
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// perRep is each repetition's eng/native ratio (the runs of a repetition ran back to back).
func perRep(t map[string][]time.Duration, eng string) string {
	var parts []string
	for i := range t["native"] {
		if i < len(t[eng]) {
			parts = append(parts, fmt.Sprintf("%.2f", t[eng][i].Seconds()/t["native"][i].Seconds()))
		}
	}
	return strings.Join(parts, " ")
}
