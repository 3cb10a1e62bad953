package icebergsession

import "github.com/pqscan/pqscan/internal/dataset/deltasession"

// native is a Session as the Driven a Go host drives (the Delta session's interface: the
// steps and answers are the same).
type native struct{ *Session }

// StartNative starts a session in this process (New) as a deltasession.Driven.
func StartNative(o Options) (deltasession.Driven, error) {
	s, err := New(o)
	if err != nil {
		return nil, err
	}
	return native{s}, nil
}

func (n native) Objects() ([]deltasession.Object, error)   { return n.Session.Objects(), nil }
func (n native) Files() ([]string, error)                  { return n.Session.Files(), nil }
func (n native) Snapshot() (*deltasession.Snapshot, error) { return n.Session.Snapshot(), nil }
func (n native) Owners() ([]string, error)                 { return n.Session.Owners(), nil }
