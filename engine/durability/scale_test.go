package durability_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/proto"

	"github.com/clinevo/clinevo/activities"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/internal/benchsize"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/workflows"
)

// historyLimit is the history size at which Temporal suggests continuing as
// new (4 MiB); it warns at 10 MiB and refuses at 50 MiB.
const historyLimit = 4 << 20

// TestHeldOutEvaluationContinuesAsNew plays a held-out evaluation of 600
// cases on the embedded server with the built-in roles: the evaluation
// continues as new every contract.EvalBatch (250) cases, so it has three runs
// and crosses continue-as-new twice; it passes its episodes a reference to its
// settings, so every run's history stays under 4 MiB. Every episode is
// recorded once, in case order, and the means are the records'. The 2,500-case
// figure (GPAgentBench-2K has 2,000 cases) is BenchmarkHeldOutEvaluation2500.
func TestHeldOutEvaluationContinuesAsNew(t *testing.T) {
	if testing.Short() {
		t.Skip("plays 600 episodes")
	}
	t.Parallel() // see TestMain
	const n = 600
	require.Greater(t, n, 2*contract.EvalBatch, "the evaluation crosses continue-as-new at least twice")
	largest, childInput := heldOut(t, enginetest.Start(t), "big", n)
	require.Less(t, largest, historyLimit)
	require.Less(t, childInput, 2048, "an episode gets a reference to the settings, not a copy of them")
}

// BenchmarkHeldOutEvaluation2500 plays a held-out evaluation of 2,500 cases
// (ten runs of the evaluation) per iteration, checks it as the test does, and
// reports the largest history of its runs in bytes and episodes per second
// (20 cases at benchsize.Small):
//
//	go test ./engine/durability -run '^$' -bench HeldOutEvaluation2500 -benchtime 1x
func BenchmarkHeldOutEvaluation2500(b *testing.B) {
	n := benchsize.Pick(2500, 20)
	env := enginetest.Start(b)
	largest, child := 0, 0
	start := time.Now()
	for i := 0; i < b.N; i++ {
		l, c := heldOut(b, env, fmt.Sprintf("big%d", i), n)
		largest, child = max(largest, l), max(child, c)
	}
	b.ReportMetric(float64(largest), "history-bytes")
	b.ReportMetric(float64(child), "episode-input-bytes")
	b.ReportMetric(float64(n*b.N)/time.Since(start).Seconds(), "episodes/s")
	require.Less(b, largest, historyLimit)
	require.Less(b, child, 2048, "an episode gets a reference to the settings, not a copy of them")
}

// heldOut plays a held-out evaluation of n cases (the 100 held-out cases over
// and over) under run ID id, in static mode with no memory: the cheapest
// episodes that still start a child per case and record it. It checks every
// record and the means, and returns the largest history of the evaluation's
// runs and the largest episode input, in bytes.
func heldOut(t testing.TB, env *enginetest.Env, id string, n int) (largest, childInput int) {
	t.Helper()
	ctx := context.Background()
	const distinct = 100
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("heldout-%04d", i%distinct+1)
	}
	s := settings.Default()
	s.Episode.Mode = settings.Static
	spec := contract.EvalSpec{RunID: id, Kind: contract.KindHeldOut, Label: "H0", Corpus: "builtin:heldout", CaseIDs: ids, Stage: 1, Pass: 1,
		Concurrency: contract.DefaultEvalConcurrency, Settings: s}
	start := time.Now()
	run, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: contract.EvaluationWorkflowID(id), TaskQueue: contract.TaskQueue},
		workflows.EvaluationWorkflow, spec)
	require.NoError(t, err)
	var res contract.EvalResult
	require.NoError(t, run.Get(ctx, &res))
	t.Logf("%d episodes in %v", n, time.Since(start).Round(time.Second))
	require.Equal(t, n, res.Means.N)
	recs, err := env.Engine.Results.Records(ctx, id)
	require.NoError(t, err)
	require.Len(t, recs, n, "every episode recorded once")
	var totals contract.Totals
	for i, r := range recs {
		require.Equal(t, i+1, r.Index)
		require.Equal(t, recs[i%distinct].Scores, r.Scores, "a frozen case without memory plays the same each time")
		totals.Add(activities.Summary(r.Scores, r.Termination))
	}
	require.Equal(t, totals.Means(), res.Means, "the means of the records, in case order")

	// Every run of the evaluation: its history's size and events.
	runs := (n + contract.EvalBatch - 1) / contract.EvalBatch
	var resp *workflowservice.ListWorkflowExecutionsResponse
	enginetest.Eventually(t, 30*time.Second, fmt.Sprintf("one run per batch: %d runs in visibility", runs), func() bool {
		resp, err = env.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Query: fmt.Sprintf("WorkflowId = %q", contract.EvaluationWorkflowID(id)), PageSize: 100})
		return err == nil && len(resp.Executions) == runs
	})
	events := 0
	for _, e := range resp.Executions {
		h := history(t, env.Client, e.Execution.WorkflowId, e.Execution.RunId)
		if size := proto.Size(h); size > largest {
			largest, events = size, len(h.Events)
		}
		for _, ev := range h.Events {
			if a := ev.GetStartChildWorkflowExecutionInitiatedEventAttributes(); a != nil {
				childInput = max(childInput, proto.Size(a.GetInput()))
			}
		}
	}
	t.Logf("largest history of the evaluation's %d runs: %d bytes (%.2f MiB), %d events; largest episode input %d bytes",
		runs, largest, float64(largest)/(1<<20), events, childInput)
	return largest, childInput
}

func history(t testing.TB, c client.Client, id, runID string) *historypb.History {
	t.Helper()
	it := c.GetWorkflowHistory(context.Background(), id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	h := &historypb.History{}
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		h.Events = append(h.Events, ev)
	}
	return h
}
