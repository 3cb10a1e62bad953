package conformance

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/faultserver"
	"github.com/pqscan/pqscan/internal/require"
)

// writeAsOfTable writes commits 0..3 of the id table, commit v adding fv, with commit file
// modification times at (seconds after base); ict, when set, writes each commit's
// inCommitTimestamp (ms) and enables inCommitTimestamp.
func writeAsOfTable(t *testing.T, base time.Time, at []int, ict []int64) string {
	g := newGenDelta(t)
	cfg := map[string]any{}
	if ict != nil {
		cfg["delta.enableInCommitTimestamps"] = "true"
	}
	for v := range at {
		var acts []any
		if ict != nil {
			acts = append(acts, raw(fmt.Sprintf(`{"commitInfo":{"inCommitTimestamp":%d}}`, ict[v])))
		}
		if v == 0 {
			acts = append(acts, idHeader(cfg)...)
		}
		g.commit(int64(v), append(acts, g.idFile(int64(v)))...)
		p := filepath.Join(g.root, "_delta_log", fmt.Sprintf("%020d.json", v))
		mt := base.Add(time.Duration(at[v]) * time.Second)
		require.NoError(t, os.Chtimes(p, mt, mt))
	}
	return g.root
}

// Test_deltaAsOf: Options.DeltaAsOf reads the latest version committed at or before the
// time, by the commit files' modification times (locally, and over HTTP by the listing's
// LastModified), or by inCommitTimestamp where the table enables it (the files' times then
// do not count), natively and in the wasm module.
func Test_deltaAsOf(t *testing.T) {
	base := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	byFile := writeAsOfTable(t, base, []int{0, 10, 20, 30}, nil)
	// File times backwards; the inCommitTimestamps are base + 0, 100, 200, 300 s.
	ms := base.UnixMilli()
	byICT := writeAsOfTable(t, base, []int{300, 200, 100, 0}, []int64{ms, ms + 100e3, ms + 200e3, ms + 300e3})
	srv := faultserver.New(faultserver.Options{Dir: byFile})
	url, err := srv.Start("127.0.0.1:0")
	require.NoError(t, err)
	defer srv.Close()
	h := wasmHost(t)
	cases := []struct {
		name  string
		root  string
		after time.Duration
		want  []string
	}{
		{name: "file time, between", root: byFile, after: 15 * time.Second, want: idRows(0, 1)},
		{name: "file time, at a commit", root: byFile, after: 20 * time.Second, want: idRows(0, 1, 2)},
		{name: "file time, first", root: byFile, after: 0, want: idRows(0)},
		{name: "file time, after the latest", root: byFile, after: time.Hour, want: idRows(0, 1, 2, 3)},
		{name: "http listing", root: url, after: 25 * time.Second, want: idRows(0, 1, 2)},
		{name: "inCommitTimestamp", root: byICT, after: 150 * time.Second, want: idRows(0, 1)},
		{name: "inCommitTimestamp, first", root: byICT, after: 99 * time.Second, want: idRows(0)},
	}
	for _, c := range cases {
		for _, e := range []pqscan.Engine{pqscan.Native{}, h} {
			o := pqscan.Options{Engine: e, DeltaAsOf: base.Add(c.after)}
			got, _, err := deltaRowsWith(t, c.root, o, pqscan.ScanOptions{})
			require.NoError(t, err, c.name)
			sameRows(t, fmt.Sprintf("%s (%T)", c.name, e), got, c.want)
		}
	}
	for _, e := range []pqscan.Engine{pqscan.Native{}, h} {
		for _, root := range []string{byFile, byICT} {
			_, err := pqscan.OpenDataset(context.Background(), []string{root + "/"}, pqscan.Options{Engine: e, DeltaAsOf: base.Add(-time.Second)})
			require.ErrorContains(t, err, "no commit at or before 2024-05-01T11:59:59Z")
		}
	}
	v := int64(1)
	_, err = pqscan.OpenDataset(context.Background(), []string{byFile + "/"}, pqscan.Options{DeltaVersion: &v, DeltaAsOf: base})
	require.ErrorIs(t, err, pqscan.ErrSource)
}
