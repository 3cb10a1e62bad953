package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_catGroupKeyMaps: maps whose keys are structs and lists print in every format, with
// both engines: in the text formats a map is an object whose keys are the keys' JSON text, and
// the Arrow stream carries the maps with their struct and list keys.
func Test_catGroupKeyMaps(t *testing.T) {
	data, err := testcorpus.GroupKeyMaps()
	require.NoError(t, err)
	p := filepath.Join(t.TempDir(), "maps.parquet")
	require.NoError(t, os.WriteFile(p, data, 0o644))
	tests := []struct {
		name, want string
		args       []string
	}{
		{name: "jsonl", args: []string{"--columns", "id,m", "--limit", "3"}, want: `{"id":0,"m":{"{\"a\":0,\"b\":\"p\"}":"v"}}
{"id":1,"m":null}
{"id":2,"m":{}}
`},
		{name: "jsonl, several entries and nulls", args: []string{"--where", "id = 8"},
			want: `{"id":8,"m":{"{\"a\":80,\"b\":\"p\"}":"v","{\"a\":81,\"b\":null}":null,"{\"a\":82,\"b\":\"r\"}":"x"},` +
				`"l":{"[800]":0,"[800,null]":-8,"[800,null,802]":-16}}` + "\n"},
		{name: "csv", args: []string{"--format", "csv", "--where", "id < 3"}, want: `id,m,l
0,"{""{\""a\"":0,\""b\"":\""p\""}"":""v""}","{""[0]"":0}"
1,,
2,{},{}
`},
		{name: "table", args: []string{"--format", "table", "--columns", "id,l", "--where", "id < 3"}, want: `id  l
--  ---------
0   {"[0]":0}
1   null
2   {}
`},
	}
	for _, tc := range tests {
		for _, engine := range []string{"native", "wasm"} {
			t.Run(tc.name+" "+engine, func(t *testing.T) {
				code, stdout, stderr := runCLI(t, append([]string{"cat", p, "--engine", engine}, tc.args...)...)
				require.Equal(t, 0, code, stderr)
				require.Equal(t, tc.want, stdout)
			})
		}
	}
	t.Run("arrow", func(t *testing.T) {
		code, stdout, stderr := runCLI(t, "cat", p, "--format", "arrow")
		require.Equal(t, 0, code, stderr)
		r, err := ipc.NewReader(strings.NewReader(stdout))
		require.NoError(t, err)
		defer r.Release()
		m := r.Schema().Field(1).Type.(*arrow.MapType)
		require.Equal(t, arrow.STRUCT, m.KeyType().ID())
		require.Equal(t, arrow.LIST, r.Schema().Field(2).Type.(*arrow.MapType).KeyType().ID())
		rows := int64(0)
		for r.Next() {
			rows += r.RecordBatch().NumRows()
		}
		require.NoError(t, r.Err())
		require.Equal(t, int64(testcorpus.GroupKeyMapRows), rows)
	})
}
