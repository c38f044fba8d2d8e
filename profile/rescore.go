package profile

import (
	"context"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
)

// Rescorer is a profile that says what a judge substitution changes in a
// recorded episode's scores (KlinikeBench §4.1 judges must-ask coverage
// again and keeps the other gates).
type Rescorer interface {
	Rescore(ctx context.Context, c *clinic.Case, s settings.Settings, env episode.Env, old clinic.Scores, judge grader.Judge) (clinic.Scores, error)
}

// Rescore scores a recorded episode again under judge without replaying it:
// the profile's own rule where it has one, else its whole scoring.
func Rescore(ctx context.Context, p Profile, c *clinic.Case, s settings.Settings, env episode.Env, old clinic.Scores, judge grader.Judge) (clinic.Scores, error) {
	if r, ok := p.(Rescorer); ok {
		return r.Rescore(ctx, c, s, env, old, judge)
	}
	return p.Score(ctx, c, s, env, judge)
}
