package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
)

// TestStoppedStreamStatusIsConsistent (issue 37, item 10): a stream stopped
// before its first stage ended shows the episodes it played and the stage
// it stopped in (it showed "18 of ?, stage 0 of 0"), as the stream's own
// progress query answers them (one source: it said "in 1 stages" where the
// query said stage 1 of 2), with its stage's means; and every command's
// advice about it agrees: `stream start` of its ID and `stream restart`
// name a carry run (start named `stream restart`, which then said the run
// had finished), and `stream terminate` finds nothing to end.
func TestStoppedStreamStatusIsConsistent(t *testing.T) {
	env := enginetest.Start(t)
	ctx := context.Background()
	r, err := engine.StartStream(ctx, env.Client, env.Engine.Results, "", contract.StreamSpec{RunID: "halt", Corpus: "builtin:stream", Limit: 40, StageSize: 20})
	require.NoError(t, err)
	require.NoError(t, env.Client.SignalWorkflow(ctx, contract.StreamWorkflowID("halt"), "", contract.SignalStop, nil))
	var res contract.StreamResult
	require.NoError(t, r.Get(ctx, &res))
	require.True(t, res.Stopped)
	require.Less(t, res.Episodes, 20, "stopped within the first stage")

	cli := map[string]string{"CLINEVO_TEMPORAL_ADDRESS": env.Server.Address()}
	out, err := run(t, cli, "--data-dir", env.DataDir, "stream", "status", "halt")
	require.NoError(t, err)
	require.Regexp(t, `status\s+stopped\n`, out)
	resp, err := env.Client.QueryWorkflow(ctx, contract.StreamWorkflowID("halt"), "", contract.QueryProgress)
	require.NoError(t, err)
	var p contract.Progress
	require.NoError(t, resp.Get(&p))
	require.Equal(t, []int{res.Episodes, 40, 1, 2}, []int{p.Cursor, p.Total, p.Stage, p.Stages})
	require.Regexp(t, fmt.Sprintf(`episodes\s+%d of 40 played before it stopped, in stage 1 of 2\n`, res.Episodes), out)
	require.Regexp(t, fmt.Sprintf(`stage 1\s+n=%d S=%.3f `, res.Episodes, res.Overall.S), out, "the stage's means, from the results store")
	require.NotContains(t, out, "of ?")
	require.NotContains(t, out, "stage 0 of 0")

	const carry = "that run has finished: to continue its memory start a new run with `clinevo stream start --run NEW --memory-mode carry --carry-from halt`"
	_, err = run(t, cli, "--data-dir", env.DataDir, "stream", "start", "--run", "halt")
	require.ErrorContains(t, err, carry)
	require.NotContains(t, err.Error(), "stream restart")
	require.Equal(t, exitBadInput, exitCode(err))
	_, err = run(t, cli, "--data-dir", env.DataDir, "stream", "restart", "halt")
	require.ErrorContains(t, err, "stream halt has finished (workflow halt/stream completed): "+carry)
	require.Equal(t, exitBadInput, exitCode(err), "a run that cannot restart is bad input, as in start and terminate")
	_, err = run(t, cli, "--data-dir", env.DataDir, "stream", "terminate", "halt", "--reason", "tidy up")
	require.EqualError(t, err, "terminate stream halt: workflow halt/stream is completed: not running")
	require.Equal(t, exitBadInput, exitCode(err))
}
