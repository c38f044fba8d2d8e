package workflows_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/worker"

	"github.com/clinevo/clinevo/workflows"
)

// TestReplayCommittedHistories replays histories exported from real runs on the
// embedded server (`clinevo episode history ... --out`): a change to the
// workflow code that would break running workflows fails here. The *_v1 files
// are from after version 1 of "assess-in-task" (episodes score and grade or
// record themselves, streams learn in one local activity); the others are
// from before it, and still replay on the old path.
func TestReplayCommittedHistories(t *testing.T) {
	for _, f := range []string{"testdata/stream_stage1.json", "testdata/episode.json",
		"testdata/stream_stage1_v1.json", "testdata/episode_v1.json", "testdata/episode_eval_v1.json"} {
		t.Run(f, func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			r.RegisterWorkflow(workflows.StreamWorkflow)
			r.RegisterWorkflow(workflows.EpisodeWorkflow)
			require.NoError(t, r.ReplayWorkflowHistoryFromJSONFile(nil, f))
		})
	}
}
