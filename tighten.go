package pqscan

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pqscan/pqscan/internal/scan"
)

// ErrTighten: Reader.Tighten refused a runtime filter (a conjunct that does not parse or bind,
// a count, minMax or sorted scan past its start, or a dataset scan, which takes none yet). The
// error also wraps the engine's own error where there is one. The scan goes on as before.
var ErrTighten = errors.New("pqscan: runtime filter refused")

// Tighten adds conjuncts (WHERE syntax; several are ANDed) to the running scan's predicate:
// a join's build side as an IN set or a range learned while scanning, as Polars and Impala
// push runtime filters into a probe scan. They apply from the next round of requests: row
// groups and pages their statistics, dictionaries, bloom filters and page index exclude are
// never requested, and every row not yet read is filtered exactly. Rows Next already returned
// stay returned, and so do the rows of the round in flight (their bytes were requested, and
// their filter may have run). A limit keeps counting; without a WHERE the limit was already
// applied by position, so a tighten only removes rows from that slice. After the last batch it
// does nothing.
//
// It is not safe to call concurrently with Next (call it between two Next calls).
func (r *Reader) Tighten(where ...string) error {
	if r.done {
		return nil
	}
	if r.err != nil {
		return r.err
	}
	var parts []string
	for _, w := range where {
		if strings.TrimSpace(w) != "" {
			parts = append(parts, "("+w+")")
		}
	}
	if len(parts) == 0 {
		return fmt.Errorf("%w: no conjunct", ErrTighten)
	}
	t, ok := r.d.Sess.(scan.Tightener)
	if !ok {
		return fmt.Errorf("%w: %s: this scan takes no runtime filter (a dataset scan)", ErrTighten, r.name)
	}
	tighten := t.Tighten
	if r.split != nil {
		tighten = func(w string) error { return r.tightenSplit(t, w) }
	}
	if err := tighten(strings.Join(parts, " AND ")); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrTighten, r.name, err)
	}
	return nil
}
