// Package activities holds the thin side-effecting steps of the workflows:
// methods on a struct of ports. Prompts, transcripts and retrieved texts are
// built and kept here (and in the results store), never in workflow history.
// Bad input is a non-retryable error; anything else is retried by Temporal.
package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.temporal.io/sdk/temporal"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/evolver"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/runner"
)

// Activities are the workflows' side effects. The workflows call them through
// a nil *Activities, so every field is a port filled in by the worker.
type Activities struct {
	Corpora *Corpora
	Results results.Store
	Memory  memory.Store // nil: no memory backend in this worker
	Doctor  actor.Doctor
	Roles   episode.Roles
	Judge   grader.Judge         // nil: the rubric judge
	Grader  grader.ProcessGrader // nil: the built-in process grader
	Evolver evolver.Evolver      // nil: the built-in evolver
	// RoleInfo describes every role (model, decoding, template version, cache)
	// for the run log; it never holds a key.
	RoleInfo []string
}

var (
	meterActs       = otel.Meter("clinevo/activities")
	episodesDone, _ = meterActs.Int64Counter("clinevo.episodes", metric.WithDescription("episodes scored, by kind"))
	scoreS, _       = meterActs.Float64Histogram("clinevo.episode.s", metric.WithDescription("outcome score S of scored episodes"))
)

// ErrBadInput marks non-retryable errors.
const ErrBadInput = "BadInput"

func badInput(err error) error {
	return temporal.NewNonRetryableApplicationError(err.Error(), ErrBadInput, err)
}

// Corpora loads corpora once per worker.
type Corpora struct {
	mu    sync.Mutex
	cache map[string]*corpus.Corpus
}

// NewCorpora returns an empty cache.
func NewCorpora() *Corpora { return &Corpora{cache: map[string]*corpus.Corpus{}} }

// Get loads (once) and returns a corpus.
func (c *Corpora) Get(ref string) (*corpus.Corpus, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cp, ok := c.cache[ref]; ok {
		return cp, nil
	}
	cp, err := corpus.Load(ref)
	if err != nil {
		return nil, err
	}
	c.cache[ref] = cp
	return cp, nil
}

// Case returns one case; an unknown corpus or case is bad input.
func (c *Corpora) Case(ref, id string) (clinic.Case, error) {
	cp, err := c.Get(ref)
	if err != nil {
		return clinic.Case{}, badInput(err)
	}
	cs, ok := cp.Case(id)
	if !ok {
		return clinic.Case{}, badInput(fmt.Errorf("case %q is not in corpus %s", id, ref))
	}
	return cs, nil
}

// StreamPlan is the validated case order of a stream.
type StreamPlan struct {
	CaseIDs    []string `json:"case_ids"`
	Conditions []string `json:"conditions"`
}

// ValidateStream checks a stream before any episode runs: the spec, the
// corpus, every case ID, and records the run. It returns the case order.
func (a *Activities) ValidateStream(ctx context.Context, s StreamSpec) (StreamPlan, error) {
	if err := s.Validate(); err != nil {
		return StreamPlan{}, badInput(err)
	}
	cp, err := a.Corpora.Get(s.Corpus)
	if err != nil {
		return StreamPlan{}, badInput(err)
	}
	ids := s.CaseIDs
	if len(ids) == 0 {
		for _, c := range cp.Cases {
			ids = append(ids, c.ID)
		}
	}
	if s.Limit > 0 && s.Limit < len(ids) {
		ids = ids[:s.Limit]
	}
	plan := StreamPlan{CaseIDs: ids}
	for _, id := range ids {
		c, ok := cp.Case(id)
		if !ok {
			return StreamPlan{}, badInput(fmt.Errorf("stream %s: case %q is not in corpus %s", s.RunID, id, s.Corpus))
		}
		plan.Conditions = append(plan.Conditions, c.Condition)
	}
	if s.Memory != MemoryDisabled && a.Memory == nil {
		return StreamPlan{}, badInput(errors.New("this worker has no memory backend; start the stream with memory disabled"))
	}
	a.logRoles(ctx, s.RunID)
	spec, _ := json.Marshal(s)
	if err := a.Results.PutRun(ctx, results.Run{Run: s.RunID, Kind: KindStream, WorkflowID: StreamWorkflowID(s.RunID), Spec: spec}); err != nil {
		return StreamPlan{}, err
	}
	return plan, nil
}

// StreamWorkflowID is the workflow ID of a stream run.
func StreamWorkflowID(run string) string { return run + "/stream" }

func (a *Activities) deps(in EpisodeInput) runner.Deps {
	w := grader.DefaultWeights()
	if in.Weights != nil {
		w = *in.Weights
	}
	d := runner.Deps{Doctor: a.Doctor, Roles: a.Roles, Env: in.Env.Config(), Weights: w, K: in.K, Judge: a.Judge, Grader: a.Grader, Evolver: a.Evolver}
	if j, ok := a.Judge.(llm.Judge); ok && j.Fallback == nil {
		j.Fallback = grader.RubricJudge{W: w}
		d.Judge = j
	}
	if len(in.MemoryRuns) > 0 && in.K > 0 {
		d.Memory = a.Memory
	}
	return d
}

func meta(in EpisodeInput) runner.Meta {
	return runner.Meta{RunID: in.Run, EpisodeID: in.EpisodeID, Number: in.Number, Pass: in.Pass, Stage: in.Stage,
		Rules: in.Rules, AsOf: in.AsOf, MemoryRuns: in.MemoryRuns, Frozen: in.Frozen}
}

// decision is what Decide stores for a turn.
type decision struct {
	Output   clinic.DoctorOutput `json:"output"`
	LLMError bool                `json:"llm_error"`
	Cards    []string            `json:"cards"`
}

// Decide builds the doctor's view from the stored turns, retrieves cards, asks
// the doctor and stores its decision. A retry returns the stored decision.
func (a *Activities) Decide(ctx context.Context, in TurnInput) (TurnSummary, error) {
	if raw, err := a.Results.Decision(ctx, in.EpisodeID, in.Turn); err == nil {
		var d decision
		if err := json.Unmarshal(raw, &d); err != nil {
			return TurnSummary{}, err
		}
		return TurnSummary{Action: string(d.Output.Action), Cards: len(d.Cards)}, nil
	}
	c, err := a.Corpora.Case(in.Corpus, in.CaseID)
	if err != nil {
		return TurnSummary{}, err
	}
	events, err := a.Results.Events(ctx, in.EpisodeID, in.Turn)
	if err != nil {
		return TurnSummary{}, err
	}
	if len(events) != in.Turn {
		return TurnSummary{}, badInput(fmt.Errorf("episode %s: turn %d asked with %d turns stored", in.EpisodeID, in.Turn, len(events)))
	}
	d := a.deps(in.EpisodeInput)
	ep := episode.Restore(c, d.Env, d.Roles, events)
	view := ep.View(nil, in.Rules)
	var cards []clinic.CardHint
	var dec actor.Decision
	if err := a.metered(ctx, in.EpisodeID, func(ctx context.Context) error {
		var err error
		if cards, err = runner.Retrieve(ctx, d.Memory, view, d.K, meta(in.EpisodeInput)); err != nil {
			return err
		}
		view.Cards = cards
		if dec, err = d.Doctor.Decide(ctx, view); err != nil {
			return fmt.Errorf("doctor: %w", err)
		}
		return nil
	}); err != nil {
		return TurnSummary{}, err
	}
	rec := decision{Output: dec.Output, LLMError: dec.LLMError}
	for _, c := range cards {
		rec.Cards = append(rec.Cards, c.ID)
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return TurnSummary{}, err
	}
	if _, err := a.Results.PutDecision(ctx, in.EpisodeID, in.Turn, b); err != nil {
		return TurnSummary{}, err
	}
	return TurnSummary{Action: string(dec.Output.Action), Cards: len(cards)}, nil
}

// Step applies the stored decision of a turn to the environment and stores the
// event. A retry returns the stored event.
func (a *Activities) Step(ctx context.Context, in TurnInput) (TurnSummary, error) {
	c, err := a.Corpora.Case(in.Corpus, in.CaseID)
	if err != nil {
		return TurnSummary{}, err
	}
	events, err := a.Results.Events(ctx, in.EpisodeID, in.Turn+1)
	if err != nil {
		return TurnSummary{}, err
	}
	d := a.deps(in.EpisodeInput)
	if len(events) == in.Turn+1 { // already stepped
		ep := episode.Restore(c, d.Env, d.Roles, events)
		return TurnSummary{Action: string(events[in.Turn].Action), Status: string(events[in.Turn].Status), Done: ep.Done()}, nil
	}
	raw, err := a.Results.Decision(ctx, in.EpisodeID, in.Turn)
	if err != nil {
		return TurnSummary{}, badInput(err)
	}
	var dec decision
	if err := json.Unmarshal(raw, &dec); err != nil {
		return TurnSummary{}, badInput(err)
	}
	ep := episode.Restore(c, d.Env, d.Roles, events)
	if ep.Done() {
		return TurnSummary{}, badInput(fmt.Errorf("episode %s ended before turn %d", in.EpisodeID, in.Turn))
	}
	var ev clinic.Event
	if err := a.metered(ctx, in.EpisodeID, func(ctx context.Context) error {
		var err error
		ev, err = ep.Step(ctx, episode.StepInput{Output: dec.Output, RetrievedCards: dec.Cards, LLMError: dec.LLMError})
		return err
	}); err != nil {
		return TurnSummary{}, err
	}
	if _, err := a.Results.PutEvent(ctx, in.EpisodeID, ev); err != nil {
		return TurnSummary{}, err
	}
	return TurnSummary{Action: string(ev.Action), Status: string(ev.Status), Done: ep.Done()}, nil
}

// Score builds the scored trace from the stored turns and keeps it for Grade,
// Evolve and Record.
func (a *Activities) Score(ctx context.Context, in EpisodeInput) (ScoreSummary, error) {
	c, err := a.Corpora.Case(in.Corpus, in.CaseID)
	if err != nil {
		return ScoreSummary{}, err
	}
	events, err := a.Results.Events(ctx, in.EpisodeID, 1<<30)
	if err != nil {
		return ScoreSummary{}, err
	}
	d := a.deps(in)
	var t clinic.Trace
	if err := a.metered(ctx, in.EpisodeID, func(ctx context.Context) error {
		var err error
		t, err = runner.Finish(ctx, c, d, meta(in), events)
		return err
	}); err != nil {
		return ScoreSummary{}, err
	}
	if t.Termination == "" {
		return ScoreSummary{}, badInput(fmt.Errorf("episode %s has not ended (%d turns stored)", in.EpisodeID, len(events)))
	}
	if err := a.Results.PutTrace(ctx, t); err != nil {
		return ScoreSummary{}, err
	}
	s := t.Scores
	kind := metric.WithAttributes(attribute.String("kind", in.Kind))
	episodesDone.Add(ctx, 1, kind)
	scoreS.Record(ctx, s.S, kind)
	return ScoreSummary{S: s.S, Diagnosis: s.Diagnosis, Strict: s.Strict, Pass: s.Pass, U: s.U, T: s.T, E: s.E, Termination: string(t.Termination)}, nil
}

// Grade labels every action of an episode and stores the labels.
func (a *Activities) Grade(ctx context.Context, in GradeInput) (map[grader.Label]int, error) {
	c, err := a.Corpora.Case(in.Corpus, in.CaseID)
	if err != nil {
		return nil, err
	}
	t, err := a.Results.Trace(ctx, in.EpisodeID)
	if err != nil {
		return nil, err
	}
	var key *grader.Key
	if in.Feedback == evolver.WriteBack {
		key = &grader.Key{Evidence: c.Manager.Evidence, Management: c.Manager.Management, Dangerous: c.Manager.Diagnosis.Dangerous}
	}
	pg := a.Grader
	if pg == nil {
		pg = grader.BuiltinProcessGrader{}
	}
	var g grader.ProcessGrade
	if err := a.metered(ctx, in.EpisodeID, func(ctx context.Context) error {
		var err error
		g, err = pg.GradeProcess(ctx, t.Events, t.Final, *t.Scores, key, in.Env.Config().Prices)
		return err
	}); err != nil {
		return nil, err
	}
	if err := a.Results.PutGrade(ctx, in.EpisodeID, g); err != nil {
		return nil, err
	}
	return g.Counts, nil
}

// Evolve learns from a batch of graded episodes in order: rule edits and card
// writes and evictions. Card IDs are deterministic and evictions keep their
// first episode, so a retry changes nothing.
func (a *Activities) Evolve(ctx context.Context, in EvolveInput) (EvolveOutput, error) {
	cfg := in.Spec.Config()
	out := EvolveOutput{RuleBook: in.RuleBook}
	d := runner.Deps{Memory: a.Memory, Evolver: a.Evolver}
	if !cfg.WriteCards {
		d.Memory = nil
	}
	for _, ref := range in.Episodes {
		c, err := a.Corpora.Case(ref.Corpus, ref.CaseID)
		if err != nil {
			return EvolveOutput{}, err
		}
		t, err := a.Results.Trace(ctx, ref.EpisodeID)
		if err != nil {
			return EvolveOutput{}, err
		}
		var g grader.ProcessGrade
		if err := a.Results.Grade(ctx, ref.EpisodeID, &g); err != nil {
			return EvolveOutput{}, err
		}
		m := runner.Meta{RunID: in.Run, EpisodeID: ref.EpisodeID, Number: ref.Number, Pass: in.Pass, Stage: ref.Stage, MemoryRuns: in.MemoryRuns}
		// The evolver's proposal is stored before it is applied, so a retry
		// applies the same proposal even when the evolver is a sampling model.
		var prop evolver.Output
		if err := a.Results.Proposal(ctx, ref.EpisodeID, &prop); err != nil {
			if !errors.Is(err, results.ErrNotFound) {
				return EvolveOutput{}, err
			}
			if err := a.metered(ctx, ref.EpisodeID, func(ctx context.Context) error {
				var err error
				prop, err = runner.Propose(ctx, d, cfg, c, t, g, m, out.RuleBook)
				return err
			}); err != nil {
				return EvolveOutput{}, err
			}
			if err := a.Results.PutProposal(ctx, ref.EpisodeID, prop); err != nil {
				return EvolveOutput{}, err
			}
		}
		var l runner.Lesson
		if err := a.metered(ctx, ref.EpisodeID, func(ctx context.Context) error { // card embeddings
			var err error
			l, err = runner.Apply(ctx, d, cfg, prop, m, g)
			return err
		}); err != nil {
			return EvolveOutput{}, err
		}
		out.RuleBook = l.Rules
		out.Lessons = append(out.Lessons, EpisodeLesson{EpisodeID: ref.EpisodeID, Written: l.Written, Evicted: l.Evicted, Edits: l.Edits})
	}
	return out, nil
}

// Record upserts the episode record, keyed by episode ID.
func (a *Activities) Record(ctx context.Context, in RecordInput) error {
	t, err := a.Results.Trace(ctx, in.EpisodeID)
	if err != nil {
		return err
	}
	var g grader.ProcessGrade
	_ = a.Results.Grade(ctx, in.EpisodeID, &g) // episodes of frozen evaluations are not graded
	r := results.Record{EpisodeID: in.EpisodeID, WorkflowID: in.EpisodeID, Run: in.Run, Kind: in.Kind, Pass: in.Pass,
		Stage: in.Stage, Index: in.Index, Number: in.Number, CaseID: in.CaseID, Condition: t.Condition, Scores: *t.Scores,
		Final: t.Final, Termination: t.Termination, Turns: len(t.Events), Written: in.Lesson.Written, Evicted: in.Lesson.Evicted,
		RuleEdits: in.Lesson.Edits, LLMErrorTurns: t.LLMErrorTurns}
	if t.MemoryWrite == "" { // a stream episode that went through Evolve
		t.MemoryWrite = clinic.MemoryNone
		if len(in.Lesson.Written) > 0 {
			t.MemoryWrite = clinic.MemoryWritten
		}
	}
	usage, err := a.Results.UsageOf(ctx, in.EpisodeID)
	if err != nil {
		return err
	}
	if len(usage) > 0 {
		r.Usage = usage
	}
	seen := map[string]bool{}
	for _, ev := range t.Events {
		target := ev.Question
		if ev.Action == clinic.RequestTest {
			target = ev.Test
		}
		r.Actions = append(r.Actions, fmt.Sprintf("%s %s -> %s", ev.Action, target, ev.Status))
		for _, id := range ev.RetrievedCards {
			if !seen[id] {
				seen[id] = true
				r.Retrieved = append(r.Retrieved, id)
			}
		}
	}
	for _, ag := range g.Actions {
		r.Labels = append(r.Labels, string(ag.Label))
	}
	return a.Results.PutRecord(ctx, r, t)
}

// RunCompletion records a finished run's result.
type RunCompletion struct {
	Run    string `json:"run"`
	Kind   string `json:"kind"`
	Result any    `json:"result"`
}

// CompleteRun stores a run's result, so an experiment resumed later reuses it.
func (a *Activities) CompleteRun(ctx context.Context, c RunCompletion) error {
	b, err := json.Marshal(c.Result)
	if err != nil {
		return badInput(err)
	}
	return a.Results.CompleteRun(ctx, c.Run, c.Kind, b)
}

// RunResult returns a finished run's stored result, or found=false.
func (a *Activities) RunResult(ctx context.Context, run string) (RunResultReply, error) {
	b, err := a.Results.RunResult(ctx, run)
	if errors.Is(err, results.ErrNotFound) {
		return RunResultReply{}, nil
	}
	if err != nil {
		return RunResultReply{}, err
	}
	return RunResultReply{Found: true, Result: b}, nil
}

// RunResultReply carries a stored run result.
type RunResultReply struct {
	Found  bool            `json:"found"`
	Result json.RawMessage `json:"result,omitempty"`
}

// PlanCases lists the case IDs (and conditions) of a corpus, the first limit of them.
func (a *Activities) PlanCases(ctx context.Context, ref string, limit int) (StreamPlan, error) {
	cp, err := a.Corpora.Get(ref)
	if err != nil {
		return StreamPlan{}, badInput(err)
	}
	var p StreamPlan
	for i, c := range cp.Cases {
		if limit > 0 && i == limit {
			break
		}
		p.CaseIDs = append(p.CaseIDs, c.ID)
		p.Conditions = append(p.Conditions, c.Condition)
	}
	return p, nil
}

// PutExperiment records an experiment's spec, which the report reads.
func (a *Activities) PutExperiment(ctx context.Context, spec ExperimentSpec) error {
	b, err := json.Marshal(spec)
	if err != nil {
		return badInput(err)
	}
	return a.Results.PutRun(ctx, results.Run{Run: spec.Name, Kind: "experiment", WorkflowID: ExperimentWorkflowID(spec.Name), Spec: b})
}

// ExperimentWorkflowID is the workflow ID of an experiment.
func ExperimentWorkflowID(name string) string { return name + "/experiment" }
