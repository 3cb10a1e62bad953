//go:build !pqscan_lean

package main

import (
	"github.com/pqscan/pqscan/internal/dataset/discover"
)

// The discovery session (pq_open_discover, internal/dataset/discover): what an opened folder,
// glob or metadata file is (a Delta table, an Iceberg table, plain files) is decided here, in
// the module, with the snapshot sessions' steps and exports; Done leaves its
// discover.Result (a snapshot, or the files) in pq_snapshot.

func (m *module) openDiscover(p uint32, n int32) int32 {
	var opts discover.Options
	return m.openObjects("pq_open_discover", p, n, &opts, func() (objectSession, error) { return discover.New(opts) })
}

//go:wasmexport pq_open_discover
func pqOpenDiscover(p, n int32) (h int32) {
	defer guard("pq_open_discover", 0, &h, codePanic)
	retuneGC()
	return mod.openDiscover(uint32(p), n)
}
