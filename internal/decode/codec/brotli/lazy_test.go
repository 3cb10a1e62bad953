package brotli

import (
	"bytes"
	"io"
	"testing"
)

// The lookup tables are built by the first reader, not by the package's init: every start of
// the WebAssembly module paid for them (~17 ms in Chromium) before they were made lazy. This
// is the only test of the package, so nothing has built them when it starts.
func TestLUTsBuiltByFirstReader(t *testing.T) {
	if distLongLUT[0] != nil || reverseLUT[1] != 0 {
		t.Fatal("the lookup tables were built before the first reader (an init builds them again)")
	}
	// An empty brotli stream: WBITS 16 (bit 0 = 0), then ISLAST and ISLASTEMPTY: 0b110 = 0x06.
	r, err := NewReader(bytes.NewReader([]byte{0x06}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if distLongLUT[0] == nil || reverseLUT[1] != 0x80 {
		t.Fatal("NewReader did not build the lookup tables")
	}
	b, err := io.ReadAll(r)
	if err != nil || len(b) != 0 {
		t.Fatalf("empty stream: %q, %v", b, err)
	}
}
