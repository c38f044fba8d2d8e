package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/clinevo/clinevo/activities"
	"github.com/clinevo/clinevo/contract"
)

// EvaluationWorkflow plays a set of cases with memory and rules frozen as of
// an episode and no write-back: stage evaluations (A[j][j]), retention replays
// (A[k][j]) and held-out transfer (H0, H3). Episodes run in parallel, at most
// Concurrency at a time; each is an EpisodeWorkflow with a stable ID under the
// evaluation's run ID, which records itself once.
func EvaluationWorkflow(ctx workflow.Context, spec contract.EvalSpec) (contract.EvalResult, error) {
	spec = spec.WithDefaults()
	log := workflow.GetLogger(ctx)
	actx := activityOptions(ctx, spec.ActivityTimeoutSeconds)
	if err := workflow.UpsertTypedSearchAttributes(ctx, AttrRun.ValueSet(spec.RunID), AttrKind.ValueSet(string(spec.Kind)),
		AttrStage.ValueSet(int64(spec.Stage)), AttrPass.ValueSet(int64(spec.Pass))); err != nil {
		return contract.EvalResult{}, err
	}
	log.Info("evaluation started", "run", spec.RunID, "kind", string(spec.Kind), "label", spec.Label, "cases", len(spec.CaseIDs),
		"as_of", spec.AsOf, "memory_runs", len(spec.MemoryRuns), "rules", len(spec.Rules))
	res := contract.EvalResult{RunID: spec.RunID, Label: spec.Label, Stage: spec.Stage, AsOf: spec.AsOf,
		Scores: make([]contract.ScoreSummary, len(spec.CaseIDs))}
	start := func(i int) workflow.ChildWorkflowFuture {
		index := spec.FirstIndex + i + 1
		cond := ""
		if i < len(spec.Conditions) {
			cond = spec.Conditions[i]
		}
		in := activities.EpisodeInput{Run: spec.RunID, EpisodeID: contract.EpisodeWorkflowID(spec.RunID, spec.Pass, spec.Stage, index, spec.CaseIDs[i]),
			Kind: spec.Kind, Corpus: spec.Corpus, CaseID: spec.CaseIDs[i], Condition: cond, Index: index, Number: spec.AsOf + 1,
			Pass: spec.Pass, Stage: spec.Stage, Rules: spec.Rules, MemoryRuns: spec.MemoryRuns, AsOf: spec.AsOf, Frozen: true,
			ActivityTimeoutSeconds: spec.ActivityTimeoutSeconds, Settings: spec.Settings}
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
				var s contract.ScoreSummary
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
			return contract.EvalResult{}, fmt.Errorf("evaluation %s: %w", spec.RunID, firstErr)
		}
		launch()
	}
	var t contract.Totals
	for _, s := range res.Scores {
		t.Add(s)
	}
	res.Means = t.Means()
	if err := workflow.ExecuteActivity(actx, a.CompleteRun, activities.RunCompletion{Run: spec.RunID, Kind: spec.Kind, Result: res}).Get(ctx, nil); err != nil {
		return contract.EvalResult{}, err
	}
	log.Info("evaluation finished", "run", spec.RunID, "label", spec.Label, "episodes", res.Means.N, "s", res.Means.S, "strict", res.Means.Strict, "u", res.Means.U)
	return res, nil
}
