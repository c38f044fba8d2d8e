package ddxplus

import (
	_ "embed"

	"github.com/clinevo/clinevo/experiments"
)

// Protocol is StreamBench's streaming baselines on DDXPlus (Wu et al. 2024,
// §4.1), with two interactive conditions beside them.
//
//go:embed streambench.yaml
var Protocol []byte

var _ experiments.Specs = Benchmark{}

// Specs is the one.
func (Benchmark) Specs() map[string][]byte { return map[string][]byte{"streambench.yaml": Protocol} }
