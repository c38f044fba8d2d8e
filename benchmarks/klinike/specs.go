package klinike

import (
	_ "embed"
)

// Protocol is the KlinikeBench protocol with the built-in roles: learning
// streams on the train split, three doctors on the test split, the step caps
// and the chart mode (KlinikeBench §2.2, §3.5, §4).
//
//go:embed klinikebench.yaml
var Protocol []byte

// Models substitutes model doctors and patients (KlinikeBench §4.1); it
// needs model endpoints.
//
//go:embed klinikebench-models.yaml
var Models []byte

// Specs are the two.
func (Benchmark) Specs() map[string][]byte {
	return map[string][]byte{"klinikebench.yaml": Protocol, "klinikebench-models.yaml": Models}
}
