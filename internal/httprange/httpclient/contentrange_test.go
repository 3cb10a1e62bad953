package httpclient

import (
	"fmt"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

func TestParseContentRange(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    contentRange
		wantErr bool
	}{
		{name: "range", in: "bytes 0-9/100", want: contentRange{first: 0, last: 9, total: 100}},
		{name: "last byte", in: "bytes 99-99/100", want: contentRange{first: 99, last: 99, total: 100}},
		{name: "unknown total", in: "bytes 5-9/*", want: contentRange{first: 5, last: 9, total: -1}},
		{name: "unsatisfied", in: "bytes */100", want: contentRange{first: -1, last: -1, total: 100, unsatisfied: true}},
		{name: "empty", in: "", wantErr: true},
		{name: "unit", in: "items 0-9/100", wantErr: true},
		{name: "no space", in: "bytes0-9/100", wantErr: true},
		{name: "two spaces", in: "bytes  0-9/100", wantErr: true},
		{name: "no total", in: "bytes 0-9", wantErr: true},
		{name: "reversed", in: "bytes 9-0/100", wantErr: true},
		{name: "last beyond total", in: "bytes 0-100/100", wantErr: true},
		{name: "sign", in: "bytes +0-9/100", wantErr: true},
		{name: "negative", in: "bytes -1-9/100", wantErr: true},
		{name: "spaces in numbers", in: "bytes 0 -9/100", wantErr: true},
		{name: "star star", in: "bytes */*", wantErr: true},
		{name: "overflow", in: "bytes 0-9/9999999999999999999", wantErr: true},
		{name: "go empty-file quirk", in: "bytes 0--1/0", wantErr: true},
		{name: "trailing junk", in: "bytes 0-9/100x", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseContentRange(tc.in)
			if tc.wantErr {
				require.ErrorIs(t, err, ErrBadContentRange)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// FuzzParseContentRange checks that accepted headers are well-formed and round-trip.
func FuzzParseContentRange(f *testing.F) {
	for _, s := range []string{"bytes 0-9/100", "bytes 5-9/*", "bytes */100", "bytes 0--1/0", "bytes 1-0/5", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cr, err := parseContentRange(s)
		if err != nil {
			return
		}
		var back string
		switch {
		case cr.unsatisfied:
			require.True(t, cr.total >= 0, s)
			back = fmt.Sprintf("bytes */%d", cr.total)
		case cr.total < 0:
			back = fmt.Sprintf("bytes %d-%d/*", cr.first, cr.last)
		default:
			require.True(t, cr.last < cr.total, s)
			back = fmt.Sprintf("bytes %d-%d/%d", cr.first, cr.last, cr.total)
		}
		require.True(t, cr.unsatisfied || (cr.first >= 0 && cr.first <= cr.last), s)
		again, err := parseContentRange(back)
		require.NoError(t, err)
		require.Equal(t, cr, again)
	})
}
