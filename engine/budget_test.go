package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/llm/llmtest"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/workflows"
)

// TestBudgetPausesAndResumes (issue 26): a stream with a model doctor and a
// token budget that its first three episodes reach pauses there, durably,
// with status paused: budget and its spend; raised, it goes on, and its
// records, traces and cards are those of the same stream run without a cap:
// nothing lost, nothing repeated. A raise update the spend still reaches is
// refused; the signal of the same cap is taken (and keeps it paused).
func TestBudgetPausesAndResumes(t *testing.T) {
	t.Parallel() // see TestMain
	srv := llmtest.New(t)
	ctx := context.Background()
	spec := contract.StreamSpec{RunID: "budget", Corpus: "builtin:stream", Limit: 6, StageSize: 6, ActivityTimeoutSeconds: 20,
		Settings: enginetest.ModelSettings(srv, "", "doctor")}

	free := enginetest.StartWith(t, quietLogger{})
	require.Equal(t, 6, runStream(t, free, spec).Episodes)
	recs, err := free.Engine.Results.Records(ctx, "budget")
	require.NoError(t, err)
	require.Len(t, recs, 6)
	capTokens := 0
	for _, r := range recs[:3] {
		u := r.Usage["doctor"]
		capTokens += u.PromptTokens + u.CompletionTokens
	}
	require.Positive(t, capTokens)

	capped := enginetest.StartWith(t, quietLogger{})
	cs := spec
	cs.Settings = spec.Settings.Clone()
	cs.Settings.Budget = settings.Budget{Tokens: capTokens}
	run, err := capped.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: contract.StreamWorkflowID(cs.RunID), TaskQueue: contract.TaskQueue},
		workflows.StreamWorkflow, cs)
	require.NoError(t, err)
	var p contract.Progress
	enginetest.Eventually(t, 60*time.Second, "the stream to pause at its budget", func() bool {
		v, err := capped.Client.QueryWorkflow(ctx, run.GetID(), "", contract.QueryProgress)
		return err == nil && v.Get(&p) == nil && p.Paused
	})
	require.Equal(t, "budget", p.PausedBy)
	require.Equal(t, 3, p.Cursor, "paused after the episode that reached the cap")
	require.Equal(t, capTokens, p.Spend.Tokens)
	require.Equal(t, capTokens, p.Budget.Tokens)

	// Paused durably: a restarted worker leaves it paused.
	// The first query after the restart may be handed to the stopped worker's
	// sticky queue and time out before the server gives it to the new worker
	// (it did once under load), so it is asked until the new worker answers.
	capped.RestartWorker(t)
	enginetest.Eventually(t, 2*time.Minute, "the restarted worker to answer the progress query", func() bool {
		qctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		v, err := capped.Client.QueryWorkflow(qctx, run.GetID(), "", contract.QueryProgress)
		return err == nil && v.Get(&p) == nil
	})
	require.True(t, p.Paused)
	require.Equal(t, 3, p.Cursor)

	// A raise the spend still reaches: the update is refused and changes
	// nothing; the signal (older clients) is taken and keeps it paused.
	_, err = engine.Steer(ctx, capped.Client, "budget", contract.UpdateRaiseBudget, &settings.Budget{Tokens: capTokens - 1})
	require.ErrorIs(t, err, engine.ErrRefused)
	require.ErrorContains(t, err, fmt.Sprintf("raise-budget stream budget: refused: the run's spend at the last check reaches the new cap (tokens %d of %d): "+
		"the stream would stay paused", capTokens, capTokens-1))
	require.NoError(t, capped.Client.SignalWorkflow(ctx, run.GetID(), "", contract.SignalRaiseBudget, settings.Budget{Tokens: capTokens - 1}))
	enginetest.Eventually(t, 30*time.Second, "the raise to be taken", func() bool {
		v, err := capped.Client.QueryWorkflow(ctx, run.GetID(), "", contract.QueryProgress)
		return err == nil && v.Get(&p) == nil && p.Budget.Tokens == capTokens-1
	})
	require.True(t, p.Paused)
	// Lifted by the update, which answers with the stream going on.
	s, err := engine.Steer(ctx, capped.Client, "budget", contract.UpdateRaiseBudget, &settings.Budget{})
	require.NoError(t, err)
	require.Equal(t, "stream budget: running (3 of 6 episodes played); budget: no cap", s.String())
	var res contract.StreamResult
	require.NoError(t, run.Get(ctx, &res))
	require.Equal(t, 6, res.Episodes)
	enginetest.RequireSameRun(t, free.Engine, capped.Engine, "budget")
}
