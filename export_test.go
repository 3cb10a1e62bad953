package pqscan

// UnitMinBytes lets external tests split small files into units.
var UnitMinBytes = &unitMinBytes
