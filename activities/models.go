package activities

import (
	"context"
	"errors"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/results"
)

// Error types of model failures, as Temporal sees them.
const (
	ErrModelFatal   = "ModelFatal"  // 400, 401, context length: not retried
	ErrRateLimited  = "RateLimited" // 429: retried after Retry-After
	ErrModelTransit = "ModelTransient"
)

// modelError maps a model failure onto Temporal's retry semantics: a 429
// retries after the server's Retry-After, 5xx and timeouts retry with the
// activity's backoff, 400/401 and context-length errors are not retried.
func modelError(err error) error {
	var e *llm.Error
	if !errors.As(err, &e) {
		return err
	}
	switch e.Kind {
	case llm.Fatal:
		return temporal.NewNonRetryableApplicationError(e.Error(), ErrModelFatal, err)
	case llm.RateLimited:
		return temporal.NewApplicationErrorWithOptions(e.Error(), ErrRateLimited, temporal.ApplicationErrorOptions{NextRetryDelay: e.RetryAfter, Cause: err})
	}
	return temporal.NewApplicationErrorWithOptions(e.Error(), ErrModelTransit, temporal.ApplicationErrorOptions{Cause: err})
}

// metered runs fn with a usage meter and adds what it spent to the episode's
// account, also when fn fails (a failed call was still paid for).
func (a *Activities) metered(ctx context.Context, episodeID string, fn func(context.Context) error) error {
	var t llm.Tally
	err := fn(llm.WithMeter(ctx, &t))
	for role, u := range t.ByRole() {
		if aerr := a.Results.AddUsage(ctx, episodeID, results.Usage{Calls: u.Calls, PromptTokens: u.PromptTokens,
			CompletionTokens: u.CompletionTokens, CostUSD: u.CostUSD, CacheHits: u.CacheHits, ExtraFields: u.ExtraFields}, role); aerr != nil && err == nil {
			err = aerr
		}
	}
	if err != nil {
		return modelError(err)
	}
	return nil
}

// logRoles writes the roles of this worker into the activity log of a run.
func (a *Activities) logRoles(ctx context.Context, run string) {
	for _, line := range a.RoleInfo {
		activity.GetLogger(ctx).Info("role", "run", run, "setting", line)
	}
}
