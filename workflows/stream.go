package workflows

import (
	"fmt"

	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/clinevo/clinevo/activities/acts"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/fault"
	"github.com/clinevo/clinevo/settings"
)

// StreamWorkflow runs a stream's cases in order, as ARCHITECTURE.md draws it:
// for each case an EpisodeWorkflow child, which grades itself; every update
// interval (and at every stage end) Evolve and Record in one local activity
// (Learn); at a stage end the stage evaluation; at the end the retention
// replays. It continues as new at every stage boundary, and when Temporal
// suggests it, carrying its state.
func StreamWorkflow(ctx workflow.Context, spec contract.StreamSpec) (contract.StreamResult, error) {
	res, err := runStream(ctx, spec)
	if err == nil {
		err = markOutcome(ctx, res)
	}
	return res, stopped(ctx, "stream", spec.RunID, "stream restart", err)
}

// versionOutcome is the change ID of the outcome attribute: from version 1
// a finished stream carries AttrOutcome. Histories without the marker end
// as they ended.
const versionOutcome = "outcome-attribute"

// AttrOutcome holds how a stream that completed in Temporal's terms ended:
// "completed" (every episode) or "stopped" (on request, before its last).
// Temporal's ExecutionStatus tells failed, terminated, canceled and timed
// out apart; `ClinevoOutcome = "stopped"` finds the stopped streams.
var AttrOutcome = temporal.NewSearchAttributeKeyKeyword("ClinevoOutcome")

// Outcomes AttrOutcome holds.
const (
	OutcomeCompleted = "completed"
	OutcomeStopped   = "stopped"
)

func markOutcome(ctx workflow.Context, res contract.StreamResult) error {
	if workflow.GetVersion(ctx, versionOutcome, workflow.DefaultVersion, 1) < 1 {
		return nil
	}
	outcome := OutcomeCompleted
	if res.Stopped {
		outcome = OutcomeStopped
	}
	return workflow.UpsertTypedSearchAttributes(ctx, AttrOutcome.ValueSet(outcome))
}

func runStream(ctx workflow.Context, spec contract.StreamSpec) (contract.StreamResult, error) {
	s, err := startStream(ctx, spec)
	if err != nil {
		return contract.StreamResult{}, err
	}
	if err := s.optimise(); err != nil {
		return contract.StreamResult{}, err
	}
	if s.stageUnclosed() {
		// A restarted stream that stopped after a stage's last episode was
		// recorded but before the stage's end was (its evaluation): end it now.
		if err := s.endStage(); err != nil {
			return contract.StreamResult{}, err
		}
		if s.st.Cursor < s.total() {
			s.st.Stage = contract.Totals{}
		}
	}
	for s.st.Cursor < s.total() {
		if err := workflow.Await(ctx, func() bool { return !s.st.Paused || s.st.Stopping }); err != nil {
			return contract.StreamResult{}, err
		}
		if s.st.Stopping {
			break
		}
		if err := s.episode(); err != nil {
			return contract.StreamResult{}, err
		}
		stageEnd := s.spec.StageEnd(s.st.Cursor, s.total())
		if len(s.pending) >= s.spec.Settings.Evolver.UpdateInterval || stageEnd || s.st.Stopping {
			if err := s.flush(); err != nil {
				return contract.StreamResult{}, err
			}
			if err := s.checkBudget(); err != nil {
				return contract.StreamResult{}, err
			}
		}
		if stageEnd {
			if err := s.endStage(); err != nil {
				return contract.StreamResult{}, err
			}
		}
		if s.st.Cursor < s.total() && len(s.pending) == 0 && (stageEnd || workflow.GetInfo(ctx).GetContinueAsNewSuggested()) {
			return contract.StreamResult{}, s.continueAsNew(stageEnd)
		}
	}
	s.ended = true
	if err := s.flush(); err != nil {
		return contract.StreamResult{}, err
	}
	return s.finish()
}

// stream is one run of StreamWorkflow: the spec with its carried state, the
// validated case order, and the episodes played since the last Evolve.
type stream struct {
	ctx     workflow.Context
	actx    workflow.Context // regular activities
	lctx    workflow.Context // local activities
	local   bool             // episodes grade themselves and Learn runs locally (versionAssessInTask)
	spec    contract.StreamSpec
	st      *contract.StreamState
	plan    acts.StreamPlan
	pending []acts.EpisodeRef
	log     log.Logger
	w       *waiter
	// ended says the stream left its loop of episodes (all played, or
	// stopped): nothing is left to pause, resume or stop.
	ended bool
}

// versionResolved is the change ID of a stream whose defaults ValidateStream
// resolves (its result is in the history) instead of the workflow code, and
// that claims its run ID: from version 1 the stream runs with the spec
// ValidateStream returns.
const versionResolved = "resolve-before-start"

// startStream validates the spec and its corpus, tags the run, and installs
// the update, signal and query handlers.
func startStream(ctx workflow.Context, spec contract.StreamSpec) (*stream, error) {
	// The versions are read before anything else, so a run started by older
	// code keeps the old path to its end.
	local := workflow.GetVersion(ctx, versionAssessInTask, workflow.DefaultVersion, 1) >= 1
	resolved := workflow.GetVersion(ctx, versionResolved, workflow.DefaultVersion, 1) >= 1
	if !resolved {
		spec = spec.WithDefaults()
	} else if spec.Claim == "" {
		// The run ID is claimed by this first run of the stream; a restart
		// and every continue-as-new carry the claim in the spec.
		spec.Claim = firstRun(ctx)
	}
	w, err := newWaiter(ctx, spec.Settings.Durability)
	if err != nil {
		return nil, err
	}
	s := &stream{ctx: ctx, actx: activityOptions(ctx, 60), lctx: localActivityOptions(ctx, 60), spec: spec, log: workflow.GetLogger(ctx), local: local, w: w}
	s.st = &s.spec.State
	if s.st.Cursor == 0 {
		s.st.RuleBook = s.spec.RuleBook
	}
	if err := s.setUpdateHandlers(); err != nil {
		return nil, err
	}
	if err := call(s.actx, w.activity, acts.ValidateStream, s.spec, &s.plan); err != nil {
		return nil, err
	}
	if resolved {
		if s.plan.Spec == nil {
			return nil, temporal.NewNonRetryableApplicationError("ValidateStream returned no resolved spec: a worker older than this stream ran it; upgrade every worker, then restart the stream",
				string(fault.Invalid), nil)
		}
		st := s.spec.State
		s.spec = *s.plan.Spec
		s.spec.State = st
		s.st = &s.spec.State
		w.dur = s.spec.Settings.Durability
	}
	spec = s.spec
	if err := workflow.UpsertTypedSearchAttributes(ctx, AttrRun.ValueSet(spec.RunID), AttrKind.ValueSet(string(contract.KindStream)),
		AttrPass.ValueSet(int64(spec.Pass))); err != nil {
		return nil, err
	}
	s.listen()
	if err := workflow.SetQueryHandler(ctx, contract.QueryProgress, func() (contract.Progress, error) { return s.progress(), nil }); err != nil {
		return nil, err
	}
	if err := workflow.SetQueryHandler(ctx, contract.QueryRules, func() ([]string, error) { return ruleTexts(s.st.RuleBook), nil }); err != nil {
		return nil, err
	}
	if s.st.Cursor == 0 {
		s.log.Info("stream started", "run", spec.RunID, "cases", s.total(), "stage_size", spec.StageSize, "profile", spec.Settings.Benchmark,
			"memory", string(spec.Memory), "feedback", spec.Settings.Evolver.Mode, "pass", spec.Pass)
	}
	if s.st.Cursor < s.total() && s.st.Cursor%spec.StageSize == 0 {
		s.log.Info("stage started", "run", spec.RunID, "stage", s.stageOf(s.st.Cursor), "first_case", s.st.Cursor+1)
	}
	return s, nil
}

// listen applies the steering signals as they arrive (the updates of the
// same names apply the same changes: steer.go).
func (s *stream) listen() {
	pause := workflow.GetSignalChannel(s.ctx, contract.SignalPause)
	resume := workflow.GetSignalChannel(s.ctx, contract.SignalResume)
	stop := workflow.GetSignalChannel(s.ctx, contract.SignalStop)
	raise := workflow.GetSignalChannel(s.ctx, contract.SignalRaiseBudget)
	raiseExp := workflow.GetSignalChannel(s.ctx, contract.SignalRaiseExperimentBudget)
	workflow.Go(s.ctx, func(gctx workflow.Context) {
		for {
			sel := workflow.NewSelector(gctx)
			sel.AddReceive(pause, func(c workflow.ReceiveChannel, _ bool) { c.Receive(gctx, nil); s.pause() })
			sel.AddReceive(resume, func(c workflow.ReceiveChannel, _ bool) { c.Receive(gctx, nil); s.resume() })
			sel.AddReceive(stop, func(c workflow.ReceiveChannel, _ bool) { c.Receive(gctx, nil); s.stop() })
			sel.AddReceive(raise, func(c workflow.ReceiveChannel, _ bool) {
				var b settings.Budget
				c.Receive(gctx, &b)
				s.raise(b)
			})
			sel.AddReceive(raiseExp, func(c workflow.ReceiveChannel, _ bool) {
				var b settings.Budget
				c.Receive(gctx, &b)
				s.raiseExperiment(b)
			})
			sel.Select(gctx)
		}
	})
}

// drain applies the signals already delivered, before Continue-As-New.
func (s *stream) drain() {
	for _, sig := range []struct {
		name string
		set  func()
	}{{contract.SignalPause, s.pause}, {contract.SignalResume, s.resume}, {contract.SignalStop, s.stop}} {
		for workflow.GetSignalChannel(s.ctx, sig.name).ReceiveAsync(nil) {
			sig.set()
		}
	}
	var b settings.Budget
	for workflow.GetSignalChannel(s.ctx, contract.SignalRaiseBudget).ReceiveAsync(&b) {
		s.raise(b)
	}
	for workflow.GetSignalChannel(s.ctx, contract.SignalRaiseExperimentBudget).ReceiveAsync(&b) {
		s.raiseExperiment(b)
	}
}

// versionBudget is the change ID of the spend cap: from version 1 a stream
// with a budget (settings.Budget) reads its run's spend after every flush
// (RunSpend) and pauses when a cap is reached. Streams without a budget run
// no new command: their histories are unchanged.
const versionBudget = "budget-pause"

// budgetOf is the stream's budget: the raised one, else its settings'.
func (s *stream) budgetOf() *settings.Budget {
	if s.st.Budget != nil {
		return s.st.Budget
	}
	b := s.spec.Settings.Budget
	return &b
}

// versionExperimentBudget is the change ID of the experiment-wide cap: from
// version 1 a stream whose experiment has a budget (StreamSpec.
// ExperimentBudget) reads the spend of all the experiment's runs after every
// flush (ExperimentSpend) and pauses when it reaches the cap. Streams
// without one run no new command.
const versionExperimentBudget = "experiment-budget-pause"

// experimentBudgetOf is the experiment's cap for this stream: the raised
// one, else the spec's; nil without one.
func (s *stream) experimentBudgetOf() *settings.Budget {
	if s.st.ExperimentBudget != nil {
		return s.st.ExperimentBudget
	}
	if s.spec.ExperimentBudget == nil {
		return nil
	}
	b := s.spec.ExperimentBudget.Budget
	return &b
}

// checkBudget checks the run's own budget, then its experiment's.
func (s *stream) checkBudget() error {
	if err := s.checkRunBudget(); err != nil {
		return err
	}
	return s.checkExperimentBudget()
}

// checkExperimentBudget reads the spend of every run of the stream's
// experiment and pauses the stream, before its next episode, when the
// experiment's cap is reached. Each stream condition checks it on its own,
// so all of them pause once the total reaches the cap.
func (s *stream) checkExperimentBudget() error {
	b := s.experimentBudgetOf()
	// A stream of no experiment with a budget has no runs to sum: an
	// experiment cap signalled to it (the update refuses one) is ignored.
	if b == nil || b.IsZero() || s.spec.ExperimentBudget == nil || s.st.Paused ||
		workflow.GetVersion(s.ctx, versionExperimentBudget, workflow.DefaultVersion, 1) < 1 {
		return nil
	}
	var sp contract.Spend
	if err := call(s.actx, s.w.activity, acts.ExperimentSpend, s.spec.ExperimentBudget.Runs, &sp); err != nil {
		return err
	}
	s.st.ExperimentSpend = &sp
	if over := b.Reached(sp.USD, sp.Tokens); over != "" && s.st.Cursor < s.total() {
		s.st.Paused, s.st.PausedBy = true, pausedByExperiment
		s.log.Info("stream paused: experiment budget", "run", s.spec.RunID, "experiment", s.spec.ExperimentBudget.Experiment, "reached", over,
			"episodes", s.st.Cursor, "usd", sp.USD, "tokens", sp.Tokens)
	}
	return nil
}

// PausedBy of a stream its own cap paused, and of one its experiment's cap
// paused.
const (
	pausedByBudget     = "budget"
	pausedByExperiment = "experiment budget"
)

// checkRunBudget reads the run's spend and pauses the stream, before its next
// episode, when a cap is reached; a stream without a budget does nothing.
func (s *stream) checkRunBudget() error {
	b := *s.budgetOf()
	if b.IsZero() || workflow.GetVersion(s.ctx, versionBudget, workflow.DefaultVersion, 1) < 1 {
		return nil
	}
	var sp contract.Spend
	if err := call(s.actx, s.w.activity, acts.RunSpend, s.spec.RunID, &sp); err != nil {
		return err
	}
	s.st.Spend = &sp
	if over := b.Reached(sp.USD, sp.Tokens); over != "" && s.st.Cursor < s.total() {
		s.st.Paused, s.st.PausedBy = true, pausedByBudget
		s.log.Info("stream paused: budget", "run", s.spec.RunID, "reached", over, "episodes", s.st.Cursor, "usd", sp.USD, "tokens", sp.Tokens)
	}
	return nil
}

// raise takes a new budget: a stream its budget paused goes on when the new
// one is not reached by the spend it last read.
func (s *stream) raise(b settings.Budget) {
	if s.st.PausedBy == pausedByExperiment {
		// Paused by the experiment's cap: the raise is that cap's, for
		// this stream.
		s.raiseExperiment(b)
		return
	}
	s.st.Budget = &b
	if s.st.PausedBy != pausedByBudget {
		return
	}
	if s.st.Spend == nil || b.Reached(s.st.Spend.USD, s.st.Spend.Tokens) == "" {
		s.st.Paused, s.st.PausedBy = false, ""
		s.log.Info("stream budget raised", "run", s.spec.RunID, "usd", b.USD, "tokens", b.Tokens)
	}
}

// raiseExperiment takes a new experiment-wide cap for this stream
// (SignalRaiseExperimentBudget, which `experiment raise-budget` sends to
// every stream of the experiment): a stream that cap paused goes on when
// the total it last read is below the new one.
func (s *stream) raiseExperiment(b settings.Budget) {
	s.st.ExperimentBudget = &b
	if s.st.PausedBy != pausedByExperiment {
		return
	}
	if s.st.ExperimentSpend == nil || b.Reached(s.st.ExperimentSpend.USD, s.st.ExperimentSpend.Tokens) == "" {
		s.st.Paused, s.st.PausedBy = false, ""
		s.log.Info("stream experiment budget raised", "run", s.spec.RunID, "usd", b.USD, "tokens", b.Tokens)
	}
}

// stageUnclosed says whether the cursor stands at the end of a stage that
// endStage has not seen. A running stream continues as new only after ending
// the stage, so only a restart (engine.ResumeState) starts in this state.
func (s *stream) stageUnclosed() bool {
	c := s.st.Cursor
	return c > 0 && s.spec.StageEnd(c, s.total()) && len(s.st.StageEnds) < s.stageOf(c-1)
}

func (s *stream) total() int  { return len(s.plan.CaseIDs) }
func (s *stream) stages() int { return (s.total() + s.spec.StageSize - 1) / s.spec.StageSize }

// progress is what the stream answers the progress query and a steering
// update: where it is, its state and its budgets.
// An update can arrive before ValidateStream resolved the stage size (a
// stream started with none): its stages are then unknown, not a division
// by zero.
func (s *stream) progress() contract.Progress {
	p := contract.Progress{Run: s.spec.RunID, Cursor: s.st.Cursor, Total: s.total(),
		Paused: s.st.Paused, Stopping: s.st.Stopping, PausedBy: s.st.PausedBy, Spend: s.st.Spend, Budget: s.budgetOf(),
		ExperimentSpend: s.st.ExperimentSpend, ExperimentBudget: s.experimentBudgetOf(),
		Overall: s.st.Totals.Means(), ThisStage: s.st.Stage.Means(), Waiting: s.w.state}
	if s.spec.StageSize > 0 {
		p.Stage, p.Stages = s.progressStage(), s.stages()
	}
	return p
}

// progressStage is the stage whose means the stage totals hold: the stage
// of the last episode played while they count any (a stage that just ended,
// evaluated before the stream continues as new, or the last stage of a
// finished stream), else the stage of the next episode. A query reads it:
// nothing in the history depends on it.
func (s *stream) progressStage() int {
	if s.st.Stage.N > 0 {
		return s.stageOf(s.st.Cursor - 1)
	}
	return min(s.stageOf(s.st.Cursor), max(s.stages(), 1))
}
func (s *stream) stageOf(i int) int    { return i/s.spec.StageSize + 1 }
func (s *stream) memoryRuns() []string { return s.spec.MemoryRuns() }

// episode plays the case under the cursor and grades it (Diagnose, Grade).
func (s *stream) episode() error {
	i := s.st.Cursor
	stage := s.stageOf(i)
	in := acts.EpisodeInput{Run: s.spec.RunID, EpisodeID: contract.EpisodeWorkflowID(s.spec.RunID, s.spec.Pass, stage, i+1, s.plan.CaseIDs[i]),
		Kind: contract.KindStream, Corpus: s.spec.Corpus, CaseID: s.plan.CaseIDs[i], Condition: s.plan.Conditions[i], Index: i + 1,
		Number: s.spec.FirstEpisode + i + 1, Pass: s.spec.Pass, Stage: stage, Rules: s.rules(s.st.RuleBook), MemoryRuns: s.memoryRuns(),
		Grade: s.local, ActivityTimeoutSeconds: s.spec.ActivityTimeoutSeconds, Settings: s.spec.Settings, Durability: s.spec.Settings.Durability,
		Temperature: s.st.Temperature}
	score, ref, err := s.play(in)
	if err != nil {
		return err
	}
	if !s.local {
		if err := call(s.actx, s.w.activity, acts.Grade, acts.GradeInput{EpisodeRef: ref, Settings: s.spec.Settings}, nil); err != nil {
			return err
		}
	}
	s.pending = append(s.pending, ref)
	s.st.Cursor++
	s.st.Totals.Add(score)
	s.st.Stage.Add(score)
	return nil
}

// play plays a stream episode: one child, or under MaTTS the case's
// attempts (matts.go).
func (s *stream) play(in acts.EpisodeInput) (contract.ScoreSummary, acts.EpisodeRef, error) {
	if s.matts() {
		return s.attempts(in)
	}
	var score contract.ScoreSummary
	if err := checkEpisodeID(s.ctx, in); err != nil {
		return score, acts.EpisodeRef{}, err
	}
	err := workflow.ExecuteChildWorkflow(episodeOptions(s.ctx, in), EpisodeWorkflow, in).Get(s.ctx, &score)
	return score, in.Ref(), err
}

// learnTimeout is the timeout in seconds of learning from the pending batch:
// one evolver pass per episode, each allowed the longer of 60 s and the
// spec's activity timeout, so a model evolver with a long update interval
// is not cut off. Timeouts are not part of the history: this replays as
// before.
func (s *stream) learnTimeout() int {
	return max(60, s.spec.ActivityTimeoutSeconds) * len(s.pending)
}

// flush learns from the pending episodes (Evolve) and records them (Record).
// Learn does both in one local activity, in the workflow task that goes on to
// start the next episode.
func (s *stream) flush() error {
	if len(s.pending) == 0 {
		return nil
	}
	if s.local {
		in := acts.EvolveInput{Run: s.spec.RunID, Pass: s.spec.Pass, Episodes: s.pending, RuleBook: s.st.RuleBook,
			MemoryRuns: s.memoryRuns(), Settings: s.spec.Settings}
		var out acts.EvolveOutput
		if err := call(localActivityOptions(s.ctx, s.learnTimeout()), s.w.local, acts.Learn, in, &out); err != nil {
			return err
		}
		s.st.RuleBook = out.RuleBook
		s.temperature(out.Temperature)
		s.pending = nil
		return nil
	}
	out := acts.EvolveOutput{RuleBook: s.st.RuleBook}
	if s.spec.Settings.Evolver.Rules() || s.spec.Memory != contract.MemoryDisabled {
		in := acts.EvolveInput{Run: s.spec.RunID, Pass: s.spec.Pass, Episodes: s.pending, RuleBook: s.st.RuleBook,
			MemoryRuns: s.memoryRuns(), Settings: s.spec.Settings}
		if err := call(activityOptions(s.ctx, s.learnTimeout()), s.w.activity, acts.Evolve, in, &out); err != nil {
			return err
		}
	}
	s.st.RuleBook = out.RuleBook
	s.temperature(out.Temperature)
	for i, ref := range s.pending {
		var lesson acts.EpisodeLesson
		if i < len(out.Lessons) {
			lesson = out.Lessons[i]
		}
		rec := acts.RecordInput{EpisodeRef: ref, Run: s.spec.RunID, Kind: contract.KindStream, Pass: s.spec.Pass, Lesson: lesson,
			RuleBook: s.st.RuleBook, Temperature: out.Temperature, Benchmark: s.spec.Settings.Benchmark}
		if err := call(s.actx, s.w.activity, acts.Record, rec, nil); err != nil {
			return err
		}
	}
	s.pending = nil
	return nil
}

// temperature keeps the doctor temperature a learning step chose (EvoTest)
// for the episodes that follow; nil keeps the one before. Only a payload
// changes: no command, so no version gate.
func (s *stream) temperature(t *float64) {
	if t != nil {
		s.st.Temperature = t
	}
}

// endStage records where the stage ended and what the rule book was, and runs
// the stage evaluation A[j][j] when asked.
func (s *stream) endStage() error {
	s.st.StageEnds = append(s.st.StageEnds, s.spec.FirstEpisode+s.st.Cursor)
	s.st.RuleSnapshots = append(s.st.RuleSnapshots, append([]clinic.Rule(nil), s.st.RuleBook...))
	j := len(s.st.StageEnds)
	m := s.st.Stage.Means()
	s.log.Info("stage finished", "run", s.spec.RunID, "stage", j, "episodes", m.N, "s", m.S, "strict", m.Strict, "u", m.U, "rules", len(s.st.RuleBook))
	if !s.spec.StageEval {
		return nil
	}
	_, err := s.evaluate(j, j, contract.KindStageEval)
	return err
}

// continueAsNew starts the next run of the stream with the carried state.
func (s *stream) continueAsNew(stageEnd bool) error {
	s.drain()
	if stageEnd {
		s.st.Stage = contract.Totals{}
	}
	return workflow.NewContinueAsNewError(s.ctx, StreamWorkflow, s.spec)
}

// finish runs the retention replays and records the run's result.
func (s *stream) finish() (contract.StreamResult, error) {
	out := contract.StreamResult{Run: s.spec.RunID, Episodes: s.st.Cursor, Stopped: s.st.Stopping && s.st.Cursor < s.total(),
		Overall: s.st.Totals.Means(), LastEpisode: s.spec.FirstEpisode + s.st.Cursor, MemoryRuns: s.memoryRuns(),
		RuleBook: s.st.RuleBook, StageEnds: s.st.StageEnds, Pass: s.spec.Pass}
	last := s.progress()
	last.Waiting = nil
	out.Progress = &last
	if K := len(s.st.StageEnds); s.spec.Retention != "" && !out.Stopped && K > 1 {
		for j := 1; j < K; j++ {
			from := K
			if s.spec.Retention == contract.RetentionMatrix {
				from = j + 1
			}
			for k := from; k <= K; k++ {
				r, err := s.evaluate(k, j, contract.KindReplay)
				if err != nil {
					return contract.StreamResult{}, err
				}
				out.Evaluations = append(out.Evaluations, r)
			}
		}
	}
	if err := call(s.actx, s.w.activity, acts.CompleteRun, acts.RunCompletion{Run: s.spec.RunID, Kind: contract.KindStream, Result: out}, nil); err != nil {
		return contract.StreamResult{}, err
	}
	s.log.Info("stream finished", "run", s.spec.RunID, "episodes", out.Episodes, "stopped", out.Stopped, "s", out.Overall.S,
		"strict", out.Overall.Strict, "u", out.Overall.U, "last_episode", out.LastEpisode)
	return out, nil
}

// evaluate re-plays stage j's cases with memory and rules frozen as of the end
// of stage k: A[k][j].
func (s *stream) evaluate(k, j int, kind contract.Kind) (contract.EvalResult, error) {
	lo, hi := (j-1)*s.spec.StageSize, min(j*s.spec.StageSize, s.total())
	es := contract.EvalSpec{RunID: contract.StageEvalRunID(s.spec.RunID, j), Kind: kind, Label: fmt.Sprintf("A[%d][%d]", k, j),
		Corpus: s.spec.Corpus, CaseIDs: s.plan.CaseIDs[lo:hi], Conditions: s.plan.Conditions[lo:hi], FirstIndex: lo, Stage: j,
		Pass: s.spec.Pass, MemoryRuns: s.memoryRuns(), AsOf: s.st.StageEnds[k-1], Rules: s.rules(s.st.RuleSnapshots[k-1]),
		Concurrency: s.spec.EvalConcurrency, ActivityTimeoutSeconds: s.spec.ActivityTimeoutSeconds, Settings: s.spec.Settings}
	if kind == contract.KindReplay {
		es.RunID = contract.ReplayRunID(s.spec.RunID, k, j)
	}
	cctx := workflow.WithChildOptions(s.ctx, workflow.ChildWorkflowOptions{WorkflowID: contract.EvaluationWorkflowID(es.RunID),
		StaticSummary: fmt.Sprintf("%s %s of %s", kind, es.Label, s.spec.RunID)})
	var r contract.EvalResult
	err := workflow.ExecuteChildWorkflow(cctx, EvaluationWorkflow, es).Get(s.ctx, &r)
	return r, err
}

// rules are the texts of a rule book the doctor reads; none without a rule book.
func (s *stream) rules(book []clinic.Rule) []string {
	if !s.spec.Settings.Evolver.Rules() {
		return nil
	}
	return ruleTexts(book)
}

func ruleTexts(book []clinic.Rule) []string {
	out := make([]string, len(book))
	for i, r := range book {
		out[i] = r.Text
	}
	return out
}
