package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_whereJS runs the WHERE differential through the JS bridge in Node (jsbridge/src, the
// in-thread engine, the wasm module): its own opening of files, Hive folders, Delta and
// Iceberg tables (discovery, file placement, deletes), its own driver and apache-arrow's
// reading of the batches. Each case's rows and count, and for an ordered scan with a limit on
// an integer or string column its keys, must equal the Go evaluator's answer over the table
// read whole natively (jsbridge/test/tools/where-runner.mjs answers them, one process).
func Test_whereJS(t *testing.T) {
	if testing.Short() {
		t.Skip("the JS differential: -short")
	}
	_, file, _, _ := runtime.Caller(0)
	repo := filepath.Dir(filepath.Dir(filepath.Dir(file)))
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(repo, "jsbridge", "node_modules", "apache-arrow", "package.json"))
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the JS bridge is not installed (%v): .ci/run runs npm ci in jsbridge/", err)
		}
		t.Skipf("the JS bridge is not installed (%v): npm ci in jsbridge/", err)
	}
	wasm := filepath.Join(repo, "wazerohost", "pqscan.wasm")
	dir := testcorpus.Dir(t)
	type source struct {
		name, path string
		dataset    bool
		draws      int
		opts       pqscan.Options // an older snapshot's (DeltaVersion, IcebergSnapshotID)
	}
	var srcs []source
	for _, r := range whereTableRoots(t) {
		rel, _ := filepath.Rel(dir, r)
		srcs = append(srcs, source{filepath.ToSlash(rel), r + "/", true, 6, pqscan.Options{}})
	}
	for i, days := range whereHives {
		root, _, _ := buildDataset(t, days)
		srcs = append(srcs, source{fmt.Sprintf("hive-%d", i), root + "/", true, 12, pqscan.Options{}})
	}
	for seed := range uint64(3) {
		// Files whose columns differ, read with the union of their schemas (where_union_test.go).
		paths, _ := unionTable(t, seed+whereSalt)
		srcs = append(srcs, source{fmt.Sprintf("union-%d", seed), filepath.Dir(paths[0]) + "/", true, 12, pqscan.Options{UnionSchema: true}})
		paths, _ = genUnionTable(t, seed+whereSalt, true)
		srcs = append(srcs, source{fmt.Sprintf("union-by-position-%d", seed), filepath.Dir(paths[0]) + "/", true, 12, pqscan.Options{SchemaByPosition: true}})
	}
	for seed := range uint64(4) {
		// Random Delta tables (where_delta_random_test.go), both versions.
		dir, _, files, _ := deltaRandomTable(t, seed+whereSalt)
		srcs = append(srcs, source{fmt.Sprintf("random-delta-%d", seed), dir + "/", true, 8, pqscan.Options{}})
		if files[0] != nil { // else a checkpoint replaced version 0's commit
			v0 := int64(0)
			srcs = append(srcs, source{fmt.Sprintf("random-delta-%d v0", seed), dir + "/", true, 4, pqscan.Options{DeltaVersion: &v0}})
		}
	}
	for i, p := range testcorpus.Files(t, ".parquet") {
		if i%4 == 0 && whereCorpusFile(p) {
			srcs = append(srcs, source{p, filepath.Join(dir, p), false, 2, pqscan.Options{}})
		}
	}

	// Every older snapshot of the tables too (time travel through the bridge's options).
	for _, src := range srcs {
		if !src.dataset || strings.HasPrefix(src.name, "hive") || strings.HasPrefix(src.name, "union") || strings.HasPrefix(src.name, "random") {
			continue
		}
		ds, err := pqscan.OpenDataset(context.Background(), []string{src.path}, pqscan.Options{})
		if err != nil {
			t.Fatalf("%s: %v", src.name, err)
		}
		for _, o := range olderSnapshots(t, ds, strings.TrimSuffix(src.path, "/"), pqscan.Options{}) {
			srcs = append(srcs, source{src.name + " " + o.what, src.path, true, 2, o.opts})
		}
		ds.Close()
	}
	type jsCase struct {
		Source  string `json:"source"`
		Dataset bool   `json:"dataset"`
		Where   string `json:"where"`
		OrderBy string `json:"orderBy,omitempty"`
		Key     string `json:"key,omitempty"`
		Offset  int    `json:"offset,omitempty"`
		Limit   int    `json:"limit,omitempty"`
		Version *int64 `json:"version,omitempty"`
		Snap    string `json:"snapshotId,omitempty"`
		Union   bool   `json:"unionSchema,omitempty"`
		ByPos   bool   `json:"byPosition,omitempty"`
	}
	type want struct {
		name, where string
		rows        int
		ordered     bool
		keys        []string
	}
	var cases []jsCase
	var wants []want
	ctx := context.Background()
	for _, s := range srcs {
		var src whereSource
		if s.dataset {
			ds, err := pqscan.OpenDataset(ctx, []string{s.path}, s.opts)
			if err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			defer ds.Close()
			src = ds
		} else {
			f, err := pqscan.Open(ctx, s.path, pqscan.Options{})
			if err != nil || f.Metadata().NumRows == 0 || f.Metadata().NumRows > 200_000 {
				continue
			}
			defer f.Close()
			src = f
		}
		r, err := src.Scan(ctx, pqscan.ScanOptions{})
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		all, err := collect(r)
		if err != nil || all.rows == 0 {
			continue
		}
		var cols []int
		for i, f := range all.schema.Fields() {
			if tableColumn(f.Type) && !hasNaN(all, colRef{path: []int{i}, typ: f.Type}) {
				cols = append(cols, i)
			}
		}
		if len(cols) == 0 {
			continue
		}
		h := fnv.New64a()
		h.Write([]byte(s.name))
		rng := rand.New(rand.NewPCG(h.Sum64(), whereSalt))
		for range s.draws {
			e := drawExpr(rng, all, cols, 0)
			if e == nil {
				continue
			}
			kept := matching(all, e)
			travel := func(c jsCase) jsCase {
				c.Version, c.Union, c.ByPos = s.opts.DeltaVersion, s.opts.UnionSchema, s.opts.SchemaByPosition
				if s.opts.IcebergSnapshotID != nil {
					c.Snap = strconv.FormatInt(*s.opts.IcebergSnapshotID, 10)
				}
				return c
			}
			cases = append(cases, travel(jsCase{Source: s.path, Dataset: s.dataset, Where: e.sql()}))
			wants = append(wants, want{name: s.name, where: e.sql(), rows: len(kept)})
			// An offset and a limit over the kept rows (rows and count).
			off, lim := rng.IntN(3), 1+rng.IntN(4)
			cases = append(cases, travel(jsCase{Source: s.path, Dataset: s.dataset, Where: e.sql(), Offset: off, Limit: lim}))
			wants = append(wants, want{name: s.name, where: fmt.Sprintf("%s OFFSET %d LIMIT %d", e.sql(), off, lim), rows: max(0, min(lim, len(kept)-off))})
			// An ordered scan with a limit on an integer or string column: its keys.
			c := cols[rng.IntN(len(cols))]
			f := all.schema.Field(c)
			switch f.Type.(type) {
			case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type, *arrow.StringType:
			default:
				continue
			}
			desc := rng.IntN(2) == 0
			k := 1 + rng.IntN(5)
			sort.SliceStable(kept, func(a, b int) bool { return keyOrder(all, c, kept[a], kept[b], desc) < 0 })
			var keys []string
			for _, i := range kept[:min(k, len(kept))] {
				v := cellCanon(all, c, i)
				if v == nil {
					keys = append(keys, "<nil>")
				} else {
					keys = append(keys, fmt.Sprint(v))
				}
			}
			order := `"` + strings.ReplaceAll(f.Name, `"`, `""`) + `"`
			if desc {
				order += " DESC"
			}
			cases = append(cases, travel(jsCase{Source: s.path, Dataset: s.dataset, Where: e.sql(), OrderBy: order, Key: f.Name, Limit: k}))
			wants = append(wants, want{name: s.name, where: e.sql() + " ORDER BY " + order + fmt.Sprintf(" LIMIT %d", k), rows: len(keys), ordered: true, keys: keys})
		}
	}

	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	for _, c := range cases {
		if err := enc.Encode(c); err != nil {
			t.Fatal(err)
		}
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(cctx, node, filepath.Join(repo, "jsbridge", "test", "tools", "where-runner.mjs"), wasm)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("where-runner.mjs: %v\n%s", err, stderr.String())
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for i, w := range wants {
		if !sc.Scan() {
			t.Fatalf("where-runner.mjs answered %d of %d cases\n%s", i, len(wants), stderr.String())
		}
		var got struct {
			Rows  *int
			Count *int
			Keys  []*string
			Error string
		}
		if err := json.Unmarshal(sc.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, k := range got.Keys {
			if k == nil {
				keys = append(keys, "<nil>")
			} else {
				keys = append(keys, *k)
			}
		}
		switch {
		case got.Error != "":
			t.Errorf("%s WHERE %s: the bridge: %s", w.name, w.where, got.Error)
		case got.Rows == nil || *got.Rows != w.rows:
			t.Errorf("%s WHERE %s: the bridge returned %v rows, the evaluator %d", w.name, w.where, got.Rows, w.rows)
		case !w.ordered && (got.Count == nil || *got.Count != w.rows):
			t.Errorf("%s WHERE %s: the bridge counted %v, the evaluator %d", w.name, w.where, got.Count, w.rows)
		case w.ordered && fmt.Sprint(keys) != fmt.Sprint(w.keys):
			t.Errorf("%s WHERE %s: the bridge's keys %v, the evaluator's %v", w.name, w.where, keys, w.keys)
		}
	}
	t.Logf("%d cases over %d sources through the JS bridge", len(cases), len(srcs))
	if len(cases) < 300 {
		t.Errorf("only %d cases", len(cases))
	}
}
