package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/clinevo/clinevo/activities"
)

// EvaluationWorkflow plays a set of cases with memory and rules frozen as of
// an episode and no write-back: stage evaluations (A[j][j]), retention replays
// (A[k][j]) and held-out transfer (H0, H3). Episodes run in parallel, at most
// Concurrency at a time; each is an EpisodeWorkflow with a stable ID under the
// evaluation's run ID, which records itself once.
func EvaluationWorkflow(ctx workflow.Context, spec activities.EvalSpec) (activities.EvalResult, error) {
	if spec.Concurrency < 1 {
		spec.Concurrency = 1
	}
	if spec.Pass == 0 {
		spec.Pass = 1
	}
	if spec.ActivityTimeoutSeconds == 0 {
		spec.ActivityTimeoutSeconds = 120
	}
	actx := activityOptions(ctx, spec.ActivityTimeoutSeconds)
	if spec.Env.MaxTurns == 0 {
		spec.Env = activities.StreamSpec{}.WithDefaults().Env
	}
	if err := workflow.UpsertTypedSearchAttributes(ctx, AttrRun.ValueSet(spec.RunID), AttrKind.ValueSet(spec.Kind),
		AttrStage.ValueSet(int64(spec.Stage)), AttrPass.ValueSet(int64(spec.Pass))); err != nil {
		return activities.EvalResult{}, err
	}
	res := activities.EvalResult{RunID: spec.RunID, Label: spec.Label, Stage: spec.Stage, AsOf: spec.AsOf,
		Scores: make([]activities.ScoreSummary, len(spec.CaseIDs))}
	k := spec.K
	if len(spec.MemoryRuns) == 0 {
		k = 0
	}
	start := func(i int) workflow.ChildWorkflowFuture {
		index := spec.FirstIndex + i + 1
		id := EpisodeWorkflowID(spec.RunID, spec.Pass, spec.Stage, index, spec.CaseIDs[i])
		cond := ""
		if i < len(spec.Conditions) {
			cond = spec.Conditions[i]
		}
		in := activities.EpisodeInput{Run: spec.RunID, EpisodeID: id, Kind: spec.Kind, Corpus: spec.Corpus, CaseID: spec.CaseIDs[i],
			Condition: cond, Index: index, Number: spec.AsOf + 1, Pass: spec.Pass, Stage: spec.Stage, Rules: spec.Rules, K: k,
			MemoryRuns: spec.MemoryRuns, AsOf: spec.AsOf, Frozen: true, Env: spec.Env, Weights: spec.Weights,
			ActivityTimeoutSeconds: spec.ActivityTimeoutSeconds}
		return workflow.ExecuteChildWorkflow(episodeOptions(ctx, in), EpisodeWorkflow, in)
	}
	sel := workflow.NewSelector(ctx)
	var firstErr error
	next, running := 0, 0
	launch := func() {
		for running < spec.Concurrency && next < len(spec.CaseIDs) {
			i := next
			f := start(i)
			next++
			running++
			sel.AddFuture(f, func(f workflow.Future) {
				running--
				var s activities.ScoreSummary
				if err := f.Get(ctx, &s); err != nil {
					if firstErr == nil {
						firstErr = err
					}
					return
				}
				res.Scores[i] = s // the episode recorded itself
			})
		}
	}
	launch()
	for running > 0 {
		sel.Select(ctx)
		if firstErr != nil {
			return activities.EvalResult{}, fmt.Errorf("evaluation %s: %w", spec.RunID, firstErr)
		}
		launch()
	}
	var t activities.Totals
	for _, s := range res.Scores {
		t.Add(s)
	}
	res.Means = t.Means()
	if err := workflow.ExecuteActivity(actx, a.CompleteRun, activities.RunCompletion{Run: spec.RunID, Kind: spec.Kind, Result: res}).Get(ctx, nil); err != nil {
		return activities.EvalResult{}, err
	}
	return res, nil
}

// ReplayRunID names the replay of stage j with memory as of the end of stage k.
func ReplayRunID(run string, k, j int) string { return fmt.Sprintf("%s/replay-k%02d-s%02d", run, k, j) }

// StageEvalRunID names the stage evaluation of stage j.
func StageEvalRunID(run string, j int) string { return fmt.Sprintf("%s/eval-s%02d", run, j) }
