package medinquire

import (
	_ "embed"
)

// Protocol is EvoClinician's setting on Med-Inquire with its ablations and
// baselines (EvoClinician §4).
//
//go:embed evoclinician.yaml
var Protocol []byte

// Specs is the one.
func (Benchmark) Specs() map[string][]byte { return map[string][]byte{"evoclinician.yaml": Protocol} }
