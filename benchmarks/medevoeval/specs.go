package medevoeval

import (
	_ "embed"
)

// Protocol is the MedEvoEval protocol: E0–E3, H0/H3, the update intervals,
// the ablations and the retention replays (MedEvoEval §4–5, appendix D).
//
//go:embed medevoeval.yaml
var Protocol []byte

// ModelComparison compares doctor models (MedEvoEval §5.1); it needs model
// endpoints.
//
//go:embed model-comparison.yaml
var ModelComparison []byte

// Textbook plays E0/E1 and H0/H1 with the textbook doctor (actor/textbook),
// which learns rather than copies the key.
//
//go:embed textbook.yaml
var Textbook []byte

// Specs are the three.
func (Benchmark) Specs() map[string][]byte {
	return map[string][]byte{"medevoeval.yaml": Protocol, "model-comparison.yaml": ModelComparison, "textbook.yaml": Textbook}
}
