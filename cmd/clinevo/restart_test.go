package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
)

// TestStreamRestartCommand drives `clinevo stream pause` and `clinevo stream
// restart` against the embedded server: the pause answers with the stream's
// status, a second pause and a negative budget are refused; a paused stream
// is running and its restart is refused; terminated, it
// restarts after its last recorded episode and finishes; finished, it is
// refused again.
func TestStreamRestartCommand(t *testing.T) {
	env := enginetest.Start(t)
	ctx := context.Background()
	spec := contract.StreamSpec{RunID: "cli", Corpus: "builtin:stream", Limit: 6, StageSize: 3}
	_, err := engine.StartStream(ctx, env.Client, env.Engine.Results, "", spec)
	require.NoError(t, err)
	records := func() int {
		recs, err := env.Engine.Results.Records(ctx, "cli")
		require.NoError(t, err)
		return len(recs)
	}
	enginetest.Eventually(t, time.Minute, "two recorded episodes", func() bool { return records() >= 2 })
	cli := map[string]string{"CLINEVO_TEMPORAL_ADDRESS": env.Server.Address()}
	// `stream pause` answers with the stream's status; what cannot apply
	// (a second pause, a negative budget) is refused: exit status 2.
	out, err := run(t, cli, "--data-dir", env.DataDir, "stream", "pause", "cli")
	require.NoError(t, err)
	require.Regexp(t, `^stream cli: paused \([2-5] of 6 episodes played\)\n$`, out)
	_, err = run(t, cli, "--data-dir", env.DataDir, "stream", "pause", "cli")
	require.EqualError(t, err, "pause stream cli: refused: the stream is already paused")
	require.Equal(t, exitBadInput, exitCode(err))
	_, err = run(t, cli, "--data-dir", env.DataDir, "stream", "resume", "cli", "--raise-budget", "--budget-usd", "-1")
	require.EqualError(t, err, "raise-budget stream cli: refused: the new budget: budget.usd and budget.tokens must not be negative (0: no cap), got -1 and 0")
	require.Equal(t, exitBadInput, exitCode(err))
	var p contract.Progress
	// Paused, and quiet: an episode started before the signal finishes and is
	// recorded after it, so wait until no episode runs and every one is recorded.
	// The query comes after the description: it is answered once the stream
	// has taken in whatever the last episode's completion brought.
	enginetest.Eventually(t, time.Minute, "the stream paused", func() bool {
		desc, err := env.Client.DescribeWorkflowExecution(ctx, contract.StreamWorkflowID("cli"), "")
		if err != nil || len(desc.PendingChildren) > 0 || len(desc.PendingActivities) > 0 {
			return false
		}
		v, err := env.Client.QueryWorkflow(ctx, contract.StreamWorkflowID("cli"), "", contract.QueryProgress)
		return err == nil && v.Get(&p) == nil && p.Paused && records() == p.Cursor
	})
	require.Less(t, p.Cursor, 6)

	restart := func(args ...string) (string, error) {
		return run(t, cli, append([]string{"--data-dir", env.DataDir, "stream", "restart", "cli"}, args...)...)
	}
	_, err = restart()
	require.ErrorContains(t, err, "stream cli is still running: it continues by itself when a worker polls its task queue again")

	require.NoError(t, env.Client.TerminateWorkflow(ctx, contract.StreamWorkflowID("cli"), "", "test: terminated while paused"))
	out, err = restart("--wait", "--json")
	require.NoError(t, err)
	// The progress (stderr, here in the same buffer): plain lines, as
	// stderr is no terminal, ending with the finished stream.
	require.Regexp(t, `(?m)^cli +completed +6/6  S \d\.\d{3}  ETA -$`, out)
	require.Contains(t, out, fmt.Sprintf("restarted stream cli after episode %d (%d stages ended)", p.Cursor, p.Cursor/3))
	var res contract.StreamResult
	require.NoError(t, json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &res))
	require.Equal(t, 6, res.Episodes)
	require.Equal(t, 6, res.Overall.N, "the totals count the recorded episodes and the rest")
	require.Equal(t, []int{3, 6}, res.StageEnds)
	recs, err := env.Engine.Results.Records(ctx, "cli")
	require.NoError(t, err)
	require.Len(t, recs, 6)
	for _, r := range recs[:p.Cursor] {
		resp, err := env.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: fmt.Sprintf("WorkflowId = %q", r.EpisodeID)})
		require.NoError(t, err)
		require.Len(t, resp.Executions, 1, "recorded episode %s did not run again", r.EpisodeID)
	}

	_, err = restart()
	require.ErrorContains(t, err, "stream cli has finished")
}
