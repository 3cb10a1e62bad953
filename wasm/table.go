//go:build !pqscan_lean

package main

import (
	"errors"

	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/tablescan"
)

// Table sessions (pq_open_table: several files read as one table). The lean module
// (-tags pqscan_lean, Makefile) reads single files only and leaves them, the Delta and the
// Iceberg sessions out: hosts find the exports missing and load the full module.

// openTable parses tablescan.Options as JSON and starts a table session (several files).
func (m *module) openTable(p uint32, n int32) int32 {
	raw, err := m.hostBytes("pq_open_table", p, n)
	if err != nil {
		m.failErr(nil, err)
		return codeErr
	}
	opts, err := decodeTableOptions(raw)
	if err != nil {
		m.fail(nil, "wasm: pq_open_table: options: "+err.Error())
		return codeErr
	}
	t, err := tablescan.New(opts, m.footers)
	if err != nil {
		m.failErr(nil, err)
		return codeErr
	}
	return m.add(t)
}

// pushFile is pq_push for one file of a table session (the bytes are copied).
func (m *module) pushFile(h, file int32, off int64, p uint32, n int32) int32 {
	b, err := m.hostBytes("pq_push_file", p, n)
	s, ok := m.session("pq_push_file", h)
	if !ok || m.poisoned(s) {
		return codeErr
	}
	if err == nil {
		err = errNotTable
		if t, ok := s.sc.(scan.TableSession); ok {
			err = t.PushFile(int(file), off, b)
		}
	}
	if err != nil {
		m.failErr(s, err)
		return codeErr
	}
	return codeOK
}

// setFileSize is pq_set_size for one file of a table session.
func (m *module) setFileSize(h, file int32, n int64) int32 {
	s, ok := m.session("pq_set_file_size", h)
	if !ok || m.poisoned(s) {
		return codeErr
	}
	err := errNotTable
	if t, ok := s.sc.(scan.TableSession); ok {
		err = t.SetFileSizeOf(int(file), n)
	}
	if err != nil {
		m.failErr(s, err)
		return codeErr
	}
	return codeOK
}

var errNotTable = errors.New("wasm: the handle is not a table session (pq_open_table)")

//go:wasmexport pq_open_table
func pqOpenTable(p, n int32) (h int32) {
	defer guard("pq_open_table", 0, &h, codePanic)
	retuneGC()
	return mod.openTable(uint32(p), n)
}

//go:wasmexport pq_push_file
func pqPushFile(h, file int32, off int64, p, n int32) (rc int32) {
	defer guard("pq_push_file", h, &rc, codePanic)
	retuneGC()
	return mod.pushFile(h, file, off, uint32(p), n)
}

//go:wasmexport pq_set_file_size
func pqSetFileSize(h, file int32, n int64) (rc int32) {
	defer guard("pq_set_file_size", h, &rc, codePanic)
	return mod.setFileSize(h, file, n)
}

// tableFields is pq_table_fields: the whole table schema (file columns, then partition
// columns) as the JSON of tablescan.Options.Table, once the session has read the footer it
// comes from. A host gives it back to its later sessions of the same files, so that every scan
// has the schema of the open, whichever files its predicate skips (the first file's columns,
// not the first unskipped file's).
func (m *module) tableFields(h int32) int64 {
	s, ok := m.session("pq_table_fields", h)
	if !ok {
		return fail64
	}
	t, ok := s.sc.(interface{ Fields() []arrowipc.Field })
	if !ok {
		m.failErr(s, errNotTable)
		return fail64
	}
	b := appendFields(nil, t.Fields()) // null before the footer is read
	s.out = b
	return packResult(b)
}

//go:wasmexport pq_table_fields
func pqTableFields(h int32) (v int64) {
	defer guard("pq_table_fields", h, &v, fail64)
	return mod.tableFields(h)
}
