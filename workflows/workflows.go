// Package workflows is the deterministic orchestration of clinevo: the stream of
// episodes with its Diagnose–Grade–Evolve loop, and the episode turn loop. No
// I/O, no clocks, no map iteration for order; every side effect is an activity.
package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/clinevo/clinevo/activities"
	"github.com/clinevo/clinevo/clinic"
)

// Names of signals and queries.
const (
	SignalPause     = "pause"
	SignalResume    = "resume"
	SignalStop      = "stop" // stop after the current episode
	QueryProgress   = "progress"
	QueryRules      = "rules"
	TaskQueue       = "clinevo"
	MaxTurnsPerLoop = 64 // a hard bound on the turn loop, above any sane Tmax
)

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

var a *activities.Activities // activities are called through a nil pointer

// EpisodeWorkflowID is the stable ID of an episode: <run>/p<pass>/s<stage>/e<index>-<case>.
func EpisodeWorkflowID(run string, pass, stage, index int, caseID string) string {
	return fmt.Sprintf("%s/p%d/s%02d/e%04d-%s", run, pass, stage, index, caseID)
}

func activityOptions(ctx workflow.Context, timeoutSeconds int) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Duration(timeoutSeconds) * time.Second,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:        time.Second,
			BackoffCoefficient:     2,
			MaximumInterval:        time.Minute,
			NonRetryableErrorTypes: []string{activities.ErrBadInput},
		},
	})
}

// EpisodeWorkflow plays one episode: ActorDecide and EnvStep until the episode
// ends, then ManagerScore. Its history is the episode's audit trail; the texts
// live in the results store under its workflow ID.
func EpisodeWorkflow(ctx workflow.Context, in activities.EpisodeInput) (activities.ScoreSummary, error) {
	ctx = activityOptions(ctx, in.ActivityTimeoutSeconds)
	// The turn loop runs as local activities: each turn's decision and event are
	// kept in the results store, so a turn re-run after a crash returns what it
	// stored, and the loop costs the server a few writes per episode instead of
	// four per turn. The history records each turn as a marker.
	lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: time.Duration(in.ActivityTimeoutSeconds) * time.Second,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute,
			NonRetryableErrorTypes: []string{activities.ErrBadInput, activities.ErrModelFatal}},
	})
	workflow.SetCurrentDetails(ctx, fmt.Sprintf("case %s, turn 0", in.CaseID))
	for turn := 0; turn < MaxTurnsPerLoop; turn++ {
		ti := activities.TurnInput{EpisodeInput: in, Turn: turn}
		var dec activities.TurnSummary
		if err := workflow.ExecuteLocalActivity(lctx, a.Decide, ti).Get(ctx, &dec); err != nil {
			return activities.ScoreSummary{}, err
		}
		var st activities.TurnSummary
		if err := workflow.ExecuteLocalActivity(lctx, a.Step, ti).Get(ctx, &st); err != nil {
			return activities.ScoreSummary{}, err
		}
		workflow.SetCurrentDetails(ctx, fmt.Sprintf("case %s, turn %d: %s %s", in.CaseID, turn, st.Action, st.Status))
		if st.Done {
			break
		}
	}
	var s activities.ScoreSummary
	if err := workflow.ExecuteActivity(ctx, a.Score, in).Get(ctx, &s); err != nil {
		return activities.ScoreSummary{}, err
	}
	if err := workflow.UpsertTypedSearchAttributes(ctx, AttrScore.ValueSet(s.S)); err != nil {
		return activities.ScoreSummary{}, err
	}
	if in.Frozen {
		// Evaluation episodes learn nothing, so they record themselves; stream
		// episodes are recorded by the stream after Evolve.
		rec := activities.RecordInput{EpisodeRef: activities.EpisodeRef{EpisodeID: in.EpisodeID, Corpus: in.Corpus, CaseID: in.CaseID,
			Index: in.Index, Number: in.Number, Stage: in.Stage}, Run: in.Run, Kind: in.Kind, Pass: in.Pass}
		if err := workflow.ExecuteActivity(ctx, a.Record, rec).Get(ctx, nil); err != nil {
			return activities.ScoreSummary{}, err
		}
	}
	workflow.SetCurrentDetails(ctx, fmt.Sprintf("case %s: S=%.2f diag=%.2f U=%.2f T=%d E=%d (%s)", in.CaseID, s.S, s.Diagnosis, s.U, s.T, s.E, s.Termination))
	return s, nil
}

// Progress is the answer to the progress query.
type Progress struct {
	Run       string           `json:"run"`
	Cursor    int              `json:"cursor"`
	Total     int              `json:"total"`
	Stage     int              `json:"stage"`
	Paused    bool             `json:"paused"`
	Stopping  bool             `json:"stopping"`
	Overall   activities.Means `json:"overall"`
	ThisStage activities.Means `json:"this_stage"`
}

// StreamResult is what a finished (or stopped) stream returns.
type StreamResult struct {
	Run         string                  `json:"run"`
	Episodes    int                     `json:"episodes"`
	Stopped     bool                    `json:"stopped"`
	Overall     activities.Means        `json:"overall"`
	LastEpisode int                     `json:"last_episode"` // the episode number a carry run continues from
	MemoryRuns  []string                `json:"memory_runs,omitempty"`
	RuleBook    []clinic.Rule           `json:"rule_book,omitempty"`
	StageEnds   []int                   `json:"stage_ends,omitempty"`
	Evaluations []activities.EvalResult `json:"evaluations,omitempty"` // stage evaluations and replays
}

// StreamWorkflow runs a stream's cases in order: for each, an EpisodeWorkflow
// child, then Grade; every UpdateInterval episodes (and at every stage end)
// Evolve and Record. It continues as new at every stage boundary, and when
// Temporal suggests it, carrying the cursor and the rule book.
func StreamWorkflow(ctx workflow.Context, spec activities.StreamSpec) (StreamResult, error) {
	spec = spec.WithDefaults()
	actx := activityOptions(ctx, 60)
	var plan activities.StreamPlan
	if err := workflow.ExecuteActivity(actx, a.ValidateStream, spec).Get(ctx, &plan); err != nil {
		return StreamResult{}, err
	}
	total := len(plan.CaseIDs)
	if err := workflow.UpsertTypedSearchAttributes(ctx, AttrRun.ValueSet(spec.RunID), AttrKind.ValueSet(activities.KindStream),
		AttrPass.ValueSet(int64(spec.Pass))); err != nil {
		return StreamResult{}, err
	}

	pause := workflow.GetSignalChannel(ctx, SignalPause)
	resume := workflow.GetSignalChannel(ctx, SignalResume)
	stop := workflow.GetSignalChannel(ctx, SignalStop)
	drain := func() {
		for pause.ReceiveAsync(nil) {
			spec.Paused = true
		}
		for resume.ReceiveAsync(nil) {
			spec.Paused = false
		}
		for stop.ReceiveAsync(nil) {
			spec.Stopping = true
		}
	}
	workflow.Go(ctx, func(gctx workflow.Context) {
		for {
			sel := workflow.NewSelector(gctx)
			sel.AddReceive(pause, func(c workflow.ReceiveChannel, _ bool) { c.Receive(gctx, nil); spec.Paused = true })
			sel.AddReceive(resume, func(c workflow.ReceiveChannel, _ bool) { c.Receive(gctx, nil); spec.Paused = false })
			sel.AddReceive(stop, func(c workflow.ReceiveChannel, _ bool) { c.Receive(gctx, nil); spec.Stopping = true })
			sel.Select(gctx)
		}
	})
	stageOf := func(i int) int { return i/spec.StageSize + 1 }
	if err := workflow.SetQueryHandler(ctx, QueryProgress, func() (Progress, error) {
		return Progress{Run: spec.RunID, Cursor: spec.Cursor, Total: total, Stage: stageOf(spec.Cursor), Paused: spec.Paused,
			Stopping: spec.Stopping, Overall: spec.Totals.Means(), ThisStage: spec.Stage.Means()}, nil
	}); err != nil {
		return StreamResult{}, err
	}
	if err := workflow.SetQueryHandler(ctx, QueryRules, func() ([]string, error) {
		out := make([]string, len(spec.RuleBook))
		for i, r := range spec.RuleBook {
			out[i] = r.Text
		}
		return out, nil
	}); err != nil {
		return StreamResult{}, err
	}

	result := func() StreamResult {
		return StreamResult{Run: spec.RunID, Episodes: spec.Cursor, Stopped: spec.Stopping && spec.Cursor < total, Overall: spec.Totals.Means(),
			LastEpisode: spec.FirstEpisode + spec.Cursor, MemoryRuns: spec.MemoryRuns(), RuleBook: spec.RuleBook, StageEnds: spec.StageEnds}
	}
	// evaluate re-plays stage j's cases with memory and rules frozen as of the end of stage k.
	evaluate := func(k, j int, kind string) (activities.EvalResult, error) {
		lo, hi := (j-1)*spec.StageSize, min(j*spec.StageSize, total)
		es := activities.EvalSpec{RunID: StageEvalRunID(spec.RunID, j), Kind: kind, Label: fmt.Sprintf("A[%d][%d]", k, j),
			Corpus: spec.Corpus, CaseIDs: plan.CaseIDs[lo:hi], Conditions: plan.Conditions[lo:hi], FirstIndex: lo, Stage: j,
			Pass: spec.Pass, MemoryRuns: spec.MemoryRuns(), AsOf: spec.StageEnds[k-1], K: spec.K, Concurrency: spec.EvalConcurrency,
			Env: spec.Env, Weights: spec.Weights, ActivityTimeoutSeconds: spec.ActivityTimeoutSeconds}
		if kind == activities.KindReplay {
			es.RunID = ReplayRunID(spec.RunID, k, j)
		}
		if spec.Rules {
			for _, r := range spec.RuleSnapshots[k-1] {
				es.Rules = append(es.Rules, r.Text)
			}
		}
		if spec.Memory == activities.MemoryDisabled {
			es.MemoryRuns = nil
		}
		cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{WorkflowID: es.RunID + "/evaluation",
			StaticSummary: fmt.Sprintf("%s %s of %s", kind, es.Label, spec.RunID)})
		var r activities.EvalResult
		err := workflow.ExecuteChildWorkflow(cctx, EvaluationWorkflow, es).Get(ctx, &r)
		return r, err
	}
	evolve := activities.EvolveSpecOf(spec)
	var pending []activities.EpisodeRef
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		out := activities.EvolveOutput{RuleBook: spec.RuleBook}
		if evolve.Rules || evolve.Cards {
			in := activities.EvolveInput{Run: spec.RunID, Pass: spec.Pass, Episodes: pending, RuleBook: spec.RuleBook,
				MemoryRuns: spec.MemoryRuns(), Spec: evolve}
			if err := workflow.ExecuteActivity(actx, a.Evolve, in).Get(ctx, &out); err != nil {
				return err
			}
		}
		spec.RuleBook = out.RuleBook
		for i, ref := range pending {
			var lesson activities.EpisodeLesson
			if i < len(out.Lessons) {
				lesson = out.Lessons[i]
			}
			rec := activities.RecordInput{EpisodeRef: ref, Run: spec.RunID, Kind: activities.KindStream, Pass: spec.Pass, Lesson: lesson}
			if err := workflow.ExecuteActivity(actx, a.Record, rec).Get(ctx, nil); err != nil {
				return err
			}
		}
		pending = nil
		return nil
	}

	for spec.Cursor < total {
		if err := workflow.Await(ctx, func() bool { return !spec.Paused || spec.Stopping }); err != nil {
			return StreamResult{}, err
		}
		if spec.Stopping {
			break
		}
		i := spec.Cursor
		stage := stageOf(i)
		id := EpisodeWorkflowID(spec.RunID, spec.Pass, stage, i+1, plan.CaseIDs[i])
		in := activities.EpisodeInput{Run: spec.RunID, EpisodeID: id, Kind: activities.KindStream, Corpus: spec.Corpus,
			CaseID: plan.CaseIDs[i], Condition: plan.Conditions[i], Index: i + 1, Number: spec.FirstEpisode + i + 1,
			Pass: spec.Pass, Stage: stage, Rules: ruleTexts(spec), K: spec.K, MemoryRuns: spec.MemoryRuns(),
			Env: spec.Env, Weights: spec.Weights, ActivityTimeoutSeconds: spec.ActivityTimeoutSeconds}
		if spec.Memory == activities.MemoryDisabled {
			in.K = 0
		}
		var s activities.ScoreSummary
		if err := workflow.ExecuteChildWorkflow(episodeOptions(ctx, in), EpisodeWorkflow, in).Get(ctx, &s); err != nil {
			return StreamResult{}, err
		}
		ref := activities.EpisodeRef{EpisodeID: id, Corpus: spec.Corpus, CaseID: in.CaseID, Index: in.Index, Number: in.Number, Stage: stage}
		if err := workflow.ExecuteActivity(actx, a.Grade, activities.GradeInput{EpisodeRef: ref, Feedback: spec.Feedback, Env: spec.Env}).Get(ctx, nil); err != nil {
			return StreamResult{}, err
		}
		pending = append(pending, ref)
		spec.Cursor++
		spec.Totals.Add(s)
		spec.Stage.Add(s)
		stageEnd := spec.Cursor%spec.StageSize == 0 || spec.Cursor == total
		if len(pending) >= spec.UpdateInterval || stageEnd || spec.Stopping {
			if err := flush(); err != nil {
				return StreamResult{}, err
			}
		}
		if stageEnd {
			spec.StageEnds = append(spec.StageEnds, spec.FirstEpisode+spec.Cursor)
			spec.RuleSnapshots = append(spec.RuleSnapshots, append([]clinic.Rule(nil), spec.RuleBook...))
			if spec.StageEval {
				if _, err := evaluate(len(spec.StageEnds), len(spec.StageEnds), activities.KindStageEval); err != nil {
					return StreamResult{}, err
				}
			}
		}
		if spec.Cursor < total && len(pending) == 0 && (stageEnd || workflow.GetInfo(ctx).GetContinueAsNewSuggested()) {
			drain()
			if stageEnd {
				spec.Stage = activities.Totals{}
			}
			return StreamResult{}, workflow.NewContinueAsNewError(ctx, StreamWorkflow, spec)
		}
	}
	if err := flush(); err != nil {
		return StreamResult{}, err
	}
	out := result()
	if K := len(spec.StageEnds); spec.Retention != "" && !out.Stopped && K > 1 {
		for j := 1; j < K; j++ {
			from := K
			if spec.Retention == "matrix" {
				from = j + 1
			}
			for k := from; k <= K; k++ {
				r, err := evaluate(k, j, activities.KindReplay)
				if err != nil {
					return StreamResult{}, err
				}
				out.Evaluations = append(out.Evaluations, r)
			}
		}
	}
	if err := workflow.ExecuteActivity(actx, a.CompleteRun, activities.RunCompletion{Run: spec.RunID, Kind: activities.KindStream, Result: out}).Get(ctx, nil); err != nil {
		return StreamResult{}, err
	}
	return out, nil
}

func ruleTexts(spec activities.StreamSpec) []string {
	if !spec.Rules {
		return nil
	}
	out := make([]string, len(spec.RuleBook))
	for i, r := range spec.RuleBook {
		out[i] = r.Text
	}
	return out
}

func episodeOptions(ctx workflow.Context, in activities.EpisodeInput) workflow.Context {
	return workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID: in.EpisodeID,
		TaskQueue:  workflow.GetInfo(ctx).TaskQueueName,
		TypedSearchAttributes: temporal.NewSearchAttributes(
			AttrRun.ValueSet(in.Run), AttrCase.ValueSet(in.CaseID), AttrCondition.ValueSet(in.Condition),
			AttrKind.ValueSet(in.Kind), AttrStage.ValueSet(int64(in.Stage)), AttrPass.ValueSet(int64(in.Pass)),
			AttrEpisodeIndex.ValueSet(int64(in.Index))),
		StaticSummary: fmt.Sprintf("%s episode %d: case %s", in.Kind, in.Index, in.CaseID),
	})
}
