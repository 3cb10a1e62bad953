package tablescan

import (
	"github.com/pqscan/pqscan/internal/dataset/hive"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/protocol"
	"github.com/pqscan/pqscan/internal/prune"
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
	// Partition are the file's partition values, one per Options.PartitionColumns, when the
	// host knows them from a table log (Delta partitionValues) instead of the path.
	Partition []hive.Value `json:"partition,omitempty"`
	// Stats are the file's table-level statistics by column path (Delta add stats, partition
	// columns included) for prune.Bound.MayMatch; a column without an entry is unknown. A
	// file is skipped before its footer only when they prove no row can match. Plain data,
	// so that they cross the wasm boundary with the rest of the options.
	Stats map[string]prune.ColStats `json:"stats,omitempty"`
	// Rows is the file's row count when a table log states it (Delta numRecords); 0 means
	// unknown. A count (Options.Count) takes a file that needs no residual predicate from it
	// without reading its footer.
	Rows int64 `json:"rows,omitempty"`
	// Deleted are rows of the file that do not exist (a Delta deletion vector), as flat
	// [start, end) pairs of positions in the file, sorted and disjoint. The file's scan never
	// sees them (scan.Scanner.SetDeleted); Rows, when given, already excludes them, and Stats
	// still cover them (bounds, not values, so min/max is never answered from them).
	Deleted []int64 `json:"deleted,omitempty"`
	// Fill are values of top-level table columns this file lacks, by column name: such a
	// column reads as its value in every row of the file instead of null (Iceberg's Column
	// Projection: the identity partition value of a column the file was written without).
	// Each needs its type in Options.StatTypes, which the predicate is evaluated with.
	Fill map[string]hive.Value `json:"fill,omitempty"`
}

// deletedRows is Deleted as a selection, or an error when it is not one.
func (f *File) deletedRows() (prune.RowSelection, error) {
	if len(f.Deleted) == 0 {
		return nil, nil
	}
	if len(f.Deleted)%2 != 0 {
		return nil, errf.Errorf("%w: file %s: deleted rows are not start, end pairs", ErrOptions, f.Path)
	}
	sel := make(prune.RowSelection, 0, len(f.Deleted)/2)
	for i := 0; i < len(f.Deleted); i += 2 {
		sel = append(sel, prune.RowRange{Start: f.Deleted[i], End: f.Deleted[i+1]})
	}
	if !sel.Valid() {
		return nil, errf.Errorf("%w: file %s: deleted rows are not sorted, disjoint ranges", ErrOptions, f.Path)
	}
	return sel, nil
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
	Table []arrowipc.Field `json:"table,omitempty"`
	// PartitionColumns, when set, are the table's partition columns with their values given
	// per file (File.Partition) rather than parsed from Hive paths (which are then not parsed):
	// a Delta log is the authority for them, its paths need not carry them. Their Arrow types
	// are the last len(PartitionColumns) fields of Table, which must be given too.
	PartitionColumns []hive.Column `json:"partitionColumns,omitempty"`
	// StatTypes gives the prune type of each column path File.Stats may name, to bind the
	// predicate for file skipping; nil: files are not skipped by statistics.
	StatTypes map[string]prune.ColumnType `json:"statTypes,omitempty"`
	// ZonelessUTC says the table schema's UTC timestamps may be read from files whose
	// timestamps carry no zone, as the same instants: a Delta "timestamp" is UTC by the
	// protocol, and Spark writes it as INT96, which has no zone in Parquet.
	ZonelessUTC bool `json:"zonelessUTC,omitempty"`
	// FoldCase matches file columns to table columns case-insensitively when no exact name
	// matches (Delta column names are case-insensitive; a file may spell one differently).
	FoldCase bool `json:"foldCase,omitempty"`
	// ByPosition matches the i-th table column with each file's i-th column whatever their
	// names (Impala's position resolution, for files whose writer renamed columns); the
	// default matches by name. Predicates and projections still name table columns.
	ByPosition bool `json:"byPosition,omitempty"`
	// NameMapping, for a table schema whose fields name their file columns by field id
	// (MetaFieldID), gives the ids of the columns of a file that has none, by their names
	// (Iceberg's schema.name-mapping.default); nil: such a file's columns match by name.
	NameMapping []NameMapping `json:"nameMapping,omitempty"`
	// UnionSchema, when Table is not given, makes the table schema the union of every
	// surviving file's columns (resolve.go) instead of the first file's: all their footers
	// are then read before the first row, even with a limit.
	UnionSchema bool `json:"unionSchema,omitempty"`
	// FilesFrom and FilesTo make the session one unit of a table scan spread over several
	// workers: it returns the rows of files [FilesFrom, FilesTo) only (FilesTo 0: to the end),
	// those the whole scan returns for them, so the units' outputs in order are the whole
	// scan's. The table schema stays the whole scan's: the footers it is taken from (the first
	// file left by partitions and statistics, or every such file with UnionSchema) are read
	// wherever they are, without their data.
	FilesFrom int `json:"filesFrom,omitempty"`
	FilesTo   int `json:"filesTo,omitempty"`
}

// maxActiveBytes bounds the summed size of the files whose data rounds run together: files
// are read in lockstep (one round trip serves every active file) while their sizes fit.
func (o *Options) maxActiveBytes() int64 {
	if o.MemoryCap <= 0 {
		return protocol.DefaultMemoryCap
	}
	return o.MemoryCap
}

func (o *Options) check() error {
	if len(o.Files) == 0 && o.Table == nil {
		// Without files the schema must come from the host (an empty Delta snapshot).
		return errf.Errorf("%w: a table needs at least one file or its schema", ErrOptions)
	}
	for i, f := range o.Files {
		if f.Path == "" {
			return errf.Errorf("%w: file %d has no path", ErrOptions, i)
		}
		if f.Size < 0 {
			return errf.Errorf("%w: file %s has a negative size", ErrOptions, f.Path)
		}
		for c := range f.Fill {
			if _, ok := o.StatTypes[c]; !ok {
				return errf.Errorf("%w: file %s fills column %q, which has no type in statTypes", ErrOptions, f.Path, c)
			}
		}
	}
	if o.FilesFrom < 0 || o.FilesTo < 0 || (o.FilesTo > 0 && o.FilesTo <= o.FilesFrom) {
		return errf.Errorf("%w: filesFrom %d, filesTo %d: not a run of files", ErrOptions, o.FilesFrom, o.FilesTo)
	}
	if o.FileSize != 0 || o.FileKey != "" {
		return errf.Errorf("%w: fileSize and fileKey are per file in a table (Files)", ErrOptions)
	}
	if n := len(o.PartitionColumns); n > 0 {
		if len(o.Table) < n {
			return errf.Errorf("%w: partition columns given without the table schema", ErrOptions)
		}
		for _, f := range o.Files {
			if len(f.Partition) != n {
				return errf.Errorf("%w: file %s has %d partition values for %d columns", ErrOptions, f.Path, len(f.Partition), n)
			}
		}
	}
	if err := o.Options.CheckMinMax(); err != nil {
		return err
	}
	if o.DictionaryArrays {
		return errf.Errorf("%w: dictionaryArrays is not supported over several files", ErrOptions)
	}
	return nil
}
