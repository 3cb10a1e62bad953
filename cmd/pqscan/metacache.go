package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/pqscan/pqscan"
)

// metadataCacheEnv names the folder of the metadata cache when --metadata-cache is not given.
const metadataCacheEnv = "PQSCAN_METADATA_CACHE"

// cacheFlags is --metadata-cache DIR (pqscan.Options.MetadataCache): each http(s) file's
// footer and page index kept in DIR, so that the next run on the same URL starts with its
// data requests. Off unless the flag or PQSCAN_METADATA_CACHE names a folder.
type cacheFlags struct {
	dir string
}

func (c *cacheFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.dir, "metadata-cache", "", "DIR keeps each http(s) file's footer and page index across runs (default $"+metadataCacheEnv+", else off)")
}

func (c *cacheFlags) apply(o pqscan.Options) pqscan.Options {
	dir := c.dir
	if dir == "" {
		dir = os.Getenv(metadataCacheEnv)
	}
	if dir == "" {
		return o
	}
	store, err := pqscan.MetadataDir(dir, 0)
	if err != nil {
		// A cache that cannot be made costs requests, never the answer.
		fmt.Fprintf(os.Stderr, "pqscan: no metadata cache: %v\n", err)
		return o
	}
	o.MetadataCache = store
	return o
}
