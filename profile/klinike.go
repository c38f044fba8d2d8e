package profile

import (
	"context"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/profile/klinike"
	"github.com/clinevo/clinevo/settings"
)

// Klinike is KlinikeBench's environment (§2.2, appendix B): patient turns and
// a tool sandbox under a step budget, scored by the gates D, W, A and H and
// strict pass@1 (package klinike).
type Klinike struct{}

func init() { register(Klinike{}) }

// Name is "klinike".
func (Klinike) Name() string { return settings.Klinike }

// Start begins or rebuilds an encounter.
func (Klinike) Start(c clinic.Case, s settings.Settings, roles episode.Roles, events []clinic.Event) episode.Env {
	return klinike.Restore(c, s, roles, events)
}

// Score computes the four gates and strict success.
func (Klinike) Score(ctx context.Context, c *clinic.Case, s settings.Settings, env episode.Env, judge grader.Judge) (clinic.Scores, error) {
	final, _ := env.Final()
	return klinike.Score(ctx, c, s, env.Events(), final, judge)
}

// Rescore judges must-ask coverage again and keeps the other gates
// (KlinikeBench §4.1).
func (Klinike) Rescore(ctx context.Context, c *clinic.Case, s settings.Settings, env episode.Env, old clinic.Scores, judge grader.Judge) (clinic.Scores, error) {
	return klinike.Rescore(ctx, c, s, env.Events(), old, judge)
}
