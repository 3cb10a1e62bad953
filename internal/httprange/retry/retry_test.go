package retry

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testclock"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		in   string
		want time.Duration
	}{
		{name: "absent", in: "", want: -1},
		{name: "zero", in: "0", want: 0},
		{name: "seconds", in: "3", want: 3 * time.Second},
		{name: "negative", in: "-3", want: -1},
		{name: "junk", in: "soon", want: -1},
		{name: "date", in: "Wed, 01 Jan 2025 00:00:10 GMT", want: 10 * time.Second},
		{name: "past date", in: "Tue, 31 Dec 2024 00:00:10 GMT", want: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { require.Equal(t, tc.want, ParseRetryAfter(tc.in, now)) })
	}
}

func TestDelay(t *testing.T) {
	p := Policy{Backoff: 100 * time.Millisecond, MaxBackoff: time.Second, MaxRetryAfter: 2 * time.Second}
	tests := []struct {
		name     string
		attempt  int
		after    time.Duration
		min, max time.Duration
	}{
		{name: "first", attempt: 0, after: -1, min: 50 * time.Millisecond, max: 100 * time.Millisecond},
		{name: "third", attempt: 2, after: -1, min: 200 * time.Millisecond, max: 400 * time.Millisecond},
		{name: "capped", attempt: 30, after: -1, min: 500 * time.Millisecond, max: time.Second},
		{name: "retry-after", attempt: 0, after: time.Second, min: time.Second, max: time.Second},
		{name: "retry-after capped", attempt: 0, after: time.Hour, min: 2 * time.Second, max: 2 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for range 20 {
				d := p.Delay(tc.attempt, tc.after)
				require.True(t, d >= tc.min && d <= tc.max, d)
			}
		})
	}
}

func TestDo(t *testing.T) {
	errHard := errors.New("hard")
	errSoft := errors.New("soft")
	tests := []struct {
		name      string
		fails     []error // the attempts' errors in order; nil once they run out
		retries   int
		wantErr   error
		wantCalls int
		wantWaits []time.Duration
	}{
		{name: "first try", wantCalls: 1},
		{name: "retried then fine", fails: []error{Retryable(errSoft, -1), Retryable(errSoft, 0)}, wantCalls: 3, wantWaits: []time.Duration{-1, 0}},
		{name: "retry-after honoured", fails: []error{Retryable(errSoft, time.Second)}, wantCalls: 2, wantWaits: []time.Duration{time.Second}},
		{name: "not retryable", fails: []error{errHard}, wantErr: errHard, wantCalls: 1},
		{name: "spent", fails: []error{Retryable(errSoft, 0), Retryable(errSoft, 0), Retryable(errSoft, 0)}, retries: 1, wantErr: errSoft, wantCalls: 2, wantWaits: []time.Duration{0}},
		{name: "none", fails: []error{Retryable(errSoft, 0)}, retries: -1, wantErr: errSoft, wantCalls: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &testclock.Recorder{}
			p := Policy{MaxRetries: tc.retries, Sleep: rec.Sleep}.WithDefaults()
			calls, retries := 0, 0
			err := p.Do(context.Background(), func() error {
				calls++
				if calls <= len(tc.fails) {
					return tc.fails[calls-1]
				}
				return nil
			}, func() { retries++ })
			require.ErrorIs(t, err, tc.wantErr)
			var re *Error
			require.True(t, !errors.As(err, &re), "retry marker leaked", err)
			require.Equal(t, tc.wantCalls, calls)
			require.Equal(t, len(tc.wantWaits), retries)
			// Backoff waits are jittered: only Retry-After waits are compared exactly.
			waits := rec.Waits()
			require.Equal(t, len(tc.wantWaits), len(waits))
			for i, w := range tc.wantWaits {
				if w >= 0 {
					require.Equal(t, fmt.Sprint(w), fmt.Sprint(waits[i]))
				}
			}
		})
	}
}
