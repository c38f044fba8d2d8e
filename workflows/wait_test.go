package workflows_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/clinevo/clinevo/activities/acts"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/workflows"
)

func unavailable() error {
	return temporal.NewApplicationErrorWithOptions("results: decision: dial tcp 127.0.0.1:5432: connect: connection refused", "unavailable",
		temporal.ApplicationErrorOptions{Details: []any{"results/postgres"}})
}

// episode is a frozen episode of one turn whose Decide fails with fail for
// its first attempts.
func episode(t *testing.T, env *testsuite.TestWorkflowEnvironment, fails int, fail func() error) *atomic.Int64 {
	t.Helper()
	var calls atomic.Int64
	env.OnActivity(acts.Decide.Name(), mock.Anything, mock.Anything).Return(func(context.Context, acts.TurnInput) (acts.TurnSummary, error) {
		if calls.Add(1) <= int64(fails) {
			return acts.TurnSummary{}, fail()
		}
		return acts.TurnSummary{Action: "FINALIZE"}, nil
	})
	env.OnActivity(acts.Step.Name(), mock.Anything, mock.Anything).Return(acts.TurnSummary{Action: "FINALIZE", Done: true}, nil)
	env.OnActivity(acts.Score.Name(), mock.Anything, mock.Anything).Return(contract.ScoreSummary{S: 0.75}, nil)
	env.OnActivity(acts.Record.Name(), mock.Anything, mock.Anything).Return(nil)
	return &calls
}

func durable(outage, backoff time.Duration) acts.EpisodeInput {
	s := settings.Default()
	s.Durability = settings.Durability{MaxOutage: settings.Duration(outage), MaxBackoff: settings.Duration(backoff)}
	return acts.EpisodeInput{Run: "t", EpisodeID: "t/p1/s01/e0001-ca", CaseID: "ca", Frozen: true, ActivityTimeoutSeconds: 5, Settings: s}
}

// TestOutagesAreWaitedOut: a local activity whose dependency is down for 40
// attempts (far longer than the 63 s a local activity's own retries would
// cover) is retried with a backoff that doubles up to max_backoff; meanwhile
// the episode answers the waiting query and carries ClinevoWaiting, and once
// the dependency is back it finishes as if nothing happened.
func TestOutagesAreWaitedOut(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := newEnv(&s)
	calls := episode(t, env, 40, unavailable)
	var mu sync.Mutex
	var seen []contract.Waiting
	var attrs []string // each upsert of ClinevoWaiting: the dependency, or "" for its removal
	env.OnUpsertTypedSearchAttributes(mock.Anything).Run(func(args mock.Arguments) {
		sa := args.Get(0).(temporal.SearchAttributes)
		if v, ok := sa.GetKeyword(workflows.AttrWaiting); ok {
			attrs = append(attrs, v)
		} else if sa.Size() == 0 { // the mock sees an upsert that only removes a key as no attributes
			attrs = append(attrs, "")
		}
	}).Return(nil)
	for at := time.Second; at < 40*time.Minute; at += 30 * time.Second {
		env.RegisterDelayedCallback(func() {
			v, err := env.QueryWorkflow(contract.QueryWaiting)
			require.NoError(t, err)
			var w *contract.Waiting
			require.NoError(t, v.Get(&w))
			mu.Lock()
			defer mu.Unlock()
			if w != nil {
				seen = append(seen, *w)
			}
		}, at)
	}
	env.ExecuteWorkflow(workflows.EpisodeWorkflow, durable(24*time.Hour, time.Minute))
	require.NoError(t, env.GetWorkflowError())
	var score contract.ScoreSummary
	require.NoError(t, env.GetWorkflowResult(&score))
	require.Equal(t, 0.75, score.S)
	require.Equal(t, int64(41), calls.Load(), "40 failed attempts, then the one that worked")
	require.NotEmpty(t, seen)
	last := seen[len(seen)-1]
	require.Equal(t, "Decide", last.Activity)
	require.Equal(t, "results/postgres", last.Dependency)
	require.Equal(t, "unavailable", last.Class)
	require.Contains(t, last.Error, "connection refused")
	require.Greater(t, last.Attempts, 20)
	for i := 1; i < len(seen); i++ {
		require.Equal(t, seen[0].Since, seen[i].Since, "one wait, since the first failure")
		require.GreaterOrEqual(t, seen[i].Attempts, seen[i-1].Attempts)
	}
	// Backoffs 1, 2, 4, 8, 16, 32 s, then 60 s each: attempt 40 fails at
	// 63 + 33·60 = 2043 s after the first.
	require.InDelta(t, 2043, last.NextTry.Sub(last.Since).Seconds()-60, 61)
	require.Equal(t, []string{"results/postgres", ""}, attrs, "set once while waiting, removed once the dependency is back")
	v, err := env.QueryWorkflow(contract.QueryWaiting)
	require.NoError(t, err)
	var w *contract.Waiting
	require.NoError(t, v.Get(&w))
	require.Nil(t, w, "done waiting")
}

// TestPermanentFailuresFailAtOnce: a refused key or a malformed input is not
// retried: one attempt, and the episode fails with the activity's message.
func TestPermanentFailuresFailAtOnce(t *testing.T) {
	for _, class := range []string{"unauthorized", "invalid", "schema"} {
		t.Run(class, func(t *testing.T) {
			var s testsuite.WorkflowTestSuite
			env := newEnv(&s)
			calls := episode(t, env, 1, func() error {
				return temporal.NewNonRetryableApplicationError("llm doctor (HTTP 401): Incorrect API key provided.", class, nil, "model roles.doctor")
			})
			env.ExecuteWorkflow(workflows.EpisodeWorkflow, durable(24*time.Hour, time.Minute))
			require.ErrorContains(t, env.GetWorkflowError(), "Incorrect API key provided.")
			require.Equal(t, int64(1), calls.Load(), "one attempt")
		})
	}
}

// TestOutageLongerThanMaxOutage: a dependency down for longer than
// durability.max_outage fails the episode, saying so.
func TestOutageLongerThanMaxOutage(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := newEnv(&s)
	calls := episode(t, env, 1000, unavailable)
	env.ExecuteWorkflow(workflows.EpisodeWorkflow, durable(10*time.Minute, time.Minute))
	err := env.GetWorkflowError()
	require.ErrorContains(t, err, "results/postgres (unavailable) kept failing for")
	require.ErrorContains(t, err, "longer than durability.max_outage 10m0s")
	// 1+2+4+8+16+32 s, then a minute each: 10 minutes hold 15 attempts.
	require.Equal(t, int64(15), calls.Load())
}

// TestRateLimitWaitsAsAsked: a rate-limited dependency's Retry-After is the
// backoff when it is longer than the waiter's own.
func TestRateLimitWaitsAsAsked(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := newEnv(&s)
	var times []time.Time
	env.OnActivity(acts.Decide.Name(), mock.Anything, mock.Anything).Return(func(ctx context.Context, _ acts.TurnInput) (acts.TurnSummary, error) {
		times = append(times, env.Now())
		if len(times) < 3 {
			return acts.TurnSummary{}, temporal.NewApplicationErrorWithOptions("llm doctor (HTTP 429): slow down", "rate_limited",
				temporal.ApplicationErrorOptions{Details: []any{"model roles.doctor"}, NextRetryDelay: 45 * time.Second})
		}
		return acts.TurnSummary{Action: "FINALIZE"}, nil
	})
	env.OnActivity(acts.Step.Name(), mock.Anything, mock.Anything).Return(acts.TurnSummary{Done: true}, nil)
	env.OnActivity(acts.Score.Name(), mock.Anything, mock.Anything).Return(contract.ScoreSummary{}, nil)
	env.OnActivity(acts.Record.Name(), mock.Anything, mock.Anything).Return(nil)
	env.ExecuteWorkflow(workflows.EpisodeWorkflow, durable(time.Hour, time.Minute))
	require.NoError(t, env.GetWorkflowError())
	require.Len(t, times, 3)
	require.GreaterOrEqual(t, times[1].Sub(times[0]), 45*time.Second)
	require.GreaterOrEqual(t, times[2].Sub(times[1]), 45*time.Second)
}

// TestEvaluationContinuesAsNewInBatches: an evaluation of more cases than a
// batch prepares its spec once, passes its episodes a reference to its
// settings instead of a copy, plays one batch and continues as new with the
// scores so far; the last run completes with every score in case order.
func TestEvaluationContinuesAsNewInBatches(t *testing.T) {
	ids := make([]string, contract.EvalBatch+30)
	for i := range ids {
		ids[i] = fmt.Sprintf("c%04d", i)
	}
	spec := contract.EvalSpec{RunID: "h", Kind: contract.KindHeldOut, Corpus: "builtin:heldout", CaseIDs: ids, Stage: 1, Concurrency: 8}
	run := func(spec contract.EvalSpec) (*testsuite.TestWorkflowEnvironment, *[]acts.EpisodeInput, *atomic.Int64) {
		var s testsuite.WorkflowTestSuite
		env := newEnv(&s)
		env.RegisterWorkflow(workflows.EpisodeWorkflow)
		var mu sync.Mutex
		var inputs []acts.EpisodeInput
		var prepared atomic.Int64
		env.OnActivity(acts.PrepareEvaluation.Name(), mock.Anything, mock.Anything).Return(func(_ context.Context, e contract.EvalSpec) (contract.EvalSpec, error) {
			prepared.Add(1)
			e = e.WithDefaults()
			e.SettingsRef = "sha256:abc"
			return e, nil
		})
		env.OnActivity(acts.Decide.Name(), mock.Anything, mock.Anything).Return(acts.TurnSummary{}, nil)
		env.OnActivity(acts.Step.Name(), mock.Anything, mock.Anything).Return(acts.TurnSummary{Done: true}, nil)
		env.OnActivity(acts.Score.Name(), mock.Anything, mock.Anything).Return(func(_ context.Context, in acts.EpisodeInput) (contract.ScoreSummary, error) {
			mu.Lock()
			inputs = append(inputs, in)
			mu.Unlock()
			return contract.ScoreSummary{S: float64(in.Index) / 1000}, nil
		})
		env.OnActivity(acts.Record.Name(), mock.Anything, mock.Anything).Return(nil)
		env.OnActivity(acts.CompleteRun.Name(), mock.Anything, mock.Anything).Return(nil)
		env.ExecuteWorkflow(workflows.EvaluationWorkflow, spec)
		return env, &inputs, &prepared
	}
	env, inputs, prepared := run(spec)
	err := env.GetWorkflowError()
	var can *workflow.ContinueAsNewError
	require.ErrorAs(t, err, &can)
	require.Equal(t, int64(1), prepared.Load())
	require.Len(t, *inputs, contract.EvalBatch, "one batch")
	for _, in := range *inputs {
		require.Equal(t, "sha256:abc", in.SettingsRef)
		require.True(t, in.Settings.IsZero(), "a reference, not a copy of the settings")
		require.Equal(t, settings.DefaultDurability(), in.Durability)
	}
	var next contract.EvalSpec
	require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &next))
	require.Equal(t, contract.EvalBatch, next.Played)
	require.Equal(t, contract.EvalBatch, next.Totals.N, "the totals so far, not every score")
	require.Equal(t, "sha256:abc", next.SettingsRef)

	env, inputs, prepared = run(next)
	require.NoError(t, env.GetWorkflowError())
	require.Zero(t, prepared.Load(), "a later run carries the prepared spec")
	require.Len(t, *inputs, 30)
	var res contract.EvalResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Equal(t, len(ids), res.Means.N)
	// Episode i scored i/1000: the mean of 1..280 over 1000, summed in case
	// order as one run would.
	var want contract.Totals
	for i := range ids {
		want.Add(contract.ScoreSummary{S: float64(i+1) / 1000})
	}
	require.Equal(t, want.Means(), res.Means)
}

// TestExperimentRunsItsPlan: an experiment runs its conditions with the
// settings and concurrency PutExperiment resolved (recorded in its history),
// not with what the workflow code would resolve, and claims its name with
// its first run.
func TestExperimentRunsItsPlan(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := newEnv(&s)
	planned := settings.Default()
	planned.Episode.MaxTurns = 3
	var claim string
	env.OnActivity(acts.PutExperiment.Name(), mock.Anything, mock.Anything).Return(func(_ context.Context, e contract.ExperimentSpec) (acts.ExperimentPlan, error) {
		claim = e.Claim
		return acts.ExperimentPlan{Settings: []settings.Settings{planned}, EvalConcurrency: 3, Durability: settings.DefaultDurability()}, nil
	})
	env.OnActivity(acts.RunResult.Name(), mock.Anything, mock.Anything).Return(acts.RunResultReply{}, nil)
	env.OnActivity(acts.PlanCases.Name(), mock.Anything, mock.Anything, mock.Anything).Return(acts.StreamPlan{CaseIDs: []string{"h1", "h2"}, Conditions: []string{"a", "b"}}, nil)
	env.OnActivity(acts.CompleteRun.Name(), mock.Anything, mock.Anything).Return(nil)
	var got contract.EvalSpec
	env.OnWorkflow(workflows.EvaluationWorkflow, mock.Anything, mock.Anything).Return(func(_ workflow.Context, e contract.EvalSpec) (contract.EvalResult, error) {
		got = e
		return contract.EvalResult{RunID: e.RunID}, nil
	})
	spec := contract.ExperimentSpec{Name: "x", HeldOut: "builtin:heldout", Conditions: []contract.ConditionSpec{{Name: "H0", Kind: contract.KindHeldOut}}}
	env.ExecuteWorkflow(workflows.ExperimentWorkflow, spec)
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, 3, got.Settings.Episode.MaxTurns, "the planned settings")
	require.Equal(t, 3, got.Concurrency, "the planned concurrency")
	require.Equal(t, []string{"h1", "h2"}, got.CaseIDs)
	require.NotEmpty(t, claim, "the experiment claims its name")
}
