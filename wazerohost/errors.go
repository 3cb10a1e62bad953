package wazerohost

import "errors"

// Sentinel errors. Errors from the Source (httpclient.ErrFileChanged, …) and context errors are
// returned wrapped, not replaced, so errors.Is works on them too.
var (
	// ErrTrap: the module trapped or exited (a Go runtime fatal error, a bug). The instance
	// is discarded, never reused; the message carries the guest's first stderr line.
	ErrTrap = errors.New("wazerohost: the module trapped")
	// ErrOutOfMemory: the module needed more memory than Config.MemoryLimitPages allows. It
	// always comes wrapped together with ErrTrap.
	ErrOutOfMemory = errors.New("wazerohost: the module ran out of memory (Config.MemoryLimitPages)")
	// ErrScan: the engine ended the scan with an error; the message is the engine's.
	ErrScan = errors.New("wazerohost: scan failed")
	// ErrABI: an ABI call returned a failure status (a host or module bug, or a module built
	// for another ABI version).
	ErrABI = errors.New("wazerohost: module call failed")
	// ErrClosed: the Host or the Session was closed.
	ErrClosed = errors.New("wazerohost: closed")
)
