package durability_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/workflows"
)

// TestHeldOutEpochsContinueAsNew plays a held-out evaluation of 130 cases
// over 2 epochs (260 plays) on the embedded server: it continues as new
// after contract.EvalBatch (250) plays, in the middle of the second epoch,
// and its second run plays the last 10 plays of epoch 2. Every (case,
// epoch) is recorded once with its epoch, and the means are over all 260.
func TestHeldOutEpochsContinueAsNew(t *testing.T) {
	if testing.Short() {
		t.Skip("plays 260 episodes")
	}
	t.Parallel() // see TestMain
	env := enginetest.Start(t)
	ctx := context.Background()
	const cases, epochs = 130, 2
	require.Greater(t, cases*epochs, contract.EvalBatch)
	require.Less(t, cases, contract.EvalBatch, "the batch ends inside the second epoch")
	ids := make([]string, cases)
	for i := range ids {
		ids[i] = fmt.Sprintf("heldout-%04d", i%100+1) // the 100 held-out cases, some twice
	}
	s := settings.Default()
	s.Episode.Mode = settings.Static // the cheapest episodes that still start a child and record it
	spec := contract.EvalSpec{RunID: "ep2", Kind: contract.KindHeldOut, Label: "H0", Corpus: "builtin:heldout", CaseIDs: ids, Stage: 1, Pass: 1,
		Concurrency: contract.DefaultEvalConcurrency, Epochs: epochs, Settings: s}
	run, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: contract.EvaluationWorkflowID("ep2"), TaskQueue: contract.TaskQueue},
		workflows.EvaluationWorkflow, spec)
	require.NoError(t, err)
	var res contract.EvalResult
	require.NoError(t, run.Get(ctx, &res))
	require.Equal(t, cases*epochs, res.Means.N)
	recs, err := env.Engine.Results.Records(ctx, "ep2")
	require.NoError(t, err)
	require.Len(t, recs, cases*epochs, "every play recorded once")
	plays := map[[2]int]bool{}
	for _, r := range recs {
		require.Equal(t, ids[r.Index-1], r.CaseID)
		require.Equal(t, contract.EpochEpisodeID("ep2", 1, 1, r.Index, r.Epoch, r.CaseID), r.EpisodeID)
		plays[[2]int{r.Index, r.Epoch}] = true
	}
	for i := 1; i <= cases; i++ {
		for k := 1; k <= epochs; k++ {
			require.True(t, plays[[2]int{i, k}], "case %d epoch %d", i, k)
		}
	}
	enginetest.Eventually(t, 30*time.Second, "two runs of the evaluation in visibility", func() bool {
		resp, err := env.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Query: fmt.Sprintf("WorkflowId = %q", contract.EvaluationWorkflowID("ep2")), PageSize: 10})
		return err == nil && len(resp.Executions) == 2
	})
}
