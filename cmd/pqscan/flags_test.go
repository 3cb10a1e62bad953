package main

import (
	"flag"
	"io"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
)

// hostFields are the engine options the driver sets itself; no flag.
var hostFields = map[string]bool{"fileSize": true, "metadata": true, "fileKey": true,
	"rowsFrom": true, "rowsTo": true, "planUnits": true}

// Test_everyEngineOptionHasAFlag: every engine option (pqscan.ScanOptions, defined once in the
// engine) is reachable from the CLI, by its JSON name in kebab case (or flagNames).
func Test_everyEngineOptionHasAFlag(t *testing.T) {
	fs := flag.NewFlagSet("cat", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var cf catFlags
	engineFlags(fs, &cf.so)
	fs.StringVar(&cf.columns, "columns", "", "")
	fs.StringVar(&cf.where, "where", "", "")
	typ := reflect.TypeOf(pqscan.ScanOptions{})
	n := 0
	for i := 0; i < typ.NumField(); i++ {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if hostFields[name] {
			continue
		}
		n++
		want := flagNames[name]
		if want == "" {
			want = kebab(name)
		}
		require.True(t, fs.Lookup(want) != nil, "engine option", name, "has no flag --"+want)
	}
	require.True(t, n >= 12, "engine options found:", n)
}

func kebab(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsUpper(r) {
			b.WriteByte('-')
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
