package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/internal/benchsize"
	"github.com/clinevo/clinevo/llm/llmtest"
	"github.com/clinevo/clinevo/runstatus"
)

// TestStreamRecordsLimiterFigures (issue 26): the endpoint limiter's figures
// reach the results store through a real stream: the doctor's first request
// is answered 429 with a Retry-After, the decision is retried once the
// Retry-After has passed, and the run's usage holds the 429, the wait and the
// endpoint's limit, which `stream status` reads (runstatus.Endpoints).
func TestStreamRecordsLimiterFigures(t *testing.T) {
	t.Parallel() // see TestMain
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

// BenchmarkRateLimitedTemporalStream (issue 26's rate-limit acceptance) plays
// a real 40-episode stream on the embedded Temporal server with a model
// doctor against a fake that answers at most 60 requests a window and 429
// beyond it, with roles.doctor.rpm set to the provider's limit (rpm=60) and
// with the adaptive limit alone (rpm=0). Time is scaled: the window is 5
// seconds, not a minute (Options.RateWindow on both sides), so the stream
// takes seconds; at a one-second window the stream's own pace (about 10
// episodes a second here) stays under the limit and nothing is measured. It
// reports the share of requests answered 429 and the stream's time over the
// time the limit allows (requests / 60 windows). At benchsize.Small the
// stream is 4 episodes (under one window's limit: it runs, it measures
// nothing).
func BenchmarkRateLimitedTemporalStream(b *testing.B) {
	const window = 5 * time.Second
	episodes := benchsize.Pick(40, 4)
	for _, rpm := range []int{60, 0} {
		b.Run(fmt.Sprintf("rpm=%d", rpm), func(b *testing.B) {
			var requests, limited int
			var took time.Duration
			for i := range b.N {
				srv := llmtest.New(b)
				srv.SetRateLimit(60, window)
				s := enginetest.ModelSettings(srv, "", "doctor")
				doctor := s.Roles["doctor"]
				doctor.RPM = rpm
				s.Roles["doctor"] = doctor
				env := enginetest.StartSetup(b, enginetest.Setup{Logger: quietLogger{}, RateWindow: window})
				spec := contract.StreamSpec{RunID: fmt.Sprintf("rl%d-%d", rpm, i), Corpus: "builtin:stream", Limit: episodes, StageSize: episodes / 2,
					ActivityTimeoutSeconds: 60, Settings: s}
				start := time.Now()
				if got := runStream(b, env, spec).Episodes; got != episodes {
					b.Fatalf("%d episodes, want %d", got, episodes)
				}
				took += time.Since(start)
				requests += len(srv.Requests())
				limited += srv.RateLimited()
			}
			allowed := time.Duration(float64(requests) / 60 * float64(window))
			b.ReportMetric(float64(limited)/float64(requests), "429/request")
			b.ReportMetric(took.Seconds()/allowed.Seconds(), "time/allowed")
			b.ReportMetric(float64(requests)/float64(b.N), "requests/stream")
		})
	}
}
