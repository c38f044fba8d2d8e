package workflows_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/worker"

	"github.com/clinevo/clinevo/workflows"
)

// TestReplayCommittedHistories replays histories exported from real runs on the
// embedded server (`clinevo episode history ... --out`): a change to the
// workflow code that would break running workflows fails here. The *_v1 files
// are from after version 1 of "assess-in-task" (episodes score and grade or
// record themselves, streams learn in one local activity); the others are
// from before it, and still replay on the old path. experiment.json (an
// experiment of a stream with a stage evaluation and two held-out conditions)
// and its evaluations' histories are from before evaluations continued as new
// and before validation and defaulting moved out of workflow code. The
// *_planned, *_batches and stream_resolved files are from after those
// changes (version 1 of "plan-experiment", "eval-batches" and
// "resolve-before-start"), and episode_waited.json is an episode that waited
// out three failed reads of its results store (version 1 of
// "wait-out-outages": timers, ClinevoWaiting set and removed).
// stream_gepa.json is a gepa stream that ran its development phase first
// (version 1 of "dev-phase"), optimize_gepa.json that phase
// (OptimizeWorkflow: the seed and one child played, one Breed).
// stream_experiment_budget.json is a stream its experiment's cap paused
// after three episodes and a raise let finish (version 1 of
// "experiment-budget-pause": ExperimentSpend after each flush, two raise
// signals), from engine's TestExperimentBudgetPausesOnTheTotal.
// optimize_evoprompt.json is an EvoPrompt development phase from before
// "evoprompt-population" (the seed alone, then one GA generation of two
// children), which must keep replaying on the old path;
// optimize_evoprompt_de.json one from after it (version 1: the seed, two
// initial books, one DE generation of three children);
// experiment_claims.json is an experiment that claimed its conditions' run
// IDs (version 1 of "claim-conditions": its stream condition carries its
// name), stream_checked_ids.json that condition's stream and
// evaluation_checked_ids.json its held-out evaluation, both checking each
// episode's workflow ID (version 1 of "check-episode-ids").
// stream_updates.json is a stream steered by updates in its third episode:
// pause, raise-budget (USD 100, so that from the next flush it reads its
// spend: the "budget-pause" marker and RunSpend), resume and stop, each
// accepted and answered (engine.Steer against the embedded server).
// evaluation_epochs.json is a held-out evaluation of 3 cases over 2 epochs
// (version 1 of "eval-epochs": 6 episodes, the second epoch's IDs
// e<index>.k002-<case>), from engine's TestEpochsEndToEnd.
// stream_matts.json is a reasoningbank stream under MaTTS (evolver.matts.k
// 2, two cases: version 1 of "matts-attempts", each case's two attempts
// started as child episodes at once, one Learn per case) and
// episode_matts_attempt.json its first case's second attempt (ID suffix
// /a2), both from `clinevo experiment run` on the embedded server.
func TestReplayCommittedHistories(t *testing.T) {
	for _, f := range []string{"testdata/stream_stage1.json", "testdata/episode.json",
		"testdata/stream_stage1_v1.json", "testdata/episode_v1.json", "testdata/episode_eval_v1.json",
		"testdata/experiment.json", "testdata/evaluation_heldout.json", "testdata/evaluation_stage.json",
		"testdata/experiment_planned.json", "testdata/evaluation_heldout_batches.json", "testdata/evaluation_stage_batches.json",
		"testdata/stream_resolved.json", "testdata/episode_waited.json", "testdata/stream_gepa.json", "testdata/optimize_gepa.json",
		"testdata/stream_experiment_budget.json", "testdata/optimize_evoprompt.json",
		"testdata/optimize_evoprompt_de.json", "testdata/experiment_claims.json", "testdata/stream_checked_ids.json",
		"testdata/evaluation_checked_ids.json", "testdata/stream_updates.json", "testdata/evaluation_epochs.json",
		"testdata/stream_matts.json", "testdata/episode_matts_attempt.json"} {
		t.Run(f, func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			r.RegisterWorkflow(workflows.StreamWorkflow)
			r.RegisterWorkflow(workflows.EpisodeWorkflow)
			r.RegisterWorkflow(workflows.EvaluationWorkflow)
			r.RegisterWorkflow(workflows.ExperimentWorkflow)
			r.RegisterWorkflow(workflows.OptimizeWorkflow)
			require.NoError(t, r.ReplayWorkflowHistoryFromJSONFile(nil, f))
		})
	}
}
