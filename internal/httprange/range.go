// Package httprange plans the byte ranges a scan fetches: dedupe, coalesce ranges separated by
// small gaps, and cap request sizes. It is pure (no I/O) so that it runs inside the wasm module;
// the Go HTTP client that fetches the planned ranges lives in internal/httprange/httpclient.
package httprange

// Range is a half-open byte range [Off, Off+Len) of a file. A negative Off in a request for an
// unknown-size file means a suffix of -Off bytes.
type Range struct {
	Off int64 `json:"off"`
	Len int64 `json:"len"`
}

// End returns Off+Len.
func (r Range) End() int64 { return r.Off + r.Len }
