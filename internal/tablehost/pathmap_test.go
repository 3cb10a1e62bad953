package tablehost

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/pqscan/pqscan/internal/dataset/iceberg"
	"github.com/pqscan/pqscan/internal/openscope"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/scope"
)

// Test_pathMapScope: a path map's base is in the open's scope as an allowed prefix is; a
// mapped path the metadata makes climb out of its base ("../") is not, locally and over HTTP.
func Test_pathMapScope(t *testing.T) {
	table, base := t.TempDir(), t.TempDir()
	m := resolvePathMap(map[string]string{"s3://b/t/data": base, "s3://o": "https://cdn.example.com/o/"})
	sc, err := openscope.New([]string{table + "/"}, openscope.Options{PathMap: m})
	require.NoError(t, err)
	for p, ok := range map[string]bool{
		"s3://b/t/data/f.parquet":         true,
		"s3://b/t/data/../../f.parquet":   false,
		"s3://b/t/data/x/../../f.parquet": false,
		"s3://o/x/f.parquet":              true,
		"s3://o/../secret":                false,
	} {
		at, abs, err := iceberg.LocateMapped("s3://b/t", p, m)
		require.NoError(t, err, p)
		require.True(t, abs, p)
		_, err = sc.Locate(table+"/", at, abs, "the test's entry")
		if ok {
			require.NoError(t, err, p)
		} else {
			require.True(t, errors.Is(err, scope.ErrOutside), p, err)
		}
	}
	// A relative local base resolves against the working directory.
	m = resolvePathMap(map[string]string{"s3://b/t": "./moved"})
	abs, _ := filepath.Abs("moved")
	require.Equal(t, "file://"+filepath.ToSlash(abs), m["s3://b/t"])
}
