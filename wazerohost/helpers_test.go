package wazerohost

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/tetratelabs/wazero"

	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/scan"
)

// testCache is shared by every Host of the test binary: the module is compiled once.
var testCache = wazero.NewCompilationCache()

func newHost(t testing.TB, cfg Config) *Host {
	t.Helper()
	if cfg.Cache == nil {
		cfg.Cache = testCache
	}
	h, err := New(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { h.Close(context.Background()) })
	return h
}

// result is everything a scan produced, for comparing engines.
type result struct {
	streams [][]byte
	report  scan.Report
	err     string
}

// comparable drops what legitimately differs between runs (wall-clock phase timings).
func (r result) comparable() result {
	r.report.Phases = nil
	return r
}

// runNative drives the engine linked into the test binary over an in-memory file, pushing
// exactly the requested ranges: the reference the wasm module must match byte for byte.
func runNative(t testing.TB, file []byte, opts scan.Options) result {
	t.Helper()
	opts.FileSize = int64(len(file))
	s, err := scan.New(opts)
	if err != nil {
		return result{err: err.Error()}
	}
	var res result
	sized := false
	for i := 0; ; i++ {
		if i > 1_000_000 {
			t.Fatal("native scan did not finish")
		}
		st := s.Next()
		switch st.Kind {
		case scan.NeedRanges:
			if st.Ranges[0].Off < 0 && !sized { // the protocol for a size-less start (an empty file)
				sized = true
				if err := s.SetFileSize(int64(len(file))); err != nil {
					res.err = err.Error()
					res.report = s.Report()
					return res
				}
			}
			for _, r := range st.Ranges {
				if err := s.Push(r.Off, file[r.Off:r.End()]); err != nil {
					res.err = err.Error()
					res.report = s.Report()
					return res
				}
			}
		case scan.Batch:
			res.streams = append(res.streams, bytes.Clone(st.IPC))
		case scan.Done:
			res.report = s.Report()
			return res
		case scan.Error:
			res.err = st.Err.Error()
			res.report = s.Report()
			return res
		}
	}
}

// runWasm scans the same in-memory file through the module with RunRaw.
func runWasm(t testing.TB, h *Host, file []byte, opts scan.Options) (result, error) {
	t.Helper()
	opts.FileSize = int64(len(file))
	var res result
	rep, err := h.RunRaw(context.Background(), httpclient.NewReaderAt(bytes.NewReader(file), int64(len(file))), opts,
		func(b []byte) error {
			res.streams = append(res.streams, bytes.Clone(b))
			return nil
		})
	res.report = rep
	if err != nil {
		res.err = engineMessage(err)
	}
	return res, err
}

// engineMessage strips the host's prefix from an engine error, leaving the engine's message.
func engineMessage(err error) string {
	if errors.Is(err, ErrScan) {
		return err.Error()[len(ErrScan.Error())+2:]
	}
	return err.Error()
}

// drain reads a Scan to the end and returns the rows and the error (nil at io.EOF).
func drain(ctx context.Context, s *Scan) (rows int64, err error) {
	for {
		rec, err := s.Next(ctx)
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return rows, err
		}
		rows += rec.NumRows()
		rec.Release()
	}
}
