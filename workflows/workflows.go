// Package workflows is the deterministic orchestration of clinevo: the stream of
// episodes with its Diagnose–Grade–Evolve loop, the episode turn loop,
// evaluations with frozen memory and experiments. No I/O, no clocks, no map
// iteration for order; every side effect is an activity.
package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/clinevo/clinevo/activities/acts"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/settings"
)

// MaxTurnsPerLoop is a hard bound on the turn loop, above any sane Tmax.
const MaxTurnsPerLoop = 64

// Search attribute keys.
var (
	AttrRun          = temporal.NewSearchAttributeKeyKeyword("ClinevoRun")
	AttrCase         = temporal.NewSearchAttributeKeyKeyword("CaseId")
	AttrCondition    = temporal.NewSearchAttributeKeyKeyword("Condition")
	AttrKind         = temporal.NewSearchAttributeKeyKeyword("Kind")
	AttrStage        = temporal.NewSearchAttributeKeyInt64("Stage")
	AttrPass         = temporal.NewSearchAttributeKeyInt64("Pass")
	AttrEpisodeIndex = temporal.NewSearchAttributeKeyInt64("EpisodeIndex")
	AttrScore        = temporal.NewSearchAttributeKeyFloat64("Score")
)

// activityOptions bound each attempt of an activity by timeoutSeconds; the
// waiter retries (retryOff).
func activityOptions(ctx workflow.Context, timeoutSeconds int) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Duration(timeoutSeconds) * time.Second, RetryPolicy: retryOff})
}

// localActivityOptions bound each attempt of a local activity by
// timeoutSeconds. Without a retry policy of its own the Go SDK would retry a
// local activity only within its start-to-close timeout (it takes that as the
// schedule-to-close timeout): the waiter retries instead, for as long as the
// run's durability allows.
func localActivityOptions(ctx workflow.Context, timeoutSeconds int) workflow.Context {
	return workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: time.Duration(timeoutSeconds) * time.Second, RetryPolicy: retryOff})
}

// versionAssessInTask is the change ID of the round trips cut per episode:
// from version 1 an episode scores, grades (stream episodes) or records
// (frozen episodes) itself as local activities in the workflow task that ends
// its turn loop, and a stream learns from and records its episodes in one
// local activity. Histories without the marker take the old path: a regular
// activity for each of Score, Grade, Evolve and Record.
const versionAssessInTask = "assess-in-task"

// EpisodeWorkflow plays one episode: ActorDecide and EnvStep until the episode
// ends, then ManagerScore, and for a stream episode the process grade. Its
// history is the episode's audit trail; the texts live in the results store
// under its workflow ID.
func EpisodeWorkflow(ctx workflow.Context, in acts.EpisodeInput) (contract.ScoreSummary, error) {
	dur := in.Durability
	if dur == (settings.Durability{}) {
		dur = in.Settings.Durability
	}
	w, err := newWaiter(ctx, dur)
	if err != nil {
		return contract.ScoreSummary{}, err
	}
	ctx = activityOptions(ctx, in.ActivityTimeoutSeconds)
	// The turn loop runs as local activities: each turn's decision and event are
	// kept in the results store, so a turn re-run after a crash returns what it
	// stored, and the loop costs the server a few writes per episode instead of
	// four per turn. The history records each turn as a marker.
	lctx := localActivityOptions(ctx, in.ActivityTimeoutSeconds)
	workflow.SetCurrentDetails(ctx, fmt.Sprintf("case %s, turn 0", in.CaseID))
	for turn := 0; turn < MaxTurnsPerLoop; turn++ {
		ti := acts.TurnInput{EpisodeInput: in, Turn: turn}
		var dec acts.TurnSummary
		if err := call(lctx, w.local, acts.Decide, ti, &dec); err != nil {
			return contract.ScoreSummary{}, err
		}
		var st acts.TurnSummary
		if err := call(lctx, w.local, acts.Step, ti, &st); err != nil {
			return contract.ScoreSummary{}, err
		}
		workflow.SetCurrentDetails(ctx, fmt.Sprintf("case %s, turn %d: %s %s", in.CaseID, turn, st.Action, st.Status))
		if st.Done {
			break
		}
	}
	// Score, Grade and Record are idempotent (the trace and the grade are
	// rebuilt from the stored turns and stored again, the record is an upsert),
	// so running them in the loop's workflow task, where a crash re-runs them,
	// is as safe as a regular activity's retry, and spares the episode a
	// workflow task and the stream two.
	actx, start := ctx, starter(w.activity)
	if workflow.GetVersion(ctx, versionAssessInTask, workflow.DefaultVersion, 1) >= 1 {
		actx, start = lctx, w.local
	}
	var s contract.ScoreSummary
	if err := call(actx, start, acts.Score, in, &s); err != nil {
		return contract.ScoreSummary{}, err
	}
	if err := workflow.UpsertTypedSearchAttributes(ctx, AttrScore.ValueSet(s.S)); err != nil {
		return contract.ScoreSummary{}, err
	}
	if in.Grade {
		if err := call(actx, start, acts.Grade, acts.GradeInput{EpisodeRef: in.Ref(), Settings: in.Settings}, nil); err != nil {
			return contract.ScoreSummary{}, err
		}
	}
	if in.Frozen {
		// Evaluation episodes learn nothing, so they record themselves; stream
		// episodes are recorded by the stream after Evolve.
		rec := acts.RecordInput{EpisodeRef: in.Ref(), Run: in.Run, Kind: in.Kind, Pass: in.Pass, Benchmark: in.Settings.Benchmark, SettingsRef: in.SettingsRef}
		if err := call(actx, start, acts.Record, rec, nil); err != nil {
			return contract.ScoreSummary{}, err
		}
	}
	workflow.SetCurrentDetails(ctx, fmt.Sprintf("case %s: S=%.2f diag=%.2f U=%.2f T=%d E=%d (%s)", in.CaseID, s.S, s.Diagnosis, s.U, s.T, s.E, s.Termination))
	return s, nil
}

// versionCheckIDs is the change ID of streams and evaluations that check
// each episode's workflow ID before they start it (checkEpisodeID): from
// version 1 an ID Temporal would refuse (a case ID of characters a gRPC
// header cannot carry) fails the run at once, naming the case, where the
// refusal used to fail the workflow task again and again and wedge the run
// for good. Histories without the marker started their episodes unchecked.
const versionCheckIDs = "check-episode-ids"

// checkEpisodeID refuses, as a non-retryable failure of the run, an episode
// whose workflow ID Temporal would refuse.
func checkEpisodeID(ctx workflow.Context, in acts.EpisodeInput) error {
	if workflow.GetVersion(ctx, versionCheckIDs, workflow.DefaultVersion, 1) < 1 {
		return nil
	}
	if err := contract.ValidateWorkflowID(in.EpisodeID); err != nil {
		return temporal.NewNonRetryableApplicationError(fmt.Sprintf("episode %d of run %s: case %q cannot be played: %v (fix the case's ID in the corpus)",
			in.Index, in.Run, in.CaseID, err), "BadCaseID", nil)
	}
	return nil
}

func episodeOptions(ctx workflow.Context, in acts.EpisodeInput) workflow.Context {
	return workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID: in.EpisodeID,
		TaskQueue:  workflow.GetInfo(ctx).TaskQueueName,
		TypedSearchAttributes: temporal.NewSearchAttributes(
			AttrRun.ValueSet(in.Run), AttrCase.ValueSet(in.CaseID), AttrCondition.ValueSet(in.Condition),
			AttrKind.ValueSet(string(in.Kind)), AttrStage.ValueSet(int64(in.Stage)), AttrPass.ValueSet(int64(in.Pass)),
			AttrEpisodeIndex.ValueSet(int64(in.Index))),
		StaticSummary: fmt.Sprintf("%s episode %d: case %s", in.Kind, in.Index, in.CaseID),
	})
}

// childFailed is a child workflow that never started: every future of it
// holds the error that kept it from starting.
type childFailed struct{ workflow.Future }

func (c childFailed) GetChildWorkflowExecution() workflow.Future { return c.Future }

func (c childFailed) SignalChildWorkflow(workflow.Context, string, any) workflow.Future {
	return c.Future
}
