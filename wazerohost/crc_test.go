package wazerohost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_pageCRCOption: NoVerifyCRC crosses the wire into the module and the report's count of
// unchecked CRCs comes back out, as the native engine gives them: a Parquet.jl-shaped file
// (crc 0 on every page) reads either way; a file with wrong CRCs fails unless the option is on.
func Test_pageCRCOption(t *testing.T) {
	h := newHost(t, Config{})
	zero, err := os.ReadFile(filepath.Join("..", "internal", "scan", "testdata", "quirks", "crc_zero_parquetjl.parquet"))
	require.NoError(t, err)
	corrupt := testcorpus.Read(t, "parquet-testing/data/datapage_v1-corrupt-checksum.parquet")
	tests := []struct {
		name       string
		file       []byte
		noVerify   bool
		unverified int
		err        string
	}{
		{name: "CRC 0", file: zero, unverified: 4},
		{name: "CRC 0, verification off", file: zero, noVerify: true, unverified: 4},
		{name: "wrong CRCs", file: corrupt, err: "page checksum mismatch"},
		{name: "wrong CRCs, verification off", file: corrupt, noVerify: true, unverified: 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := scan.Options{NoVerifyCRC: tc.noVerify}
			want := runNative(t, tc.file, opts)
			got, _ := runWasm(t, h, tc.file, opts)
			equalResults(t, tc.name, want.comparable(), got.comparable())
			if tc.err != "" {
				require.True(t, strings.Contains(got.err, tc.err), "error", got.err)
				return
			}
			require.Equal(t, "", got.err)
			require.True(t, len(got.streams) > 0, "no batch")
			require.Equal(t, tc.unverified, got.report.PagesCRCUnverified)
		})
	}
}
