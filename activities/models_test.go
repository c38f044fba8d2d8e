package activities

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/clinevo/clinevo/llm"
)

func TestModelErrorsMapToRetrySemantics(t *testing.T) {
	tests := []struct {
		in           *llm.Error
		nonRetryable bool
		delay        time.Duration
		typ          string
	}{
		{&llm.Error{Kind: llm.RateLimited, Status: 429, RetryAfter: 7 * time.Second}, false, 7 * time.Second, ErrRateLimited},
		{&llm.Error{Kind: llm.Transient, Status: 503}, false, 0, ErrModelTransit},
		{&llm.Error{Kind: llm.Fatal, Status: 401}, true, 0, ErrModelFatal},
	}
	for _, tc := range tests {
		t.Run(string(tc.in.Kind), func(t *testing.T) {
			var ae *temporal.ApplicationError
			require.True(t, errors.As(modelError(tc.in), &ae))
			require.Equal(t, tc.nonRetryable, ae.NonRetryable())
			require.Equal(t, tc.delay, ae.NextRetryDelay())
			require.Equal(t, tc.typ, ae.Type())
		})
	}
	plain := errors.New("disk full")
	require.Equal(t, plain, modelError(plain), "other errors pass through and are retried")
}
