package gpagent

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/settings"
)

// Episode are the benchmark's own episode keys (settings episode.actions,
// episode.workflow_penalty, episode.timeout_penalty), kept inline in
// settings.Episode.Ext.
type Episode struct {
	// Actions restricts the action set by name (the action-space ablation,
	// §5.1 and Figure 3); empty means all six.
	Actions []string `json:"actions"`
	// WorkflowPenalty is c_workflow, charged for a masked action attempted,
	// and TimeoutPenalty c_timeout, charged when no terminal action comes
	// within the turn limit (§4.2, appendix C.6). The paper names both costs
	// but gives no value: 5 each is clinevo's choice.
	WorkflowPenalty float64 `json:"workflow_penalty"`
	TimeoutPenalty  float64 `json:"timeout_penalty"`
}

// defaults are the keys' defaults: all six actions, c_workflow 5 and
// c_timeout 5 (clinevo's choice, see Episode).
var defaults = Episode{WorkflowPenalty: 5, TimeoutPenalty: 5}

var _ bench.EpisodeSettings = Benchmark{}

// EpisodeDefaults are the keys with their defaults.
func (Benchmark) EpisodeDefaults() any { return defaults }

// EpisodeOf reads the benchmark's episode keys of s over their defaults; the
// error names the key.
func EpisodeOf(s settings.Settings) (Episode, error) {
	e := defaults
	if err := s.Episode.Decode(&e); err != nil {
		return Episode{}, err
	}
	return e, nil
}

// ActionNames are the six actions by the names of the paper's action format
// (appendix C.1) and of episode.actions, in the order its prompt lists them.
var ActionNames = func() []string {
	out := make([]string, len(Actions))
	for i, a := range Actions {
		out[i] = ActionName(a)
	}
	return out
}()

// minimalActions is the smallest action set of the action-space ablation
// (§5.1, Figure 3): diagnose, then treat.
var minimalActions = []string{ActionName(Diagnose), ActionName(Treat)}

// validate checks the keys: episode.actions is a subset of the six that
// holds diagnose and treat, each once; the penalties are not negative.
func (e Episode) validate() error {
	if e.WorkflowPenalty < 0 || e.TimeoutPenalty < 0 {
		return fmt.Errorf("episode.workflow_penalty and episode.timeout_penalty must not be negative")
	}
	if len(e.Actions) == 0 {
		return nil
	}
	for i, a := range e.Actions {
		if !slices.Contains(ActionNames, a) {
			return fmt.Errorf("episode.actions[%d] %q, want one of %s", i, a, strings.Join(ActionNames, ", "))
		}
		if slices.Index(e.Actions, a) != i {
			return fmt.Errorf("episode.actions[%d] %q is listed twice", i, a)
		}
	}
	for _, a := range minimalActions {
		if !slices.Contains(e.Actions, a) {
			return fmt.Errorf("episode.actions must hold %s: the smallest action set is {%s}", a, strings.Join(minimalActions, ", "))
		}
	}
	return nil
}
