package pqscan

import "github.com/pqscan/pqscan/internal/splitscan"

// UnitMinBytes lets external tests split small files into units.
var UnitMinBytes = &splitscan.UnitMinBytes
