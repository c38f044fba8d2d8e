package sdbench

import (
	_ "embed"
)

// Experiment is SDBench's comparison on the synthetic corpus: MAI-DxO's
// variants on the same cases, the panel, memory (score only, and an
// answer-key oracle), and the held-out conditions.
//
//go:embed sdbench.yaml
var Experiment []byte

// ArenaExperiment is the same comparison on DiagnosisArena's published
// cases (arena.go), its held-out split the release's latest.
//
//go:embed sdbench-arena.yaml
var ArenaExperiment []byte

// Specs are the two.
func (Benchmark) Specs() map[string][]byte {
	return map[string][]byte{"sdbench.yaml": Experiment, "sdbench-arena.yaml": ArenaExperiment}
}
