// Command gen writes jsbridge/src/warmup-file.js, the warm-up file's bytes (package warmup)
// for the JS bridge: go run ./internal/warmup/gen (from the repository's root).
package main

import (
	"fmt"
	"os"

	"github.com/pqscan/pqscan/internal/warmup"
)

func main() {
	js, err := warmup.JS()
	if err == nil {
		err = os.WriteFile("jsbridge/src/warmup-file.js", js, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
