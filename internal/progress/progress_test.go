package progress

import (
	"bytes"
	"testing"
	"time"

	"github.com/pqscan/pqscan/internal/require"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time            { return c.t }
func (c *fakeClock) tick(d time.Duration)      { c.t = c.t.Add(d) }
func stats(fetched, planned, rows int64) Stats { return Stats{fetched, planned, rows} }

// Test_Line replays a scan on a fake clock and checks exactly what the terminal received.
func Test_Line(t *testing.T) {
	type event struct {
		after time.Duration // clock advance before the event
		s     *Stats        // Update(s); nil means Clear()
	}
	upd := func(after time.Duration, s Stats) event { return event{after, &s} }
	clear := func() event { return event{} }
	tests := []struct {
		name   string
		events []event
		want   string
	}{
		{name: "a scan under a second draws nothing",
			events: []event{upd(0, stats(10, 100, 0)), upd(999*time.Millisecond, stats(100, 100, 5)), clear()},
			want:   ""},
		{name: "shown after a second, then redrawn at most every 100ms",
			events: []event{
				upd(500*time.Millisecond, stats(1, 2048, 0)),
				upd(500*time.Millisecond, stats(1024, 2048, 0)),   // 1.0 s: drawn
				upd(50*time.Millisecond, stats(1500, 2048, 0)),    // 1.05 s: too soon
				upd(50*time.Millisecond, stats(2048, 4096, 1234)), // 1.1 s: drawn
				clear(),
			},
			want: "\rpqscan: 1.0 KiB of 2.0 KiB planned fetched, 0 rows, 1.0 s\x1b[K" +
				"\rpqscan: 2.0 KiB of 4.0 KiB planned fetched, 1,234 rows, 1.1 s\x1b[K" +
				"\r\x1b[K"},
		{name: "clear before other output, the next update draws at once",
			events: []event{
				upd(2*time.Second, stats(5, 10, 1)),
				clear(),
				upd(time.Millisecond, stats(6, 10, 2)),
			},
			want: "\rpqscan: 5 B of 10 B planned fetched, 1 rows, 2.0 s\x1b[K" + "\r\x1b[K" +
				"\rpqscan: 6 B of 10 B planned fetched, 2 rows, 2.0 s\x1b[K"},
		{name: "clear with nothing shown writes nothing",
			events: []event{clear(), upd(10*time.Millisecond, stats(1, 1, 1)), clear()},
			want:   ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			c := &fakeClock{t: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
			l := New(&buf, c.now)
			for _, e := range tc.events {
				c.tick(e.after)
				if e.s == nil {
					l.Clear()
				} else {
					l.Update(*e.s)
				}
			}
			require.Equal(t, tc.want, buf.String())
		})
	}
}

// Test_Wrap: output through Wrap erases a shown line first, and the line is not drawn while
// that output has left the cursor inside a line.
func Test_Wrap(t *testing.T) {
	var buf bytes.Buffer
	c := &fakeClock{t: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	l := New(&buf, c.now)
	out := l.Wrap(&buf)
	c.tick(2 * time.Second)
	l.Update(stats(1, 1, 1))
	out.Write([]byte("row 1\nrow")) // a buffered writer's flush stops mid-row
	c.tick(time.Second)
	l.Update(stats(2, 2, 2)) // not drawn: it would overwrite "row"
	out.Write([]byte(" 2\n"))
	c.tick(time.Second)
	l.Update(stats(3, 3, 3))
	out.Write(nil)
	require.Equal(t, "\rpqscan: 1 B of 1 B planned fetched, 1 rows, 2.0 s\x1b[K"+"\r\x1b[K"+"row 1\nrow 2\n"+
		"\rpqscan: 3 B of 3 B planned fetched, 3 rows, 4.0 s\x1b[K", buf.String())
	var nilLine *Line
	require.True(t, nilLine.Wrap(&buf) == &buf)
}

// Test_Tick: Tick redraws the last state with the time moved on (and draws the first line
// once Delay has passed, though no update came since).
func Test_Tick(t *testing.T) {
	var buf bytes.Buffer
	c := &fakeClock{t: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	l := New(&buf, c.now)
	l.Update(stats(0, 4096, 0))
	c.tick(500 * time.Millisecond)
	l.Tick()
	c.tick(time.Second)
	l.Tick()
	c.tick(50 * time.Millisecond)
	l.Tick() // too soon
	c.tick(time.Second)
	l.Tick()
	require.Equal(t, "\rpqscan: 0 B of 4.0 KiB planned fetched, 0 rows, 1.5 s\x1b[K"+
		"\rpqscan: 0 B of 4.0 KiB planned fetched, 0 rows, 2.5 s\x1b[K", buf.String())
}

// Test_nilLine: a nil line (progress off) is safe to use.
func Test_nilLine(t *testing.T) {
	var l *Line
	l.Update(stats(1, 2, 3))
	l.Tick()
	l.Clear()
}

func Test_Bytes(t *testing.T) {
	tests := []struct {
		name string
		n    int64
		want string
	}{
		{"zero", 0, "0 B"}, {"under a KiB", 1023, "1023 B"}, {"KiB", 1536, "1.5 KiB"},
		{"MiB", 3 << 20, "3.0 MiB"}, {"GiB", 5<<30 + 1<<29, "5.5 GiB"}, {"PiB", 2 << 50, "2.0 PiB"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { require.Equal(t, tc.want, Bytes(tc.n)) })
	}
}

func Test_Count(t *testing.T) {
	tests := []struct {
		name string
		n    int64
		want string
	}{
		{"zero", 0, "0"}, {"three digits", 999, "999"}, {"thousand", 1000, "1,000"},
		{"million", 1234567, "1,234,567"}, {"negative", -1234, "-1,234"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { require.Equal(t, tc.want, Count(tc.n)) })
	}
}
