package errf

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

type stringer struct{ s string }

func (s stringer) String() string { return "S:" + s.s }

type named int32 // no String method

type both struct{}

func (both) Error() string  { return "as error" }
func (both) String() string { return "as stringer" }

var errBase = errors.New("base")

// Every supported verb and type, against fmt. Misuses (extra arguments, %w on a non-error or
// in Sprintf) print differently; Test_callSites keeps them out of the module.
func Test_matchesFmt(t *testing.T) {
	cases := []struct {
		format string
		args   []any
	}{
		{"plain", nil},
		{"%d %d %d %d %d", []any{0, -1, int8(-128), int16(300), int32(math.MinInt32)}},
		{"%d|%d|%d", []any{int64(math.MinInt64), uint64(math.MaxUint64), uintptr(7)}},
		{"%d %d %d %d", []any{uint(1), uint8(255), uint16(65535), uint32(1 << 31)}},
		{"%v %v %v %v", []any{-42, uint8(3), true, false}},
		{"%s|%v|%q", []any{"a b", "é\x00", "tab\t\"q\""}},
		{"%s|%q", []any{[]byte("bytes"), []byte("\xff")}},
		{"%s|%v|%q", []any{errBase, errBase, errBase}},
		{"%s|%v|%q", []any{stringer{"x"}, stringer{"y"}, stringer{"z"}}},
		{"%v %s", []any{both{}, both{}}},
		{"%#x %#x %#x", []any{uintptr(0), uint32(0xdeadbeef), uint64(math.MaxUint64)}},
		{"%08x %08x %03d %02d", []any{uint32(0xbeef), uint32(0x123456789 & 0xffffffff), uint(7), uint64(12345)}},
		{"100%% %d%%", []any{5}},
		{"%v", []any{nil}},
		{"%s", []any{nil}},
		{"%v|%v", []any{any(7), any("panic")}},
		{"%d", nil},
		{"%", nil},
		{"é %s ü", []any{"ß"}},
	}
	for _, c := range cases {
		want := fmt.Sprintf(c.format, c.args...)
		if got := sprintf(c.format, c.args...); got != want {
			t.Errorf("Sprintf(%q): %q, fmt %q", c.format, got, want)
		}
		if got := errorf(c.format, c.args...).Error(); got != want {
			t.Errorf("Errorf(%q): %q, fmt %q", c.format, got, want)
		}
	}
}

// %w wraps as fmt.Errorf does: one error through Unwrap() error, several through
// Unwrap() []error, a non-error argument not at all.
func Test_wrap(t *testing.T) {
	other := errors.New("other")
	for _, c := range []struct {
		format string
		args   []any
		is     []error
		single bool
	}{
		{"%w: x %d", []any{errBase, 3}, []error{errBase}, true},
		{"%w and %w", []any{errBase, other}, []error{errBase, other}, false},
		{"no wrap %v", []any{errBase}, nil, false},
		{"%w", []any{nil}, nil, false},
	} {
		got, want := errorf(c.format, c.args...), fmt.Errorf(c.format, c.args...)
		if got.Error() != want.Error() {
			t.Errorf("Errorf(%q): %q, fmt %q", c.format, got, want)
		}
		for _, e := range c.is {
			if !errors.Is(got, e) {
				t.Errorf("Errorf(%q) does not wrap %v", c.format, e)
			}
		}
		if len(c.is) == 0 && errors.Unwrap(got) != nil {
			t.Errorf("Errorf(%q) wraps %v", c.format, errors.Unwrap(got))
		}
		_, single := got.(interface{ Unwrap() error })
		if single != c.single {
			t.Errorf("Errorf(%q): Unwrap() error is %v, want %v", c.format, single, c.single)
		}
	}
}

// Formats made of literal text and supported verbs print as fmt prints them.
func FuzzSprintf(f *testing.F) {
	f.Add("a %d b %s c %q %v %#x %08x %%", int64(-3), uint32(9), "s\n")
	f.Fuzz(func(t *testing.T, format string, i int64, u uint32, s string) {
		var args []any
		for k := 0; k < len(format); k++ {
			if format[k] != '%' {
				continue
			}
			rest := format[k+1:]
			switch {
			case strings.HasPrefix(rest, "%"):
				k++
			case strings.HasPrefix(rest, "d"):
				args = append(args, i)
			case strings.HasPrefix(rest, "v"):
				args = append(args, u)
			case strings.HasPrefix(rest, "s"), strings.HasPrefix(rest, "q"):
				args = append(args, s)
			case strings.HasPrefix(rest, "#x"), len(rest) >= 3 && rest[0] == '0' && rest[1] >= '1' && rest[1] <= '9' && (rest[2] == 'x' || rest[2] == 'd'):
				args = append(args, u)
			default:
				return // outside the supported subset
			}
		}
		if got, want := sprintf(format, args...), fmt.Sprintf(format, args...); got != want {
			t.Fatalf("Sprintf(%q): %q, fmt %q", format, got, want)
		}
	})
}
