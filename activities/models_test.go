package activities

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/clinevo/clinevo/fault"
	"github.com/clinevo/clinevo/llm"
)

// TestFailuresMapToRetrySemantics: a failure leaves an activity as an
// application error whose type is its fault class and whose detail is the
// dependency; permanent classes are non-retryable, a rate limit carries the
// delay the dependency asked for, and an error made already is kept.
func TestFailuresMapToRetrySemantics(t *testing.T) {
	refused := fmt.Errorf("results: put decision x/1: %w", &fault.Error{Dependency: "results/postgres", Class: fault.Unavailable, Err: errors.New("connection refused")})
	tests := []struct {
		name         string
		in           error
		nonRetryable bool
		delay        time.Duration
		typ, dep     string
	}{
		{"a rate limit", &fault.Error{Dependency: "model roles.doctor", Class: fault.RateLimited, RetryAfter: 7 * time.Second, Err: &llm.Error{Role: "doctor", Status: 429}},
			false, 7 * time.Second, "rate_limited", "model roles.doctor"},
		{"a server error", fault.New("model roles.judge", fault.ServerError, &llm.Error{Role: "judge", Status: 503}), false, 0, "server_error", "model roles.judge"},
		{"a refused key", fault.Permanent("model roles.doctor", fault.Unauthorized, "set a valid key", &llm.Error{Role: "doctor", Status: 401}), true, 0, "unauthorized", "model roles.doctor"},
		{"a database down, wrapped", refused, false, 0, "unavailable", "results/postgres"},
		{"bad input", badInput(errors.New("case x is not in corpus y")), true, 0, "invalid", "input"},
		{"an unclassified error", errors.New("disk full"), false, 0, "unknown", "unknown"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ae *temporal.ApplicationError
			require.True(t, errors.As(temporalError(tc.in), &ae))
			require.Equal(t, tc.nonRetryable, ae.NonRetryable())
			require.Equal(t, tc.delay, ae.NextRetryDelay())
			require.Equal(t, tc.typ, ae.Type())
			var dep string
			require.NoError(t, ae.Details(&dep))
			require.Equal(t, tc.dep, dep)
		})
	}
	made := badInput(errors.New("x"))
	require.Same(t, made, temporalError(made), "an application error is kept")
	require.NoError(t, temporalError(nil))
}
