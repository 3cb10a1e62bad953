package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/rowfmt"
)

func init() {
	subcommands["count"] = runCount
	subcommands["minmax"] = runMinMax
}

// aggFlags are the flags count and minmax share.
type aggFlags struct {
	so               pqscan.ScanOptions
	engineName       string
	explain, verbose bool
	// a dataset's options
	byPosition, unionSchema bool
	delta                   deltaFlags
	scope                   scopeFlags
}

func (a *aggFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&a.so.Where, "where", "", "SQL WHERE filter")
	fs.StringVar(&a.engineName, "engine", defaultEngine, "native or wasm")
	fs.BoolVar(&a.explain, "explain", false, "print the scan report to stderr")
	fs.BoolVar(&a.verbose, "verbose", false, "print the report and the HTTP counters to stderr")
	engineFlags(fs, &a.so)
	a.delta.register(fs)
	fs.BoolVar(&a.byPosition, "by-position", false, "match a dataset's file columns to the table's by position, not by name")
	fs.BoolVar(&a.unionSchema, "union-schema", false, "a dataset's table has the union of its files' columns (default: the first file's)")
	a.scope.register(fs)
}

// aggregate is what count and minmax ask of a file or a dataset.
type aggregate interface {
	Count(ctx context.Context, o pqscan.ScanOptions) (int64, pqscan.Report, error)
	MinMax(ctx context.Context, col string, o pqscan.ScanOptions) (arrow.RecordBatch, pqscan.Report, error)
	Close() error
}

// open opens srcs with the engine the flags name: one file, or (several SRCs, a glob, a
// folder, a Delta table) a dataset. src is the file's source for --verbose, nil for a dataset.
func (a *aggFlags) open(ctx context.Context, srcs []string) (agg aggregate, src pqscan.Source, err error) {
	engine, err := engineByName(a.engineName)
	if err == nil {
		err = a.scope.resolve()
	}
	if err != nil {
		return nil, nil, err
	}
	o := a.scope.apply(pqscan.Options{Engine: engine, MemoryCap: a.so.MemoryCap, TailSize: a.so.TailSize, SchemaByPosition: a.byPosition, UnionSchema: a.unionSchema})
	if !isDataset(srcs) {
		f, err := pqscan.Open(ctx, srcs[0], o)
		if err != nil {
			return nil, nil, err
		}
		return f, f.Source(), nil
	}
	a.delta.apply(&o)
	ds, err := pqscan.OpenDataset(ctx, srcs, o)
	if err != nil {
		return nil, nil, err
	}
	return ds, nil, nil
}

// report prints the scan report (--explain) and the HTTP counters (--verbose) to stderr.
// src is nil for a dataset (its files have their own counters; the report sums them).
func (a *aggFlags) report(src pqscan.Source, rep pqscan.Report, stderr io.Writer) error {
	if a.explain || a.verbose {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "%s\n", b)
	}
	if a.verbose && src != nil {
		st := src.Stats()
		fmt.Fprintf(stderr, "pqscan: %d requests, %d bytes, %d round trips, %d retries\n", st.Requests, st.Bytes, st.RoundTrips, st.Retries)
	}
	return nil
}

// runCount is "pqscan count SRC... [--where EXPR]": SELECT count(*), answered from metadata
// where the statistics decide (pqscan.File.Count), over a dataset (several SRCs, a glob, a
// folder, a Delta table) the sum of its files' counts (pqscan.Dataset.Count). It prints the number alone; --explain adds the
// scan report on stderr (rowsCountedFromMetadata, bytes, round trips), --verbose the HTTP
// counters as well.
func runCount(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("count", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	a := aggFlags{engineName: defaultEngine}
	a.register(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return fmt.Errorf("%w: count needs a SRC", errUsage)
	}
	if a.so.Limit < 0 || a.so.Offset < 0 {
		return fmt.Errorf("%w: --limit and --offset must not be negative", errUsage)
	}
	agg, src, err := a.open(ctx, pos)
	if err != nil {
		return err
	}
	defer agg.Close()
	n, rep, err := agg.Count(ctx, a.so)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, n)
	return a.report(src, rep, stderr)
}

// runMinMax is "pqscan minmax SRC... COL [--where EXPR] [--format jsonl|csv|table]": SELECT
// min(COL), max(COL), as one row with columns min and max (pqscan.File.MinMax). Row groups
// whose statistics are exact and that wholly match are answered from the footer;
// --explain's report says how many (rowGroupsFromMetadata). Over a dataset (several SRCs, a
// glob, a folder, a Delta table) the files' answers are folded (pqscan.Dataset.MinMax).
func runMinMax(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("minmax", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	a := aggFlags{engineName: defaultEngine}
	a.register(fs)
	format := "jsonl"
	fs.StringVar(&format, "format", "jsonl", "jsonl, csv or table")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return fmt.Errorf("%w: minmax needs SRC... and COL, got %d arguments", errUsage, len(pos))
	}
	if a.so.Limit != 0 || a.so.Offset != 0 {
		return fmt.Errorf("%w: minmax takes no --limit or --offset", errUsage)
	}
	if !slices.Contains([]string{"jsonl", "csv", "table"}, format) {
		return fmt.Errorf("%w: unknown format %q (want jsonl, csv or table)", errUsage, format)
	}
	agg, src, err := a.open(ctx, pos[:len(pos)-1])
	if err != nil {
		return err
	}
	defer agg.Close()
	rec, rep, err := agg.MinMax(ctx, pos[len(pos)-1], a.so)
	if err != nil {
		return err
	}
	defer rec.Release()
	w, err := rowfmt.New(format, stdout, rec.Schema(), rowfmt.Options{})
	if err != nil {
		return err
	}
	if err := w.Write(rec); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return a.report(src, rep, stderr)
}
