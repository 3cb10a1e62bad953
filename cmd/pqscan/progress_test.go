package main

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// drawn matches one drawing of the progress line.
var drawn = regexp.MustCompile(`\rpqscan: (\d[^\r]*?) of (\d[^\r]*?) planned fetched, ([\d,]+) rows, (\d+\.\d) s\x1b\[K`)

// Test_progressLine: with stderr a terminal (a tty around a buffer, on a clock that moves
// a second at each reading, so every update is drawn) cat and optimize draw the progress line, end on the whole scan
// (everything planned fetched, every row) and erase it; --quiet and a stderr that is not a
// terminal get no line. Rows printed to the same terminal never land on a drawn line.
func Test_progressLine(t *testing.T) {
	root := testcorpus.Dir(t)
	src := root + "/parquet-testing/data/alltypes_tiny_pages.parquet" // data beyond the 64 KiB tail
	dir := t.TempDir()
	tests := []struct {
		name       string
		args       []string
		sameTTY    bool   // stdout is the same terminal
		plain      bool   // stderr is not a terminal
		lines      bool   // the progress line is drawn
		rows       string // the last drawing's rows, when set (then fetched = planned there too)
		finalWrote bool   // optimize's last message follows the erased line
	}{
		{name: "cat to a file", args: []string{"cat", src, "--batch-rows", "500", "--format", "parquet", "-o", filepath.Join(dir, "a.parquet")},
			lines: true, rows: "7,300"},
		{name: "cat with a filter, rows on the same terminal", args: []string{"cat", src, "--batch-rows", "100", "--where", "id < 3000", "--columns", "id,string_col"},
			sameTTY: true, lines: true}, // the last update is not drawn: rows left the cursor mid-line
		{name: "dataset", args: []string{"cat", root + "/delta/dat/basic_partitioned/delta/", "--format", "csv"},
			lines: true, rows: "6"},
		{name: "quiet", args: []string{"cat", src, "--quiet", "--format", "csv"}},
		{name: "stderr not a terminal", args: []string{"cat", src, "--format", "csv"}, plain: true},
		{name: "optimize", args: []string{"optimize", src, filepath.Join(dir, "o.parquet"), "--sort-by", "id"},
			lines: true, rows: "7,300", finalWrote: true},
		{name: "optimize quiet", args: []string{"optimize", src, filepath.Join(dir, "q.parquet"), "--quiet"}, finalWrote: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var errb, outb bytes.Buffer
			stderr := fakeTTY(&errb)
			var stdout any = &outb
			if tc.sameTTY {
				stdout = tty{Writer: &errb, now: stderr.now}
			}
			var code int
			switch {
			case tc.plain:
				code = runWith(t, &outb, &errb, tc.args...)
			case tc.sameTTY:
				code = runWith(t, stdout.(tty), stderr, tc.args...)
			default:
				code = runWith(t, &outb, stderr, tc.args...)
			}
			require.Equal(t, 0, code, errb.String())
			text := errb.String()
			m := drawn.FindAllStringSubmatch(text, -1)
			if !tc.lines {
				require.Equal(t, 0, len(m), text)
				require.True(t, !strings.Contains(text, "\r"), text)
				return
			}
			require.True(t, len(m) >= 1, text)
			if last := m[len(m)-1]; tc.rows != "" {
				require.Equal(t, last[1], last[2], "fetched equals planned at the end:", last[0])
				require.Equal(t, tc.rows, last[3], last[0])
			}
			// Every drawing is erased before anything else is written: each "\r"-separated piece
			// that is a drawing ends with it, and the output ends with an erase (or, for
			// optimize, an erase and then its summary).
			pieces := strings.Split(text, "\r")
			for _, p := range pieces[1:] {
				if strings.HasPrefix(p, "pqscan: ") && strings.Contains(p, "planned fetched") {
					require.True(t, strings.HasSuffix(p, "\x1b[K"), "a drawing followed by other output:", p)
				}
			}
			// The output ends on an erase, then rows (same terminal) or optimize's summary.
			end := pieces[len(pieces)-1]
			require.True(t, strings.HasPrefix(end, "\x1b[K") && !strings.Contains(end, "planned fetched"), end)
			if tc.finalWrote {
				require.True(t, strings.HasPrefix(end, "\x1b[Kpqscan: wrote "), end)
			}
			if tc.sameTTY {
				// Without the drawings and erases the terminal got exactly the rows.
				code, want, _ := runCLI(t, tc.args...)
				require.Equal(t, 0, code)
				require.Equal(t, 3000, strings.Count(want, "\n"))
				require.Equal(t, want, strings.ReplaceAll(drawn.ReplaceAllString(text, ""), "\r\x1b[K", ""))
			}
		})
	}
}
