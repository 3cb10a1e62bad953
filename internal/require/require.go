// Package require is a tiny assertion helper for tests, in the style of wazero's internal
// require package: fail fast with a readable message, no reflection magic beyond DeepEqual.
package require

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// NoError fails the test when err is not nil.
func NoError(t testing.TB, err error, msg ...any) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v %v", err, msg)
	}
}

// Error fails the test when err is nil.
func Error(t testing.TB, err error, msg ...any) {
	t.Helper()
	if err == nil {
		t.Fatalf("expected an error %v", msg)
	}
}

// ErrorIs fails unless errors.Is(err, target).
func ErrorIs(t testing.TB, err, target error, msg ...any) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("expected error %v, got %v %v", target, err, msg)
	}
}

// ErrorContains fails unless err is non-nil and its message contains substr.
func ErrorContains(t testing.TB, err error, substr string, msg ...any) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), substr) {
		t.Fatalf("expected error containing %q, got %v %v", substr, err, msg)
	}
}

// Equal fails unless want and got are reflect.DeepEqual.
func Equal(t testing.TB, want, got any, msg ...any) {
	t.Helper()
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("not equal %v\nwant: %#v\n got: %#v", msg, want, got)
	}
}

// True fails unless cond holds.
func True(t testing.TB, cond bool, msg ...any) {
	t.Helper()
	if !cond {
		t.Fatalf("expected true %v", msg)
	}
}
