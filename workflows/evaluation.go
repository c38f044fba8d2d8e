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

// versionEvalEpochs is the change ID of evaluations that play each case
// several times (EvalSpec.Epochs > 1): from version 1 they play every case
// once per epoch, epoch by epoch, each play its own episode
// (contract.EpochEpisodeID). Only a spec with epochs asks for the marker,
// so the histories of one-epoch evaluations are unchanged; a history of
// such a spec without it (an older worker started it) plays each case once.
const versionEvalEpochs = "eval-epochs"

// EvaluationWorkflow plays a set of cases with memory and rules frozen as of
// an episode and no write-back: stage evaluations (A[j][j]), retention replays
// (A[k][j]) and held-out transfer (H0, H3). Episodes run in parallel, at most
// Concurrency at a time; each is an EpisodeWorkflow with a stable ID under the
// evaluation's run ID, which records itself once. Every EvalBatch cases the
// evaluation waits for its running episodes and continues as new with the
// scores so far.
func EvaluationWorkflow(ctx workflow.Context, spec contract.EvalSpec) (contract.EvalResult, error) {
	spec, w, batches, err := startEvaluation(ctx, spec)
	if err != nil {
		return contract.EvalResult{}, err
	}
	log := workflow.GetLogger(ctx)
	if spec.Played == 0 {
		log.Info("evaluation started", "run", spec.RunID, "kind", string(spec.Kind), "label", spec.Label, "cases", len(spec.CaseIDs), "epochs", max(spec.Epochs, 1),
			"as_of", spec.AsOf, "memory_runs", len(spec.MemoryRuns), "rules", len(spec.Rules))
	}
	res := contract.EvalResult{RunID: spec.RunID, Label: spec.Label, Stage: spec.Stage, AsOf: spec.AsOf}
	first, end := spec.Played, spec.Plays()
	if batches {
		end = min(end, first+contract.EvalBatch)
	}
	batch, err := playBatch(ctx, spec, first, end)
	if err != nil {
		return contract.EvalResult{}, err
	}
	totals := spec.Totals
	for _, s := range batch {
		totals.Add(s)
	}
	if end < spec.Plays() {
		spec.Played, spec.Totals = end, totals
		log.Info("evaluation continues as new", "run", spec.RunID, "played", end, "plays", spec.Plays())
		return contract.EvalResult{}, workflow.NewContinueAsNewError(ctx, EvaluationWorkflow, spec)
	}
	res.Means = totals.Means()
	actx := activityOptions(ctx, spec.ActivityTimeoutSeconds)
	if err := call(actx, w.activity, acts.CompleteRun, acts.RunCompletion{Run: spec.RunID, Kind: spec.Kind, Result: res}, nil); err != nil {
		return contract.EvalResult{}, err
	}
	log.Info("evaluation finished", "run", spec.RunID, "label", spec.Label, "episodes", res.Means.N, "s", res.Means.S, "strict", res.Means.Strict, "u", res.Means.U)
	return res, nil
}

// startEvaluation reads the evaluation's versions, sets its search
// attributes and, in its first run from version 1 of versionEvalBatches,
// prepares its spec (PrepareEvaluation); batches reports that version.
func startEvaluation(ctx workflow.Context, spec contract.EvalSpec) (_ contract.EvalSpec, w *waiter, batches bool, err error) {
	batches = workflow.GetVersion(ctx, versionEvalBatches, workflow.DefaultVersion, 1) >= 1
	if !batches {
		spec = spec.WithDefaults()
	}
	if spec.Epochs > 1 && workflow.GetVersion(ctx, versionEvalEpochs, workflow.DefaultVersion, 1) < 1 {
		spec.Epochs = 0 // started by a worker that played each case once
	}
	if w, err = newWaiter(ctx, spec.Settings.Durability); err != nil {
		return spec, nil, false, err
	}
	if err := workflow.UpsertTypedSearchAttributes(ctx, AttrRun.ValueSet(spec.RunID), AttrKind.ValueSet(string(spec.Kind)),
		AttrStage.ValueSet(int64(spec.Stage)), AttrPass.ValueSet(int64(spec.Pass))); err != nil {
		return spec, nil, false, err
	}
	if batches && spec.SettingsRef == "" { // the first run: later ones carry the prepared spec
		var prepared contract.EvalSpec
		if err := call(localActivityOptions(ctx, 60), w.local, acts.PrepareEvaluation, spec, &prepared); err != nil {
			return spec, nil, false, err
		}
		spec = prepared
		w.dur = spec.Settings.Durability
	}
	return spec, w, batches, nil
}

// playBatch plays plays first to end-1 of the evaluation, at most
// Concurrency at a time, and returns their scores in play order: the means
// do not depend on the order the episodes finished in. Each episode records
// itself; the first to fail ends the batch.
func playBatch(ctx workflow.Context, spec contract.EvalSpec, first, end int) ([]contract.ScoreSummary, error) {
	batch := make([]contract.ScoreSummary, end-first)
	sel := workflow.NewSelector(ctx)
	var firstErr error
	next, running := first, 0
	launch := func() {
		for running < spec.Concurrency && next < end {
			i := next
			f := startPlay(ctx, spec, i)
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
				batch[i-first] = s
			})
		}
	}
	launch()
	for running > 0 {
		sel.Select(ctx)
		if firstErr != nil {
			return nil, fmt.Errorf("evaluation %s: %w", spec.RunID, firstErr)
		}
		launch()
	}
	return batch, nil
}

// startPlay starts play i's episode as a child workflow; an episode ID
// Temporal would refuse fails it at once.
func startPlay(ctx workflow.Context, spec contract.EvalSpec, play int) workflow.ChildWorkflowFuture {
	in := evalEpisode(spec, play)
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

// evalEpisode is the input of play i of an evaluation: its case, in its
// epoch. A play of the first epoch is the episode an evaluation without
// epochs plays (Epoch stays 0 in its input and record).
func evalEpisode(spec contract.EvalSpec, play int) acts.EpisodeInput {
	i, epoch := spec.Play(play)
	index := spec.FirstIndex + i + 1
	cond := ""
	if i < len(spec.Conditions) {
		cond = spec.Conditions[i]
	}
	in := acts.EpisodeInput{Run: spec.RunID, EpisodeID: contract.EpochEpisodeID(spec.RunID, spec.Pass, spec.Stage, index, epoch, spec.CaseIDs[i]),
		Kind: spec.Kind, Corpus: spec.Corpus, CaseID: spec.CaseIDs[i], Condition: cond, Index: index, Number: spec.AsOf + 1,
		Pass: spec.Pass, Stage: spec.Stage, Rules: spec.Rules, MemoryRuns: spec.MemoryRuns, AsOf: spec.AsOf, Frozen: true,
		ActivityTimeoutSeconds: spec.ActivityTimeoutSeconds, Settings: spec.Settings}
	if spec.Epochs > 1 {
		in.Epoch = epoch
	}
	return in
}
