package scan

import (
	"encoding/binary"
	"testing"

	"github.com/pqscan/pqscan/internal/decode"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// planFixture is what the planners take, built from a corpus file without a Scanner: the
// decoded footer, the leaves a scan of cols would read and the bound predicate.
type planFixture struct {
	file   []byte
	layout fileLayout
	read   []*decode.Column
	pred   *predicate
	opts   Options
}

func newPlanFixture(t *testing.T, name, where string, cols []string, opts Options) *planFixture {
	t.Helper()
	return planFixtureOf(t, testcorpus.Read(t, name), where, cols, opts)
}

// planFixtureOf is newPlanFixture over the bytes of a file a test made.
func planFixtureOf(t *testing.T, b []byte, where string, cols []string, opts Options) *planFixture {
	t.Helper()
	n := int64(binary.LittleEndian.Uint32(b[len(b)-8:]))
	metaStart := int64(len(b)) - 8 - n
	meta, err := format.DecodeFileMetaData(b[metaStart : len(b)-8])
	require.NoError(t, err)
	var w format.WriterVersion
	if meta.CreatedBy != nil {
		w = format.ParseCreatedBy(*meta.CreatedBy)
	}
	schema, err := decode.BuildSchema(meta.Schema)
	require.NoError(t, err)
	proj, err := schema.Project(cols)
	require.NoError(t, err)
	var leaves []*decode.Column
	for _, c := range proj {
		leaves = c.Leaves(leaves)
	}
	pred, err := bindPredicate(schema, where, opts.RowIndex)
	require.NoError(t, err)
	opts.normalize()
	return &planFixture{file: b, read: readLeavesOf(leaves, pred), pred: pred, opts: opts,
		layout: fileLayout{meta: meta, metaStart: metaStart, writer: w, memoryCap: opts.MemoryCap}}
}

// bytesAt returns the file's bytes of r.
func (f *planFixture) bytesAt(r httprange.Range) []byte { return f.file[r.Off:r.End()] }

// offsetIndex decodes leaf's offset index in row group rg.
func (f *planFixture) offsetIndex(t *testing.T, rg int, leaf *decode.Column) *format.OffsetIndex {
	t.Helper()
	cc := &f.layout.meta.RowGroups[rg].Columns[leaf.Node.Leaf]
	r, ok := f.layout.indexRange(cc.OffsetIndexOffset, cc.OffsetIndexLength)
	require.True(t, ok, "no offset index")
	oi, err := format.DecodeOffsetIndex(f.bytesAt(r))
	require.NoError(t, err)
	return oi
}

// pageIndexColumns decodes the predicate columns' page indexes in row group rg, as
// Scanner.pageIndexSelect hands them to selectPages.
func (f *planFixture) pageIndexColumns(t *testing.T, rg int) []pageIndexColumn {
	t.Helper()
	var out []pageIndexColumn
	for _, path := range f.pred.paths {
		l := f.pred.leaf[path]
		cc := &f.layout.meta.RowGroups[rg].Columns[l.Node.Leaf]
		r, ok := f.layout.indexRange(cc.ColumnIndexOffset, cc.ColumnIndexLength)
		if !ok {
			continue
		}
		ci, err := format.DecodeColumnIndex(f.bytesAt(r))
		require.NoError(t, err)
		out = append(out, pageIndexColumn{path: path, first: firstRows(f.offsetIndex(t, rg, l)), ci: ci,
			stats: f.pred.statsColumn(path, f.layout.writer, f.layout.meta.ColumnOrders)})
	}
	return out
}

// pageRanges are the byte ranges of leaf's pages in row group rg that hold rows of sel.
func (f *planFixture) pageRanges(t *testing.T, rg int, leaf *decode.Column, sel prune.RowSelection) []r {
	t.Helper()
	oi := f.offsetIndex(t, rg, leaf)
	var out []r
	for _, p := range prune.PagesFor(sel, firstRows(oi), f.layout.meta.RowGroups[rg].NumRows) {
		pl := oi.PageLocations[p]
		out = append(out, r{pl.Offset, int64(pl.CompressedPageSize)})
	}
	return out
}

// ranges converts byte ranges to the tests' [offset, length] form.
func ranges(rs []httprange.Range) []r {
	var out []r
	for _, x := range rs {
		out = append(out, r{x.Off, x.Len})
	}
	return out
}
