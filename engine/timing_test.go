package engine_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/timing"
	"github.com/clinevo/clinevo/workflows"
)

// TestStreamTiming reads a finished stream's histories from the embedded
// server as `clinevo stream timing` does: both runs of the stream (it continues
// as new at the stage boundary), every episode, and the SDK's local-activity
// markers of the turn loop.
func TestStreamTiming(t *testing.T) {
	t.Parallel() // see TestMain
	env := enginetest.Start(t)
	ctx := context.Background()
	spec := contract.StreamSpec{RunID: "timing", Corpus: "builtin:stream", Limit: 4, StageSize: 2}
	run, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: contract.StreamWorkflowID(spec.RunID), TaskQueue: contract.TaskQueue},
		workflows.StreamWorkflow, spec)
	require.NoError(t, err)
	require.NoError(t, run.Get(ctx, nil))

	runs, err := timing.Collect(ctx, timing.FromClient(env.Client), run.GetID())
	require.NoError(t, err)
	r := timing.Analyse(runs)
	require.Equal(t, 2, r.Runs["StreamWorkflow"], "the first run and the one it continued as")
	require.Equal(t, 4, r.Runs["EpisodeWorkflow"])
	require.Equal(t, 4, r.ChildWorkflowStart.Count)
	tasks := 0
	for _, n := range r.WorkflowTasks {
		tasks += n
	}
	require.Equal(t, tasks, r.WorkflowTaskDispatch.Count, "every completed workflow task was dispatched once")
	acts := 0
	for _, d := range r.ActivityRun {
		acts += d.Count
	}
	require.Positive(t, acts)
	require.Equal(t, acts, r.ActivityDispatch.Count, "no retries here: every activity has a first-attempt dispatch")
	require.NotEmpty(t, r.LocalActivityRun, "the turn loop's markers are read")
	require.Zero(t, r.UnreadMarkers)
	require.Positive(t, r.WallSeconds)
}
