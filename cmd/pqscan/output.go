package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/pqout"
	"github.com/pqscan/pqscan/internal/progress"
	"github.com/pqscan/pqscan/internal/rowfmt"
)

// tty is a writer that is a terminal, with the clock progress lines measure elapsed time by.
// main wraps stdout and stderr in it when they are terminals; tests pass one around a buffer
// with a fake clock. Being a terminal decides two things: a progress line on stderr, and that
// binary output (--format parquet) to stdout is refused.
type tty struct {
	io.Writer
	now func() time.Time
	// tick is the interval at which a ticker redraws the progress line between updates
	// (0: no ticker; tests drive the line by updates only).
	tick time.Duration
}

// terminalOr returns f as a tty when it is a terminal (a character device other than the null
// device, which is one too but where `> /dev/null` means "discard"), else f itself.
func terminalOr(f *os.File) io.Writer {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return f
	}
	if null, err := os.Stat(os.DevNull); err == nil && os.SameFile(fi, null) {
		return f
	}
	return tty{Writer: f, now: time.Now, tick: progress.DefaultEvery}
}

func isTerminal(w io.Writer) bool { _, ok := w.(tty); return ok }

// progressLine returns the progress line for a command writing its progress to stderr: nil
// (no line) unless stderr is a terminal and --quiet is off. stop ends its ticker and erases
// it; call it before printing to stderr (and again, harmlessly, on the way out).
func progressLine(stderr io.Writer, quiet bool) (line *progress.Line, stop func()) {
	t, ok := stderr.(tty)
	if !ok || quiet {
		return nil, func() {}
	}
	line = progress.New(t, t.now)
	done := make(chan struct{})
	var wg sync.WaitGroup
	if t.tick > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tk := time.NewTicker(t.tick)
			defer tk.Stop()
			for {
				select {
				case <-done:
					return
				case <-tk.C:
					line.Tick()
				}
			}
		}()
	}
	return line, sync.OnceFunc(func() {
		close(done)
		wg.Wait()
		line.Clear()
	})
}

// show feeds a scan's progress to line.
func show(line *progress.Line) func(pqscan.Progress) {
	return func(p pqscan.Progress) {
		line.Update(progress.Stats{BytesFetched: p.BytesFetched, BytesPlanned: p.BytesPlanned, Rows: p.Rows})
	}
}

// formats are the values of cat --format: the row formats, and parquet.
var formats = append(append([]string(nil), rowfmt.Formats...), "parquet")

// newWriter renders batches of schema to w in format.
func newWriter(format string, w io.Writer, schema *arrow.Schema) (rowfmt.Writer, error) {
	if format == "parquet" {
		return pqout.New(w, schema, pqout.Options{})
	}
	return rowfmt.New(format, w, schema, rowfmt.Options{})
}

// outFile is the destination of -o (cat) or OUT (optimize): a temporary file next to path,
// so that a failed or interrupted command leaves no partial file, and a complete one appears
// under its name at once (rename is atomic within a directory).
type outFile struct {
	path string
	f    *os.File
	*bufio.Writer
}

func createOutput(path string) (*outFile, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, err
	}
	return &outFile{path: path, f: f, Writer: bufio.NewWriterSize(f, 1<<20)}, nil
}

// commit flushes the file and renames it onto its path; on failure it removes it.
func (o *outFile) commit() error {
	err := o.Flush()
	if err == nil {
		// CreateTemp makes the file private (0600); the output is an ordinary file.
		err = o.f.Chmod(0o644)
	}
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(o.f.Name(), o.path)
	}
	if err != nil {
		os.Remove(o.f.Name())
		return fmt.Errorf("%s: %w", o.path, err)
	}
	return nil
}

// abort removes the temporary file (after a successful commit it does nothing).
func (o *outFile) abort() {
	o.f.Close()
	os.Remove(o.f.Name())
}
