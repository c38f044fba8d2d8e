package enginetest

import (
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
)

// WrapRoles is a StartWith option that hands every run's roles to wrap
// after the engine built them, with the grader and the evolver resolved as
// the runner resolves them (runner.Deps.Grader and Deps.Evolver: the run's
// benchmark's built-in ones where the roles have none), so a test can wrap
// the learners a run really uses, for instance to record their inputs.
func WrapRoles(wrap func(*runner.Roles)) func(*engine.Engine) {
	return func(e *engine.Engine) {
		roles := e.Activities.Roles
		e.Activities.Roles = func(s settings.Settings) (runner.Roles, error) {
			r, err := roles(s)
			if err != nil {
				return r, err
			}
			b, err := e.Benchmarks.Of(s)
			if err != nil {
				return r, err
			}
			d := runner.Deps{Bench: b, Roles: r}
			if r.Grader, err = d.Grader(); err != nil {
				return r, err
			}
			if r.Evolver, err = d.Evolver(); err != nil {
				return r, err
			}
			wrap(&r)
			return r, nil
		}
	}
}
