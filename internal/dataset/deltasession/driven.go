package deltasession

import "github.com/pqscan/pqscan/internal/scan"

// Driven is a Delta session as a Go host drives it (package pqscan's Delta tables, through
// internal/drive): this package's Session (StartNative) or the wasm module's
// (wazerohost.DeltaSession, whose calls into the module can fail, hence the errors). The steps
// are NeedObjects (answer Objects with PushObject; its Reqs as NeedData's), NeedData (Files
// names the file indexes), then Done (Snapshot) or Error.
type Driven interface {
	scan.TableSession
	Objects() ([]Object, error)
	PushObject(path string, data []byte, found bool) error
	Files() ([]string, error)
	Owners() ([]string, error)
	Snapshot() (*Snapshot, error)
}

// native is a Session as a Driven.
type native struct{ *Session }

// StartNative starts a session in this process (New) as a Driven.
func StartNative(o Options) (Driven, error) {
	s, err := New(o)
	if err != nil {
		return nil, err
	}
	return native{s}, nil
}

func (n native) Objects() ([]Object, error)   { return n.Session.Objects(), nil }
func (n native) Files() ([]string, error)     { return n.Session.Files(), nil }
func (n native) Owners() ([]string, error)    { return n.Session.Owners(), nil }
func (n native) Snapshot() (*Snapshot, error) { return n.Session.Snapshot(), nil }
