// Package errkind carries the engine's sentinel errors across the module boundary: the module
// reports the protocol.ErrorKind of each failure (Of), and a Go host wraps the kind's sentinel
// into the error it returns (Wrap), so that errors.Is answers for an engine running in the
// module as it does for the native engine. It links into the module: only sentinels of
// packages the module already links belong here; the lean module
// (-tags pqscan_lean) links no table session, and knows only the single-file kinds
// (sentinels_lean.go).
package errkind

import (
	"errors"

	"github.com/pqscan/pqscan/internal/protocol"
)

// Of is the kind of err: that of the first sentinel (then alias) err wraps, or ErrOther.
func Of(err error) protocol.ErrorKind {
	for k, s := range sentinels {
		if s != nil && errors.Is(err, s) {
			return protocol.ErrorKind(k)
		}
	}
	for _, a := range aliases {
		if errors.Is(err, a.err) {
			return a.kind
		}
	}
	return protocol.ErrOther
}

// Sentinel is the kind's error, nil for ErrOther and kinds this build does not know.
func Sentinel(k protocol.ErrorKind) error {
	if int(k) < len(sentinels) {
		return sentinels[k]
	}
	return nil
}

// Wrap returns err, which now also wraps the sentinel of kind k: its message is err's. Err
// alone when k has no sentinel.
func Wrap(err error, k protocol.ErrorKind) error {
	s := Sentinel(k)
	if err == nil || s == nil {
		return err
	}
	return &kindError{err, s}
}

type kindError struct{ err, sentinel error }

func (e *kindError) Error() string   { return e.err.Error() }
func (e *kindError) Unwrap() []error { return []error{e.err, e.sentinel} }
