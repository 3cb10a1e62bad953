package rowfmt

import (
	"bufio"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
)

// tableWriter prints an aligned text table. Widths come from the first block of rows (so the
// output streams instead of holding the whole result); later cells wider than their column
// are truncated to it.
type tableWriter struct {
	w      *bufio.Writer
	schema *arrow.Schema
	opts   Options
	widths []int // nil until the first block is flushed
	rows   [][]string
}

func (t *tableWriter) Write(rec arrow.RecordBatch) error {
	fields := t.schema.Fields()
	if int(rec.NumCols()) != len(fields) {
		return fmt.Errorf("rowfmt: record has %d columns, the schema %d", rec.NumCols(), len(fields))
	}
	for r := 0; r < int(rec.NumRows()); r++ {
		row := make([]string, len(fields))
		for k, f := range fields {
			s, null := Text(f, rec.Column(k), r)
			if null {
				s = "null"
			}
			row[k] = t.cell(s)
		}
		t.rows = append(t.rows, row)
		if len(t.rows) >= t.opts.BlockRows {
			if err := t.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// cell makes s printable on one line and truncates it to MaxCellWidth characters.
func (t *tableWriter) cell(s string) string {
	if strings.ContainsAny(s, "\n\r\t") {
		s = strings.NewReplacer("\n", `\n`, "\r", `\r`, "\t", `\t`).Replace(s)
	}
	return truncate(s, t.opts.MaxCellWidth)
}

// truncate cuts s to at most n characters, the last being "…" when something was cut.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	k := 0
	for i := range s {
		if k == n-1 {
			return s[:i] + "…"
		}
		k++
	}
	return s
}

func (t *tableWriter) flush() error {
	if t.widths == nil {
		t.widths = make([]int, t.schema.NumFields())
		header := make([]string, len(t.widths))
		for k, f := range t.schema.Fields() {
			header[k] = t.cell(f.Name)
			t.widths[k] = max(1, utf8.RuneCountInString(header[k]))
		}
		for _, row := range t.rows {
			for k, c := range row {
				t.widths[k] = max(t.widths[k], utf8.RuneCountInString(c))
			}
		}
		t.line(header)
		rule := make([]string, len(t.widths))
		for k, w := range t.widths {
			rule[k] = strings.Repeat("-", w)
		}
		t.line(rule)
	}
	for _, row := range t.rows {
		t.line(row)
	}
	t.rows = t.rows[:0]
	return t.w.Flush()
}

// line writes cells padded to the column widths, two spaces apart, without trailing blanks.
func (t *tableWriter) line(cells []string) {
	var b strings.Builder
	for k, c := range cells {
		c = truncate(c, t.widths[k])
		if k > 0 {
			b.WriteString("  ")
		}
		b.WriteString(c)
		if k < len(cells)-1 {
			b.WriteString(strings.Repeat(" ", t.widths[k]-utf8.RuneCountInString(c)))
		}
	}
	t.w.WriteString(strings.TrimRight(b.String(), " "))
	t.w.WriteByte('\n')
}

func (t *tableWriter) Close() error { return t.flush() }
