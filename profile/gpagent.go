package profile

import (
	"context"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/profile/gpagent"
	"github.com/clinevo/clinevo/settings"
)

// GPAgent is GPAgentBench's primary-care environment (§4, package gpagent):
// six actions under a workflow mask, manage-or-refer terminal outcomes, and
// Dx, Tx, management, Miss-Refer, Miss-GP and the diagnostic cost in USD.
type GPAgent struct{}

func init() { register(GPAgent{}) }

// Name is "gpagent".
func (GPAgent) Name() string { return settings.GPAgent }

// Start begins or rebuilds an episode.
func (GPAgent) Start(c clinic.Case, s settings.Settings, roles episode.Roles, events []clinic.Event) episode.Env {
	return gpagent.Start(c, s, roles, events)
}

// Score is gpagent.Score; a judge that is not a grader.GPJudge (or none) is
// the built-in rubric.
func (GPAgent) Score(ctx context.Context, c *clinic.Case, s settings.Settings, env episode.Env, judge grader.Judge) (clinic.Scores, error) {
	gj, _ := judge.(grader.GPJudge) // nil: gpagent.Score takes the rubric
	return gpagent.Score(ctx, c, s, env, gj)
}
