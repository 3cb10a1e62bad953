package httpclient

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/require"
)

func TestReaderAt(t *testing.T) {
	data := testData(1000)
	tests := []struct {
		name    string
		size    int64 // claimed size
		ranges  []httprange.Range
		want    []httprange.Range // resolved ranges whose bytes are expected
		wantErr error
		wantReq int64
	}{
		{name: "ranges", size: 1000, ranges: []httprange.Range{{Off: 0, Len: 10}, {Off: 990, Len: 10}},
			want: []httprange.Range{{Off: 0, Len: 10}, {Off: 990, Len: 10}}, wantReq: 2},
		{name: "suffix", size: 1000, ranges: []httprange.Range{{Off: -100, Len: 100}},
			want: []httprange.Range{{Off: 900, Len: 100}}, wantReq: 1},
		{name: "suffix longer than file", size: 1000, ranges: []httprange.Range{{Off: -5000, Len: 5000}},
			want: []httprange.Range{{Off: 0, Len: 1000}}, wantReq: 1},
		{name: "empty range", size: 1000, ranges: []httprange.Range{{Off: 7, Len: 0}},
			want: []httprange.Range{{Off: 7, Len: 0}}, wantReq: 0},
		{name: "out of range", size: 1000, ranges: []httprange.Range{{Off: 995, Len: 10}}, wantErr: ErrOutOfRange},
		{name: "negative length", size: 1000, ranges: []httprange.Range{{Off: 5, Len: -1}}, wantErr: ErrInvalidRange},
		{name: "file shorter than claimed", size: 2000, ranges: []httprange.Range{{Off: 990, Len: 20}}, wantErr: ErrShortBody, wantReq: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := NewReaderAt(bytes.NewReader(data), tc.size)
			size, err := src.Size(context.Background())
			require.NoError(t, err)
			require.Equal(t, tc.size, size)
			got, err := collect(t, src, tc.ranges)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
			} else {
				require.NoError(t, err)
				require.Equal(t, expect(data, tc.want), got)
			}
			require.Equal(t, tc.wantReq, src.Stats().Requests)
		})
	}
}

func TestReaderAt_deliverErrorAndCancel(t *testing.T) {
	src := NewReaderAt(bytes.NewReader(testData(100)), 100)
	stop := errors.New("stop")
	n := 0
	err := src.Fetch(context.Background(), []httprange.Range{{Off: 0, Len: 1}, {Off: 1, Len: 1}}, func(int64, []byte) error {
		n++
		return stop
	})
	require.ErrorIs(t, err, stop)
	require.Equal(t, 1, n)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = src.Fetch(ctx, []httprange.Range{{Off: 0, Len: 1}}, func(int64, []byte) error { return nil })
	require.ErrorIs(t, err, context.Canceled)
}
