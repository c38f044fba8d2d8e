package durability_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/results/sqlite"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/workflows"
)

// TestMaTTSSurvivesSIGKILL runs a ReasoningBank stream under MaTTS (three
// attempts of every case as child episodes, contrasted by one learning
// step) on a worker process killed with SIGKILL twice while attempts are
// being played, and compares it with an uninterrupted run in process:
// every record (with its three attempts' scores), the trace of every
// attempt, and every card.
func TestMaTTSSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs subprocesses")
	}
	t.Parallel() // see TestMain
	ctx := context.Background()
	s := settings.Default()
	s.Episode.MDT = settings.MDTOff
	s.Evolver.Method, s.Evolver.MaTTS.K, s.Evolver.RuleBudget = settings.MethodReasoningBank, 3, 0
	spec := contract.StreamSpec{RunID: "crash-matts", Corpus: "builtin:stream", Limit: 8, StageSize: 4,
		Memory: contract.MemoryEmpty, ActivityTimeoutSeconds: 3, EvalConcurrency: 2, Settings: s}
	ref := enginetest.Start(t)
	run, err := engine.StartStream(ctx, ref.Client, ref.Engine.Results, "", spec)
	require.NoError(t, err)
	require.NoError(t, run.Get(ctx, nil))
	_, total, err := ref.Engine.Results.Counts(ctx)
	require.NoError(t, err)

	bin, dir, addr, server, worker := devAndWorker(t)
	c := dial(t, addr, server)
	run, err = c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: contract.StreamWorkflowID(spec.RunID), TaskQueue: contract.TaskQueue},
		workflows.StreamWorkflow, spec)
	require.NoError(t, err)
	res, err := sqlite.Open(ctx, filepath.Join(dir, "results.db"))
	require.NoError(t, err)
	defer res.Close()
	worker = killAtTurns(t, res, worker, bin, dir, addr, total/3, 2*total/3)
	got := finishAndOpen(t, []client.WorkflowRun{run}, worker, dir, 8)

	sameRecords(t, ref.Engine.Results, got.Results, spec.RunID)
	sameMemory(t, ref.Engine.Memory, got.Memory, spec.RunID)
	recs, err := got.Results.Records(ctx, spec.RunID)
	require.NoError(t, err)
	for _, r := range recs {
		require.NotNil(t, r.Attempts, r.EpisodeID)
		require.Equal(t, []string{r.EpisodeID, contract.AttemptWorkflowID(r.EpisodeID, 2), contract.AttemptWorkflowID(r.EpisodeID, 3)}, r.Attempts.IDs)
		require.Equal(t, r.Scores.S, r.Attempts.S[0], "the record's own score is the first attempt's")
		for _, id := range r.Attempts.IDs[1:] {
			want, err := ref.Engine.Results.Trace(ctx, id)
			require.NoError(t, err)
			have, err := got.Results.Trace(ctx, id)
			require.NoError(t, err)
			require.Equal(t, want, have, "trace of attempt %s", id)
		}
	}
}
