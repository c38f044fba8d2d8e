package llm_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/benchmarks/medevoeval"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus/synth"
	"github.com/clinevo/clinevo/fault"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/llm/llmtest"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
)

// TestLimiterAIMD: the limit starts at the ceiling, halves on every 429 or
// timeout down to 1, and grows by one a round of successful calls (1/limit a
// success) back up to the ceiling, never beyond; each change is in History.
func TestLimiterAIMD(t *testing.T) {
	ctx := context.Background()
	l := llm.NewLimiter("ep", 0, 0, time.Second)
	l.Join("doctor", 8, 0, 0)
	require.Equal(t, 8, l.Stats().Limit)
	call := func(o llm.Outcome) {
		require.NoError(t, l.Acquire(ctx, 0))
		l.Release(ctx, o, 0, 0)
	}
	call(llm.RateLimited) // 8 -> 4
	call(llm.TimedOut)    // 4 -> 2
	call(llm.RateLimited) // 2 -> 1
	call(llm.RateLimited) // stays 1
	require.Equal(t, 1, l.Stats().Limit)
	call(llm.Succeeded) // 1 + 1/1 = 2
	require.Equal(t, 2, l.Stats().Limit)
	call(llm.Succeeded) // 2.5
	call(llm.Succeeded) // 2.5 + 0.4 = 2.9
	require.Equal(t, 2, l.Stats().Limit)
	call(llm.Succeeded) // 2.9 + 1/2.9 = 3.24
	require.Equal(t, 3, l.Stats().Limit)
	call(llm.Failed) // another failure moves nothing
	require.Equal(t, 3, l.Stats().Limit)
	for range 100 {
		call(llm.Succeeded)
	}
	st := l.Stats()
	require.Equal(t, 8, st.Limit, "bounded by the ceiling")
	require.Equal(t, 3, st.RateLimited)
	require.Equal(t, 1, st.Timeouts)
	var limits []int
	for _, p := range st.History {
		limits = append(limits, p.Limit)
	}
	require.Equal(t, []int{8, 4, 2, 1, 2, 3, 4, 5, 6, 7, 8}, limits)

	// A second role on the endpoint adds its ceiling.
	l.Join("judge", 4, 0, 0)
	require.Equal(t, 12, l.Stats().Max)
	require.Equal(t, 12, l.Stats().Limit)
}

// TestLimiterHoldsCalls: no call starts while the limit is taken or a
// Retry-After holds the endpoint (counted by TryAcquire, no timing).
func TestLimiterHoldsCalls(t *testing.T) {
	ctx := context.Background()
	l := llm.NewLimiter("ep", 3, 0, time.Hour)
	l.Join("doctor", 2, 0, 0)
	require.True(t, l.TryAcquire(0))
	require.True(t, l.TryAcquire(0))
	require.False(t, l.TryAcquire(0), "two in flight: the ceiling")
	l.Release(ctx, llm.Succeeded, 0, 0)
	require.True(t, l.TryAcquire(0))
	l.Release(ctx, llm.Succeeded, 0, 0)
	l.Release(ctx, llm.Succeeded, 0, 0)
	require.False(t, l.TryAcquire(0), "three requests in the hour: the rpm window is full")

	held := llm.NewLimiter("ep2", 0, 0, 0)
	held.Join("doctor", 4, 0, 0)
	require.True(t, held.TryAcquire(0))
	held.Release(ctx, llm.RateLimited, time.Hour, 0)
	require.False(t, held.TryAcquire(0), "Retry-After holds every call")
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	require.ErrorIs(t, held.Acquire(cancelled, 0), context.Canceled)

	tpm := llm.NewLimiter("ep3", 0, 100, time.Hour)
	tpm.Join("doctor", 4, 0, 0)
	require.True(t, tpm.TryAcquire(60))
	tpm.Release(ctx, llm.Succeeded, 0, 70)
	require.False(t, tpm.TryAcquire(40), "70 of 100 tokens spent: 40 more would pass the limit")
	require.True(t, tpm.TryAcquire(30))
}

// retrying is a doctor whose rate-limited decisions are retried, as the
// workflow's waiter retries a rate-limited ActorDecide: the limiter holds
// the retry until the Retry-After has passed.
type retrying struct {
	actor.Doctor
	tries int
}

func (r *retrying) Decide(ctx context.Context, v clinic.DoctorView) (actor.Decision, error) {
	for {
		d, err := r.Doctor.Decide(ctx, v)
		var f *fault.Error
		if !errors.As(err, &f) || f.Class != fault.RateLimited || r.tries > 1000 {
			return d, err
		}
		r.tries++
	}
}

// rateLimitedStream plays episodes episodes of one stream, in order, with a
// model doctor on a fake that answers at most 60 requests a window (a
// minute scaled down) and 429 beyond; rpm is the doctor's roles.doctor.rpm
// (0: none, the adaptive limit and Retry-After alone). It returns the calls,
// the 429s and the time taken.
func rateLimitedStream(t testing.TB, episodes int, window time.Duration, rpm int) (calls, limited int, took time.Duration) {
	srv := llmtest.New(t)
	srv.SetRateLimit(60, window)
	c, err := llm.NewClient("doctor", settings.Role{Backend: settings.OpenAI, BaseURL: srv.BaseURL(), Model: "test-model", JSONMode: true,
		Timeout: settings.Duration(5 * time.Second), Concurrency: 4, RPM: rpm}, llm.Options{RateWindow: window})
	require.NoError(t, err)
	roles := runner.BuiltinRoles()
	doctor := &retrying{Doctor: llm.Doctor{C: c}}
	roles.Doctor = doctor
	d := runner.Deps{Bench: medevoeval.Benchmark{}, Roles: roles, Settings: settings.Default()}
	cases := synth.Generate(7)["stream"]
	start := time.Now()
	for i := range episodes {
		tr, err := runner.Play(context.Background(), cases[i%len(cases)], d, runner.Meta{RunID: "r", EpisodeID: fmt.Sprintf("e%d", i), Number: i + 1})
		require.NoError(t, err)
		require.Equal(t, clinic.EndFinalized, tr.Termination)
	}
	return len(srv.Requests()), srv.RateLimited(), time.Since(start)
}

// TestRateLimitedStream (issue 26): a 40-episode stream against a fake
// enforcing 60 requests a window finishes with fewer than 5% of its calls
// answered 429, with roles.doctor.rpm set to the provider's limit and with
// the adaptive limit alone. The window is scaled to a second (the stream
// plays about 150 calls a second unlimited on a loaded machine, so the limit
// binds) so that the test takes seconds, not 40 minutes; how close it comes to the time the limit
// allows is BenchmarkRateLimitedStream's figure, not asserted here.
func TestRateLimitedStream(t *testing.T) {
	for _, rpm := range []int{60, 0} {
		t.Run(fmt.Sprintf("rpm %d", rpm), func(t *testing.T) {
			calls, limited, _ := rateLimitedStream(t, 40, time.Second, rpm)
			require.Greater(t, calls, 60, "the stream needs more than one window's requests")
			require.Less(t, float64(limited)/float64(calls), 0.05, "%d of %d calls answered 429", limited, calls)
		})
	}
}

// BenchmarkRateLimitedStream reports the share of calls answered 429 and the
// stream's time over the time the limit allows (calls / 60 per window): the
// issue's "within 20%" figure.
func BenchmarkRateLimitedStream(b *testing.B) {
	const window = time.Second
	for _, rpm := range []int{60, 0} {
		b.Run(fmt.Sprintf("rpm=%d", rpm), func(b *testing.B) {
			var calls, limited int
			var took time.Duration
			var mu sync.Mutex
			for range b.N {
				c, l, d := rateLimitedStream(b, 40, window, rpm)
				mu.Lock()
				calls, limited, took = calls+c, limited+l, took+d
				mu.Unlock()
			}
			allowed := time.Duration(float64(calls) / 60 * float64(window))
			b.ReportMetric(float64(limited)/float64(calls), "429/call")
			b.ReportMetric(took.Seconds()/allowed.Seconds(), "time/allowed")
			b.ReportMetric(float64(calls)/float64(b.N), "calls/stream")
		})
	}
}

// TestLimiterFiguresOnMeter: a call answered 429 counts as rate limited on
// the meter, the endpoint's halved limit is read after it, and the next
// call's wait for the Retry-After is counted as waited: the figures the
// results store keeps per episode for `stream status`.
func TestLimiterFiguresOnMeter(t *testing.T) {
	srv := llmtest.New(t)
	srv.Script = func(i int, _ llmtest.Request) *llmtest.Reply {
		if i == 0 {
			return &llmtest.Reply{Status: 429, Content: "slow down", Header: map[string]string{"Retry-After": "1"}}
		}
		return nil
	}
	c := srv.Client(t, "doctor", func(r *settings.Role) { r.Concurrency = 4 })
	var tally llm.Tally
	ctx := llm.WithMeter(context.Background(), &tally)
	_, err := llm.Doctor{C: c}.Decide(ctx, clinic.DoctorView{OpeningComplaint: "cough"})
	require.Equal(t, fault.RateLimited, fault.Of(err).Class, "%v", err)
	u := tally.ByRole()["doctor"]
	require.Equal(t, 1, u.RateLimited)
	require.Equal(t, 0, u.Calls, "a 429 is no answer")
	require.Equal(t, 2, u.Limit, "4 halved on the 429")
	require.Contains(t, u.Endpoint, srv.URL)
	first := u.LimitAt
	require.Positive(t, first)

	_, err = llm.Doctor{C: c}.Decide(ctx, clinic.DoctorView{OpeningComplaint: "cough"})
	require.NoError(t, err)
	u = tally.ByRole()["doctor"]
	require.Equal(t, 1, u.RateLimited)
	require.Equal(t, len(srv.Requests())-1, u.Calls, "every answered request (a repair too) is a call")
	require.Equal(t, 2, u.Limit, "2 + 1/2 + 1/2.5 after two successes at most: still 2 calls in flight")
	require.GreaterOrEqual(t, u.LimitAt, first)
	require.GreaterOrEqual(t, u.WaitedMS, 900.0, "the second call waited out the 1 s Retry-After")
}
