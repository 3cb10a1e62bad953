package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/optimize"
)

const explainUsage = `usage: pqscan explain SRC --where EXPR [--where EXPR ...] [--columns a,b] [--compare OTHER]
  Runs each filter as a real, cold scan (footer included) and prints the bytes, requests and
  round trips it fetched; with --compare, the same workload on OTHER as before → after.
`

// runExplain is "pqscan explain": the cost of a workload of filters on one file or two.
func runExplain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("explain", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		wheres                    listFlag
		cols, compare, engineName string
		verbose                   bool
	)
	fs.Var(&wheres, "where", "SQL WHERE filter; repeatable, one query each")
	fs.StringVar(&cols, "columns", "", "comma-separated columns every query returns (default all)")
	fs.StringVar(&compare, "compare", "", "a second file to run the same workload on")
	fs.StringVar(&engineName, "engine", defaultEngine, "native or wasm")
	fs.BoolVar(&verbose, "verbose", false, "also print each scan report (JSON) to stderr")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		if err == flag.ErrHelp {
			fmt.Fprint(stdout, explainUsage)
			return nil
		}
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: explain needs exactly one SRC, got %d", errUsage, len(pos))
	}
	engine, err := engineByName(engineName)
	if err != nil {
		return err
	}
	var queries []optimize.Query
	for _, w := range wheres {
		queries = append(queries, optimize.Query{Where: w, Columns: splitList(cols)})
	}
	if len(queries) == 0 {
		queries = []optimize.Query{{Columns: splitList(cols)}}
	}
	opts := pqscan.Options{Engine: engine}
	before, err := optimize.Measure(ctx, pos[0], opts, queries)
	if err != nil {
		return err
	}
	var after []optimize.Cost
	if compare != "" {
		if after, err = optimize.Measure(ctx, compare, opts, queries); err != nil {
			return err
		}
	}
	if verbose {
		for _, c := range append(before, after...) {
			b, err := json.Marshal(c.Report)
			if err != nil {
				return err
			}
			fmt.Fprintf(stderr, "%s: %s\n", c.Query.Where, b)
		}
	}
	return optimize.WriteCosts(stdout, before, after)
}
