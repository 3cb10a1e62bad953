package main

import (
	"fmt"
	"io"

	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/optimize"
)

// printAdvice ends inspect's output with optimize.Advise's findings.
func printAdvice(w io.Writer, m *format.FileMetaData) {
	adv := optimize.Advise(m)
	if len(adv) == 0 {
		fmt.Fprintln(w, "advice: none")
		return
	}
	for _, a := range adv {
		fmt.Fprintf(w, "advice: %s\n", a)
	}
}
