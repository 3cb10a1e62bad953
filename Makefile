# pqscan build entry point. `make` builds everything; `make test` builds the wasm module first,
# because wazerohost embeds it (wazerohost/pqscan.wasm is gitignored, so nothing that compiles
# wazerohost works before `make wasm`).
#
# Extending: put extra rules in mk/*.mk (included below) and add their targets to TEST_HOOKS
# (run by `make test` after the Go tests), e.g. `TEST_HOOKS += test-js test-e2e`.

GO        ?= go
WASM      := wazerohost/pqscan.wasm
# The lean module: single files and the common codecs (-tags pqscan_lean: no table, Delta or
# Iceberg session, no BROTLI or GZIP decoder, no math/big), what a page loads first (jsbridge/src/module.js); the
# full one is loaded when a query needs it. wazero embeds the full module only.
WASM_LEAN := wazerohost/pqscan-lean.wasm
WASM_ENV  := GOOS=wasip1 GOARCH=wasm
# Inlining is switched off (-l) in the packages whose code is cold in the module: start-up,
# wire forms, errors, the Delta log, timestamps and decimals of literals, the footer's Thrift
# structures and page headers (once per file or page) and the Arrow schema's flatbuffers (once
# per file or page), deletion vectors
# (once per file) and the merging of a round's byte ranges (once per round). Inlined copies of
# their callees were ~55 KB of the brotli-compressed module (go1.26; BENCHMARKS.md, "Module
# size after the merges"); the hot loops (internal/scan, decode, encoding, prune, klauspost, runtime) keep
# it. Measured speed: BENCHMARKS.md "wazero and V8 against native" (no change beyond noise).
WASM_COLD  := encoding/json fmt reflect time math/big strconv internal/strconv \
	github.com/pqscan/pqscan/internal/dataset/... github.com/pqscan/pqscan/wasm \
	github.com/pqscan/pqscan/internal/errf github.com/pqscan/pqscan/internal/prune/exactnum \
	github.com/pqscan/pqscan/internal/avro github.com/pqscan/pqscan/internal/errkind encoding/base64 \
	github.com/pqscan/pqscan/internal/flatjson github.com/pqscan/pqscan/internal/jsonw github.com/pqscan/pqscan/internal/jsonv \
	github.com/pqscan/pqscan/internal/decode/format github.com/google/flatbuffers/go \
	github.com/pqscan/pqscan/internal/roaring github.com/pqscan/pqscan/internal/httprange \
	github.com/pqscan/pqscan/internal/tablescan github.com/pqscan/pqscan/internal/decode/thrift \
	github.com/pqscan/pqscan/internal/variant
# -buildvcs=false: the module's bytes do not depend on the commit. A stamped revision shifts
# every address of the data segment, and with it the code's constants: the brotli size then
# moved by ~4 KB from one commit to the next (1,497,654 B unstamped, 1,501,909 B stamped, same
# code), which made the size budget a coin toss.
WASM_FLAGS := -buildmode=c-shared -trimpath -buildvcs=false $(foreach p,$(WASM_COLD),-gcflags=$(p)=-l)
# Rebuild the module only when a Go file it is built from (including dependencies in the module
# cache), go.mod/go.sum or this Makefile (its WASM_FLAGS) changed: linking a wasm module takes tens of seconds on a shared box.
WASM_DEPS := $(shell $(WASM_ENV) $(GO) list -e -deps -f '{{range .GoFiles}}{{$$.Dir}}/{{.}} {{end}}' ./wasm 2>/dev/null) go.mod go.sum Makefile
WASM_LEAN_DEPS := $(shell $(WASM_ENV) $(GO) list -tags pqscan_lean -e -deps -f '{{range .GoFiles}}{{$$.Dir}}/{{.}} {{end}}' ./wasm 2>/dev/null) go.mod go.sum Makefile
TEST_HOOKS ?=

# Included here, before the rules, so that their TEST_HOOKS additions are in place when the
# `test` rule's prerequisites are expanded (make expands them as it reads the rule).
-include $(wildcard mk/*.mk)
.DEFAULT_GOAL := all

.PHONY: all wasm size test test-go build clean
all: wasm build

wasm: $(WASM) $(WASM_LEAN)

$(WASM): $(WASM_DEPS)
	$(WASM_ENV) $(GO) build $(WASM_FLAGS) -ldflags='-s -w' -o $@.tmp ./wasm
	mv $@.tmp $@

$(WASM_LEAN): $(WASM_LEAN_DEPS)
	$(WASM_ENV) $(GO) build -tags pqscan_lean $(WASM_FLAGS) -ldflags='-s -w' -o $@.tmp ./wasm
	mv $@.tmp $@

# size: raw, gzip -9 and brotli -q 11 bytes of the module, then code bytes per package from a
# build that keeps the name section (-s -w strips it; the code itself is identical). wasmsize is
# a module of its own (internal/tools/wasmsize/go.mod: its brotli encoder), run from its folder.
size: $(WASM) $(WASM_LEAN)
	$(WASM_ENV) $(GO) build $(WASM_FLAGS) -o bin/pqscan-names.wasm ./wasm
	cd internal/tools/wasmsize && $(GO) run . -pkg $(CURDIR)/wasm -names $(CURDIR)/bin/pqscan-names.wasm $(CURDIR)/$(WASM)
	@echo; echo "lean module ($(WASM_LEAN), -tags pqscan_lean):"
	$(WASM_ENV) $(GO) build -tags pqscan_lean $(WASM_FLAGS) -o bin/pqscan-lean-names.wasm ./wasm
	cd internal/tools/wasmsize && GOFLAGS=-tags=pqscan_lean $(GO) run . -pkg $(CURDIR)/wasm -names $(CURDIR)/bin/pqscan-lean-names.wasm $(CURDIR)/$(WASM_LEAN)

test: wasm test-go $(TEST_HOOKS)

# The lean module's wasm package is tested too (its own build tag: the options it leaves to the
# full module, its pool; about 6 s, most of it the build).
test-go: wasm
	$(GO) test ./...
	$(GO) test -tags pqscan_lean ./wasm

# build: the commands under cmd/ (bin/pqscan, the CLI, and the others), which may embed the
# module through wazerohost, hence the dependency.
build: wasm
	@if [ -d cmd ]; then \
		echo "$(GO) build -o bin/ ./cmd/..."; $(GO) build -o bin/ ./cmd/...; \
	else echo "build: no commands under cmd/ yet; nothing to build"; fi

clean:
	rm -rf $(WASM) $(WASM).tmp $(WASM_LEAN) $(WASM_LEAN).tmp bin/

