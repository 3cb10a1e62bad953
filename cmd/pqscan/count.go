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

// runCount is "pqscan count SRC [--where EXPR]": SELECT count(*), answered from metadata where
// the statistics decide (pqscan.File.Count). It prints the number alone; --explain adds the
// scan report on stderr (rowsCountedFromMetadata, bytes, round trips), --verbose the HTTP
// counters as well.
func runCount(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("count", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		so               pqscan.ScanOptions
		engineName       = defaultEngine
		explain, verbose bool
	)
	fs.StringVar(&so.Where, "where", "", "SQL WHERE filter")
	fs.StringVar(&engineName, "engine", defaultEngine, "native or wasm")
	fs.BoolVar(&explain, "explain", false, "print the scan report to stderr")
	fs.BoolVar(&verbose, "verbose", false, "print the report and the HTTP counters to stderr")
	engineFlags(fs, &so)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: count needs exactly one SRC, got %d", errUsage, len(pos))
	}
	if so.Limit < 0 || so.Offset < 0 {
		return fmt.Errorf("%w: --limit and --offset must not be negative", errUsage)
	}
	engine, err := engineByName(engineName)
	if err != nil {
		return err
	}
	f, err := pqscan.Open(ctx, pos[0], pqscan.Options{Engine: engine, MemoryCap: so.MemoryCap, TailSize: so.TailSize})
	if err != nil {
		return err
	}
	defer f.Close()
	n, rep, err := f.Count(ctx, so)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, n)
	if explain || verbose {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "%s\n", b)
	}
	if verbose {
		st := f.Source().Stats()
		fmt.Fprintf(stderr, "pqscan: %d requests, %d bytes, %d round trips, %d retries\n", st.Requests, st.Bytes, st.RoundTrips, st.Retries)
	}
	return nil
}
