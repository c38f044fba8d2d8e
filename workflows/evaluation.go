package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/clinevo/clinevo/activities/acts"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/settings"
)

// versionEvalBatches is the change ID of evaluations of any size: from
// version 1 an evaluation resolves and checks its spec in an activity
// (PrepareEvaluation, whose result is in the history), passes its episodes a
// reference to its settings instead of a copy each, and continues as new
// every contract.EvalBatch cases. A history without the marker plays every
// case in one run, as before.
const versionEvalBatches = "eval-batches"

// EvaluationWorkflow plays a set of cases with memory and rules frozen as of
// an episode and no write-back: stage evaluations (A[j][j]), retention replays
// (A[k][j]) and held-out transfer (H0, H3). Episodes run in parallel, at most
// Concurrency at a time; each is an EpisodeWorkflow with a stable ID under the
// evaluation's run ID, which records itself once. Every EvalBatch cases the
// evaluation waits for its running episodes and continues as new with the
// scores so far.
func EvaluationWorkflow(ctx workflow.Context, spec contract.EvalSpec) (contract.EvalResult, error) {
	batches := workflow.GetVersion(ctx, versionEvalBatches, workflow.DefaultVersion, 1) >= 1
	if !batches {
		spec = spec.WithDefaults()
	}
	w, err := newWaiter(ctx, spec.Settings.Durability)
	if err != nil {
		return contract.EvalResult{}, err
	}
	log := workflow.GetLogger(ctx)
	if err := workflow.UpsertTypedSearchAttributes(ctx, AttrRun.ValueSet(spec.RunID), AttrKind.ValueSet(string(spec.Kind)),
		AttrStage.ValueSet(int64(spec.Stage)), AttrPass.ValueSet(int64(spec.Pass))); err != nil {
		return contract.EvalResult{}, err
	}
	if batches && spec.SettingsRef == "" { // the first run: later ones carry the prepared spec
		var prepared contract.EvalSpec
		if err := call(localActivityOptions(ctx, 60), w.local, acts.PrepareEvaluation, spec, &prepared); err != nil {
			return contract.EvalResult{}, err
		}
		spec = prepared
		w.dur = spec.Settings.Durability
	}
	actx := activityOptions(ctx, spec.ActivityTimeoutSeconds)
	if spec.Played == 0 {
		log.Info("evaluation started", "run", spec.RunID, "kind", string(spec.Kind), "label", spec.Label, "cases", len(spec.CaseIDs),
			"as_of", spec.AsOf, "memory_runs", len(spec.MemoryRuns), "rules", len(spec.Rules))
	}
	res := contract.EvalResult{RunID: spec.RunID, Label: spec.Label, Stage: spec.Stage, AsOf: spec.AsOf}
	first, end := spec.Played, len(spec.CaseIDs)
	if batches {
		end = min(end, first+contract.EvalBatch)
	}
	next := first
	// The batch's scores, added to the totals in case order once all are in:
	// the means do not depend on the order the episodes finished in.
	batch := make([]contract.ScoreSummary, end-first)
	start := func(i int) workflow.ChildWorkflowFuture {
		index := spec.FirstIndex + i + 1
		cond := ""
		if i < len(spec.Conditions) {
			cond = spec.Conditions[i]
		}
		in := acts.EpisodeInput{Run: spec.RunID, EpisodeID: contract.EpisodeWorkflowID(spec.RunID, spec.Pass, spec.Stage, index, spec.CaseIDs[i]),
			Kind: spec.Kind, Corpus: spec.Corpus, CaseID: spec.CaseIDs[i], Condition: cond, Index: index, Number: spec.AsOf + 1,
			Pass: spec.Pass, Stage: spec.Stage, Rules: spec.Rules, MemoryRuns: spec.MemoryRuns, AsOf: spec.AsOf, Frozen: true,
			ActivityTimeoutSeconds: spec.ActivityTimeoutSeconds, Settings: spec.Settings}
		if spec.SettingsRef != "" {
			in.Settings, in.SettingsRef, in.Durability = settings.Settings{}, spec.SettingsRef, spec.Settings.Durability
		}
		if err := checkEpisodeID(ctx, in); err != nil {
			f, set := workflow.NewFuture(ctx)
			set.SetError(err)
			return childFailed{f}
		}
		return workflow.ExecuteChildWorkflow(episodeOptions(ctx, in), EpisodeWorkflow, in)
	}
	sel := workflow.NewSelector(ctx)
	var firstErr error
	running := 0
	launch := func() {
		for running < spec.Concurrency && next < end {
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
				batch[i-first] = s // the episode recorded itself
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
	totals := spec.Totals
	for _, s := range batch {
		totals.Add(s)
	}
	if end < len(spec.CaseIDs) {
		spec.Played, spec.Totals = end, totals
		log.Info("evaluation continues as new", "run", spec.RunID, "played", end, "cases", len(spec.CaseIDs))
		return contract.EvalResult{}, workflow.NewContinueAsNewError(ctx, EvaluationWorkflow, spec)
	}
	res.Means = totals.Means()
	if err := call(actx, w.activity, acts.CompleteRun, acts.RunCompletion{Run: spec.RunID, Kind: spec.Kind, Result: res}, nil); err != nil {
		return contract.EvalResult{}, err
	}
	log.Info("evaluation finished", "run", spec.RunID, "label", spec.Label, "episodes", res.Means.N, "s", res.Means.S, "strict", res.Means.Strict, "u", res.Means.U)
	return res, nil
}
