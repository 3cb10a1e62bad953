package pqscan

import (
	"context"
	"time"

	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/protocol"
	"github.com/pqscan/pqscan/internal/scan"
)

// The engine protocol (see Session). Engines are the native one (Native) and the wasm module
// run by package wazerohost (a *wazerohost.Host is an Engine); tests may bring their own.
type (
	// Engine starts sessions; see scan.Engine. Implementations are safe for concurrent use.
	Engine = scan.Engine
	// Session is one scan inside an Engine: Next, Push, SetFileSize, Report, Close. The
	// protocol is documented on the type; one loop in this package (the Reader) drives it.
	Session = scan.Session
	// Step is what Session.Next returns.
	Step = scan.Step
	// StepKind says what a Step holds.
	StepKind = scan.StepKind
	// Range is a half-open byte range [Off, Off+Len) of a file.
	Range = scan.Range
	// Report is a scan's report: what was read and what each level of skipping removed.
	Report = scan.Report
	// DatasetMetadata says what of a dataset's metadata came from Options.MetadataCache
	// (Dataset.Metadata), with a Delta table's snapshot; the JS bridge's openDataset metadata
	// has the same names.
	DatasetMetadata = protocol.DatasetMetadata
	// DeltaSnapshot is a Delta table's snapshot as an open read it (DatasetMetadata.Delta).
	DeltaSnapshot = protocol.DeltaSnapshot
	// RowGroupReport is one row group's line in a Report.
	RowGroupReport = scan.RowGroupReport
	// FileInfo is a file's decoded footer: rows, row groups, writer, key/value metadata.
	FileInfo = scan.FileInfo
	// KeyValue is one key/value metadata pair of a footer.
	KeyValue = scan.KeyValue
	// RowGroupInfo is one row group of a FileInfo.
	RowGroupInfo = scan.RowGroupInfo
	// Source gives a scan the bytes of one file (an HTTP URL, a local file, any io.ReaderAt).
	Source = httpclient.Source
	// SourceStats counts the requests and bytes a Source served.
	SourceStats = httpclient.Stats
	// HTTPOptions configure the HTTP range client used for http(s) URLs.
	HTTPOptions = httpclient.Options
)

// The step kinds of the protocol.
const (
	NeedRanges = scan.NeedRanges
	Batch      = scan.Batch
	Done       = scan.Done
	Error      = scan.Error
	Metadata   = scan.Metadata
)

// Native is the engine linked into the Go binary, without WebAssembly: the fastest choice and
// the reference the wasm engine is tested against. Its sessions share one footer cache per
// process (nativeFooters), so the scans of an open File do not decode its footer again.
type Native struct{}

// nativeFooterBytes bounds the process-wide footer cache of the native engine.
const nativeFooterBytes = 64 << 20

var nativeFooters = scan.NewFooterCache(nativeFooterBytes)

// Start implements Engine.
func (Native) Start(_ context.Context, opts scan.Options) (Session, error) {
	s, err := nativeScanner(opts)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// nativeScanner starts a native session with the process's footer cache.
func nativeScanner(opts scan.Options) (*scan.Scanner, error) {
	s, err := scan.NewCached(opts, nativeFooters)
	if err != nil {
		return nil, err
	}
	s.SetClock(time.Now)
	return s, nil
}
