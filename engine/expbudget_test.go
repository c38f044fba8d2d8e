package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/llm/llmtest"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/runstatus"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/workflows"
)

// TestExperimentBudgetPausesOnTheTotal (issue 26): an experiment-wide cap
// counts every run of the experiment: with another condition's run having
// spent part of it, a stream with no cap of its own pauses once the total
// reaches it (paused: experiment budget, the total in its progress), and a
// raise lets it finish with the records of the same stream run without a cap.
// Raised through `experiment raise-budget`'s update, a cap the total still
// reaches is refused; none is taken by the paused condition alone.
func TestExperimentBudgetPausesOnTheTotal(t *testing.T) {
	t.Parallel() // see TestMain
	srv := llmtest.New(t)
	ctx := context.Background()
	spec := contract.StreamSpec{RunID: "xb-E1", Corpus: "builtin:stream", Limit: 6, StageSize: 6, ActivityTimeoutSeconds: 20,
		Settings: enginetest.ModelSettings(srv, "", "doctor")}

	free := enginetest.StartWith(t, quietLogger{})
	require.Equal(t, 6, runStream(t, free, spec).Episodes)
	recs, err := free.Engine.Results.Records(ctx, "xb-E1")
	require.NoError(t, err)
	require.Len(t, recs, 6)
	first3 := 0
	for _, r := range recs[:3] {
		u := r.Usage["doctor"]
		first3 += u.PromptTokens + u.CompletionTokens
	}
	require.Positive(t, first3)

	capped := enginetest.StartWith(t, quietLogger{})
	const other = 1000 // tokens the experiment's other condition spent
	require.NoError(t, capped.Engine.Results.AddUsage(ctx, contract.EpisodeWorkflowID("xb-E2", 1, 1, 1, "c1"), results.Usage{Calls: 1, PromptTokens: other}, "doctor"))
	cs := spec
	cs.ExperimentBudget = contract.ExperimentSpec{Name: "xb", Budget: &settings.Budget{Tokens: other + first3},
		Conditions: []contract.ConditionSpec{{Name: "E1"}, {Name: "E2"}}}.BudgetOf()
	require.Equal(t, []string{"xb-E1", "xb-E2"}, cs.ExperimentBudget.Runs)
	run, err := capped.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: contract.StreamWorkflowID(cs.RunID), TaskQueue: contract.TaskQueue},
		workflows.StreamWorkflow, cs)
	require.NoError(t, err)
	var p contract.Progress
	enginetest.Eventually(t, 60*time.Second, "the stream to pause at the experiment's budget", func() bool {
		v, err := capped.Client.QueryWorkflow(ctx, run.GetID(), "", contract.QueryProgress)
		return err == nil && v.Get(&p) == nil && p.Paused
	})
	require.Equal(t, "experiment budget", p.PausedBy)
	require.Equal(t, 3, p.Cursor, "paused after the episode that brought the total to the cap")
	require.Equal(t, other+first3, p.ExperimentSpend.Tokens, "the other run's spend and this one's first three episodes")
	require.Nil(t, p.Spend, "no cap of its own: its own spend is not read")
	require.Equal(t, other+first3, p.ExperimentBudget.Tokens)

	// The raise is the experiment cap's: one still reached keeps it paused.
	require.NoError(t, capped.Client.SignalWorkflow(ctx, run.GetID(), "", contract.SignalRaiseBudget, settings.Budget{Tokens: other + first3 - 1}))
	enginetest.Eventually(t, 30*time.Second, "the raise to be taken", func() bool {
		v, err := capped.Client.QueryWorkflow(ctx, run.GetID(), "", contract.QueryProgress)
		return err == nil && v.Get(&p) == nil && p.ExperimentBudget.Tokens == other+first3-1
	})
	require.True(t, p.Paused)
	// What `experiment raise-budget` sends, to its live stream conditions
	// only: a cap the total still reaches is refused, none lets it finish.
	ex := runstatus.Experiment{Name: "xb", Conditions: []runstatus.Condition{
		{Name: "E1", Kind: contract.KindStream, Run: "xb-E1", Status: runstatus.StatusPaused + ": experiment budget"},
		{Name: "E2", Kind: contract.KindStream, Run: "xb-E2", Status: runstatus.StatusCompleted}}}
	raised, err := engine.RaiseExperimentBudget(ctx, capped.Client, ex, settings.Budget{Tokens: other + first3})
	require.ErrorIs(t, err, engine.ErrRefused)
	require.ErrorContains(t, err, "raise the experiment budget of xb: condition E1: raise-experiment-budget stream xb-E1: refused: "+
		"the experiment's spend at the last check reaches the new cap")
	require.Len(t, raised, 1)
	raised, err = engine.RaiseExperimentBudget(ctx, capped.Client, ex, settings.Budget{})
	require.NoError(t, err)
	require.Len(t, raised, 1)
	require.Equal(t, "condition E1: stream xb-E1: running (3 of 6 episodes played); experiment budget: no cap", raised[0].String())
	var res contract.StreamResult
	require.NoError(t, run.Get(ctx, &res))
	require.Equal(t, 6, res.Episodes)
	enginetest.RequireSameRun(t, free.Engine, capped.Engine, "xb-E1")
}
