package variant_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_duckdbDifferential has DuckDB (duckdb/variant.mjs) write random VARIANT values to
// Parquet in many shredding layouts and render them with v::JSON, then reads each file with
// pqscan, unshreds and renders it, and compares the text byte for byte. Two documented
// differences are normalised in DuckDB's text, both places where it is not JSON: bare NaN,
// Infinity and -Infinity (quoted here), and decimals read from Parquet printed without the
// zero before the point (".5", "-.050"; DuckDB prints "0.5" for the same value built in SQL).
func Test_duckdbDifferential(t *testing.T) {
	node := testcorpus.DuckNode(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, seed := range []string{"1", "2", "3"} {
		cmd := exec.CommandContext(ctx, node, testcorpus.DuckScript("variant.mjs"), dir, seed)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("variant.mjs: %v\n%s", err, stderr.String())
		}
		sc := bufio.NewScanner(bytes.NewReader(out))
		sc.Buffer(nil, 1<<28)
		files := 0
		for sc.Scan() {
			var res struct {
				File  string
				Error string
				Rows  []*string
			}
			if err := json.Unmarshal(sc.Bytes(), &res); err != nil {
				t.Fatal(err)
			}
			files++
			t.Run(seed+"/"+res.File, func(t *testing.T) {
				if res.Error != "" {
					t.Skipf("DuckDB cannot write this layout: %s", res.Error)
				}
				data, err := os.ReadFile(filepath.Join(dir, res.File))
				if err != nil {
					t.Fatal(err)
				}
				got := variantJSON(t, readRecords(t, data), "v")
				if len(got) != len(res.Rows) {
					t.Fatalf("%d rows, DuckDB has %d", len(got), len(res.Rows))
				}
				bad := 0
				for i, w := range res.Rows {
					want := ""
					if w != nil {
						want = normalizeDuck(*w)
					}
					if got[i] != want && bad < 5 {
						bad++
						t.Errorf("row %d:\n got %.300s\nwant %.300s", i, got[i], want)
					}
				}
			})
		}
		if files < 20 {
			t.Errorf("seed %s: %d files", seed, files)
		}
	}
}

// normalizeDuck rewrites, outside strings, DuckDB's bare NaN/Infinity as JSON strings and
// ".5"/"-.5" as "0.5"/"-0.5".
func normalizeDuck(s string) string {
	var b strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if in {
			b.WriteByte(c)
			if c == '\\' && i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			} else if c == '"' {
				in = false
			}
			continue
		}
		switch {
		case c == '"':
			in = true
		case strings.HasPrefix(s[i:], "NaN"), strings.HasPrefix(s[i:], "Infinity"), strings.HasPrefix(s[i:], "-Infinity"):
			n := strings.IndexAny(s[i:], ",]}")
			if n < 0 {
				n = len(s) - i
			}
			b.WriteString(`"` + s[i:i+n] + `"`)
			i += n - 1
			continue
		case c == '.' && (i == 0 || strings.IndexByte("-,:[", s[i-1]) >= 0):
			b.WriteByte('0')
		}
		b.WriteByte(c)
	}
	return b.String()
}
