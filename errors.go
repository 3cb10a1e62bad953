package pqscan

import (
	"errors"

	"github.com/pqscan/pqscan/internal/drive"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/openscope"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/scope"
	"github.com/pqscan/pqscan/internal/tablehost"
	"github.com/pqscan/pqscan/internal/tablescan"
)

// Errors of this package. Every error returned by Open, Scan and Reader.Next wraps one of
// these, an error of the Source (network, HTTP status) or the context's, with %w: test them
// with errors.Is.
var (
	// ErrSource: Open was given something that is neither a path, a URL nor a Source.
	ErrSource = openscope.ErrSource
	// ErrStalled: the engine asked again for exactly the ranges it was just given, without
	// producing anything in between; the driver stops instead of looping forever.
	ErrStalled = drive.ErrStalled
	// ErrProtocol: the engine broke the session protocol (a step out of order, a Metadata
	// step missing); a bug in an Engine implementation.
	ErrProtocol = drive.ErrProtocol
	// ErrClosed: the Reader or File was closed.
	ErrClosed = errors.New("pqscan: closed")

	// ErrNotParquet: the bytes are not a Parquet file.
	ErrNotParquet = scan.ErrNotParquet
	// ErrEncrypted: the file uses Parquet Modular Encryption, which pqscan does not read.
	ErrEncrypted = scan.ErrEncrypted
	// ErrCorrupt: the file's metadata contradicts itself or the file, or a page's CRC
	// contradicts its bytes (ScanOptions.NoVerifyCRC reads such pages).
	ErrCorrupt = scan.ErrCorrupt
	// ErrMemoryCap: a page, dictionary, footer or batch would exceed Options.MemoryCap.
	ErrMemoryCap = scan.ErrMemoryCap
	// ErrFileChanged: the file changed while it was read (another ETag, Last-Modified or
	// size).
	ErrFileChanged = httpclient.ErrFileChanged
	// ErrSchemaMismatch: a dataset file's column cannot be read as the table's (a type that
	// does not widen into the table's, two columns equal but for case); the message names
	// the file and the column. Over the wasm engine the module's message says the same.
	ErrSchemaMismatch = tablescan.ErrSchema
)

// ErrOutOfScope reports a location outside what the open may reach (Options.AllowPrefixes):
// a Delta log entry, a listed key or a redirect that names another folder, origin or local
// file. Nothing is requested from it; the message names the entry that asked.
var ErrOutOfScope = scope.ErrOutside

// ErrUnsupportedFeature reports a Delta table that needs a feature this reader does not
// implement (deletion vectors on a live file, column mapping by name or id, an unknown reader
// feature, a reader version above 3); the message names the feature. The table is refused
// rather than read wrong.
var ErrUnsupportedFeature = tablehost.ErrUnsupportedFeature
