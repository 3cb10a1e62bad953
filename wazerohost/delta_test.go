package wazerohost_test

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
	"github.com/pqscan/pqscan/wazerohost"
)

// Test_deltaOverWasm: a Delta table read inside the module gives the native engine's rows
// and file counts: the host's snapshot (table schema, per-file partition values and
// statistics) reaches the module's table session in its JSON options; with column mapping the
// schema's physical names, by which the module finds each file's columns.
func Test_deltaOverWasm(t *testing.T) {
	ctx := context.Background()
	h, err := wazerohost.New(ctx, wazerohost.Config{})
	require.NoError(t, err)
	defer h.Close(ctx)
	dir := filepath.Join(testcorpus.Dir(t), "delta")
	read := func(e pqscan.Engine, table, where string) ([]string, pqscan.Report) {
		p := filepath.Join(dir, "dat", table, "delta")
		if strings.HasPrefix(table, "delta-rs/") {
			p = filepath.Join(dir, filepath.FromSlash(table))
		}
		ds, err := pqscan.OpenDataset(ctx, []string{p + "/"}, pqscan.Options{Engine: e})
		require.NoError(t, err)
		defer ds.Close()
		r, err := ds.Scan(ctx, pqscan.ScanOptions{Where: where})
		require.NoError(t, err)
		defer r.Close()
		var rows []string
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				sort.Strings(rows)
				return rows, r.Report()
			}
			require.NoError(t, err)
			for i := 0; i < int(rec.NumRows()); i++ {
				var vals []string
				for c := 0; c < int(rec.NumCols()); c++ {
					vals = append(vals, rec.ColumnName(c)+"="+rec.Column(c).ValueStr(i))
				}
				rows = append(rows, strings.Join(vals, "|"))
			}
			rec.Release()
		}
	}
	for _, c := range []struct{ table, where string }{
		{"basic_partitioned", ""}, {"basic_partitioned", "letter = 'a'"}, {"basic_partitioned", "number > 5"},
		{"multi_partitioned", ""}, {"with_schema_change", ""}, {"basic_append", "a_float < 0"},
		{"delta-rs/table_with_column_mapping", ""}, {"delta-rs/table_with_column_mapping", `"Super Name" > 'N'`},
		{"delta-rs/table_with_column_mapping", `"Company Very Short" = 'BME'`},
	} {
		nat, nrep := read(pqscan.Native{}, c.table, c.where)
		was, wrep := read(h, c.table, c.where)
		if strings.HasPrefix(c.table, "delta-rs/") {
			// Every row has its partition value and its name: none comes back null.
			require.True(t, len(nat) > 0 && !strings.Contains(strings.Join(nat, "\n"), "(null)"), nat)
		}
		require.Equal(t, nat, was, c.table, c.where)
		require.Equal(t, nrep.FilesAfterPartitions, wrep.FilesAfterPartitions, c.table, c.where)
		require.Equal(t, nrep.FilesAfterStats, wrep.FilesAfterStats, c.table, c.where)
	}
	// Deletion vectors: fetched by the module's Delta session, applied by its table session.
	for _, c := range []struct{ table, where string }{
		{"delta-rs/table-with-dv-small", ""}, {"delta-rs/table-with-dv-small", "value > 4"}, {"delta-rs/table_with_deletion_logs", ""},
	} {
		nat, _ := read(pqscan.Native{}, c.table, c.where)
		was, _ := read(h, c.table, c.where)
		require.Equal(t, nat, was, c.table, c.where)
	}
	small, _ := read(h, "delta-rs/table-with-dv-small", "")
	require.Equal(t, []string{"value=1", "value=2", "value=3", "value=4", "value=5", "value=6", "value=7", "value=8"}, small)
}
