package testclock

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/pqscan/pqscan/internal/require"
)

func TestRecorder(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name     string
		ctx      context.Context
		wantErr  error
		wantDone bool
	}{
		{name: "live context", ctx: context.Background(), wantDone: true},
		{name: "cancelled context", ctx: cancelled, wantErr: context.Canceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r Recorder
			require.Equal(t, tc.wantErr, r.Sleep(tc.ctx, time.Second))
			require.Equal(t, tc.wantDone, r.Wait(tc.ctx, time.Millisecond))
			got := r.Waits()
			require.Equal(t, fmt.Sprint([]time.Duration{time.Second, time.Millisecond}), fmt.Sprint(got))
			got[0] = 0
			require.Equal(t, time.Second, r.Waits()[0], "Waits returns a copy")
		})
	}
}
