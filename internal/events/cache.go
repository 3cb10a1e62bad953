package events

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
)

// FileName is the cache file name of cfg: it carries Version, the layout, the row count, the
// row group size, the seed and the tenants, so a name always denotes the same bytes.
func FileName(cfg Config) string {
	if cfg.Layout == "" {
		cfg.Layout = Sorted
	}
	name := fmt.Sprintf("events-v%d-%s-%d-rg%d", Version, cfg.Layout, cfg.Rows, cfg.RowGroupSize())
	if cfg.Seed != 0 {
		name += fmt.Sprintf("-s%d", cfg.Seed)
	}
	if cfg.Tenants != 0 || cfg.FirstTenantID != 0 {
		n, first := cfg.tenants()
		name += fmt.Sprintf("-t%d-%d", n, first)
	}
	return name + ".parquet"
}

// Cached returns the path of cfg's file in dir, generating it first if it does not exist.
// The file is written to a temporary name and renamed, so a crash never leaves a partial
// file under the final name. Concurrent callers may both generate; the bytes are identical.
func Cached(dir string, cfg Config) (string, error) {
	path := filepath.Join(dir, FileName(cfg))
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, ".gen-*.parquet")
	if err != nil {
		return "", err
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return "", err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = Generate(w, cfg)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	return path, os.Rename(f.Name(), path)
}
