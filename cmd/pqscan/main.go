// Command pqscan reads Parquet files, local or remote over HTTP range requests.
//
//	pqscan cat SRC [--columns a,b.c] [--limit N] [--offset N] [--where EXPR]
//	               [--format jsonl|csv|table|arrow|parquet|geojson|geojsonl] [-o FILE] [--quiet]
//	               [--engine wasm|native] [--explain] [--verbose]
//	pqscan schema SRC
//	pqscan inspect SRC
//	pqscan explain SRC --where EXPR [--where EXPR ...] [--columns a,b] [--compare OTHER]
//	pqscan optimize IN... OUT [flags]
//
// SRC is a path or an http(s) URL. Flags may come before or after SRC. On failure pqscan
// prints one line "pqscan: …" to stderr and exits with status 1 (2 for usage errors).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/wazerohost"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], terminalOr(os.Stdout), terminalOr(os.Stderr)) // output.go
	stop()
	os.Exit(code)
}

// defaultEngine is the engine used without --engine: the engine linked into the binary, which
// a person at a terminal wants (measured: all columns of the 224 MB, 4M-row events file in
// 1.9 s natively, 54.5 s in wazero). --engine wasm runs the WebAssembly module browsers run,
// sandboxed in wazero (memory cap, no filesystem or network in the guest).
var defaultEngine = "native"

// engines maps --engine names to engines. A *wazerohost.Host is itself a pqscan.Engine; one is
// created per process and compiles the module once (cached on disk).
var engines = map[string]func() (pqscan.Engine, error){
	"native": func() (pqscan.Engine, error) { return pqscan.Native{}, nil },
	"wasm": func() (pqscan.Engine, error) {
		h, err := wasmHost()
		if err != nil {
			return nil, err
		}
		return h, nil
	},
}

var wasmHost = sync.OnceValues(func() (*wazerohost.Host, error) {
	return wazerohost.New(context.Background(), wazerohost.Config{})
})

const usage = `usage:
  pqscan cat SRC... [--columns a,b.c] [--limit N] [--offset N] [--where EXPR]
                 [--format jsonl|csv|table|arrow|parquet|geojson|geojsonl] [-o FILE] [--quiet]
                 [--engine native|wasm] [--explain] [--verbose] [--threads N] [--stats]
                 [--batch-rows N] [--memory-cap N] [--tail-size N] [--round-trip-bytes N] [--max-gap N]
                 [--dictionary-arrays] [--no-prune] [--disable level,...] [--plan-only]
                 [--delta-version N | --delta-as-of TIME | --snapshot-id N | --as-of TIME]
  pqscan count SRC... [--where EXPR] [--engine native|wasm] [--explain] [--verbose]
                 [--delta-version N | --delta-as-of TIME | --snapshot-id N | --as-of TIME] [--by-position] [--union-schema]
                                  SELECT count(*): from the footer and statistics where they decide
  pqscan minmax SRC... COL [--where EXPR] [--format jsonl|csv|table] [--engine native|wasm] [--explain]
                 [--delta-version N | --delta-as-of TIME | --snapshot-id N | --as-of TIME] [--by-position] [--union-schema]
                                  SELECT min(COL), max(COL): from exact statistics where they suffice
  pqscan schema SRC... [--delta-version N | --delta-as-of TIME | --snapshot-id N | --as-of TIME]
  pqscan inspect SRC              per row group and column: what the file offers for skipping, and advice
  pqscan inspect SRC...           per file of a dataset: data vs footer+index bytes, and whether to compact
  pqscan inspect TABLE [--format text|json] [--snapshot-id N | --as-of TIME]
                                  an Iceberg table's snapshots and the files of the one read
  pqscan explain SRC --where EXPR [--where EXPR ...] [--columns a,b] [--compare OTHER]
                                  bytes, requests and round trips each predicate costs (before/after with --compare)
  pqscan optimize IN... OUT [--sort-by a,b] [--bloom col[:ndv[:fpp]]|auto] [--row-group-size N|NMB]
                         [--page-size N | --page-rows N] [--codec zstd|snappy|gzip|brotli|lz4raw|none] [--level N]
SRC is a path or an http(s) URL. cat, count, minmax and schema also read several SRCs as one table, in
the order given: a list, a local glob (*, **, ?, [...]) or a local folder written with a
trailing / (every *.parquet below it; Hive key=value directories become columns), or a
Delta table (a local folder with a _delta_log/, or an http(s) URL, written with a trailing /:
its latest snapshot, --delta-version N, or --delta-as-of TIME), or an Iceberg table (a folder
with a metadata/, or a *.metadata.json file: its current snapshot, --snapshot-id N, or --as-of
TIME; --as-of applies to a Delta table too; --path-map PREFIX=BASE,… or PQSCAN_ICEBERG_PATHS
reads the files its metadata names under PREFIX from BASE, a local folder or an http(s) URL).
`

// errUsage marks command-line mistakes (exit status 2).
var errUsage = errors.New("usage")

// run is the whole CLI with its I/O injected, so tests call it in-process.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := dispatch(ctx, args, stdout, stderr)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, usage)
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "pqscan: %s\n%s", strings.TrimPrefix(err.Error(), "usage: "), usage)
		return 2
	}
	fmt.Fprintf(stderr, "pqscan: %s\n", oneLine(strings.TrimPrefix(err.Error(), "pqscan: ")))
	return 1
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

type catFlags struct {
	columns, where, format, engine string
	explain, verbose               bool
	// output is -o FILE (empty: stdout); quiet turns the progress line off.
	output string
	quiet  bool
	// delta is --delta-version and --delta-as-of: the snapshot of a Delta table source.
	delta deltaFlags
	// byPosition and unionSchema are --by-position and --union-schema (datasets).
	byPosition, unionSchema bool
	// so holds the engine options set by flags (every option of pqscan.ScanOptions has one:
	// Test_everyEngineOptionHasAFlag); columns and where are parsed into it by cat.
	so    pqscan.ScanOptions
	scope scopeFlags
	// threads is --threads (pqscan.Options.Threads); stats is --stats.
	threads int
	stats   bool
}

// engineFlags registers a flag for each engine option a scan takes (pqscan.ScanOptions, the
// engine's one definition), named as its JSON field in kebab case. Columns and Where have their
// own string flags; Explain is --plan-only (--explain prints the report); the host fields are
// set by the driver.
func engineFlags(fs *flag.FlagSet, so *pqscan.ScanOptions) {
	fs.Int64Var(&so.Limit, "limit", 0, "maximum rows (0 = all)")
	fs.Int64Var(&so.Offset, "offset", 0, "rows to skip")
	fs.IntVar(&so.BatchRows, "batch-rows", 0, "rows per batch (0 = engine default, 65536)")
	fs.Int64Var(&so.MemoryCap, "memory-cap", 0, "bytes the engine may allocate for one page, dictionary or batch (0 = 256 MiB)")
	fs.Int64Var(&so.TailSize, "tail-size", 0, "size of the first tail read (0 = 64 KiB)")
	fs.BoolVar(&so.DictionaryArrays, "dictionary-arrays", false, "emit dictionary-encoded strings as Arrow dictionary arrays")
	fs.Int64Var(&so.RoundTripBytes, "round-trip-bytes", 0, "cost of one round trip in bytes, for the cost rules (0 = 256 KiB)")
	fs.Int64Var(&so.MaxGap, "max-gap", 0, "merge ranges separated by at most this many bytes (0 = 8 KiB)")
	fs.BoolVar(&so.NoPrune, "no-prune", false, "disable every skipping level except limit/offset")
	fs.IntVar(&so.LateMaterializationThreshold, "late-materialization-threshold", 0, "inside a page, skip decoding runs of at least this many filtered-out rows (0 = 20, negative = decode whole pages)")
	fs.Func("disable", "levels to switch off, comma-separated: statistics,dictionary,bloom,pageIndex,lateMaterialization", func(v string) error {
		so.Disable = append(so.Disable, splitList(v)...)
		return nil
	})
	fs.StringVar(&so.RowIndex, "row-index", "", "add an int64 column of this name with each row's position in the file")
	fs.StringVar(&so.OrderBy, "order-by", "", `sort the rows: "col [ASC|DESC] [NULLS FIRST|LAST][, col2 ...]"; with --limit a top-k that skips pages that cannot make the top`)
	fs.BoolVar(&so.Count, "count", false, "print the count of matching rows instead of the rows (pqscan count)")
	fs.StringVar(&so.MinMax, "min-max", "", "print min and max of this column over the matching rows instead of the rows (pqscan minmax)")
	fs.BoolVar(&so.Explain, "plan-only", false, "stop after planning: fetch no data, print what a scan would read (with --explain)")
	fs.BoolVar(&so.NoVerifyCRC, "no-verify-crc", false, "read pages without checking their CRCs (a CRC of 0 is never checked: writers leave it as a placeholder)")
	fs.BoolVar(&so.VariantJSON, "variant-json", false, "return VARIANT columns as JSON text (utf8, arrow.json) instead of the arrow.parquet.variant struct; text formats print variants as JSON either way")
}

// flagNames maps the engine options whose flag is not their JSON name in kebab case.
var flagNames = map[string]string{"explain": "plan-only", "variantJSON": "variant-json"}

func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: missing command", errUsage)
	}
	cmd, args := args[0], args[1:]
	if cmd == "-h" || cmd == "--help" || cmd == "help" {
		return flag.ErrHelp
	}
	if sub := subcommands[cmd]; sub != nil { // optimize.go
		return sub(ctx, args, stdout, stderr)
	}
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var cf catFlags
	engineName := defaultEngine
	fs.StringVar(&engineName, "engine", defaultEngine, "native or wasm")
	fs.BoolVar(&cf.verbose, "verbose", false, "log requests and the scan report to stderr")
	cf.delta.register(fs)
	fs.BoolVar(&cf.byPosition, "by-position", false, "match a dataset's file columns to the table's by position, not by name")
	fs.BoolVar(&cf.unionSchema, "union-schema", false, "a dataset's table has the union of its files' columns (default: the first file's)")
	cf.scope.register(fs)
	switch cmd {
	case "cat":
		fs.StringVar(&cf.columns, "columns", "", "comma-separated columns (dotted paths for nested fields)")
		fs.StringVar(&cf.where, "where", "", "SQL WHERE filter")
		fs.StringVar(&cf.format, "format", "jsonl", "jsonl, csv, table, arrow, parquet, geojson (a FeatureCollection) or geojsonl (a Feature per line)")
		fs.StringVar(&cf.output, "o", "", "write the result to FILE (complete or not at all) instead of stdout")
		fs.BoolVar(&cf.quiet, "quiet", false, "no progress line on a terminal's stderr")
		engineFlags(fs, &cf.so)
		fs.BoolVar(&cf.explain, "explain", false, "print the scan report to stderr")
		fs.IntVar(&cf.threads, "threads", 0, "sessions one scan decodes on at once (0 = the number of cores, 1 = one session)")
		fs.BoolVar(&cf.stats, "stats", false, "print one line to stderr: rows, bytes, requests, and the units and threads the scan ran on")
	case "inspect":
		fs.StringVar(&cf.format, "format", "text", "text or json (an Iceberg table's snapshots and files)")
	case "schema":
	default:
		return fmt.Errorf("%w: unknown command %q", errUsage, cmd)
	}
	pos, err := parseInterleaved(fs, args)
	if err == nil {
		err = cf.scope.resolve()
	}
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return fmt.Errorf("%w: %s needs a SRC", errUsage, cmd)
	}
	// The process's collector: a soft memory limit from the memory cap, so a scan's short-lived
	// buffers do not leave the heap at twice what it holds.
	defer pqscan.PaceGC(cf.so.MemoryCap)()
	if cmd == "cat" {
		if !slices.Contains(formats, cf.format) { // output.go
			return fmt.Errorf("%w: unknown format %q (want one of %s)", errUsage, cf.format, strings.Join(formats, ", "))
		}
		if cf.format == "parquet" && (cf.output == "" || cf.output == "-") && isTerminal(stdout) {
			return fmt.Errorf("%w: --format parquet writes a binary file: give -o FILE or redirect stdout", errUsage)
		}
	}
	if isDataset(pos) && cmd == "inspect" {
		engine, err := engineByName("native") // inspect prints Thrift footers (below)
		if err != nil {
			return err
		}
		o := pqscan.Options{Engine: engine, TailSize: cf.so.TailSize}
		cf.delta.apply(&o)
		if done, err := inspectIceberg(ctx, stdout, pos, cf.scope.apply(o), cf.format); done {
			return err
		}
		return inspectDataset(ctx, stdout, pos, cf.scope.apply(pqscan.Options{Engine: engine, TailSize: cf.so.TailSize}))
	}
	if isDataset(pos) {
		if cmd != "cat" && cmd != "schema" {
			return fmt.Errorf("%w: %s reads one file; several files, globs and folders work with cat, count, minmax and schema", errUsage, cmd)
		}
		engine, err := engineByName(engineName) // optimize.go
		if err != nil {
			return err
		}
		o := pqscan.Options{Engine: engine, MemoryCap: cf.so.MemoryCap, TailSize: cf.so.TailSize, Threads: cf.threads,
			SchemaByPosition: cf.byPosition, UnionSchema: cf.unionSchema}
		cf.delta.apply(&o)
		// cat needs no schema before its scan: the open reads no footer, and the scan's
		// first file the partition predicate keeps gives the table's columns, so a query of
		// one partition fetches no footer of another. schema reads the first file's.
		o.DeferSchema = cmd == "cat"
		ds, err := pqscan.OpenDataset(ctx, pos, cf.scope.apply(o))
		if err != nil {
			return err
		}
		defer ds.Close()
		if cmd == "schema" {
			return printSchema(stdout, ds.Schema())
		}
		return cat(ctx, ds, cf, stdout, stderr)
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: %s needs exactly one SRC, got %d", errUsage, cmd, len(pos))
	}
	if cmd == "inspect" {
		// inspect prints the Thrift footer itself, which only the native engine hands over
		// (the module's Metadata step carries a summary); it reads no data, so speed and
		// sandboxing do not matter.
		engineName = "native"
	}
	engine, err := engineByName(engineName) // optimize.go
	if err != nil {
		return err
	}
	f, err := pqscan.Open(ctx, pos[0], cf.scope.apply(pqscan.Options{Engine: engine, MemoryCap: cf.so.MemoryCap, TailSize: cf.so.TailSize, Threads: cf.threads}))
	if err != nil {
		return err
	}
	defer f.Close()
	switch cmd {
	case "schema":
		return printSchema(stdout, f.Schema())
	case "inspect":
		return inspect(ctx, stdout, f)
	}
	err = cat(ctx, f, cf, stdout, stderr)
	if cf.verbose {
		st := f.Source().Stats()
		fmt.Fprintf(stderr, "pqscan: %d requests, %d bytes, %d round trips, %d retries\n", st.Requests, st.Bytes, st.RoundTrips, st.Retries)
	}
	return err
}

// parseInterleaved parses flags that may come before or after the positional arguments, as in
// "pqscan cat data.parquet --limit 3". A lone "--" ends flag parsing.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, fmt.Errorf("%w: %v", errUsage, err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > 0 && len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// isDataset says whether the SRC arguments name several files read as one table: more than
// one, a glob, a folder (a trailing '/'), or an Iceberg table's metadata file.
func isDataset(pos []string) bool {
	if len(pos) > 1 {
		return true
	}
	s := pos[0]
	return strings.HasSuffix(s, "/") || strings.ContainsAny(s, "*?[") || strings.HasSuffix(s, ".metadata.json") ||
		strings.HasSuffix(s, ".metadata.json.gz")
}

// scanner is a file or a dataset.
type scanner interface {
	Scan(ctx context.Context, o pqscan.ScanOptions) (*pqscan.Reader, error)
}

func cat(ctx context.Context, f scanner, cf catFlags, stdout, stderr io.Writer) error {
	so := cf.so
	so.Where = cf.where
	if so.Limit < 0 || so.Offset < 0 {
		return fmt.Errorf("%w: --limit and --offset must not be negative", errUsage)
	}
	for _, c := range strings.Split(cf.columns, ",") {
		if c = strings.TrimSpace(c); c != "" {
			so.Columns = append(so.Columns, c)
		}
	}
	r, err := f.Scan(ctx, so)
	if err != nil {
		return err
	}
	defer r.Close()
	line, stop := progressLine(stderr, cf.quiet) // output.go; nil: no line
	defer stop()
	if line != nil {
		r.OnProgress(show(line))
	}
	out := stdout
	var of *outFile
	if cf.output != "" && cf.output != "-" {
		if of, err = createOutput(cf.output); err != nil {
			return err
		}
		defer of.abort()
		out = of
	}
	if of == nil && isTerminal(stdout) {
		out = line.Wrap(stdout) // rows on the terminal showing the line erase it first
	}
	w, err := newWriter(cf.format, out, r.Schema())
	if err != nil {
		return err
	}
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		err = w.Write(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	if of != nil {
		if err := of.commit(); err != nil {
			return err
		}
	}
	stop()
	if cf.verbose {
		// The engine's log first, one line each ("reading 3 / 200 row groups", "row group 7:
		// skipped by statistics"), then the whole report.
		for _, line := range r.Report().Log {
			fmt.Fprintf(stderr, "pqscan: %s\n", line)
		}
	}
	if cf.stats {
		rep := r.Report()
		units, threads := max(rep.Units, 1), max(rep.Threads, 1)
		fmt.Fprintf(stderr, "pqscan: %d rows, %d bytes requested in %d requests, %d units on %d threads\n",
			rep.RowsReturned, rep.BytesRequested, rep.Requests, units, threads)
	}
	if cf.explain || cf.verbose {
		b, err := json.MarshalIndent(r.Report(), "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "%s\n", b)
	}
	return nil
}

// printSchema prints one line per field, nested fields indented under their parent.
func printSchema(w io.Writer, s *arrow.Schema) error {
	for _, f := range s.Fields() {
		printField(w, f, "")
	}
	return nil
}

func printField(w io.Writer, f arrow.Field, indent string) {
	null := ""
	if !f.Nullable {
		null = " not null"
	}
	typ := f.Type.String()
	var children []arrow.Field
	switch t := f.Type.(type) {
	case *arrow.StructType:
		typ, children = "struct", t.Fields()
	case *arrow.ListType:
		typ, children = "list", []arrow.Field{t.ElemField()}
	case *arrow.MapType:
		typ, children = "map", []arrow.Field{t.KeyField(), t.ItemField()}
	}
	if ext, ok := f.Metadata.GetValue("ARROW:extension:name"); ok {
		typ += " (" + ext + ")"
	}
	fmt.Fprintf(w, "%s%s: %s%s\n", indent, f.Name, typ, null)
	for _, c := range children {
		printField(w, c, indent+"  ")
	}
}
