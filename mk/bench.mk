# Benchmarks on the generated events table (internal/events, bench/).
#
#   make bench-go            lower-bound report on the 4M-row files (sorted, small-rg, unsorted),
#                            then BenchmarkDecode (pqscan vs arrow-go) with a CPU profile, then
#                            BenchmarkInPage (filtered all-column scans, whole pages vs skipped runs).
#   make bench-dataset       the dataset workload (bench/cmd/dataset): a month partitioned by
#                            day (124 files) over HTTP with ListObjectsV2 against the same rows
#                            as one file; part of bench-go.
#   make bench-iceberg       a generated 100-file Iceberg table over HTTP: the requests and
#                            round trips of a one-partition query; part of bench-go.
#   make bench-events        only generate the files.
#   make bench-wasm          the same scans natively, in wazero and in V8 (node, the JS bridge
#                            with its C zstd decoder), interleaved,
#                            with the ratios (bench/cmd/wasmspeed; WASM_ENGINES; each
#                            engine warms up for 1.5 s of scans first, its steady state is what
#                            the ratios compare; WASM_ENGINES=...,chromium adds a headless
#                            Chromium page, not in the defaults: it disturbs the others).
#
# Files are generated once into $(BENCH_DIR) (gitignored via /.cache/) and reused: their names
# carry the generator version, layout, rows and row group size.
# Knobs: BENCH_ROWS (default 4000000), DECODE_ROWS (default 500000), BENCH_TIME (go test
# -benchtime, default 5x), BENCH_COUNT (default 1), MONTH_ROWS (rows of the month dataset,
# default 1500000, ~30 s to generate), MONTH_PARTS (files per day, default 4).

BENCH_DIR   ?= .cache/events
BENCH_ROWS  ?= 4000000
DECODE_ROWS ?= 500000
BENCH_TIME  ?= 5x
BENCH_COUNT ?= 1
MONTH_ROWS  ?= 1500000
MONTH_PARTS ?= 4

WASM_REPS   ?= 3
WASM_SHAPES ?= value,all,payload
WASM_ENGINES ?= native,wazero,v8

.PHONY: bench-go bench-events bench-lowerbound bench-decode bench-dataset bench-wasm bench-inpage bench-iceberg

bench-go: bench-lowerbound bench-dataset bench-decode bench-inpage bench-iceberg

bench-events:
	$(GO) run ./bench/cmd/lowerbound -rows $(BENCH_ROWS) -dir $(BENCH_DIR) -gen-only

bench-lowerbound:
	$(GO) run ./bench/cmd/lowerbound -rows $(BENCH_ROWS) -dir $(BENCH_DIR)

bench-dataset:
	$(GO) run ./bench/cmd/dataset -rows $(MONTH_ROWS) -parts $(MONTH_PARTS) -dir $(BENCH_DIR)

# A generated Iceberg table (100 files, 10 partitions) over HTTP with 20 ms per answer: the
# requests and round trips of its open and of a one-partition query (needs PQSCAN_TESTDATA).
bench-iceberg:
	$(GO) test ./bench -run '^$$' -bench '^BenchmarkIceberg$$' -benchtime 3x

# BenchmarkDecode prints both throughputs and their ratio; then pqscan alone is profiled
# (a profile of both would mix arrow-go's hot spots in).
bench-decode:
	mkdir -p bin
	PQSCAN_BENCH_DIR=$(abspath $(BENCH_DIR)) PQSCAN_DECODE_ROWS=$(DECODE_ROWS) \
		$(GO) test ./bench -run '^$$' -bench '^BenchmarkDecode$$' -benchtime $(BENCH_TIME) \
		-count $(BENCH_COUNT) -benchmem
	PQSCAN_BENCH_DIR=$(abspath $(BENCH_DIR)) PQSCAN_DECODE_ROWS=$(DECODE_ROWS) \
		$(GO) test ./bench -run '^$$' -bench '^BenchmarkDecode/pqscan$$' -benchtime $(BENCH_TIME) \
		-cpuprofile bin/pqscan-decode.cpu.prof -o bin/bench.test
	$(GO) tool pprof -top -nodecount 25 bin/bench.test bin/pqscan-decode.cpu.prof

# Late materialization inside pages: CPU time of filtered scans of every
# column of the unsorted file, decoding whole pages vs skipping runs of filtered rows, with
# the ratio and a check that both return the same bytes (the file comes from bench-lowerbound).
bench-inpage:
	PQSCAN_BENCH_DIR=$(abspath $(BENCH_DIR)) PQSCAN_BENCH_ROWS=$(BENCH_ROWS) $(GO) test ./bench -run '^$$' -bench '^BenchmarkInPage$$' \
		-benchtime $(BENCH_TIME) -count $(BENCH_COUNT)

# Native vs wazero vs V8 on the sorted events file (all columns, `value`, `payload`), warm
# engines, interleaved; WASM_REPS repetitions. Node needs jsbridge's dependencies.
bench-wasm: $(WASM) js-deps
	$(GO) run ./bench/cmd/wasmspeed -dir $(BENCH_DIR) -rows $(BENCH_ROWS) -reps $(WASM_REPS) -shapes $(WASM_SHAPES) -engines $(WASM_ENGINES)
