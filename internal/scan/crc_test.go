package scan

import (
	"errors"
	"hash/crc32"
	"testing"

	"github.com/pqscan/pqscan/internal/decode"
	"github.com/pqscan/pqscan/internal/require"
)

// Test_pageCRCs: page CRCs are verified by default; a CRC of 0 is a writer's placeholder
// (Parquet.jl 0.6 writes 0 on every page, testdata/quirks/crc_zero_parquetjl.parquet): the
// file reads and the report counts the pages left unverified. A wrong CRC is an ErrCorrupt
// error unless NoVerifyCRC, which reads the file and counts every page's CRC as unverified.
func Test_pageCRCs(t *testing.T) {
	right := func(_ int, b []byte) int32 { return int32(crc32.ChecksumIEEE(b)) }
	wrongOn := func(bad int) func(int, []byte) int32 {
		return func(page int, b []byte) int32 {
			if page == bad {
				return int32(crc32.ChecksumIEEE(b) ^ 0x80)
			}
			return right(page, b)
		}
	}
	tests := []struct {
		name       string
		file       func(t *testing.T) []byte
		noVerify   bool
		unverified int
		err        string
	}{
		{name: "right CRCs", file: func(*testing.T) []byte { return crcPages(right).build() }},
		{name: "CRC 0 on every page (Parquet.jl)", file: func(t *testing.T) []byte { return quirkFile(t, "crc_zero_parquetjl") },
			unverified: 4},
		{name: "CRC 0 on every page, verification off", file: func(t *testing.T) []byte { return quirkFile(t, "crc_zero_parquetjl") },
			noVerify: true, unverified: 4},
		{name: "wrong CRC on a data page", file: func(*testing.T) []byte { return crcPages(wrongOn(2)).build() },
			err: "page checksum mismatch: column int32: CRC"},
		{name: "wrong CRC on a dictionary page", file: func(*testing.T) []byte { return crcPages(wrongOn(0)).build() },
			err: "page checksum mismatch: column int32: CRC"},
		{name: "wrong CRC, verification off", file: func(*testing.T) []byte { return crcPages(wrongOn(2)).build() },
			noVerify: true, unverified: 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := tc.file(t)
			opts := Options{NoVerifyCRC: tc.noVerify}
			if tc.err != "" {
				_, _, err := drive(t, file, opts)
				require.ErrorContains(t, err, tc.err)
				require.True(t, errors.Is(err, ErrCorrupt), "not ErrCorrupt:", err)
				require.True(t, errors.Is(err, decode.ErrChecksum), "not decode.ErrChecksum:", err)
				return
			}
			var streams [][]byte
			s := runToEnd(t, file, opts, func(ipc []byte) { streams = append(streams, append([]byte(nil), ipc...)) })
			require.Equal(t, []string{`int32=10|s="a"`, `int32=20|s=null`, `int32=10|s="c"`, `int32=30|s=null`, `int32=40|s="e"`},
				jsonRows(t, streams))
			require.Equal(t, tc.unverified, s.Report().PagesCRCUnverified)
		})
	}
}
