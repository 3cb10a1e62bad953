package wazerohost

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_groupKeyMapsMatchNative: maps with struct and list keys (the corpus has none) come out
// of the module as the native engine's IPC bytes, whole, projected, filtered and in small
// batches, and arrow-go reads them as maps with those keys.
func Test_groupKeyMapsMatchNative(t *testing.T) {
	h := newHost(t, Config{})
	file, err := testcorpus.GroupKeyMaps()
	require.NoError(t, err)
	tests := []struct {
		name    string
		opts    scan.Options
		keys    []arrow.Type // the key type of each map column, in order
		rows    int64
		entries int // map entries of the first map column
	}{
		{name: "whole", keys: []arrow.Type{arrow.STRUCT, arrow.LIST}, rows: 9, entries: 9},
		{name: "projected and filtered", opts: scan.Options{Columns: []string{"l"}, Where: "id >= 4"},
			keys: []arrow.Type{arrow.LIST}, rows: 5, entries: 7},
		{name: "small batches", opts: scan.Options{Columns: []string{"m"}, BatchRows: 2},
			keys: []arrow.Type{arrow.STRUCT}, rows: 9, entries: 9},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := runNative(t, file, tc.opts)
			require.Equal(t, "", want.err)
			got, err := runWasm(t, h, file, tc.opts)
			require.NoError(t, err)
			require.True(t, equalResults(t, tc.name, want.comparable(), got.comparable()))
			var rows int64
			entries := 0
			for _, s := range got.streams {
				r, err := ipc.NewReader(bytes.NewReader(s))
				require.NoError(t, err)
				var keys []arrow.Type
				for _, f := range r.Schema().Fields() {
					if m, ok := f.Type.(*arrow.MapType); ok {
						keys = append(keys, m.KeyType().ID())
					}
				}
				require.Equal(t, tc.keys, keys)
				for r.Next() {
					rec := r.RecordBatch()
					rows += rec.NumRows()
					for c, f := range r.Schema().Fields() {
						if f.Type.ID() == arrow.MAP {
							entries += rec.Column(c).Data().Children()[0].Len()
							break
						}
					}
				}
				require.NoError(t, r.Err())
				r.Release()
			}
			require.Equal(t, tc.rows, rows)
			require.Equal(t, tc.entries, entries)
		})
	}
}
