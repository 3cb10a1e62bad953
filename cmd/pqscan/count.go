package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/pqscan/pqscan"
)

func init() { subcommands["count"] = runCount }

// runCount is "pqscan count SRC... [--where EXPR]": SELECT count(*), answered from metadata
// where the statistics decide (pqscan.File.Count), over a dataset (several SRCs, a glob, a
// folder, a Delta table) the sum of its files' counts (pqscan.Dataset.Count). It prints the number alone; --explain adds the
// scan report on stderr (rowsCountedFromMetadata, bytes, round trips), --verbose the HTTP
// counters as well.
func runCount(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("count", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		so               pqscan.ScanOptions
		engineName       = defaultEngine
		explain, verbose bool
		byPosition       bool
		unionSchema      bool
		deltaVersion     int64
	)
	fs.StringVar(&so.Where, "where", "", "SQL WHERE filter")
	fs.StringVar(&engineName, "engine", defaultEngine, "native or wasm")
	fs.BoolVar(&explain, "explain", false, "print the scan report to stderr")
	fs.BoolVar(&verbose, "verbose", false, "print the report and the HTTP counters to stderr")
	fs.Int64Var(&deltaVersion, "delta-version", -1, "snapshot version of a Delta table folder (-1 = latest)")
	fs.BoolVar(&byPosition, "by-position", false, "match a dataset's file columns to the table's by position, not by name")
	fs.BoolVar(&unionSchema, "union-schema", false, "a dataset's table has the union of its files' columns (default: the first file's)")
	engineFlags(fs, &so)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return fmt.Errorf("%w: count needs a SRC", errUsage)
	}
	if so.Limit < 0 || so.Offset < 0 {
		return fmt.Errorf("%w: --limit and --offset must not be negative", errUsage)
	}
	engine, err := engineByName(engineName)
	if err != nil {
		return err
	}
	o := pqscan.Options{Engine: engine, MemoryCap: so.MemoryCap, TailSize: so.TailSize, SchemaByPosition: byPosition, UnionSchema: unionSchema}
	var (
		n   int64
		rep pqscan.Report
		src pqscan.Source // a single file's, for --verbose
	)
	if isDataset(pos) { // several SRCs, a glob or a folder: the table's count
		if deltaVersion >= 0 {
			o.DeltaVersion = &deltaVersion
		}
		ds, err := pqscan.OpenDataset(ctx, pos, o)
		if err != nil {
			return err
		}
		defer ds.Close()
		if n, rep, err = ds.Count(ctx, so); err != nil {
			return err
		}
	} else {
		f, err := pqscan.Open(ctx, pos[0], o)
		if err != nil {
			return err
		}
		defer f.Close()
		if n, rep, err = f.Count(ctx, so); err != nil {
			return err
		}
		src = f.Source()
	}
	fmt.Fprintln(stdout, n)
	if explain || verbose {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "%s\n", b)
	}
	if verbose && src != nil {
		st := src.Stats()
		fmt.Fprintf(stderr, "pqscan: %d requests, %d bytes, %d round trips, %d retries\n", st.Requests, st.Bytes, st.RoundTrips, st.Retries)
	}
	return nil
}
