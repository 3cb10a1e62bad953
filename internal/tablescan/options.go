package tablescan

import (
	"fmt"

	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/scan"
)

// File is one Parquet file of a table, as the host lists it.
type File struct {
	// Path names the file for the host (a URL, a local path, or a key under a dataset root)
	// and, with Hive partitioning, carries its key=value directories.
	Path string `json:"path"`
	// Size is the file size in bytes; 0 means unknown (the footer read is then a suffix
	// request and the host reports the size with SetFileSizeOf).
	Size int64 `json:"size,omitempty"`
	// Key, when set, is the path Hive key=value directories are parsed from instead of Path:
	// an object key from a listing (Path is then its URL, escaped).
	Key string `json:"key,omitempty"`
	// Version is the host's validator (ETag, Last-Modified) if it has one: with Path and Size
	// it keys the footer cache, so a changed file is read again.
	Version string `json:"version,omitempty"`
}

// Options configure a table scan: the files, how they form one table, and the engine options
// applied to every file's scan (Columns and Where are the table's: they name table columns,
// partition columns included).
type Options struct {
	scan.Options
	// Files are the table's files in table order (the order rows are returned in).
	Files []File `json:"files"`
	// Root is the part of each Path before its partition directories (the dataset root);
	// Hive key=value segments are parsed from the rest.
	Root string `json:"root,omitempty"`
	// NoHive turns Hive partition columns off.
	NoHive bool `json:"noHive,omitempty"`
	// Table is the table schema (file columns, then partition columns) when the host knows it
	// from an earlier session of the same files (Table.Fields); nil: the first file read
	// decides. Giving it keeps every scan of a dataset on one schema, whichever files a
	// predicate skips.
	Table []arrowipc.Field `json:"-"`
}

// maxActiveBytes bounds the summed size of the files whose data rounds run together: files
// are read in lockstep (one round trip serves every active file) while their sizes fit.
func (o *Options) maxActiveBytes() int64 {
	if o.MemoryCap <= 0 {
		return 256 << 20 // the engine's default memory cap (scan.Options)
	}
	return o.MemoryCap
}

func (o *Options) check() error {
	if len(o.Files) == 0 {
		return fmt.Errorf("%w: a table needs at least one file", ErrOptions)
	}
	for i, f := range o.Files {
		if f.Path == "" {
			return fmt.Errorf("%w: file %d has no path", ErrOptions, i)
		}
		if f.Size < 0 {
			return fmt.Errorf("%w: file %s has a negative size", ErrOptions, f.Path)
		}
	}
	if o.FileSize != 0 || o.FileKey != "" {
		return fmt.Errorf("%w: fileSize and fileKey are per file in a table (Files)", ErrOptions)
	}
	if o.DictionaryArrays {
		return fmt.Errorf("%w: dictionaryArrays is not supported over several files", ErrOptions)
	}
	return nil
}
