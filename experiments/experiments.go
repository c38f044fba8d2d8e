// Package experiments ships the experiment specs: quick.yaml (the demo) and
// medevoeval.yaml (the MedEvoEval protocol shape), embedded in the binary.
package experiments

import _ "embed"

// Quick is the demo's experiment.
//
//go:embed quick.yaml
var Quick []byte

// MedEvoEval is the full protocol.
//
//go:embed medevoeval.yaml
var MedEvoEval []byte
