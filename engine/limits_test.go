package engine_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/llm/llmtest"
	"github.com/clinevo/clinevo/runstatus"
)

// TestStreamRecordsLimiterFigures (issue 26): the endpoint limiter's figures
// reach the results store through a real stream: the doctor's first request
// is answered 429 with a Retry-After, the decision is retried once the
// Retry-After has passed, and the run's usage holds the 429, the wait and the
// endpoint's limit, which `stream status` reads (runstatus.Endpoints).
func TestStreamRecordsLimiterFigures(t *testing.T) {
	srv := llmtest.New(t)
	srv.Script = func(i int, _ llmtest.Request) *llmtest.Reply {
		if i == 0 {
			return &llmtest.Reply{Status: 429, Content: "slow down", Header: map[string]string{"Retry-After": "1"}}
		}
		return nil
	}
	spec := contract.StreamSpec{RunID: "limits", Corpus: "builtin:stream", Limit: 4, StageSize: 4, ActivityTimeoutSeconds: 20,
		Settings: enginetest.ModelSettings(srv, "", "doctor")}
	env := enginetest.StartWith(t, quietLogger{})
	require.Equal(t, 4, runStream(t, env, spec).Episodes)

	ctx := context.Background()
	recs, err := env.Engine.Results.Records(ctx, "limits")
	require.NoError(t, err)
	require.Equal(t, 1, recs[0].Usage["doctor"].RateLimited, "the first episode's doctor met the 429")
	u, err := env.Engine.Results.RunUsage(ctx, "limits")
	require.NoError(t, err)
	eps := runstatus.Endpoints(u)
	require.Len(t, eps, 1)
	e := eps[0]
	require.Equal(t, []string{"doctor"}, e.Roles)
	require.Contains(t, e.Endpoint, srv.URL)
	require.Contains(t, e.Endpoint, "fake-doctor")
	require.Equal(t, 1, e.RateLimited)
	require.Equal(t, len(srv.Requests())-1, e.Calls, "every other request was answered")
	// The 429 halved the limit from the ceiling (concurrency 4) to 2; every
	// success adds 1/limit, so the many answers after it bring it back to 4.
	require.Equal(t, 4, e.Limit)
	require.False(t, e.LimitAt.IsZero())
}
