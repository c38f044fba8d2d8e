package sdbench

import (
	_ "embed"

	"github.com/clinevo/clinevo/experiments"
)

// Experiment is SDBench's comparison: the single doctor against the panel,
// with and without memory, budgeted and not, and the held-out conditions.
//
//go:embed sdbench.yaml
var Experiment []byte

var _ experiments.Specs = Benchmark{}

// Specs are the one.
func (Benchmark) Specs() map[string][]byte { return map[string][]byte{"sdbench.yaml": Experiment} }
