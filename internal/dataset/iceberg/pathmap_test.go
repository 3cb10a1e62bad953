package iceberg_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/pqscan/pqscan/internal/dataset/iceberg"
	"github.com/pqscan/pqscan/internal/require"
)

// Test_ParsePathMap: the cases of testdata/pathmap-cases.json, which the JS bridge's parser
// (jsbridge/src/pathmap.js) is held to as well.
func Test_ParsePathMap(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "pathmap-cases.json"))
	require.NoError(t, err)
	var cases []struct {
		Spec string
		Want map[string]string
		Err  string // "": no error
	}
	require.NoError(t, json.Unmarshal(b, &cases))
	require.True(t, len(cases) > 10, len(cases))
	for _, c := range cases {
		got, err := iceberg.ParsePathMap(c.Spec)
		if c.Err != "" {
			require.True(t, errors.Is(err, iceberg.ErrPathMap), c.Spec, err)
			require.ErrorContains(t, err, c.Err, c.Spec)
			continue
		}
		require.NoError(t, err, c.Spec)
		require.Equal(t, c.Want, got, c.Spec)
	}
}

func Test_LocateMapped(t *testing.T) {
	const loc = "s3://b/t"
	m := map[string]string{
		"s3://b/t/data/moved":  "file:///mnt/moved/",
		"s3://other/bucket":    "https://cdn.example.com/o",
		"s3://other/bucket/x":  "https://x.example.com",
		"s3://b":               "file:///mnt/b",
		"s3://b/t":             "file:///never", // the location itself: the explicit mapping wins the tie
		"hdfs://nn:8020/w/one": "file:///mnt/one.parquet",
	}
	for _, c := range []struct {
		p, want string
		abs     bool
		err     error
	}{
		{p: "s3://b/t/data/moved/a b%.parquet", want: "file:///mnt/moved/a%20b%25.parquet", abs: true},
		{p: "s3://b/t/data/moved/k=v/f.parquet", want: "file:///mnt/moved/k%3Dv/f.parquet", abs: true},
		{p: "s3://b/t/data/movedx/f.parquet", want: "file:///never/data/movedx/f.parquet", abs: true}, // not at a segment boundary
		{p: "s3://other/bucket/y/f.parquet", want: "https://cdn.example.com/o/y/f.parquet", abs: true},
		{p: "s3://other/bucket/x/f.parquet", want: "https://x.example.com/f.parquet", abs: true}, // longest prefix
		{p: "s3://other/bucketx/f.parquet", err: iceberg.ErrOutsideTable},
		{p: "s3://b/u/f.parquet", want: "file:///mnt/b/u/f.parquet", abs: true},
		{p: "hdfs://nn:8020/w/one", want: "file:///mnt/one.parquet", abs: true}, // a prefix naming one file
		{p: "s3a://b/t/data/f.parquet", want: "data/f.parquet"},                 // the location by its path part
		{p: "s3://elsewhere/f.parquet", err: iceberg.ErrOutsideTable},
		{p: "https://h/f.parquet", want: "https://h/f.parquet", abs: true},
	} {
		got, abs, err := iceberg.LocateMapped(loc, c.p, m)
		if c.err != nil {
			require.ErrorIs(t, err, c.err, c.p)
			continue
		}
		require.NoError(t, err, c.p)
		require.Equal(t, c.want, got, c.p)
		require.Equal(t, c.abs, abs, c.p)
	}
	// A shorter mapping than the location leaves the table's files in the table folder.
	got, abs, err := iceberg.LocateMapped(loc, "s3://b/t/data/f.parquet", map[string]string{"s3://b": "file:///mnt/b"})
	require.NoError(t, err)
	require.Equal(t, "data/f.parquet", got)
	require.True(t, !abs)
	// No mapping: Locate.
	got, abs, err = iceberg.LocateMapped(loc, "s3://b/t/data/f.parquet", nil)
	require.NoError(t, err)
	require.Equal(t, "data/f.parquet", got)
	require.True(t, !abs)
}

// FuzzParsePathMap: any spec parses or fails with ErrPathMap, never panics; a parsed map is
// well formed, and mapping any path under one of its prefixes gives a path under its base.
func FuzzParsePathMap(f *testing.F) {
	for _, s := range []string{"s3://b/t=/m", "a=b", "s3://b/d=1=/x,gs://c=http://h/", "=", ",", "/x=./y,/x/=../z"} {
		f.Add(s, "f.parquet")
	}
	f.Fuzz(func(t *testing.T, spec, rest string) {
		m, err := iceberg.ParsePathMap(spec)
		if err != nil {
			if !errors.Is(err, iceberg.ErrPathMap) {
				t.Fatalf("%q: %v", spec, err)
			}
			return
		}
		if err := iceberg.CheckPathMap(m); err != nil {
			t.Fatalf("%q parsed to %v: %v", spec, m, err)
		}
		for prefix := range m {
			at, _, ok := iceberg.MapPath(m, prefix+"/"+rest)
			if !ok || at == "" {
				t.Fatalf("%q: %q/%q maps to nothing", spec, prefix, rest)
			}
		}
	})
}
