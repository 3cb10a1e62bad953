package scan

import (
	"errors"
	"unsafe"

	"github.com/pqscan/pqscan/internal/jsonw"
)

// The JSON wire forms the wasm module hands its hosts on every query (pq_metadata, pq_report),
// written without reflection: byte for byte what encoding/json's Marshal writes for the same
// values (report_json_test.go checks both on values with every field set, and with fields
// zero, nil or empty at random), without the first-call cost of reflect and encoding/json in
// a fresh wasm instance (package jsonw).
//
// Each struct is a table of its JSON members in field order: name, the field's offset and
// how to write it. One loop walks a table (appendStruct) instead of a call per member: in Go's
// wasm code every call with its arguments is ~100 bytes; the table is ~10 KB less raw code
// than a call per member (about the same once brotli-compressed).

// errNonFinite: a report's phase time is NaN or infinite, which JSON cannot hold (Marshal
// fails the same way).
var errNonFinite = errors.New("scan: report: a phase time is not a finite number")

// How a member's field is read and written; omit: left out when zero or empty (omitempty).
const (
	kInt     = iota // int
	kInt32          // int32
	kInt64          // int64
	kString         // string
	kStrings        // []string (null when nil)
	kRowGroupReports
	kColumnPages
	kFileReports
	kPhases // map[string]float64, keys sorted
	kKeyValues
	kRowGroupInfos
)

type member struct {
	name string // as jsonw.Object.Key takes it: `,"name":`
	off  uintptr
	kind uint8
	omit bool
}

var (
	reportMembers = [...]member{
		{`,"fileSize":`, unsafe.Offsetof(Report{}.FileSize), kInt64, false},
		{`,"rowGroupsTotal":`, unsafe.Offsetof(Report{}.RowGroupsTotal), kInt, false},
		{`,"rowGroupsAfterSlice":`, unsafe.Offsetof(Report{}.RowGroupsAfterSlice), kInt, false},
		{`,"rowGroupsAfterStats":`, unsafe.Offsetof(Report{}.RowGroupsAfterStats), kInt, false},
		{`,"rowGroupsAfterDictionary":`, unsafe.Offsetof(Report{}.RowGroupsAfterDict), kInt, false},
		{`,"rowGroupsAfterBloom":`, unsafe.Offsetof(Report{}.RowGroupsAfterBloom), kInt, false},
		{`,"pagesTotal":`, unsafe.Offsetof(Report{}.PagesTotal), kInt, false},
		{`,"pagesAfterPageIndex":`, unsafe.Offsetof(Report{}.PagesAfterPageIndex), kInt, false},
		{`,"pagesAfterLateMaterialization":`, unsafe.Offsetof(Report{}.PagesAfterLateMat), kInt, false},
		{`,"rowsTotal":`, unsafe.Offsetof(Report{}.RowsTotal), kInt64, false},
		{`,"rowsScanned":`, unsafe.Offsetof(Report{}.RowsScanned), kInt64, false},
		{`,"rowsMatched":`, unsafe.Offsetof(Report{}.RowsMatched), kInt64, false},
		{`,"rowsReturned":`, unsafe.Offsetof(Report{}.RowsReturned), kInt64, false},
		{`,"rowsCountedFromMetadata":`, unsafe.Offsetof(Report{}.RowsCountedFromMetadata), kInt64, true},
		{`,"rowGroupsFromMetadata":`, unsafe.Offsetof(Report{}.RowGroupsFromMetadata), kInt, true},
		{`,"bytesRequested":`, unsafe.Offsetof(Report{}.BytesRequested), kInt64, false},
		{`,"bytesPushed":`, unsafe.Offsetof(Report{}.BytesPushed), kInt64, false},
		{`,"requests":`, unsafe.Offsetof(Report{}.Requests), kInt, false},
		{`,"roundTrips":`, unsafe.Offsetof(Report{}.RoundTrips), kInt, false},
		{`,"explainDataBytes":`, unsafe.Offsetof(Report{}.ExplainDataBytes), kInt64, true},
		{`,"explainDataRequests":`, unsafe.Offsetof(Report{}.ExplainDataRequests), kInt, true},
		{`,"dictionariesLazy":`, unsafe.Offsetof(Report{}.DictionariesLazy), kInt, false},
		{`,"lateMaterialization":`, unsafe.Offsetof(Report{}.LateMaterialization), kString, true},
		{`,"levelsOff":`, unsafe.Offsetof(Report{}.LevelsOff), kStrings, true},
		{`,"rowGroups":`, unsafe.Offsetof(Report{}.RowGroups), kRowGroupReports, true},
		{`,"filesTotal":`, unsafe.Offsetof(Report{}.FilesTotal), kInt, true},
		{`,"filesAfterPartitions":`, unsafe.Offsetof(Report{}.FilesAfterPartitions), kInt, true},
		{`,"filesAfterStats":`, unsafe.Offsetof(Report{}.FilesAfterStats), kInt, true},
		{`,"filesRead":`, unsafe.Offsetof(Report{}.FilesRead), kInt, true},
		{`,"files":`, unsafe.Offsetof(Report{}.Files), kFileReports, true},
		{`,"phasesMs":`, unsafe.Offsetof(Report{}.Phases), kPhases, true},
		{`,"log":`, unsafe.Offsetof(Report{}.Log), kStrings, true},
		{`,"filesNoResidual":`, unsafe.Offsetof(Report{}.FilesNoResidual), kInt, true},
		{`,"rowGroupsAllMatch":`, unsafe.Offsetof(Report{}.RowGroupsAllMatch), kInt, true},
		{`,"rowsAllMatch":`, unsafe.Offsetof(Report{}.RowsAllMatch), kInt64, true},
		{`,"topkSkipped":`, unsafe.Offsetof(Report{}.TopKSkipped), kInt, true},
		{`,"runtimeFilters":`, unsafe.Offsetof(Report{}.RuntimeFilters), kInt, true},
		{`,"rowGroupsSkippedRuntime":`, unsafe.Offsetof(Report{}.RowGroupsSkippedRuntime), kInt, true},
		{`,"rowsSkippedRuntime":`, unsafe.Offsetof(Report{}.RowsSkippedRuntime), kInt64, true},
		{`,"valuesSkipped":`, unsafe.Offsetof(Report{}.ValuesSkipped), kInt64, true},
		{`,"pagesCrcUnverified":`, unsafe.Offsetof(Report{}.PagesCRCUnverified), kInt, true},
		{`,"units":`, unsafe.Offsetof(Report{}.Units), kInt, true},
		{`,"threads":`, unsafe.Offsetof(Report{}.Threads), kInt, true},
		{`,"metadataFromCache":`, unsafe.Offsetof(Report{}.MetadataFromCache), kStrings, true},
		{`,"requestsSaved":`, unsafe.Offsetof(Report{}.RequestsSaved), kInt64, true},
		{`,"roundTripsSaved":`, unsafe.Offsetof(Report{}.RoundTripsSaved), kInt64, true},
		{`,"metadataCacheError":`, unsafe.Offsetof(Report{}.MetadataCacheError), kString, true},
	}
	rowGroupReportMembers = [...]member{
		{`,"index":`, unsafe.Offsetof(RowGroupReport{}.Index), kInt, false},
		{`,"rows":`, unsafe.Offsetof(RowGroupReport{}.Rows), kInt64, false},
		{`,"skippedBy":`, unsafe.Offsetof(RowGroupReport{}.SkippedBy), kString, true},
		{`,"pagesTotal":`, unsafe.Offsetof(RowGroupReport{}.PagesTotal), kInt, false},
		{`,"pagesRead":`, unsafe.Offsetof(RowGroupReport{}.PagesRead), kInt, false},
		{`,"rowsMatched":`, unsafe.Offsetof(RowGroupReport{}.RowsMatched), kInt64, false},
		{`,"predicateOrder":`, unsafe.Offsetof(RowGroupReport{}.PredicateOrder), kStrings, true},
		{`,"columns":`, unsafe.Offsetof(RowGroupReport{}.Columns), kColumnPages, true},
	}
	columnPagesMembers = [...]member{
		{`,"column":`, unsafe.Offsetof(ColumnPages{}.Column), kString, false},
		{`,"pages":`, unsafe.Offsetof(ColumnPages{}.Pages), kString, false},
	}
	fileReportMembers = [...]member{
		{`,"path":`, unsafe.Offsetof(FileReport{}.Path), kString, false},
		{`,"skippedBy":`, unsafe.Offsetof(FileReport{}.SkippedBy), kString, true},
		{`,"rows":`, unsafe.Offsetof(FileReport{}.Rows), kInt64, false},
		{`,"bytesRequested":`, unsafe.Offsetof(FileReport{}.BytesRequested), kInt64, false},
		{`,"rowsReturned":`, unsafe.Offsetof(FileReport{}.RowsReturned), kInt64, false},
		{`,"rowGroups":`, unsafe.Offsetof(FileReport{}.RowGroups), kRowGroupReports, true},
	}
	fileInfoMembers = [...]member{
		{`,"fileSize":`, unsafe.Offsetof(FileInfo{}.FileSize), kInt64, false},
		{`,"numRows":`, unsafe.Offsetof(FileInfo{}.NumRows), kInt64, false},
		{`,"version":`, unsafe.Offsetof(FileInfo{}.Version), kInt32, false},
		{`,"createdBy":`, unsafe.Offsetof(FileInfo{}.CreatedBy), kString, true},
		{`,"keyValue":`, unsafe.Offsetof(FileInfo{}.KeyValue), kKeyValues, true},
		{`,"rowGroups":`, unsafe.Offsetof(FileInfo{}.RowGroups), kRowGroupInfos, false},
		{`,"indexStart":`, unsafe.Offsetof(FileInfo{}.IndexStart), kInt64, true},
	}
	keyValueMembers = [...]member{
		{`,"key":`, unsafe.Offsetof(KeyValue{}.Key), kString, false},
		{`,"value":`, unsafe.Offsetof(KeyValue{}.Value), kString, false},
	}
	rowGroupInfoMembers = [...]member{
		{`,"numRows":`, unsafe.Offsetof(RowGroupInfo{}.NumRows), kInt64, false},
		{`,"totalByteSize":`, unsafe.Offsetof(RowGroupInfo{}.TotalByteSize), kInt64, false},
	}
)

// AppendJSON appends fi's JSON (what json.Marshal(fi) writes).
func (fi *FileInfo) AppendJSON(b []byte) []byte {
	if fi == nil {
		return append(b, "null"...)
	}
	b, _ = appendStruct(b, unsafe.Pointer(fi), fileInfoMembers[:])
	return b
}

// AppendJSON appends r's JSON (what json.Marshal(r) writes); the error is Marshal's one
// failure, a phase time that is not finite, and b comes back unchanged with it.
func (r *Report) AppendJSON(b []byte) ([]byte, error) {
	out, ok := appendStruct(b, unsafe.Pointer(r), reportMembers[:])
	if !ok {
		return b, errNonFinite
	}
	return out, nil
}

// appendStruct appends the object of the struct at p whose members ms describes; false for a
// float JSON cannot hold.
func appendStruct(b []byte, p unsafe.Pointer, ms []member) ([]byte, bool) {
	o := jsonw.Begin(b)
	for i := range ms {
		m := &ms[i]
		f := unsafe.Add(p, m.off)
		var n int64
		switch m.kind {
		case kInt:
			n = int64(*(*int)(f))
		case kInt32:
			n = int64(*(*int32)(f))
		case kInt64:
			n = *(*int64)(f)
		case kString:
			if s := *(*string)(f); s != "" || !m.omit {
				o.Str(m.name, s)
			}
			continue
		case kStrings:
			if s := *(*[]string)(f); len(s) > 0 || !m.omit {
				o.Strings(m.name, s)
			}
			continue
		case kPhases:
			ph := *(*map[string]float64)(f)
			if len(ph) == 0 && m.omit {
				continue
			}
			o.Key(m.name)
			if ph == nil {
				o.B = append(o.B, "null"...)
				continue
			}
			keys := make([]string, 0, len(ph))
			for k := range ph {
				keys = append(keys, k)
			}
			// Marshal sorts a map's keys; a report has a handful (insertion sort: smaller
			// code than slices.Sort's).
			for a := 1; a < len(keys); a++ {
				for z := a; z > 0 && keys[z] < keys[z-1]; z-- {
					keys[z], keys[z-1] = keys[z-1], keys[z]
				}
			}
			po := jsonw.Begin(o.B)
			for _, k := range keys {
				po.AnyKey(k)
				var ok bool
				if po.B, ok = jsonw.Float(po.B, ph[k]); !ok {
					return b, false
				}
			}
			o.B = po.End()
			continue
		default: // a slice of structs
			var elems []member
			var size uintptr
			switch m.kind {
			case kRowGroupReports:
				elems, size = rowGroupReportMembers[:], unsafe.Sizeof(RowGroupReport{})
			case kColumnPages:
				elems, size = columnPagesMembers[:], unsafe.Sizeof(ColumnPages{})
			case kFileReports:
				elems, size = fileReportMembers[:], unsafe.Sizeof(FileReport{})
			case kKeyValues:
				elems, size = keyValueMembers[:], unsafe.Sizeof(KeyValue{})
			case kRowGroupInfos:
				elems, size = rowGroupInfoMembers[:], unsafe.Sizeof(RowGroupInfo{})
			}
			// Every slice header has the same layout; the element type is the table's.
			s := *(*[]byte)(f)
			if len(s) == 0 && m.omit {
				continue
			}
			o.Key(m.name)
			if s == nil {
				o.B = append(o.B, "null"...)
				continue
			}
			o.B = append(o.B, '[')
			base := unsafe.Pointer(unsafe.SliceData(s))
			for j := range len(s) {
				if j > 0 {
					o.B = append(o.B, ',')
				}
				var ok bool
				if o.B, ok = appendStruct(o.B, unsafe.Add(base, uintptr(j)*size), elems); !ok {
					return b, false
				}
			}
			o.B = append(o.B, ']')
			continue
		}
		if n != 0 || !m.omit {
			o.Int(m.name, n)
		}
	}
	return o.End(), true
}
