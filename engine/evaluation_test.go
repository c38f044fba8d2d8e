package engine_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/workflows"
)

// TestEvaluationsReadMemoryAsOf runs a stream with stage evaluations and the
// retention replay and checks every evaluation episode against the in-process
// play with memory as of the right episode; the replay of stage 1 (memory as
// of the end of stage 2) must differ from its stage evaluation (memory as of
// the end of stage 1), so later cards would have changed the answer.
func TestEvaluationsReadMemoryAsOf(t *testing.T) {
	t.Parallel() // see TestMain
	env := enginetest.Start(t)
	spec := contract.StreamSpec{RunID: "asof", Corpus: "builtin:stream", Limit: 16, StageSize: 8, StageEval: true, Retention: "final"}
	res := runStream(t, env, spec)
	require.Equal(t, []int{8, 16}, res.StageEnds)
	require.Len(t, res.Evaluations, 1)

	_, _, evals := enginetest.ReferenceWithEvals(t, spec)
	enginetest.RequireEvaluationsAsReference(t, env.Engine.Results, evals)
	a11, a21 := evals[contract.StageEvalRunID("asof", 1)], evals[contract.ReplayRunID("asof", 2, 1)]
	differ := 0
	for i := range a11 {
		ab, _ := json.Marshal(a11[i].Events)
		bb, _ := json.Marshal(a21[i].Events)
		if string(ab) != string(bb) {
			differ++
		}
	}
	require.Positive(t, differ, "cards written in stage 2 change how stage-1 cases are played")
	for _, r := range a11 {
		for _, ev := range r.Events {
			for _, id := range ev.RetrievedCards {
				c, err := env.Engine.Memory.Get(context.Background(), id)
				require.NoError(t, err)
				require.LessOrEqual(t, c.CreatedEpisode, 8, "a stage-1 evaluation saw a card written after stage 1")
			}
		}
	}
}

// TestQuickExperimentEndToEnd runs a small experiment (E0, E1 with stage
// evaluations and replay, E2 carrying memory, H0, H3) through Temporal and
// writes its report.
func TestQuickExperimentEndToEnd(t *testing.T) {
	t.Parallel() // see TestMain
	env := enginetest.Start(t)
	ctx := context.Background()
	spec := contract.ExperimentSpec{Name: "mini", Corpus: "builtin:stream", Limit: 12, StageSize: 6, HeldOut: "builtin:heldout", HeldOutLimit: 6,
		EvalConcurrency: 4, Conditions: []contract.ConditionSpec{
			{Name: "E0", Kind: "stream", Memory: "disabled"}, {Name: "E1", Kind: "stream", Memory: "empty", StageEval: true, Retention: "final"},
			{Name: "E2", Kind: "stream", Memory: "carry", CarryFrom: "E1"}, {Name: "H0", Kind: "heldout"}, {Name: "H3", Kind: "heldout", From: "E2"}}}
	run, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: contract.ExperimentWorkflowID("mini"), TaskQueue: contract.TaskQueue},
		workflows.ExperimentWorkflow, spec)
	require.NoError(t, err)
	var out contract.ExperimentResult
	require.NoError(t, run.Get(ctx, &out))
	require.Len(t, out.Conditions, 5)
	e1, e2 := out.Conditions[1].Stream, out.Conditions[2].Stream
	require.Equal(t, []int{18, 24}, e2.StageEnds, "E2 continues E1's episode numbering")
	require.Equal(t, []string{"mini-E1", "mini-E2"}, e2.MemoryRuns)
	require.Equal(t, 24, e2.LastEpisode)
	require.Equal(t, 12, e1.LastEpisode)
	require.Equal(t, e2.LastEpisode, out.Conditions[4].Eval.AsOf, "H3 freezes E2's final memory")
	require.Zero(t, out.Conditions[3].Eval.AsOf, "H0 has no memory")

	in, err := analysis.Load(ctx, env.Engine.Results, env.Engine.Benchmarks, "mini")
	require.NoError(t, err)
	rep := analysis.Build(in)
	require.Len(t, rep.Transfer, 1)
	require.Len(t, rep.Retention, 1)
	dir := t.TempDir()
	require.NoError(t, analysis.Write(dir, rep, analysis.StoreTraces(ctx, env.Engine.Results)))
	for _, f := range analysis.Files {
		_, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err, f)
	}

	// Resuming a finished experiment reuses every stored result. A resumed
	// experiment is the same run: it carries the claim it recorded.
	runs, _, err := env.Engine.Results.Runs(ctx)
	require.NoError(t, err)
	for _, r := range runs {
		if r.Run == "mini" {
			spec.Claim = r.Claim
		}
	}
	require.NotEmpty(t, spec.Claim)
	run, err = env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: contract.ExperimentWorkflowID("mini") + "-again", TaskQueue: contract.TaskQueue},
		workflows.ExperimentWorkflow, spec)
	require.NoError(t, err)
	var again contract.ExperimentResult
	require.NoError(t, run.Get(ctx, &again))
	require.Equal(t, out.Conditions[1].Stream.Overall, again.Conditions[1].Stream.Overall)
}

// TestOrderingsEndToEnd submits an experiment over 2 orderings as the
// Temporal CLI would (its orderings not written out): the workflow plays
// E0, E1 and H3 again in ordering 2 on the same cases in the permutation of
// seed 1, H0 once, and the report puts them side by side.
func TestOrderingsEndToEnd(t *testing.T) {
	t.Parallel() // see TestMain
	env := enginetest.Start(t)
	ctx := context.Background()
	spec := contract.ExperimentSpec{Name: "ord", Corpus: "builtin:stream", Limit: 8, StageSize: 4, HeldOut: "builtin:heldout", HeldOutLimit: 4,
		EvalConcurrency: 4, Orderings: 2, Conditions: []contract.ConditionSpec{
			{Name: "E0", Kind: "stream", Memory: "disabled"}, {Name: "E1", Kind: "stream", Memory: "empty"},
			{Name: "H0", Kind: "heldout"}, {Name: "H3", Kind: "heldout", From: "E1"}}}
	run, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: contract.ExperimentWorkflowID("ord"), TaskQueue: contract.TaskQueue},
		workflows.ExperimentWorkflow, spec)
	require.NoError(t, err)
	var out contract.ExperimentResult
	require.NoError(t, run.Get(ctx, &out))
	var names []string
	for _, c := range out.Conditions {
		names = append(names, c.Name)
	}
	require.Equal(t, []string{"E0", "E1", "H0", "H3", "E0.o2", "E1.o2", "H3.o2"}, names)
	caseIDs := func(run string) []string {
		recs, err := env.Engine.Results.Records(ctx, run)
		require.NoError(t, err)
		var ids []string
		for _, r := range recs {
			ids = append(ids, r.CaseID)
		}
		return ids
	}
	first, second := caseIDs("ord-E1"), caseIDs("ord-E1.o2")
	require.Len(t, second, 8)
	for i, j := range contract.CaseOrder(8, 1, 0) {
		require.Equal(t, first[j], second[i], "ordering 2 plays the published order's case %d %d-th", j+1, i+1)
	}
	require.Equal(t, 8, out.Conditions[6].Eval.AsOf, "H3.o2 freezes E1.o2's final memory")

	in, err := analysis.Load(ctx, env.Engine.Results, env.Engine.Benchmarks, "ord")
	require.NoError(t, err)
	rep := analysis.Build(in)
	require.NotNil(t, rep.Orderings)
	require.Len(t, rep.Orderings.Conditions, 3)
	require.Equal(t, []string{"ord-E1", "ord-E1.o2"}, rep.Orderings.Conditions[1].Runs)
	require.Len(t, rep.Orderings.Transfers, 1, "H3 vs H0 in both orderings")
	for _, c := range rep.Conditions {
		if c.Name == "H3.o2" {
			require.Equal(t, []string{"E1.o2"}, c.Encounters.Lineage, "H3.o2 reads ordering 2's memory")
		}
	}
}
