package scan

import "errors"

var (
	// ErrOptions: the host passed invalid options or pushed bytes outside the file.
	ErrOptions = errors.New("scan: invalid options")
	// ErrNotParquet: the bytes are not a Parquet file (missing PAR1 magic, impossible footer).
	ErrNotParquet = errors.New("scan: not a Parquet file")
	// ErrEncrypted: the file uses Parquet Modular Encryption, which pqscan does not support.
	ErrEncrypted = errors.New("scan: encrypted Parquet is not supported")
	// ErrCorrupt: the footer contradicts itself or the file (offsets outside the file,
	// counts), or a page's CRC contradicts its bytes.
	ErrCorrupt = errors.New("scan: corrupt Parquet metadata")
	// ErrMemoryCap: the scan would need more memory than Options.MemoryCap allows.
	ErrMemoryCap = errors.New("scan: memory cap exceeded")
	// ErrFileChanged: the host reported a different size for the same file.
	ErrFileChanged = errors.New("scan: the file changed during the scan")
	// ErrNoFooter: the footer has not been read yet.
	ErrNoFooter = errors.New("scan: footer not read yet")
	// ErrDeleted: the rows given as deleted (SetDeleted) do not fit the file: a deletion
	// vector written for another file, or a corrupt one.
	ErrDeleted = errors.New("scan: deleted rows do not fit the file")
	// ErrInternal: a bug in pqscan; please report it with the file.
	ErrInternal = errors.New("scan: internal error")
)

// corruptPage classifies a page decoder's checksum error as ErrCorrupt while keeping its
// message, which names the column and both CRCs.
type corruptPage struct{ error }

func (e corruptPage) Unwrap() []error { return []error{e.error, ErrCorrupt} }
