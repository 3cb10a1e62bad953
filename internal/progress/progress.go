// Package progress draws the one-line progress display of a long scan on a terminal: bytes
// fetched of bytes planned, rows, elapsed time, redrawn in place.
//
// It does no I/O of its own and reads no clock: the caller hands it the writer (the
// terminal's stderr), the clock and each new state, so tests replay a scan with a fake clock
// and read exactly what a terminal would have received. Whether a progress line is wanted at
// all (stderr is a terminal, no --quiet) is the caller's decision; a nil *Line draws nothing.
package progress

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Stats is the state a line shows.
type Stats struct {
	// BytesFetched of BytesPlanned: the bytes received so far of the bytes the rounds planned
	// so far ask for (a scan plans one round at a time, so BytesPlanned grows as it goes).
	BytesFetched, BytesPlanned int64
	// Rows is the rows produced so far (returned, or written).
	Rows int64
}

// Defaults for Line.Delay and Line.Every.
const (
	// DefaultDelay: a scan that ends within a second leaves the terminal untouched; a line
	// that flashes and disappears would be noise.
	DefaultDelay = time.Second
	// DefaultEvery bounds redraws (ten a second) however often updates come: a scan of many
	// small ranges would otherwise spend its time writing to the terminal.
	DefaultEvery = 100 * time.Millisecond
)

// Line is one progress line on a terminal. Its methods may be called from several goroutines
// (a ticker calling Tick while a scan calls Update).
type Line struct {
	mu           sync.Mutex
	w            io.Writer
	now          func() time.Time
	Delay, Every time.Duration

	start, drawn time.Time
	shown        bool // a line is on the terminal (Clear erases it)
	midLine      bool // output through Wrap left the cursor inside a line: do not draw
	last         Stats
}

// New starts a line on w: elapsed time counts from now().
func New(w io.Writer, now func() time.Time) *Line {
	return &Line{w: w, now: now, Delay: DefaultDelay, Every: DefaultEvery, start: now()}
}

// Update records s and redraws the line when the work has run longer than Delay and the last
// draw is at least Every old.
func (l *Line) Update(s Stats) { l.redraw(&s) }

// Tick redraws the last state, so that the elapsed time moves (and the line appears after
// Delay) while no update comes: a scan learns of bytes only when a whole range has arrived,
// and one range can take seconds.
func (l *Line) Tick() { l.redraw(nil) }

// redraw records s (unless nil) and draws the line if it is due.
func (l *Line) redraw(s *Stats) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if s != nil {
		l.last = *s
	}
	t := l.now()
	if l.midLine || t.Sub(l.start) < l.Delay || (l.shown && t.Sub(l.drawn) < l.Every) {
		return
	}
	// \r returns to the line's start; \x1b[K (erase to end of line) removes what a longer
	// previous line left.
	fmt.Fprintf(l.w, "\r%s\x1b[K", Format(l.last, t.Sub(l.start)))
	l.shown, l.drawn = true, t
}

// Clear erases the line if one is shown, so that other output (rows on the same terminal, a
// final message) starts on a clean line; the next Update draws it again.
func (l *Line) Clear() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.clear()
}

func (l *Line) clear() {
	if !l.shown {
		return
	}
	fmt.Fprint(l.w, "\r\x1b[K")
	l.shown = false
}

// Wrap returns a writer for other output to the same terminal (rows printed on it): each
// write erases the line first, and while the output has left the cursor inside a line (a
// buffered writer flushes at any byte, not at line ends) the line is not drawn, since drawing
// it would overwrite that partial line. With a nil Line it returns w.
func (l *Line) Wrap(w io.Writer) io.Writer {
	if l == nil {
		return w
	}
	return &wrapped{l: l, w: w}
}

type wrapped struct {
	l *Line
	w io.Writer
}

func (o *wrapped) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	o.l.mu.Lock()
	defer o.l.mu.Unlock()
	o.l.clear()
	n, err := o.w.Write(p)
	if n > 0 {
		o.l.midLine = p[n-1] != '\n'
	}
	return n, err
}

// Format is the text of a line: "pqscan: 1.5 MiB of 3.0 MiB planned fetched, 1,200 rows, 2.5 s".
func Format(s Stats, elapsed time.Duration) string {
	return fmt.Sprintf("pqscan: %s of %s planned fetched, %s rows, %.1f s",
		Bytes(s.BytesFetched), Bytes(s.BytesPlanned), Count(s.Rows), elapsed.Seconds())
}

// Bytes prints a byte count with a binary unit and one decimal.
func Bytes(n int64) string {
	const unit = 1 << 10
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n)/unit, 0
	for v >= unit && i < 4 {
		v, i = v/unit, i+1
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGTP"[i])
}

// Count prints n with thousands separators (1,234,567).
func Count(n int64) string {
	s := fmt.Sprint(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3+1)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}
