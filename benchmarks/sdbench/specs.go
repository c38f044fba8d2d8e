package sdbench

import (
	_ "embed"
)

// Experiment is SDBench's comparison: the single doctor against the panel,
// with and without memory, budgeted and not, and the held-out conditions.
//
//go:embed sdbench.yaml
var Experiment []byte

// Specs are the one.
func (Benchmark) Specs() map[string][]byte { return map[string][]byte{"sdbench.yaml": Experiment} }
