package activities

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/clinevo/clinevo/fault"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/results"
)

// Temporal sees an activity's failure as an application error whose type is
// its fault class (fault.Class: unavailable, timeout, server_error,
// rate_limited and unknown are transient, unauthorized, invalid and schema
// permanent and non-retryable), with the dependency that failed as its one
// detail. The workflows wait out the transient ones (workflows.waiter).

// badInput is an input that can never succeed: a malformed spec, a missing
// corpus or case, a stored value that contradicts the turn asked for.
func badInput(err error) error {
	return temporalError(fault.New("input", fault.Invalid, err))
}

// temporalError maps a failure onto Temporal's retry semantics by its fault
// class (fault.Of: the tags of the model client, the stores and the memory
// banks, else the standard library's network errors, else unknown). An
// application error made already (badInput) is kept. The message is the
// whole error's; the error chain itself is not sent along as the cause, which
// Temporal would print again, link by link, after the message.
func temporalError(err error) error {
	var ae *temporal.ApplicationError
	if err == nil || errors.As(err, &ae) {
		return err
	}
	f := fault.Of(err)
	dep := f.Dependency
	if dep == "" {
		dep = "unknown"
	}
	msg := clipFailure(err.Error())
	if !f.Class.Transient() {
		return temporal.NewNonRetryableApplicationError(msg, string(f.Class), nil, dep)
	}
	return temporal.NewApplicationErrorWithOptions(msg, string(f.Class), temporal.ApplicationErrorOptions{
		Details: []any{dep}, NextRetryDelay: f.RetryAfter})
}

// MaxFailure bounds the message of an activity's failure, which Temporal
// keeps in the workflow's history (and once for every attempt it shows):
// an endpoint's error body or a store's message may be any size, and a
// history's payloads must stay far from Temporal's 2 MiB limit (clinevo's
// own choice: room for any message a person reads).
const MaxFailure = 8 << 10

// clipFailure keeps the first MaxFailure bytes of a failure's message, on
// a character boundary, and says how much it left out.
func clipFailure(msg string) string {
	if len(msg) <= MaxFailure {
		return msg
	}
	cut := MaxFailure
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (%d more bytes left out)", msg[:cut], len(msg)-cut)
}

// classified is deferred by every activity: its error leaves the activity
// as temporalError made it.
func classified(err *error) { *err = temporalError(*err) }

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
			CompletionTokens: u.CompletionTokens, CostUSD: u.CostUSD, CacheHits: u.CacheHits, ExtraFields: u.ExtraFields,
			CachedTokens: u.CachedTokens, Endpoint: u.Endpoint, RateLimited: u.RateLimited, WaitedMS: u.WaitedMS, Limit: u.Limit, LimitAt: u.LimitAt,
			ServedModels: u.ServedModels, Fingerprints: u.Fingerprints},
			role); aerr != nil && err == nil {
			err = aerr
		}
	}
	return err
}
