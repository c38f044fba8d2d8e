package results

import (
	"encoding/json"

	"github.com/clinevo/clinevo/contract"
)

// ConditionClaim finds, among described runs, the experiment that claims
// run as the run ID of one of its conditions (contract.ExperimentSpec
// ClaimsConditions): its name and the condition's. A recorded spec that
// does not decode claims nothing.
func ConditionClaim(runs []Run, run string) (experiment, condition string, ok bool) {
	for _, r := range runs {
		if r.Kind != string(contract.KindExperiment) {
			continue
		}
		var e contract.ExperimentSpec
		if json.Unmarshal(r.Spec, &e) != nil {
			continue
		}
		if c, found := e.ConditionOf(run); found {
			return e.Name, c.Name, true
		}
	}
	return "", "", false
}
