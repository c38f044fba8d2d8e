package medinquire

import (
	_ "embed"
)

// Protocol is EvoClinician's setting on Med-Inquire with its ablations and
// baselines (EvoClinician §4).
//
//go:embed evoclinician.yaml
var Protocol []byte

// ArenaProtocol is EvoClinician's Tables 1 and 3 over the 915 DiagnosisArena
// cases in published order (EvoClinician §4).
//
//go:embed diagnosisarena.yaml
var ArenaProtocol []byte

// Specs are the two: the protocol on synthetic cases and on DiagnosisArena's.
func (Benchmark) Specs() map[string][]byte {
	return map[string][]byte{"evoclinician.yaml": Protocol, "diagnosisarena.yaml": ArenaProtocol}
}
