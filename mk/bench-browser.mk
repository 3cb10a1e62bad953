# The browser benchmark: pqscan (jsbridge, in its Worker) against hyparquet, parquet-wasm and
# DuckDB-WASM in headless Debian Chromium (playwright-core; never downloads a browser), on the
# three cached events layouts, under three network scenarios. Not part of `make test`.
#
#   make bench          writes BENCHMARKS.md and bench/results.json (see e2e/bench/NOTES.md)
#   make bench-md       rewrites BENCHMARKS.md from bench/results.json + e2e/bench/NOTES.md; a
#                       section written into BENCHMARKS.md by hand is kept (named on stderr: move
#                       it into NOTES.md), an edit there to a NOTES.md section stops the write
#                       (e2e/bench/keep-md.js; its test: node --test e2e/bench/keep-md.test.js)
#   make bench-smoke    the same machinery on 200k-row files, 1 run, 2 scenarios, into
#                       e2e/bench/out/ (a few minutes; checks that every contender still agrees)
#   make bench-cold     only the cold page loads (e2e/bench/cold.js), into the existing
#                       bench/results.json (its warm cells kept), then BENCHMARKS.md
#   make bench-gaps     pqscan alone, warm, Q1 and Q2 on the sorted file, no latency and 30 ms,
#                       9 runs: the response → next-request gaps (bench/results-gaps.json, the
#                       dated rows of BENCHMARKS.md's gap section), then BENCHMARKS.md (~1 min)
#
# Knobs: BENCH_ROWS (4000000; the files come from `make bench-events`, cached in .cache/events),
# BENCH_REPS (5 runs per cell; a cell whose first run takes more than BENCH_SLOW_MS ms runs
# once), BENCH_SCENARIOS (none,30ms,30ms-50mbit), BENCH_CONTENDERS
# (pqscan,hyparquet,parquet-wasm,duckdb-wasm),
# BENCH_LAYOUTS, BENCH_QUERIES (Q1,Q2,Q3,Q4).
# Cold page loads (a fresh Chromium profile per repetition, statics brotli-served and cacheable,
# then a second page load in the same profile): BENCH_COLD (1; 0 skips them), BENCH_COLD_REPS (3),
# BENCH_COLD_SCENARIOS (none,30ms), BENCH_COLD_LAYOUT (sorted), BENCH_COLD_CONTENDERS
# (pqscan-early,pqscan-lazy,hyparquet,parquet-wasm,duckdb-wasm), BENCH_COLD_DWELL_MS (2500).
# Diagnostics, read from the environment: BENCH_COLD_TRACE=1 (V8's wasm trace events per page
# load: lazy compilations, optimized units, code-cache writes and hits, with their times),
# BENCH_COLD_GAP_MS (a pause between the engine's start and the query), BENCH_WARMUP=0 (pqscan's
# engine does not warm up in idle time, cold and warm pages), BENCH_CHROMIUM_ARGS.
#
#   make bench-dataset-browser        the dataset workload (e2e/bench/dataset.js): the
#                       month partitioned by day (bench/cmd/dataset's files, in MONTH_DIR) at
#                       /ds/ with ListObjectsV2; pqscan openDataset, DuckDB-WASM (URL list,
#                       hive_partitioning) and hyparquet (a loop over the files), plus pqscan
#                       listing the folder itself and pqscan on the single file; writes
#                       bench/results-dataset.json, then BENCHMARKS.md (~15 min)
#   make bench-dataset-browser-smoke  the same on 40k rows × 2 parts, 1 run, 2 scenarios, into
#                       e2e/bench/out/ (checks that every contender still agrees)
# Its knobs: MONTH_ROWS / MONTH_PARTS (mk/bench.mk), MONTH_DIR ($(BENCH_DIR)), BENCH_DS_REPS (3),
# BENCH_DS_SCENARIOS (none,30ms,30ms-50mbit,h2-30ms), BENCH_DS_CONTENDERS
# (pqscan,pqscan-list,pqscan-1file,hyparquet,duckdb-wasm), BENCH_DS_QUERIES (D1,D2,D3,D4);
# BENCH_DS_MERGE=1 replaces only the cells run (contenders × scenarios × queries) in
# bench/results-dataset.json.
#
#   make bench-geo      the viewport workload (e2e/bench/geo.js): pqscan (ST_Intersects), hyparquet
#                       (a filter on the bbox columns) and DuckDB-WASM 1.28 (the bbox conjuncts) over
#                       the generated places file (`pqserve gen-geo` into GEO_DIR, .cache/sample/geo),
#                       six viewports, checked against DuckDB native; writes bench/results-geo.json
#                       and e2e/bench/out/geo.md (~6 min). Knobs: GEO_DIR, BENCH_GEO_REPS (3),
#                       BENCH_GEO_SCENARIOS (none,30ms), BENCH_GEO_CONTENDERS (pqscan,hyparquet,duckdb-wasm),
#                       BENCH_GEO_FILES (places; places,buildings adds the footprints, ~20 min more).
#
# The server (e2e/bench/server, on 127.0.0.1) wraps internal/faultserver: Range, CORS, latency,
# plus a shared-bandwidth link and a per-query request log; pages, bundles and modules are
# served brotli-compressed (copies made once by e2e/bench/lib.js into e2e/bench/out/br/).

BENCH_ROWS       ?= 4000000
BENCH_DIR        ?= .cache/events
BENCH_REPS       ?= 5
BENCH_SLOW_MS    ?= 15000
BENCH_SCENARIOS  ?= none,30ms,30ms-50mbit
BENCH_CONTENDERS ?= pqscan,hyparquet,parquet-wasm,duckdb-wasm
BENCH_LAYOUTS    ?= sorted,small-rg,unsorted
BENCH_QUERIES    ?= Q1,Q2,Q3,Q4
BENCH_COLD       ?= 1
BENCH_COLD_REPS  ?= 3
BENCH_COLD_SCENARIOS ?= none,30ms
BENCH_COLD_LAYOUT ?= sorted
BENCH_COLD_CONTENDERS ?= pqscan-early,pqscan-lazy,hyparquet,parquet-wasm,duckdb-wasm
BENCH_COLD_DWELL_MS ?= 2500
BENCH_SERVER     := bin/bench-server
BENCH_PAGES      := e2e/bench/www/build/page.js
NPM              ?= npm
NODE             ?= node
CHROMIUM         ?= /usr/bin/chromium

.PHONY: bench bench-smoke bench-cold bench-gaps bench-md bench-browser-deps bench-dataset-browser bench-dataset-browser-smoke

e2e/bench/node_modules/.package-lock.json: e2e/bench/package-lock.json
	cd e2e/bench && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 $(NPM) ci --no-audit --no-fund
	@touch $@
bench-browser-deps: e2e/bench/node_modules/.package-lock.json

$(BENCH_SERVER): $(wildcard e2e/bench/server/*.go) $(wildcard internal/faultserver/*.go)
	$(GO) build -o $@ ./e2e/bench/server

# One minified bundle per contender (plus the page); pqscan's is jsbridge/dist, served as is.
$(BENCH_PAGES): $(wildcard e2e/bench/src/*.js) e2e/bench/node_modules/.package-lock.json
	cd e2e/bench && ./node_modules/.bin/esbuild src/page.js src/pqscan.js src/hyparquet.js \
		src/parquet-wasm.js src/duckdb.js --bundle --minify --format=esm --platform=browser \
		--target=es2022 --outdir=www/build --external:/pqscan/* --log-level=warning

BENCH_ENV = BENCH_ROWS=$(BENCH_ROWS) BENCH_DIR=$(abspath $(BENCH_DIR)) BENCH_REPS=$(BENCH_REPS) \
	BENCH_SLOW_MS=$(BENCH_SLOW_MS) BENCH_SCENARIOS=$(BENCH_SCENARIOS) \
	BENCH_CONTENDERS=$(BENCH_CONTENDERS) BENCH_LAYOUTS=$(BENCH_LAYOUTS) BENCH_QUERIES=$(BENCH_QUERIES) \
	BENCH_COLD=$(BENCH_COLD) BENCH_COLD_REPS=$(BENCH_COLD_REPS) BENCH_COLD_SCENARIOS=$(BENCH_COLD_SCENARIOS) \
	BENCH_COLD_LAYOUT=$(BENCH_COLD_LAYOUT) BENCH_COLD_CONTENDERS=$(BENCH_COLD_CONTENDERS) \
	BENCH_COLD_DWELL_MS=$(BENCH_COLD_DWELL_MS) CHROMIUM=$(CHROMIUM)

bench: js $(BENCH_SERVER) $(BENCH_PAGES)
	$(GO) run ./bench/cmd/lowerbound -rows $(BENCH_ROWS) -dir $(BENCH_DIR) -gen-only
	$(BENCH_ENV) BENCH_COMMAND="make bench BENCH_ROWS=$(BENCH_ROWS) BENCH_REPS=$(BENCH_REPS) BENCH_SLOW_MS=$(BENCH_SLOW_MS)" \
		$(NODE) e2e/bench/run.js

bench-smoke: js $(BENCH_SERVER) $(BENCH_PAGES)
	$(GO) run ./bench/cmd/lowerbound -rows 200000 -dir $(BENCH_DIR) -gen-only
	$(BENCH_ENV) BENCH_ROWS=200000 BENCH_REPS=1 BENCH_SCENARIOS=none,30ms BENCH_COLD_REPS=1 BENCH_COMMAND="make bench-smoke" \
		BENCH_OUT_MD=e2e/bench/out/BENCHMARKS.md BENCH_OUT_JSON=e2e/bench/out/results.json \
		$(NODE) e2e/bench/run.js

bench-cold: js $(BENCH_SERVER) $(BENCH_PAGES)
	$(BENCH_ENV) BENCH_COLD_ONLY=1 BENCH_COMMAND="make bench-cold BENCH_ROWS=$(BENCH_ROWS) BENCH_COLD_REPS=$(BENCH_COLD_REPS)" \
		$(NODE) e2e/bench/run.js

bench-gaps: js $(BENCH_SERVER) $(BENCH_PAGES)
	$(BENCH_ENV) BENCH_SCENARIOS=none,30ms BENCH_CONTENDERS=pqscan BENCH_LAYOUTS=sorted BENCH_QUERIES=Q1,Q2 \
		BENCH_COLD=0 BENCH_REPS=9 BENCH_OUT_JSON=bench/results-gaps.json BENCH_OUT_MD=e2e/bench/out/gaps.md \
		BENCH_COMMAND="make bench-gaps BENCH_ROWS=$(BENCH_ROWS)" $(NODE) e2e/bench/run.js
	BENCH_MD_ONLY=1 $(NODE) e2e/bench/run.js

bench-md: e2e/bench/node_modules/.package-lock.json
	BENCH_MD_ONLY=1 $(NODE) e2e/bench/run.js

MONTH_DIR           ?= $(BENCH_DIR)
BENCH_DS_REPS       ?= 3
BENCH_DS_SCENARIOS  ?= none,30ms,30ms-50mbit,h2-30ms
BENCH_DS_CONTENDERS ?= pqscan,pqscan-list,pqscan-1file,hyparquet,duckdb-wasm
BENCH_DS_QUERIES    ?= D1,D2,D3,D4
BENCH_DS_MERGE      ?=
BENCH_DS_ENV = MONTH_DIR=$(abspath $(MONTH_DIR)) BENCH_DS_REPS=$(BENCH_DS_REPS) BENCH_SLOW_MS=$(BENCH_SLOW_MS) \
	BENCH_DS_SCENARIOS=$(BENCH_DS_SCENARIOS) BENCH_DS_CONTENDERS=$(BENCH_DS_CONTENDERS) \
	BENCH_DS_QUERIES=$(BENCH_DS_QUERIES) BENCH_DS_MERGE=$(BENCH_DS_MERGE) CHROMIUM=$(CHROMIUM)

bench-dataset-browser: js $(BENCH_SERVER) $(BENCH_PAGES)
	$(GO) run ./bench/cmd/dataset -rows $(MONTH_ROWS) -parts $(MONTH_PARTS) -dir $(MONTH_DIR) -gen-only
	$(BENCH_DS_ENV) MONTH_ROWS=$(MONTH_ROWS) MONTH_PARTS=$(MONTH_PARTS) \
		BENCH_COMMAND="make bench-dataset-browser MONTH_ROWS=$(MONTH_ROWS) BENCH_DS_REPS=$(BENCH_DS_REPS)" \
		$(NODE) e2e/bench/dataset.js
	BENCH_MD_ONLY=1 $(NODE) e2e/bench/run.js

bench-dataset-browser-smoke: js $(BENCH_SERVER) $(BENCH_PAGES)
	$(GO) run ./bench/cmd/dataset -rows 40000 -parts 2 -dir $(MONTH_DIR) -gen-only
	$(BENCH_DS_ENV) MONTH_ROWS=40000 MONTH_PARTS=2 BENCH_DS_REPS=1 BENCH_DS_SCENARIOS=none,30ms \
		BENCH_COMMAND="make bench-dataset-browser-smoke" BENCH_DS_OUT_JSON=e2e/bench/out/results-dataset.json \
		BENCH_DS_OUT_MD=e2e/bench/out/dataset.md $(NODE) e2e/bench/dataset.js

# bench-gapfloor: the floor of a response → next-request gap with no engine at all (a chain of
# range fetches shaped like Q1's rounds, in a Worker, in the page and in Node), from the same
# server log as bench-gaps (e2e/bench/gapfloor.js; ~1 min).
.PHONY: bench-gapfloor
bench-gapfloor: $(BENCH_SERVER) $(BENCH_PAGES)
	$(BENCH_ENV) $(NODE) e2e/bench/gapfloor.js

GEO_DIR              ?= .cache/sample/geo
BENCH_GEO_REPS       ?= 3
BENCH_GEO_SCENARIOS  ?= none,30ms
BENCH_GEO_CONTENDERS ?= pqscan,hyparquet,duckdb-wasm
BENCH_GEO_FILES      ?= places
.PHONY: bench-geo
bench-geo: js $(BENCH_SERVER) $(BENCH_PAGES)
	test -f $(GEO_DIR)/places.parquet || $(GO) run ./cmd/pqserve gen-geo -o $(GEO_DIR)
	GEO_DIR=$(abspath $(GEO_DIR)) BENCH_GEO_REPS=$(BENCH_GEO_REPS) BENCH_GEO_SCENARIOS=$(BENCH_GEO_SCENARIOS) \
		BENCH_GEO_CONTENDERS=$(BENCH_GEO_CONTENDERS) BENCH_GEO_FILES=$(BENCH_GEO_FILES) BENCH_SLOW_MS=$(BENCH_SLOW_MS) CHROMIUM=$(CHROMIUM) \
		BENCH_COMMAND="make bench-geo BENCH_GEO_REPS=$(BENCH_GEO_REPS) BENCH_GEO_FILES=$(BENCH_GEO_FILES)" $(NODE) e2e/bench/geo.js
