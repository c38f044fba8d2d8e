package medevoeval

import (
	_ "embed"

	"github.com/clinevo/clinevo/experiments"
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

var _ experiments.Specs = Benchmark{}

// Specs are the two.
func (Benchmark) Specs() map[string][]byte {
	return map[string][]byte{"medevoeval.yaml": Protocol, "model-comparison.yaml": ModelComparison}
}
