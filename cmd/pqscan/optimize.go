package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/optimize"
	"github.com/pqscan/pqscan/internal/scan"
)

// subcommands are the commands with their own flag sets; dispatch runs them before its own.
var subcommands = map[string]func(ctx context.Context, args []string, stdout, stderr io.Writer) error{
	"optimize": runOptimize,
	"explain":  runExplain,
}

const optimizeUsage = `usage: pqscan optimize IN... OUT [--sort-by a,b] [--row-group-size ROWS|128MB]
         [--page-size 64KB | --page-rows N] [--codec snappy|zstd|gzip|brotli|lz4raw|none] [--level N]
         [--bloom col[:ndv[:fpp]] ...] [--bloom auto] [--bloom-mode always|if-no-dict|never] [--int96 utc|local] [--memory-cap 512MB] [--temp-dir DIR] [--quiet]
IN... is one file, or several files, a glob or a folder compacted into one OUT.
--bloom-mode (Impala's PARQUET_BLOOM_FILTER_WRITE) says which chunks of the bloom columns get
a filter: always (default), if-no-dict (only chunks that are not fully dictionary-encoded: a
dictionary already proves a value absent), never (none, whatever --bloom says).
`

// listFlag collects a repeated flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

func splitList(s string) []string {
	var out []string
	for _, c := range strings.Split(s, ",") {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// runOptimize is "pqscan optimize IN OUT": IN is read through pqscan's engine, OUT written
// next to its final name and renamed when complete.
func runOptimize(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("optimize", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		sortBy, rgSize, pageSize, codec, memCap, tempDir, engineName, int96, bloomMode string
		pageRows                                                                       int64
		level                                                                          int
		blooms                                                                         listFlag
		quiet                                                                          bool
	)
	fs.StringVar(&sortBy, "sort-by", "", "comma-separated top-level columns, or hilbert(col) for a WKB geometry column")
	fs.StringVar(&rgSize, "row-group-size", "", "rows per row group, or bytes with a suffix (128MB)")
	fs.StringVar(&pageSize, "page-size", "", "data page size in bytes (64KB)")
	fs.Int64Var(&pageRows, "page-rows", 0, "rows per data page")
	fs.StringVar(&codec, "codec", "zstd", "snappy, zstd, gzip, brotli, lz4raw or none")
	fs.IntVar(&level, "level", 0, "compression level (0 = codec default)")
	fs.Var(&blooms, "bloom", "col[:ndv[:fpp]] or auto; repeatable")
	fs.StringVar(&bloomMode, "bloom-mode", optimize.BloomAlways, "always, if-no-dict or never: which chunks of the bloom columns get a filter")
	fs.StringVar(&memCap, "memory-cap", "", "input bytes held in memory while sorting (512MB)")
	fs.StringVar(&tempDir, "temp-dir", "", "directory for sorted runs")
	fs.StringVar(&int96, "int96", "", "legacy INT96 timestamps are utc instants or local wall-clock times (recorded in the output)")
	fs.StringVar(&engineName, "engine", defaultEngine, "native or wasm")
	fs.BoolVar(&quiet, "quiet", false, "no progress line on a terminal's stderr")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		if err == flag.ErrHelp {
			fmt.Fprint(stdout, optimizeUsage)
			return nil
		}
		return err
	}
	if len(pos) < 2 {
		return fmt.Errorf("%w: optimize needs IN and OUT, got %d arguments", errUsage, len(pos))
	}
	srcs, outPath := pos[:len(pos)-1], pos[len(pos)-1]
	opts := optimize.Options{SortBy: splitList(sortBy), Codec: codec, Level: level, PageRows: pageRows, TempDir: tempDir, Int96: int96, BloomMode: bloomMode}
	if int96 != "" && int96 != "utc" && int96 != "local" {
		return fmt.Errorf("%w: --int96 %q (want utc or local)", errUsage, int96)
	}
	if _, err := optimize.ParseBloomMode(bloomMode); err != nil {
		return fmt.Errorf("%w: --bloom-mode: %v", errUsage, err)
	}
	if _, err := optimize.ParseCodec(codec); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if rgSize != "" {
		n, bytes, err := optimize.ParseSize(rgSize)
		if err != nil {
			return fmt.Errorf("%w: --row-group-size: %v", errUsage, err)
		}
		if bytes {
			opts.RowGroupBytes = n
		} else {
			opts.RowGroupRows = n
		}
	}
	if pageSize != "" {
		if pageRows > 0 {
			return fmt.Errorf("%w: --page-size and --page-rows exclude each other", errUsage)
		}
		if opts.PageBytes, _, err = optimize.ParseSize(pageSize); err != nil {
			return fmt.Errorf("%w: --page-size: %v", errUsage, err)
		}
	}
	if pageRows < 0 {
		return fmt.Errorf("%w: --page-rows must be positive", errUsage)
	}
	if memCap != "" {
		if opts.MemoryCap, _, err = optimize.ParseSize(memCap); err != nil {
			return fmt.Errorf("%w: --memory-cap: %v", errUsage, err)
		}
	}
	for _, b := range blooms {
		if b == "auto" {
			opts.BloomAuto = true
			continue
		}
		spec, err := optimize.ParseBloom(b)
		if err != nil {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		opts.Bloom = append(opts.Bloom, spec)
	}
	opts.Version = "devel"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		opts.Version = bi.Main.Version
	}
	engine, err := engineByName(engineName)
	if err != nil {
		return err
	}
	in, inBytes, err := openOptimizeInput(ctx, srcs, pqscan.Options{Engine: engine})
	if err != nil {
		return err
	}
	defer in.Close()
	if int96 != "" {
		if opts.Int96Columns, err = int96Columns(ctx, srcs); err != nil {
			return err
		}
	}

	out, err := createOutput(outPath) // output.go: a temporary name, renamed when complete
	if err != nil {
		return err
	}
	defer out.abort()
	line, stop := progressLine(stderr, quiet)
	defer stop()
	if line != nil {
		opts.Progress = show(line)
	}
	res, err := optimize.Rewrite(ctx, in, out, opts)
	if err != nil {
		return err
	}
	if err := out.commit(); err != nil {
		return err
	}
	stop()
	st, err := os.Stat(outPath)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "pqscan: wrote %s: %d rows, %d row groups, %d → %d bytes", outPath, res.Rows, res.RowGroups, inBytes, st.Size())
	if res.SortedRuns > 0 {
		fmt.Fprintf(stderr, ", sorted externally in %d runs (%d bytes spilled)", res.SortedRuns, res.SpilledBytes)
	}
	for _, b := range res.Bloom {
		fmt.Fprintf(stderr, ", bloom %s (ndv %d, fpp %g)", b.Column, b.NDV, b.FPP)
	}
	if res.BloomDictChunks > 0 {
		fmt.Fprintf(stderr, ", bloom filters on %d chunks (%d fully dictionary-encoded chunks without)", res.BloomChunks, res.BloomDictChunks)
	}
	fmt.Fprintln(stderr)
	return nil
}

// openOptimizeInput opens optimize's input: one file, or several files, a glob or a folder
// as one dataset (as cat reads them), whose rows are compacted into one file. inBytes is the
// input's size (for a dataset the sum of its local files' sizes, as listed).
func openOptimizeInput(ctx context.Context, srcs []string, o pqscan.Options) (in interface {
	optimize.Input
	Close() error
}, inBytes int64, err error) {
	if !isDataset(srcs) {
		f, err := pqscan.Open(ctx, srcs[0], o)
		if err != nil {
			return nil, 0, err
		}
		return f, f.Size(), nil
	}
	ds, err := pqscan.OpenDataset(ctx, srcs, o)
	if err != nil {
		return nil, 0, err
	}
	for _, p := range ds.Files() {
		if st, err := os.Stat(p); err == nil {
			inBytes += st.Size()
		}
	}
	return ds, inBytes, nil
}

// int96Columns names the INT96 columns of the first input file, from its Thrift footer (read
// with the native engine: the wasm module hands over a summary only).
func int96Columns(ctx context.Context, srcs []string) ([]string, error) {
	first := srcs[0]
	if isDataset(srcs) {
		ds, err := pqscan.OpenDataset(ctx, srcs, pqscan.Options{Engine: pqscan.Native{}})
		if err != nil {
			return nil, err
		}
		files := ds.Files()
		ds.Close()
		if len(files) == 0 {
			return nil, nil
		}
		first = files[0]
	}
	f, err := pqscan.Open(ctx, first, pqscan.Options{Engine: pqscan.Native{}})
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return optimize.Int96Columns(scan.Thrift(f.Metadata())), nil
}

func engineByName(name string) (pqscan.Engine, error) {
	newEngine, ok := engines[name]
	if !ok {
		return nil, fmt.Errorf("%w: unknown engine %q (want wasm or native)", errUsage, name)
	}
	return newEngine()
}
