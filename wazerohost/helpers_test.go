package wazerohost

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/drive"

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

// runNative runs the engine linked into the test binary over an in-memory file through the
// same Go driver (internal/drive), so exactly the requested ranges are pushed: the reference
// the wasm module must match byte for byte.
func runNative(t testing.TB, file []byte, opts scan.Options) result {
	t.Helper()
	opts.FileSize = int64(len(file))
	s, err := scan.New(opts)
	if err != nil {
		return result{err: err.Error()}
	}
	var res result
	src := httpclient.NewReaderAt(bytes.NewReader(file), int64(len(file)))
	res.report, err = drive.Run(context.Background(), s, src, opts.FileSize > 0, func(b []byte) error {
		res.streams = append(res.streams, bytes.Clone(b))
		return nil
	})
	if err != nil {
		res.err = err.Error()
	}
	return res
}

// runRaw runs one session of the module over src through the Go driver (internal/drive),
// learning the size from src first when opts has none, and hands each IPC stream to onIPC.
func runRaw(ctx context.Context, h *Host, src httpclient.Source, opts scan.Options, onIPC func([]byte) error) (scan.Report, error) {
	if opts.FileSize <= 0 {
		n, err := src.Size(ctx)
		if err != nil {
			return scan.Report{}, err
		}
		opts.FileSize = n
	}
	sess, err := h.Start(ctx, opts)
	if err != nil {
		return scan.Report{}, err
	}
	return drive.Run(ctx, sess, src, opts.FileSize > 0, onIPC)
}

// runWasm scans the same in-memory file through the module.
func runWasm(t testing.TB, h *Host, file []byte, opts scan.Options) (result, error) {
	t.Helper()
	opts.FileSize = int64(len(file))
	var res result
	rep, err := runRaw(context.Background(), h, httpclient.NewReaderAt(bytes.NewReader(file), int64(len(file))), opts,
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

// engineMessage strips the hosts' prefixes from an engine error, leaving the engine's message.
func engineMessage(err error) string {
	msg := err.Error()
	if errors.Is(err, ErrScan) {
		if i := strings.Index(msg, ErrScan.Error()+": "); i >= 0 {
			return msg[i+len(ErrScan.Error())+2:]
		}
	}
	return msg
}

// scanRows opens src with the Go API, the Host as its engine, and reads the scan to the end:
// the path users take. It returns the rows, the engine sessions it started (the open's and the
// scan's) and the error (nil at io.EOF).
func scanRows(ctx context.Context, h *Host, src httpclient.Source, opts scan.Options) (rows int64, sessions int, err error) {
	f, err := pqscan.Open(ctx, src, pqscan.Options{Engine: h})
	if err != nil {
		return 0, 1, err
	}
	defer f.Close()
	r, err := f.Scan(ctx, opts)
	if err != nil {
		return 0, 2, err
	}
	defer r.Close()
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return rows, 2, nil
		}
		if err != nil {
			return rows, 2, err
		}
		rows += rec.NumRows()
		rec.Release()
	}
}
