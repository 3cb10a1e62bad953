package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/faultserver"
	"github.com/pqscan/pqscan/internal/require"
)

// A table of one-row files: file fN holds the row id=N.
var idSchema = arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)

// idHeader is version 0's protocol and metaData, with the table configuration cfg.
func idHeader(cfg map[string]any) []any {
	return []any{
		raw(`{"protocol":{"minReaderVersion":1,"minWriterVersion":2}}`),
		map[string]any{"metaData": map[string]any{"id": "ids", "format": map[string]any{"provider": "parquet", "options": map[string]any{}},
			"schemaString":     `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}}]}`,
			"partitionColumns": []string{}, "configuration": cfg, "createdTime": 0}},
	}
}

func (g *genDelta) idFile(id int64) map[string]any {
	return g.data(fmt.Sprintf("f%d.parquet", id), idSchema, []map[string]any{{"id": id}}, map[string]any{}, nil)
}

func idRemove(id int64) raw {
	return raw(fmt.Sprintf(`{"remove":{"path":"f%d.parquet","deletionTimestamp":0,"dataChange":true}}`, id))
}

func idRows(ids ...int64) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = fmt.Sprintf("id=%d", id)
	}
	return out
}

// Test_deltaLogCompaction: a log compaction file (x.y.compacted.json) stands for the commits
// it covers: the table reads the same rows with it as without it, and over HTTP the commits
// inside its range are not fetched (the server's request log). A compaction the listing
// contradicts (a range beyond the latest version) is ignored, even with wrong contents.
func Test_deltaLogCompaction(t *testing.T) {
	g := newGenDelta(t)
	g.commit(0, append(idHeader(map[string]any{}), g.idFile(0))...)
	g.commit(1, g.idFile(1))
	g.commit(2, idRemove(0), g.idFile(2))
	g.commit(3, g.idFile(3), idRemove(1))
	g.commit(4, g.idFile(4))
	// Commits 1..3 reconciled: f0 removed (added before the range), f2 and f3 live.
	g.log("00000000000000000001.00000000000000000003.compacted.json", idRemove(0), idRemove(1), g.idFile(2), g.idFile(3))
	// Beyond the latest version: not trusted, whatever it says.
	g.log("00000000000000000002.00000000000000000009.compacted.json", g.idFile(9), idRemove(4))
	want := idRows(2, 3, 4)

	srv := faultserver.New(faultserver.Options{Dir: g.root})
	base, err := srv.Start("127.0.0.1:0")
	require.NoError(t, err)
	defer srv.Close()
	got, _, err := deltaRows(t, base, nil, pqscan.ScanOptions{})
	require.NoError(t, err)
	sameRows(t, "http, compacted", got, want)
	st := srv.Stats()
	for _, p := range []string{"/_delta_log/00000000000000000000.json", "/_delta_log/00000000000000000001.00000000000000000003.compacted.json", "/_delta_log/00000000000000000004.json"} {
		require.Equal(t, int64(1), st[p].Requests, p)
	}
	for _, p := range []string{"/_delta_log/00000000000000000001.json", "/_delta_log/00000000000000000002.json", "/_delta_log/00000000000000000003.json",
		"/_delta_log/00000000000000000002.00000000000000000009.compacted.json"} {
		require.Equal(t, int64(0), st[p].Requests, p)
	}
	for _, e := range []pqscan.Engine{pqscan.Native{}, wasmHost(t)} {
		got, _ := readDelta(t, g.root, e, "")
		sameRows(t, fmt.Sprintf("local, compacted (%T)", e), got, want)
	}
	// Version 2 ends inside the range: the commits are read.
	v2 := int64(2)
	got, _, err = deltaRows(t, g.root, &v2, pqscan.ScanOptions{})
	require.NoError(t, err)
	sameRows(t, "version 2", got, idRows(1, 2))

	require.NoError(t, os.Remove(filepath.Join(g.root, "_delta_log", "00000000000000000001.00000000000000000003.compacted.json")))
	got, _ = readDelta(t, g.root, pqscan.Native{}, "")
	sameRows(t, "local, commits", got, want)
}
