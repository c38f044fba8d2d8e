package activities

import (
	"context"
	"errors"
	"strings"

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
		if fallback, ok := strings.CutSuffix(role, "_fallback"); ok {
			activity.GetLogger(ctx).Warn("model reply unusable after repair: built-in fallback used", "role", fallback, "episode", episodeID)
		}
		if aerr := a.Results.AddUsage(ctx, episodeID, results.Usage{Model: u.Model, Calls: u.Calls, PromptTokens: u.PromptTokens,
			CompletionTokens: u.CompletionTokens, CostUSD: u.CostUSD, CacheHits: u.CacheHits, ExtraFields: u.ExtraFields}, role); aerr != nil && err == nil {
			err = aerr
		}
	}
	if err != nil {
		var e *llm.Error
		if errors.As(err, &e) && activity.IsActivity(ctx) {
			activity.GetLogger(ctx).Warn("model call failed", "role", e.Role, "class", string(e.Kind), "status", e.Status,
				"retry_after", e.RetryAfter.String(), "attempt", activity.GetInfo(ctx).Attempt, "episode", episodeID)
		}
		return modelError(err)
	}
	return nil
}
