package events

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pqscan/pqscan/internal/require"
)

// Test_GenerateMonth: a file per (day, part), each holding only its day's rows with the
// sorted layout's properties (page index, bloom on user_id, sorting_columns); the rows add up
// to the table; the single file is Generate's sorted file byte for byte; the cache reuses the
// root.
func Test_GenerateMonth(t *testing.T) {
	m := Month{Config: Config{Rows: 6000}, Parts: 2}
	dir := t.TempDir()
	root, err := MonthCached(dir, m)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, MonthName(m)), root)
	var total int64
	files := 0
	for d := Start; d.Before(End); d = d.Add(24 * time.Hour) {
		for p := range 2 {
			b, err := os.ReadFile(filepath.Join(root, MonthDir, DayDir(d), fmt.Sprintf("part-%d.parquet", p)))
			require.NoError(t, err, d, p)
			files++
			meta := footer(t, b)
			total += meta.NumRows
			require.Equal(t, 1, len(meta.RowGroups))
			rg := meta.RowGroups[0]
			require.Equal(t, 2, len(rg.SortingColumns))
			for j, cc := range rg.Columns {
				require.True(t, cc.OffsetIndexOffset != nil && cc.ColumnIndexOffset != nil, "page index, column", j)
				require.Equal(t, j == ColUserID, cc.MetaData.BloomFilterOffset != nil, "bloom, column", j)
			}
			st := rg.Columns[ColEventTime].MetaData.Statistics
			lo := int64(binary.LittleEndian.Uint64(st.MinValue))
			hi := int64(binary.LittleEndian.Uint64(st.MaxValue))
			require.True(t, lo >= d.UnixMicro() && hi < d.Add(24*time.Hour).UnixMicro(), d, "event_time range", lo, hi)
		}
	}
	require.Equal(t, 31*2, files)
	require.Equal(t, int64(6000), total)
	single, err := os.ReadFile(filepath.Join(root, SingleFile))
	require.NoError(t, err)
	require.True(t, bytes.Equal(gen(t, Config{Rows: 6000}), single), "the single file differs from Generate's")
	again, err := MonthCached(dir, m)
	require.NoError(t, err)
	require.Equal(t, root, again)
	require.True(t, MonthName(m) != MonthName(Month{Config: Config{Rows: 6000}}), "parts must be in the name")
}
