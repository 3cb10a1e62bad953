package optimize

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

func Test_ParseSize(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		want   int64
		suffix bool
		bad    bool
	}{
		{name: "rows", in: "100000", want: 100000},
		{name: "MB", in: "128MB", want: 128 << 20, suffix: true},
		{name: "MiB lower", in: "64mib", want: 64 << 20, suffix: true},
		{name: "KB", in: "8KB", want: 8 << 10, suffix: true},
		{name: "G", in: "1G", want: 1 << 30, suffix: true},
		{name: "bytes", in: "512B", want: 512, suffix: true},
		{name: "zero", in: "0", bad: true},
		{name: "negative", in: "-5MB", bad: true},
		{name: "junk", in: "12XB", bad: true},
		{name: "overflow", in: "99999999999GB", bad: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, suf, err := ParseSize(tc.in)
			if tc.bad {
				require.ErrorIs(t, err, ErrOption)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, n)
			require.Equal(t, tc.suffix, suf)
		})
	}
}

func Test_ParseBloom(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want BloomSpec
		bad  bool
	}{
		{name: "column", in: "user_id", want: BloomSpec{Column: "user_id"}},
		{name: "ndv", in: "user_id:50000", want: BloomSpec{Column: "user_id", NDV: 50000}},
		{name: "ndv fpp", in: "user_id:50000:0.001", want: BloomSpec{Column: "user_id", NDV: 50000, FPP: 0.001}},
		{name: "fpp without ndv", in: "user_id::0.05", want: BloomSpec{Column: "user_id", FPP: 0.05}},
		{name: "empty", in: "", bad: true},
		{name: "bad ndv", in: "a:x", bad: true},
		{name: "fpp 1", in: "a:10:1", bad: true},
		{name: "too many", in: "a:1:0.1:3", bad: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := ParseBloom(tc.in)
			if tc.bad {
				require.ErrorIs(t, err, ErrOption)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, b)
		})
	}
}

func Test_ParseCodec(t *testing.T) {
	for _, name := range []string{"", "snappy", "zstd", "gzip", "brotli", "lz4raw", "none"} {
		_, err := ParseCodec(name)
		require.NoError(t, err, name)
	}
	_, err := ParseCodec("lzo")
	require.ErrorIs(t, err, ErrOption)
}

func Test_RewriteBadOptions(t *testing.T) {
	in := testcorpus.Read(t, filepath.Join("parquet-testing", "data", "nested_structs.rust.parquet"))
	gen := genEvents(t, 100)
	tests := []struct {
		name string
		in   []byte
		opts Options
		want error
	}{
		{name: "missing sort key", in: gen, opts: Options{SortBy: []string{"nope"}}, want: ErrSortKey},
		{name: "nested sort key", in: in, opts: Options{SortBy: []string{"ul_observation_date"}}, want: ErrSortKey},
		{name: "missing bloom column", in: gen, opts: Options{Bloom: []BloomSpec{{Column: "nope"}}}, want: ErrBloomColumn},
		{name: "bad codec", in: gen, opts: Options{Codec: "lzo"}, want: ErrOption},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			_, err := Rewrite(context.Background(), openBytes(t, tc.in), &out, tc.opts)
			require.ErrorIs(t, err, tc.want)
		})
	}
}
