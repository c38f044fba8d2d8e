package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/llm/llmtest"
	"github.com/clinevo/clinevo/runstatus"
)

// TestTerminateEndsAStuckRun (issue 37, item 9): a stream stuck waiting for
// an endpoint that never answers (it would wait for durability.max_outage,
// a day; stop waits for the episode to end) is ended by Terminate at once,
// with its episodes; the reason is in Temporal and with the run in the
// results store, status says "terminated" and why, what it recorded stays
// readable, and a second terminate finds nothing running.
func TestTerminateEndsAStuckRun(t *testing.T) {
	t.Parallel() // see TestMain
	srv := llmtest.New(t)
	srv.Script = func(n int, _ llmtest.Request) *llmtest.Reply {
		if n < 30 {
			return nil
		}
		return &llmtest.Reply{Status: 503, Content: "overloaded"}
	}
	env := enginetest.Start(t)
	ctx := context.Background()
	_, err := engine.StartStream(ctx, env.Client, env.Engine.Results, "", contract.StreamSpec{RunID: "stuck", Corpus: "builtin:stream", Limit: 40,
		StageSize: 20, Settings: enginetest.ModelSettings(srv, "", "doctor")})
	require.NoError(t, err)
	enginetest.Eventually(t, 2*time.Minute, "the stream waiting for its endpoint", func() bool {
		st, err := runstatus.StreamOf(ctx, env.Client, "stuck")
		return err == nil && st.Status == runstatus.StatusWaiting
	})
	recs, err := env.Engine.Results.Records(ctx, "stuck")
	require.NoError(t, err)

	const reason = "the endpoint is gone for the week"
	done, err := engine.Terminate(ctx, env.Client, env.Engine.Results, contract.KindStream, "stuck", reason)
	require.NoError(t, err)
	require.Equal(t, "stuck/stream", done.Workflows[0])
	require.GreaterOrEqual(t, len(done.Workflows), 2, "the stream and the episode it waited in")
	require.Equal(t, []string{"stuck"}, done.Recorded)

	st, err := runstatus.StreamOf(ctx, env.Client, "stuck")
	require.NoError(t, err)
	require.Equal(t, runstatus.StatusTerminated, st.Status)
	require.Equal(t, reason, st.Reason)
	enginetest.Eventually(t, time.Minute, "no workflow of the run left running", func() bool {
		resp, err := env.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: `ClinevoRun = "stuck" AND ExecutionStatus = "Running"`})
		return err == nil && len(resp.Executions) == 0
	})
	runs, _, err := env.Engine.Results.Runs(ctx)
	require.NoError(t, err)
	require.Equal(t, reason, runs[0].Terminated)
	after, err := env.Engine.Results.Records(ctx, "stuck")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(after), len(recs), "what was recorded stays readable")

	_, err = engine.Terminate(ctx, env.Client, env.Engine.Results, contract.KindStream, "stuck", reason)
	require.ErrorIs(t, err, engine.ErrNotRunning)
	require.ErrorContains(t, err, "terminate stream stuck: workflow stuck/stream is terminated: not running")
}

// TestTerminatedExperimentNamesItsReason (issue 37, item 9): an
// experiment's condition that Temporal terminates with the experiment (the
// parent close policy) says why the experiment was ended, not only Temporal's
// "by parent close policy", in `stream status` and the viewer alike.
func TestTerminatedExperimentNamesItsReason(t *testing.T) {
	t.Parallel() // see TestMain
	env := enginetest.Start(t)
	ctx := context.Background()
	spec := contract.ExperimentSpec{Name: "halt", Corpus: "builtin:stream", Limit: 400, StageSize: 50,
		Conditions: []contract.ConditionSpec{{Name: "E1", Kind: contract.KindStream}}}
	_, err := engine.StartExperiment(ctx, env.Client, env.Engine.Results, "", spec)
	require.NoError(t, err)
	enginetest.Eventually(t, 2*time.Minute, "the condition's stream running", func() bool {
		st, err := runstatus.StreamOf(ctx, env.Client, "halt-E1")
		return err == nil && st.Status == runstatus.StatusRunning
	})
	// The experiment alone, as Terminate ends it first: the server ends the
	// condition's stream by the parent close policy.
	const reason = "the corpus was the wrong one"
	require.NoError(t, env.Client.TerminateWorkflow(ctx, "halt/experiment", "", reason))
	var st runstatus.Stream
	enginetest.Eventually(t, time.Minute, "the condition's stream ended with it", func() bool {
		st, err = runstatus.StreamOf(ctx, env.Client, "halt-E1")
		return err == nil && st.Status == runstatus.StatusTerminated
	})
	require.Equal(t, reason+" (with its parent, workflow halt/experiment)", st.Reason)
}

// TestTerminatedWrite: what terminate says: the workflows it ended, then
// where the reason is kept.
func TestTerminatedWrite(t *testing.T) {
	for _, tc := range []struct {
		t    engine.Terminated
		want string
	}{
		{engine.Terminated{Workflows: []string{"q/experiment", "q-E1/stream"}, Recorded: []string{"q", "q-E1"}},
			"terminated experiment q: 2 workflows (q/experiment, q-E1/stream)\nreason recorded with runs q, q-E1 in the results store\n"},
		{engine.Terminated{Workflows: []string{"q/experiment"}},
			"terminated experiment q: 1 workflows (q/experiment)\nreason kept in Temporal's history only (the results store describes no such run)\n"},
	} {
		var out strings.Builder
		tc.t.Write(&out, "experiment", "q")
		require.Equal(t, tc.want, out.String())
	}
}
