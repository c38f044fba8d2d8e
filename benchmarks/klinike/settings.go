package klinike

import (
	"fmt"

	"github.com/clinevo/clinevo/settings"
)

// Budget is KlinikeBench's part of the episode settings: its two keys under
// episode, with the paper's defaults.
type Budget struct {
	// MaxSteps are the agent steps, tool calls included (KlinikeBench §2.2:
	// the agent gathers information "within 32 turns, including tool calls");
	// 0 means no cap.
	MaxSteps int `json:"max_steps"`
	// MaxPatientTurns are the questions the patient answers (KlinikeBench
	// appendix D.3, Table 8: "the ten-patient-turn limit"); 0 means no cap.
	MaxPatientTurns int `json:"max_patient_turns"`
}

// Defaults are the paper's budgets: 32 steps and 10 patient turns.
func Defaults() Budget { return Budget{MaxSteps: 32, MaxPatientTurns: 10} }

// BudgetOf reads a run's budgets over the defaults.
func BudgetOf(s settings.Settings) (Budget, error) {
	b := Defaults()
	if err := s.Episode.Decode(&b); err != nil {
		return Budget{}, err
	}
	return b, nil
}

// EpisodeDefaults are the keys episode.max_steps and episode.max_patient_turns.
func (Benchmark) EpisodeDefaults() any { return Defaults() }

// The budgets' ranges. The upper bounds are clinevo's choice (the paper's
// budgets are 32 and 10): the bound of episode.max_turns, so that a typo of a
// few zeros is refused instead of playing an episode for ever.
var (
	MaxStepsRange        = settings.Range{Min: 0, Max: 1000, Zero: fmt.Sprintf("no cap, %d steps", Uncapped)}
	MaxPatientTurnsRange = settings.Range{Min: 0, Max: 1000, Zero: "no cap"}
)

// Validate checks the budgets: whole numbers in their ranges.
func (Benchmark) Validate(s settings.Settings) error {
	b, err := BudgetOf(s)
	if err != nil {
		return err
	}
	if err := MaxStepsRange.Check("episode.max_steps", b.MaxSteps); err != nil {
		return err
	}
	return MaxPatientTurnsRange.Check("episode.max_patient_turns", b.MaxPatientTurns)
}
