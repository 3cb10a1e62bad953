package warmup

import (
	"bytes"
	"os"
	"testing"
)

// Test_jsUpToDate: the committed jsbridge/src/warmup-file.js holds this package's file (run
// go run ./internal/warmup/gen after changing it).
func Test_jsUpToDate(t *testing.T) {
	want, err := JS()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../jsbridge/src/warmup-file.js")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("jsbridge/src/warmup-file.js is stale: run go run ./internal/warmup/gen")
	}
}
