package delta

import "fmt"

// Reader features (PROTOCOL.md "Valid Feature Names in Table Features") and what this reader
// does with each. A feature in a protocol's readerFeatures that is not listed here is refused.
//
//   - timestampNtz: supported; timestamp_ntz is a timestamp without zone (ParseSchema), its
//     partition values and statistics parse without a zone.
//   - v2Checkpoint: supported; PlanListing/CheckpointNames find UUID-named checkpoints,
//     SidecarNames their sidecars, and Replay checks that every sidecar was supplied.
//   - vacuumProtocolCheck: supported; it only obliges writers (VACUUM must check the
//     protocol), readers have nothing to do.
//   - typeWidening, typeWidening-preview: supported; ParseSchema refuses a delta.typeChanges
//     entry outside the protocol's list and records each column's earlier types, older files
//     holding a narrower type are widened by the table scan's shaper (package tablescan,
//     with package schema's rules), JSON statistics of a narrower type parse in the wider one
//     (a float's widened to the float it was, a date's as midnight) or become unknown.
//   - columnMapping: refused (ErrUnsupportedFeature) when delta.columnMapping.mode is "name"
//     or "id" (physical column names differ from logical ones); accepted when the mode is
//     "none" or absent, since nothing is then mapped.
//   - deletionVectors: supported; Snapshot keeps each live file's descriptor (checked by
//     DeletionVector.Check), the Delta session fetches stored vectors (dv.go) and the table
//     session removes their rows from each file's scan before anything else sees them.
//   - variantType, variantType-preview, variantShredding-preview, catalogManaged,
//     catalogOwned-preview, and anything unknown: refused.
//
// Reader version 1 needs nothing; 2 means column mapping (checked as above); 3 means the
// readerFeatures list; anything above 3 is refused.
var readerFeatures = map[string]bool{
	"timestampNtz":         true,
	"v2Checkpoint":         true,
	"vacuumProtocolCheck":  true,
	"typeWidening":         true,
	"typeWidening-preview": true,
	"columnMapping":        true, // subject to the mode check
	"deletionVectors":      true,
}

// CheckProtocol refuses a table this reader cannot read correctly. m may be nil when only the
// protocol is known (the column mapping mode is then checked later, with the metadata).
func CheckProtocol(p *Protocol, m *Metadata) error {
	switch {
	case p.MinReaderVersion < 1:
		return fmt.Errorf("%w: minReaderVersion %d", ErrMalformed, p.MinReaderVersion)
	case p.MinReaderVersion > 3:
		return fmt.Errorf("%w: reader version %d", ErrUnsupportedFeature, p.MinReaderVersion)
	case p.MinReaderVersion == 3:
		for _, f := range p.ReaderFeatures {
			if !readerFeatures[f] {
				return fmt.Errorf("%w: %s", ErrUnsupportedFeature, f)
			}
		}
	}
	if m != nil {
		switch mode := m.Config("delta.columnMapping.mode"); mode {
		case "", "none":
		default:
			return fmt.Errorf("%w: columnMapping (mode %q)", ErrUnsupportedFeature, mode)
		}
	}
	return nil
}
