package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pqscan/pqscan/internal/geosample"
)

// runGenGeo writes the generated GeoParquet places and buildings files (internal/geosample)
// into a folder, for map queries and their benchmark.
func runGenGeo(args []string) error {
	fs := flag.NewFlagSet("gen-geo", flag.ExitOnError)
	out := fs.String("o", ".cache/sample/geo", "output folder")
	rows := fs.Int("rows", 1_000_000, "rows per file")
	fs.Parse(args)
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	for _, k := range []geosample.Kind{geosample.Places, geosample.Buildings} {
		path := filepath.Join(*out, string(k)+".parquet")
		f, err := os.Create(path + ".tmp")
		if err != nil {
			return err
		}
		w := bufio.NewWriterSize(f, 1<<20)
		err = geosample.Generate(w, geosample.Config{Kind: k, Rows: *rows})
		if err == nil {
			err = w.Flush()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(path+".tmp", path)
		}
		if err != nil {
			os.Remove(path + ".tmp")
			return err
		}
		st, err := os.Stat(path)
		if err != nil {
			return err
		}
		fmt.Printf("wrote %s: %d rows, %d bytes\n", path, *rows, st.Size())
	}
	return nil
}
