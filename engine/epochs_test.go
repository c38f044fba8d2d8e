package engine_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/worker"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/runstatus"
	"github.com/clinevo/clinevo/workflows"
)

// TestEpochsEndToEnd plays an experiment with epochs: 2 on the embedded
// server: each held-out case is played twice, as two episodes with their
// own workflow IDs and epochs 1 and 2 in their records; the streams play
// once; the report carries the reducers and pairs H3 with H0 by case (3
// pairs, not 6); the status counts every play; the evaluation's history
// replays.
func TestEpochsEndToEnd(t *testing.T) {
	t.Parallel() // see TestMain
	env := enginetest.Start(t)
	ctx := context.Background()
	spec := contract.ExperimentSpec{Name: "ep", Corpus: "builtin:stream", Limit: 4, StageSize: 4, HeldOut: "builtin:heldout", HeldOutLimit: 3,
		EvalConcurrency: 4, Epochs: 2, Conditions: []contract.ConditionSpec{
			{Name: "E1", Kind: "stream", Memory: "empty"}, {Name: "H0", Kind: "heldout"}, {Name: "H3", Kind: "heldout", From: "E1"}}}
	out, rep := enginetest.RunExperiment(t, env, spec)
	require.Equal(t, 4, out.Conditions[0].Stream.Episodes, "a stream plays each case once")
	for _, c := range out.Conditions[1:] {
		require.Equal(t, 6, c.Eval.Means.N, "%s: 3 cases, 2 epochs", c.Name)
		recs, err := env.Engine.Results.Records(ctx, c.Run)
		require.NoError(t, err)
		require.Len(t, recs, 6)
		ids, epochs := map[string]bool{}, map[string][]int{}
		s := map[string][]float64{}
		for _, r := range recs {
			ids[r.EpisodeID] = true
			epochs[r.CaseID] = append(epochs[r.CaseID], r.Epoch)
			s[r.CaseID] = append(s[r.CaseID], r.Scores.S)
			want := contract.EpochEpisodeID(c.Run, 1, 1, r.Index, r.Epoch, r.CaseID)
			require.Equal(t, want, r.EpisodeID)
		}
		require.Len(t, ids, 6, "distinct episode IDs")
		require.Len(t, epochs, 3)
		for id, e := range epochs {
			require.Equal(t, []int{1, 2}, e, "case %s: epochs 1 and 2, in that order", id)
			// The built-in roles are deterministic: both plays of a case score alike.
			require.Equal(t, s[id][0], s[id][1], "case %s", id)
		}
	}
	require.Len(t, rep.Epochs, 2, "H0 and H3")
	for _, r := range rep.Epochs {
		require.Equal(t, 2, r.K)
		require.Equal(t, 3, r.Cases)
		require.Len(t, r.PassAt, 2)
		require.Len(t, r.PassHat, 2)
		// Two identical plays a case: pass@2 = pass^2 = pass@1, each case 0 or 1.
		require.InDelta(t, r.PassAt[0].Value, r.PassAt[1].Value, 1e-12)
		require.InDelta(t, r.PassAt[0].Value, r.PassHat[1].Value, 1e-12)
	}
	require.Len(t, rep.Transfer, 1)
	require.Equal(t, 3, rep.Transfer[0].N, "H3 vs H0 pairs by case over the epoch mean")

	st, err := runstatus.EvaluationOf(ctx, env.Client, "ep-H0")
	require.NoError(t, err)
	require.Equal(t, [2]int{6, 6}, [2]int{st.Done, st.Total}, "the status counts every play")

	h, err := runstatus.HistoryJSON(ctx, env.Client, contract.EvaluationWorkflowID("ep-H0"), "")
	require.NoError(t, err)
	f := t.TempDir() + "/h.json"
	require.NoError(t, os.WriteFile(f, h, 0o644))
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflow(workflows.EvaluationWorkflow)
	r.RegisterWorkflow(workflows.EpisodeWorkflow)
	require.NoError(t, r.ReplayWorkflowHistoryFromJSONFile(nil, f))
}
