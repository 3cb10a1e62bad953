module github.com/pqscan/pqscan/internal/tools/wasmsize

go 1.26.8

require github.com/andybalholm/brotli v1.3.0
