package workflows_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/worker"

	"github.com/clinevo/clinevo/workflows"
)

// TestReplayCommittedHistories replays histories exported from real runs on the
// embedded server (`clinevo episode history ... --out`): a change to the
// workflow code that would break running workflows fails here.
func TestReplayCommittedHistories(t *testing.T) {
	for _, f := range []string{"testdata/stream_stage1.json", "testdata/episode.json"} {
		t.Run(f, func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			r.RegisterWorkflow(workflows.StreamWorkflow)
			r.RegisterWorkflow(workflows.EpisodeWorkflow)
			require.NoError(t, r.ReplayWorkflowHistoryFromJSONFile(nil, f))
		})
	}
}
