package decode

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/pqscan/pqscan/internal/decode/encoding"
	"github.com/pqscan/pqscan/internal/decode/format"
)

// A reader given a selection must return, for the selected rows, exactly what a full read
// followed by FilterRows returns (levels, values, null positions), at every threshold.

// openSeed opens a reader over a fuzz-format chunk (config byte, rows, chunk bytes) and
// returns it with its leaf and row count.
func openSeed(data []byte) (*ColumnReader, *Column, int, error) {
	cfgByte, rows := data[0], int(data[1])
	cfg := pageFuzzConfigs[int(cfgByte&0x0f)%len(pageFuzzConfigs)]
	s, err := BuildSchema(append([]format.SchemaElement{root(1)}, cfg.schema...))
	if err != nil {
		return nil, nil, 0, err
	}
	leaf := s.Columns[0].Leaves(nil)[0]
	cm := &format.ColumnMetaData{Type: *leaf.Node.Elem.Type, Codec: pageFuzzCodecs[int(cfgByte>>4)&3]}
	cr, err := NewColumnReader(leaf, cm, int64(rows), ReaderOptions{MemoryCap: 1 << 20})
	if err != nil {
		return nil, nil, 0, err
	}
	cr.SetChunk(data[2:])
	return cr, leaf, rows, nil
}

// checkSelected reads the chunk in full and then only the rows of sel (at threshold) and
// compares the second with the first filtered; an error of the full read is returned as is.
func checkSelected(data []byte, sel []RowRun, threshold int) error {
	if len(data) < 2 {
		return nil
	}
	cr, leaf, rows, err := openSeed(data)
	if err != nil {
		return err
	}
	full := &LeafBatch{}
	full.Reset(leaf.Conv.OutWidth)
	if err := cr.Read(rows, full); err != nil {
		return err
	}
	cr, _, _, _ = openSeed(data)
	cr.SetSelection(sel, threshold)
	got := &LeafBatch{}
	got.Reset(leaf.Conv.OutWidth)
	for _, r := range sel {
		if err := cr.Skip(r.Start); err != nil {
			return fmt.Errorf("selected read fails where the full read did not: %w", err)
		}
		if err := cr.Read(int(r.End-r.Start), got); err != nil {
			return fmt.Errorf("selected read fails where the full read did not: %w", err)
		}
	}
	keep := make([]bool, rows)
	for _, r := range sel {
		for i := r.Start; i < r.End; i++ {
			keep[i] = true
		}
	}
	FilterRows(full, leaf, keep)
	return sameBatch(full, got)
}

func sameBatch(want, got *LeafBatch) error {
	switch {
	case want.Rows != got.Rows || want.Entries != got.Entries:
		return fmt.Errorf("%d rows, %d entries; want %d, %d", got.Rows, got.Entries, want.Rows, want.Entries)
	case !slices.Equal(want.Def, got.Def) || !slices.Equal(want.Rep, got.Rep):
		return fmt.Errorf("levels def %v rep %v; want %v %v", got.Def, got.Rep, want.Def, want.Rep)
	case want.Vals.N != got.Vals.N:
		return fmt.Errorf("%d values, want %d", got.Vals.N, want.Vals.N)
	}
	w, g := &want.Vals, &got.Vals
	switch {
	case w.Width > 0 && !slices.Equal(w.Fixed, g.Fixed):
		return fmt.Errorf("values %x, want %x", g.Fixed, w.Fixed)
	case w.Width == 0 && (!slices.Equal(w.Offsets[:w.N+1], g.Offsets[:g.N+1]) || string(w.Data) != string(g.Data)):
		return fmt.Errorf("values %v %q, want %v %q", g.Offsets, g.Data, w.Offsets, w.Data)
	case w.Width < 0:
		for i := 0; i < w.N; i++ {
			if getBit(w.Bits, i) != getBit(g.Bits, i) {
				return fmt.Errorf("boolean %d differs", i)
			}
		}
	}
	return nil
}

// selections of n rows: each row alone, every other row, the first, the last, a middle run.
func selections(n int64) map[string][]RowRun {
	out := map[string][]RowRun{"all": {{0, n}}, "first": {{0, 1}}, "last": {{n - 1, n}}}
	var odd []RowRun
	for i := int64(1); i < n; i += 2 {
		odd = append(odd, RowRun{i, i + 1})
	}
	out["every other"] = odd
	if n > 2 {
		out["middle"] = []RowRun{{1, n - 1}}
	}
	return out
}

func Test_ColumnReaderSelection(t *testing.T) {
	checked := 0
	for i, seed := range pageFuzzSeeds() {
		cfg := pageFuzzConfigs[int(seed[0]&0x0f)].name
		for name, sel := range selections(int64(seed[1])) {
			for _, th := range []int{1, 2, 20} {
				t.Run(fmt.Sprintf("%d %s/%s/%d", i, cfg, name, th), func(t *testing.T) {
					if err := checkSelected(seed, sel, th); err != nil {
						t.Fatal(err)
					}
					checked++
				})
			}
		}
	}
	if checked < 200 {
		t.Fatalf("%d cases", checked)
	}
}

// Test_ColumnReaderSelection_outside: a row outside the selection is an error, not a value.
func Test_ColumnReaderSelection_outside(t *testing.T) {
	seed := pageFuzzSeeds()[0] // required int32 1, 2, 3
	cr, leaf, _, err := openSeed(seed)
	if err != nil {
		t.Fatal(err)
	}
	cr.SetSelection([]RowRun{{0, 1}}, 1)
	b := &LeafBatch{}
	b.Reset(leaf.Conv.OutWidth)
	if err := cr.Read(1, b); err != nil {
		t.Fatal(err)
	}
	if err := cr.Skip(2); err != nil {
		t.Fatal(err)
	}
	if err := cr.Read(1, b); !errors.Is(err, ErrSelection) {
		t.Fatalf("err %v, want ErrSelection", err)
	}
	if cr.ValuesSkipped != 2 {
		t.Fatalf("%d values skipped, want 2", cr.ValuesSkipped)
	}
}

// Test_keepSpans: packing values to the spans (the encodings decoded in full) in each layout.
func Test_keepSpans(t *testing.T) {
	spans := []encoding.Span{{From: 1, To: 3}, {From: 4, To: 5}}
	for _, tc := range []struct {
		name string
		in   Values
		want Values
	}{
		{name: "fixed", in: i32Vals(10, 11, 12, 13, 14), want: i32Vals(11, 12, 14)},
		{name: "strings", in: strVals("a", "bb", "", "ddd", "eeee"), want: strVals("bb", "", "eeee")},
		{name: "booleans", in: boolVals(false, true, false, false, true), want: boolVals(true, false, true)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.in
			v.keepSpans(spans)
			a, b := &LeafBatch{Vals: v, Rows: 3, Entries: 3}, &LeafBatch{Vals: tc.want, Rows: 3, Entries: 3}
			if err := sameBatch(b, a); err != nil {
				t.Fatal(err)
			}
		})
	}
}
