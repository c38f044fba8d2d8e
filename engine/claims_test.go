package engine_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/workflows"
)

// TestExperimentClaimsItsConditions (issue 37, item 3): from the moment an
// experiment starts, the run ID of every condition is its own: `stream
// start` of one (engine.StartStream) is refused while the experiment is
// still only in Temporal and after its description reached the store, a
// stream started around the command (straight through Temporal) fails on
// the claim, and the experiment plays the condition itself and completes.
// A stream started as race1-H1 used to be adopted as the experiment's H1.
func TestExperimentClaimsItsConditions(t *testing.T) {
	t.Parallel() // see TestMain
	env := enginetest.Start(t)
	ctx := context.Background()
	spec := contract.ExperimentSpec{Name: "race1", Corpus: "builtin:stream", Limit: 4, StageSize: 2, HeldOut: "builtin:heldout", HeldOutLimit: 2,
		Conditions: []contract.ConditionSpec{{Name: "E1", Kind: contract.KindStream}, {Name: "H1", Kind: contract.KindHeldOut, From: "E1"},
			{Name: "E2", Kind: contract.KindStream, Memory: contract.MemoryCarry, CarryFrom: "E1"}}}
	exp, err := engine.StartExperiment(ctx, env.Client, env.Engine.Results, "", spec)
	require.NoError(t, err)
	const claimed = "start stream race1-E2: the run ID is claimed by experiment race1 (its condition E2): a run ID names one run; " +
		"choose another run ID: the experiment plays that condition itself"
	_, err = engine.StartStream(ctx, env.Client, env.Engine.Results, "", contract.StreamSpec{RunID: "race1-E2", Corpus: "builtin:stream", Limit: 2, StageSize: 2})
	require.ErrorIs(t, err, engine.ErrRunExists)
	require.EqualError(t, err, claimed, "refused from the start, by what Temporal holds")
	enginetest.Eventually(t, time.Minute, "the experiment described in the store", func() bool {
		runs, _, err := env.Engine.Results.Runs(ctx)
		return err == nil && slices.ContainsFunc(runs, func(r results.Run) bool { return r.Run == "race1" })
	})
	_, err = engine.StartStream(ctx, env.Client, env.Engine.Results, "", contract.StreamSpec{RunID: "race1-E2", Corpus: "builtin:stream", Limit: 2, StageSize: 2})
	require.EqualError(t, err, claimed, "refused by what the store holds")

	// Around the command: straight through Temporal, before E2 starts.
	foreign, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "race1-E2/stream", TaskQueue: contract.TaskQueue},
		workflows.StreamWorkflow, contract.StreamSpec{RunID: "race1-E2", Corpus: "builtin:stream", Limit: 2, StageSize: 2})
	if err == nil {
		err = foreign.Get(ctx, nil)
		require.ErrorContains(t, err, "stream race1-E2: the run ID is claimed by experiment race1 (its condition E2)")
	} // else the experiment's own E2 had started under that workflow ID: refused by Temporal

	var res contract.ExperimentResult
	require.NoError(t, exp.Get(ctx, &res), "the experiment plays its own conditions")
	require.Len(t, res.Conditions, 3)
	require.Equal(t, 4, res.Conditions[2].Stream.Episodes, "E2 is the experiment's stream, not the foreign one")
	recs, err := env.Engine.Results.Records(ctx, "race1-E2")
	require.NoError(t, err)
	require.Len(t, recs, 4)
}
