package settings

import (
	"fmt"
	"slices"
	"strings"
)

// GPAgentActions are GPAgentBench's six actions by the names of its action
// format (appendix C.1), in the order its prompt lists them.
var GPAgentActions = []string{"ask", "body_exam", "test", "diagnose", "refer", "treat"}

// gpAgentMinimalActions is the smallest action set of the action-space
// ablation (GPAgentBench §5.1, Figure 3): diagnose, then treat.
var gpAgentMinimalActions = []string{"diagnose", "treat"}

// validateActions checks episode.actions, which only the gpagent profile
// reads: it takes a subset of its six actions that holds diagnose and
// treat, each once.
func (e Episode) validateActions(profile string) error {
	if len(e.Actions) == 0 {
		return nil
	}
	if profile != GPAgent {
		// Only GPAgentBench ablates its action space; elsewhere the key would be ignored.
		return fmt.Errorf("episode.actions applies to the gpagent profile only (profile is %s)", profile)
	}
	for i, a := range e.Actions {
		if !slices.Contains(GPAgentActions, a) {
			return fmt.Errorf("episode.actions[%d] %q, want one of %s", i, a, strings.Join(GPAgentActions, ", "))
		}
		if slices.Index(e.Actions, a) != i {
			return fmt.Errorf("episode.actions[%d] %q is listed twice", i, a)
		}
	}
	for _, a := range gpAgentMinimalActions {
		if !slices.Contains(e.Actions, a) {
			return fmt.Errorf("episode.actions must hold %s: the smallest action set is {%s}", a, strings.Join(gpAgentMinimalActions, ", "))
		}
	}
	return nil
}
