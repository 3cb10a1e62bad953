package delta

import (
	"strings"

	"github.com/pqscan/pqscan/internal/errf"
)

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
//   - columnMapping: supported in the modes "none", "name" and "id" (columnmapping.go: the
//     schema's physical names and ids, partition values and statistics by physical name;
//     package tablescan matches file columns by them); another mode is refused.
//   - deletionVectors: supported; Snapshot keeps each live file's descriptor (checked by
//     DeletionVector.Check), the Delta session fetches stored vectors (dv.go) and the table
//     session removes their rows from each file's scan before anything else sees them.
//   - variantType, variantType-preview, variantShredding, variantShredding-preview:
//     supported; a variant column reads as the canonical arrow.parquet.variant, unshredded
//     (package variant), whether or not its files annotate the Parquet group, and however
//     each file shredded it. It has no statistics, so it never prunes.
//   - catalogManaged, catalogOwned-preview, and anything unknown: refused.
//
// Writer features (writerFeatures) oblige writers only and are never checked; what they leave
// in the log is read as follows. A writer-only name in readerFeatures (the protocol lists them
// under writerFeatures alone) is accepted too, since reading needs nothing from it.
//
//   - appendOnly, invariants (field metadata delta.invariants), checkConstraints
//     (delta.constraints.* configuration), generatedColumns (delta.generationExpression),
//     identityColumns (delta.identity.*), allowColumnDefaults (CURRENT_DEFAULT: applies to
//     later writes, never to stored rows): configuration and field metadata ignored.
//   - changeDataFeed: cdc actions and the _change_data/ files they name are not table state
//     and are ignored by Replay.
//   - rowTracking, domainMetadata, clustering: add actions' baseRowId and
//     defaultRowCommitVersion and the domainMetadata actions (delta.rowTracking,
//     delta.clustering) are ignored; a data file's materialized row-id columns are not in
//     the schema and are not read.
//   - icebergCompatV1, icebergCompatV2 (UniForm): the Iceberg metadata beside the table is
//     not read; these features require columnMapping, whose check above applies.
//   - inCommitTimestamp: commitInfo.inCommitTimestamp is the commit's time for time travel
//     by timestamp (AsOf) from delta.inCommitTimestampEnablementVersion on.
//
// Reader version 1 needs nothing; 2 means column mapping (its mode checked as above); 3 means the
// readerFeatures list; anything above 3 is refused.
var readerFeatures = map[string]bool{
	"timestampNtz":         true,
	"v2Checkpoint":         true,
	"vacuumProtocolCheck":  true,
	"typeWidening":         true,
	"typeWidening-preview": true,
	"columnMapping":        true, // in the modes applyColumnMapping knows
	"deletionVectors":      true,
	"variantType":          true,
	"variantType-preview":  true,
	// Shredding changes only how files store a variant; the reader unshreds.
	"variantShredding":         true,
	"variantShredding-preview": true,
}

// writerOnly are the writer features, accepted in readerFeatures too (see above); a string
// rather than a map keeps the module small.
const writerOnly = " appendOnly invariants checkConstraints changeDataFeed generatedColumns identityColumns" +
	" allowColumnDefaults rowTracking domainMetadata clustering inCommitTimestamp icebergCompatV1 icebergCompatV2 "

// CheckProtocol refuses a table this reader cannot read correctly. m may be nil when only the
// protocol is known (the column mapping mode is then checked later, with the metadata).
func CheckProtocol(p *Protocol, m *Metadata) error {
	switch {
	case p.MinReaderVersion < 1:
		return errf.Errorf("%w: minReaderVersion %d", ErrMalformed, p.MinReaderVersion)
	case p.MinReaderVersion > 3:
		return errf.Errorf("%w: reader version %d", ErrUnsupportedFeature, p.MinReaderVersion)
	case p.MinReaderVersion == 3:
		for _, f := range p.ReaderFeatures {
			if !readerFeatures[f] && (f == "" || strings.ContainsRune(f, ' ') || !strings.Contains(writerOnly, " "+f+" ")) {
				return errf.Errorf("%w: %s", ErrUnsupportedFeature, f)
			}
		}
	}
	if m != nil {
		switch mode := m.Config("delta.columnMapping.mode"); mode {
		case "", "none", "name", "id":
		default:
			return errf.Errorf("%w: columnMapping (mode %q)", ErrUnsupportedFeature, mode)
		}
	}
	return nil
}
