package gpagent

import (
	_ "embed"
)

// Experiment is GPAgentBench's environment on the GP corpus: the stream
// without and with memory, the action-space ablation A2–A6 on the held-out
// cases with the stream's memory frozen (§5.1, Figure 3), and H0.
//
//go:embed gpagentbench.yaml
var Experiment []byte

// Specs are the one.
func (Benchmark) Specs() map[string][]byte { return map[string][]byte{"gpagentbench.yaml": Experiment} }
