// Command pqscan reads Parquet files, local or remote over HTTP range requests.
//
//	pqscan cat SRC [--columns a,b.c] [--limit N] [--offset N] [--where EXPR]
//	               [--format jsonl|csv|table|arrow] [--engine wasm|native] [--explain] [--verbose]
//	pqscan schema SRC
//	pqscan inspect SRC
//	pqscan explain SRC --where EXPR [--where EXPR ...] [--columns a,b] [--compare OTHER]
//	pqscan optimize IN OUT [flags]
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
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/rowfmt"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// defaultEngine is the engine used without --engine: the WebAssembly module in wazero, the
// same code browsers run. --engine native links the engine directly (faster; the reference).
var defaultEngine = "wasm"

// engines maps --engine names to engines.
var engines = map[string]func() (pqscan.Engine, error){
	"native": func() (pqscan.Engine, error) { return pqscan.Native{}, nil },
	"wasm":   newWasmEngine,
}

const usage = `usage:
  pqscan cat SRC [--columns a,b.c] [--limit N] [--offset N] [--where EXPR]
                 [--format jsonl|csv|table|arrow] [--engine wasm|native] [--explain] [--verbose]
  pqscan schema SRC
  pqscan inspect SRC              per row group and column: what the file offers for skipping, and advice
  pqscan explain SRC --where EXPR [--where EXPR ...] [--columns a,b] [--compare OTHER]
                                  bytes, requests and round trips each predicate costs (before/after with --compare)
  pqscan optimize IN OUT [--sort-by a,b] [--bloom col[:ndv[:fpp]]|auto] [--row-group-size N|NMB]
                         [--page-size N | --page-rows N] [--codec zstd|snappy|gzip|brotli|lz4raw|none] [--level N]
SRC is a path or an http(s) URL.
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
	limit, offset                  int64
	batchRows                      int
	explain, verbose               bool
}

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
	fs.StringVar(&engineName, "engine", defaultEngine, "wasm or native")
	fs.BoolVar(&cf.verbose, "verbose", false, "log requests and the scan report to stderr")
	switch cmd {
	case "cat":
		fs.StringVar(&cf.columns, "columns", "", "comma-separated columns (dotted paths for nested fields)")
		fs.StringVar(&cf.where, "where", "", "SQL WHERE filter")
		fs.StringVar(&cf.format, "format", "jsonl", "jsonl, csv, table or arrow")
		fs.Int64Var(&cf.limit, "limit", 0, "maximum rows (0 = all)")
		fs.Int64Var(&cf.offset, "offset", 0, "rows to skip")
		fs.IntVar(&cf.batchRows, "batch-rows", 0, "rows per batch (0 = engine default)")
		fs.BoolVar(&cf.explain, "explain", false, "print the scan report to stderr")
	case "schema", "inspect":
	default:
		return fmt.Errorf("%w: unknown command %q", errUsage, cmd)
	}
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: %s needs exactly one SRC, got %d", errUsage, cmd, len(pos))
	}
	engine, err := engineByName(engineName) // optimize.go
	if err != nil {
		return err
	}
	f, err := pqscan.Open(ctx, pos[0], pqscan.Options{Engine: engine})
	if err != nil {
		return err
	}
	defer f.Close()
	switch cmd {
	case "schema":
		return printSchema(stdout, f.Schema())
	case "inspect":
		return inspect(stdout, f)
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

func cat(ctx context.Context, f *pqscan.File, cf catFlags, stdout, stderr io.Writer) error {
	so := pqscan.ScanOptions{Where: cf.where, Limit: cf.limit, Offset: cf.offset, BatchRows: cf.batchRows}
	if cf.limit < 0 || cf.offset < 0 {
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
	var w rowfmt.Writer
	if cf.format != "" {
		if w, err = rowfmt.New(cf.format, stdout, r.Schema(), rowfmt.Options{}); err != nil {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
	}
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if w != nil {
			err = w.Write(rec)
		}
		rec.Release()
		if err != nil {
			return err
		}
	}
	if w != nil {
		if err := w.Close(); err != nil {
			return err
		}
	}
	if cf.verbose {
		// The engine's log first, one line each ("reading 3 / 200 row groups", "row group 7:
		// skipped by statistics"), then the whole report.
		for _, line := range r.Report().Log {
			fmt.Fprintf(stderr, "pqscan: %s\n", line)
		}
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
