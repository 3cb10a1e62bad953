# Benchmarks on the generated events table (internal/events, bench/).
#
#   make bench-go            lower-bound report on the 4M-row files (sorted, small-rg, unsorted),
#                            then BenchmarkDecode (pqscan vs arrow-go) with a CPU profile.
#   make bench-events        only generate the files.
#
# Files are generated once into $(BENCH_DIR) (gitignored via /.cache/) and reused: their names
# carry the generator version, layout, rows and row group size.
# Knobs: BENCH_ROWS (default 4000000), DECODE_ROWS (default 500000), BENCH_TIME (go test
# -benchtime, default 5x), BENCH_COUNT (default 1).

BENCH_DIR   ?= .cache/events
BENCH_ROWS  ?= 4000000
DECODE_ROWS ?= 500000
BENCH_TIME  ?= 5x
BENCH_COUNT ?= 1

.PHONY: bench-go bench-events bench-lowerbound bench-decode

bench-go: bench-lowerbound bench-decode

bench-events:
	$(GO) run ./bench/cmd/lowerbound -rows $(BENCH_ROWS) -dir $(BENCH_DIR) -gen-only

bench-lowerbound:
	$(GO) run ./bench/cmd/lowerbound -rows $(BENCH_ROWS) -dir $(BENCH_DIR)

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
