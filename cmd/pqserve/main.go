// Command pqserve is the local side of the browser demo and of the browser end-to-end tests:
//
//	pqserve gen -o .cache/sample/events.parquet    write the sample dataset (internal/events)
//	pqserve gen-dataset -o .cache/sample/ds        write the dataset mode's sample: the first days
//	                                               of the month dataset (event_date=…/part-N)
//	pqserve gen-geo -o .cache/sample/geo           write GeoParquet places and buildings
//	                                               (internal/geosample), 1M rows each
//	pqserve serve -data DIR -web web -js jsbridge/dist -wasm wazerohost/pqscan.wasm
//	                                               serve the demo, the bridge, the module and
//	                                               the data (Range, CORS, fault modes)
//	pqserve cat SRC... [-columns a,b] [-where E] [-limit N] [-offset N] [-report F]
//	                                               the native engine's result as an Arrow IPC
//	                                               stream on stdout (the e2e tests' oracle)
//
// Only for 127.0.0.1: it is a development and test tool, not a production file server.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "gen":
		err = runGen(os.Args[2:])
	case "gen-dataset":
		err = runGenDataset(os.Args[2:])
	case "gen-geo":
		err = runGenGeo(os.Args[2:])
	case "serve":
		err = runServe(os.Args[2:])
	case "cat":
		err = runCat(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "pqserve:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, `usage:
  pqserve gen -o FILE [-rows N]
  pqserve gen-dataset -o DIR [-rows N] [-days N]
  pqserve gen-geo -o DIR [-rows N]
  pqserve serve [-addr 127.0.0.1:8080] -data DIR -web DIR -js DIR -wasm FILE [-latency D] [-query WHERE]
  pqserve cat SRC... [-columns a,b.c] [-where EXPR] [-limit N] [-offset N] [-report FILE]`)
	os.Exit(2)
}
