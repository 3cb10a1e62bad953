package main

import (
	"strconv"

	"github.com/pqscan/pqscan/internal/scan"
)

// pq_units is in both modules: the JS Worker pool splits single files, which open in the lean
// module unless their codec (GZIP, BROTLI, LZ4) needs the full one, and the files of datasets,
// which the full module reads.

//go:wasmexport pq_units
func pqUnits(h int32) (v int64) {
	defer guard("pq_units", h, &v, fail64)
	return mod.units(h)
}

// units is, after the Done step of a planUnits session, its units (scan.Units) as the JSON
// array [[rowGroup,start,end,bytes],...] ([] when there are none or the session is no plan).
func (m *module) units(h int32) int64 {
	s, ok := m.session("pq_units", h)
	if !ok {
		return fail64
	}
	b := []byte{'['}
	if sc, ok := s.sc.(*scan.Scanner); ok {
		for i, u := range scan.Units(sc) {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(append(b, '['), int64(u.RowGroup), 10)
			for _, v := range [...]int64{u.Start, u.End, u.Bytes} {
				b = strconv.AppendInt(append(b, ','), v, 10)
			}
			b = append(b, ']')
		}
	}
	s.out = append(b, ']')
	return packResult(s.out)
}
