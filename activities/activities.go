// Package activities holds the thin side-effecting steps of the workflows:
// methods on a struct of ports. Prompts, transcripts and retrieved texts are
// built and kept here (and in the results store), never in workflow history.
// Every activity reads the run's settings from its input (or the reference
// to them it carries). Every failure leaves an activity classified by
// package fault (models.go): bad input and other permanent failures are
// non-retryable, transient ones are waited out by the workflows.
package activities

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.temporal.io/sdk/activity"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/evolver"
	"github.com/clinevo/clinevo/fault"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
)

// Activities are the workflows' side effects. The workflows call them by
// name (package acts declares each one's name and types), so every field is
// a port filled in by the worker.
type Activities struct {
	// Benchmarks are the build's benchmarks: each run plays the one its
	// settings select.
	Benchmarks bench.Set
	Corpora    *Corpora
	Results    results.Store
	Memory     memory.Store // nil: no memory backend in this worker
	// MemoryBackend names Memory's backend (local or qdrant): a run whose
	// settings name another is refused.
	MemoryBackend string
	// Embeddings is the embedder of Memory (the worker's roles.embeddings,
	// fixed with its bank): a run whose settings name another backend, model
	// or dimension is refused, since its cards would be compared in another
	// vector space. Zero: not checked.
	Embeddings settings.Role
	// Roles returns the roles of a run's settings, building model clients the
	// first time a setting is seen; keys come only from this worker's
	// environment. Nil: the built-in roles.
	Roles func(settings.Settings) (runner.Roles, error)

	settings sync.Map // settings by reference (SettingsRef), read once: they never change
}

var (
	meterActs       = otel.Meter("clinevo/activities")
	episodesDone, _ = meterActs.Int64Counter("clinevo.episodes", metric.WithDescription("episodes scored, by kind"))
	scoreS, _       = meterActs.Float64Histogram("clinevo.episode.s", metric.WithDescription("outcome score S of scored episodes"))
)

// Corpora loads corpora once per worker.
type Corpora struct{ cache corpus.Cache }

// NewCorpora returns an empty cache of corpora read with lib.
func NewCorpora(lib corpus.Library) *Corpora { return &Corpora{cache: corpus.Cache{Library: lib}} }

// Get loads (once) and returns a corpus.
func (c *Corpora) Get(ref string) (*corpus.Corpus, error) { return c.cache.Load(ref) }

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

// sameEmbedder checks a run's roles.embeddings against the worker's bank.
// memoryFor checks that this worker's memory bank can serve a run with
// settings s: there is one, of the backend and the embedder s names.
func (a *Activities) memoryFor(s settings.Settings) error {
	if a.Memory == nil {
		return errors.New("this worker has no memory backend; start the run with memory disabled")
	}
	if b := s.Memory.Backend; a.MemoryBackend != "" && b != a.MemoryBackend {
		return fmt.Errorf("settings memory.backend is %s but this worker serves %s", b, a.MemoryBackend)
	}
	return a.sameEmbedder(s.Roles["embeddings"])
}

func (a *Activities) sameEmbedder(run settings.Role) error {
	w := a.Embeddings
	if w.Backend == "" {
		return nil
	}
	describe := func(r settings.Role) string {
		if r.Backend != settings.OpenAI {
			return "the built-in hashing embedder"
		}
		return fmt.Sprintf("model %q with dim %d", r.Model, r.Dim)
	}
	same := run.Backend == w.Backend
	if same && w.Backend == settings.OpenAI {
		same = run.Model == w.Model && run.Dim == w.Dim
	}
	if !same {
		return fmt.Errorf("settings roles.embeddings is %s but this worker's memory bank embeds with %s (the embedder is fixed with the bank: start the worker with the run's roles.embeddings, or the run with the worker's)",
			describe(run), describe(w))
	}
	return nil
}

// ValidateStream checks a stream before any episode runs: it resolves the
// spec's defaults, checks the spec with its settings, the corpus, every case
// ID, the memory backend and the roles, and records the run under its claim
// (a run ID another run claimed is refused). It returns the case order and
// the resolved spec, which the stream runs with: defaults are applied here,
// where the result is recorded in the history, so a replay never depends on
// this build's defaults.
func (a *Activities) ValidateStream(ctx context.Context, s contract.StreamSpec) (_ StreamPlan, err error) {
	defer classified(&err)
	s = s.WithDefaults()
	if err := s.Validate(); err != nil {
		return StreamPlan{}, badInput(err)
	}
	if err := a.Benchmarks.ValidateSettings(s.Settings); err != nil {
		return StreamPlan{}, badInput(fmt.Errorf("stream %s: settings: %w", s.RunID, err))
	}
	b, err := a.Benchmarks.Of(s.Settings)
	if err != nil {
		return StreamPlan{}, badInput(fmt.Errorf("stream %s: settings: %w", s.RunID, err))
	}
	plan, err := a.Corpora.Plan(s.Corpus, s.CaseIDs, s.Limit)
	if err != nil {
		return StreamPlan{}, badInput(fmt.Errorf("stream %s: %w", s.RunID, err))
	}
	plan = plan.Ordered(s.Order, s.OrderBlock)
	if err := a.playable(b, s.Corpus, plan.CaseIDs); err != nil {
		return StreamPlan{}, badInput(fmt.Errorf("stream %s: %w", s.RunID, err))
	}
	if s.Memory != contract.MemoryDisabled {
		if err := a.memoryFor(s.Settings); err != nil {
			return StreamPlan{}, badInput(fmt.Errorf("stream %s: %w", s.RunID, err))
		}
	}
	if _, err := a.roles(s.Settings); err != nil {
		return StreamPlan{}, err
	}
	log := activity.GetLogger(ctx)
	for _, line := range llm.Describe(b, s.Settings) { // never a key
		log.Info("role", "run", s.RunID, "setting", line)
	}
	spec, err := json.Marshal(s)
	if err != nil {
		return StreamPlan{}, badInput(err)
	}
	if err := a.notAnotherCondition(ctx, s); err != nil {
		return StreamPlan{}, err
	}
	if err := a.claim(ctx, results.Run{Run: s.RunID, Kind: string(contract.KindStream), WorkflowID: contract.StreamWorkflowID(s.RunID), Spec: spec,
		Claim: s.Claim}, "stream"); err != nil {
		return StreamPlan{}, err
	}
	resolved := s
	resolved.State = contract.StreamState{} // the stream's own: it is in the input already
	plan.Spec = &resolved
	return plan, nil
}

// notAnotherCondition refuses a stream whose run ID an experiment claims
// for one of its conditions, unless that experiment started the stream.
func (a *Activities) notAnotherCondition(ctx context.Context, s contract.StreamSpec) error {
	runs, _, err := a.Results.Runs(ctx)
	if err != nil {
		return err
	}
	exp, cond, ok := results.ConditionClaim(runs, s.RunID)
	if !ok || exp == s.Experiment {
		return nil
	}
	return fault.Permanent("input", fault.Invalid, ConditionClaimFix,
		fmt.Errorf("stream %s: the run ID is claimed by experiment %s (its condition %s): %w", s.RunID, exp, cond, results.ErrRunExists))
}

// ConditionClaimFix says what to do about a run ID an experiment claims.
const ConditionClaimFix = "choose another run ID: the experiment plays that condition itself"

// claim records a run under its claim; a run ID that names another run is
// a permanent failure saying what to do instead.
func (a *Activities) claim(ctx context.Context, r results.Run, what string) error {
	err := a.Results.PutRun(ctx, r)
	if errors.Is(err, results.ErrRunExists) {
		return fault.Permanent("input", fault.Invalid, RunExistsFix(what, r.Run), fmt.Errorf("%s %s: %w", what, r.Run, err))
	}
	return err
}

// FinishedFix says what to do about a run ID that names a run that
// finished: it cannot be continued under its own ID (a restart refuses a
// finished run), a stream's memory can be continued by a new run.
func FinishedFix(what, run string) string {
	if what == "experiment" {
		return fmt.Sprintf("that experiment has finished: read it with `clinevo report %s`; to run it again choose a new name", run)
	}
	return fmt.Sprintf("that run has finished: to continue its memory start a new run with `clinevo stream start --run NEW --memory-mode carry --carry-from %s`; "+
		"to start over choose a new run ID", run)
}

// RunExistsFix says what to do about a run ID that names another run: a run
// ID names one run, forever.
func RunExistsFix(what, run string) string {
	if what == "experiment" {
		return fmt.Sprintf("to continue that experiment run `clinevo experiment resume %s`; to start over choose a new name", run)
	}
	return fmt.Sprintf("to continue that run use `clinevo stream restart %s`; to start over choose a new run ID", run)
}

// PrepareEvaluation resolves an evaluation's defaults, checks it, and
// stores its settings for the episodes to read by reference (SettingsRef).
// The evaluation runs with the spec it returns, recorded in its history.
func (a *Activities) PrepareEvaluation(ctx context.Context, e contract.EvalSpec) (_ contract.EvalSpec, err error) {
	defer classified(&err)
	e = e.WithDefaults()
	if err := e.Validate(); err != nil {
		return contract.EvalSpec{}, badInput(err)
	}
	body, err := json.Marshal(e.Settings)
	if err != nil {
		return contract.EvalSpec{}, badInput(err)
	}
	e.SettingsRef = results.SettingsRef(body)
	if err := a.Results.PutSettings(ctx, e.SettingsRef, body); err != nil {
		return contract.EvalSpec{}, err
	}
	return e, nil
}

// resolve fills an episode's settings from their reference, read from the
// results store once per worker (settings under a reference never change).
// An input without a reference carries its settings.
func (a *Activities) resolve(ctx context.Context, in *EpisodeInput) error {
	if in.SettingsRef == "" {
		return nil
	}
	if s, ok := a.settings.Load(in.SettingsRef); ok {
		in.Settings = s.(settings.Settings)
		return nil
	}
	body, err := a.Results.Settings(ctx, in.SettingsRef)
	if errors.Is(err, results.ErrNotFound) {
		return badInput(fmt.Errorf("episode %s: its settings %s are not in the results store (is the worker on the evaluation's store?)", in.EpisodeID, in.SettingsRef))
	}
	if err != nil {
		return err
	}
	var s settings.Settings
	if err := json.Unmarshal(body, &s); err != nil {
		return badInput(fmt.Errorf("episode %s: settings %s: %w", in.EpisodeID, in.SettingsRef, err))
	}
	a.settings.Store(in.SettingsRef, s)
	in.Settings = s
	return nil
}

// Plan lists the case IDs in order (the corpus order when ids is empty), the
// first limit of them, with their conditions; an unknown case is an error.
// A stream plays them in this order, and a restart finds it again here.
func (cs *Corpora) Plan(ref string, ids []string, limit int) (StreamPlan, error) {
	cp, err := cs.Get(ref)
	if err != nil {
		return StreamPlan{}, err
	}
	if len(ids) == 0 {
		for _, c := range cp.Cases {
			ids = append(ids, c.ID)
		}
	}
	if limit > 0 && limit < len(ids) {
		ids = ids[:limit]
	}
	plan := StreamPlan{CaseIDs: ids}
	size := 0
	for _, id := range ids {
		c, ok := cp.Case(id)
		if !ok {
			return StreamPlan{}, fmt.Errorf("case %q is not in corpus %s", id, ref)
		}
		plan.Conditions = append(plan.Conditions, c.Condition)
		size += len(id) + len(c.Condition) + 6 // two quoted strings and their commas
	}
	if size > MaxPlanBytes {
		return StreamPlan{}, fmt.Errorf("the case order of %d cases of %s is %d bytes of workflow history, more than a run carries (%d): "+
			"play fewer at a time (--limit, limit, heldout_limit) or split the corpus", len(ids), ref, size, MaxPlanBytes)
	}
	return plan, nil
}

// MaxPlanBytes bounds a run's case order (its case IDs and conditions),
// which a stream's and an evaluation's history carry, far from Temporal's
// 2 MiB payload limit: with IDs and conditions of 20 bytes each, some
// 13,000 cases a run (clinevo's own choice; a longer corpus is played in
// runs that carry their memory on).
const MaxPlanBytes = 512 << 10

// playable checks that the run's benchmark b plays every planned case.
func (a *Activities) playable(b bench.Benchmark, ref string, ids []string) error {
	for _, id := range ids {
		c, err := a.Corpora.Case(ref, id)
		if err != nil {
			return err
		}
		if err := b.ValidateCase(&c); err != nil {
			return fmt.Errorf("case %s of %s: benchmark %s cannot play it: %w", id, ref, b.Name(), err)
		}
	}
	return nil
}

// PlanCases lists the case IDs (and conditions) of a corpus, the first limit of them.
func (a *Activities) PlanCases(ctx context.Context, ref string, limit int) (_ StreamPlan, err error) {
	defer classified(&err)
	p, err := a.Corpora.Plan(ref, nil, limit)
	if err != nil {
		return StreamPlan{}, badInput(err)
	}
	return p, nil
}

// roles returns the run's roles; a setting that cannot make a role is bad input.
func (a *Activities) roles(s settings.Settings) (runner.Roles, error) {
	if a.Roles == nil {
		return runner.BuiltinRoles(), nil
	}
	r, err := a.Roles(s)
	if err != nil {
		return runner.Roles{}, badInput(fmt.Errorf("roles: %w", err))
	}
	return r, nil
}

// runDeps are the parts of a run with settings s: its benchmark, its roles
// and its settings (no memory bank).
func (a *Activities) runDeps(s settings.Settings) (runner.Deps, error) {
	b, err := a.Benchmarks.Of(s)
	if err != nil {
		return runner.Deps{}, badInput(err)
	}
	r, err := a.roles(s)
	if err != nil {
		return runner.Deps{}, err
	}
	return runner.Deps{Bench: b, Roles: r, Settings: s}, nil
}

// deps are an episode's parts: the run's benchmark, settings and roles, and
// the memory bank when the run has memory.
func (a *Activities) deps(in EpisodeInput) (runner.Deps, error) {
	d, err := a.runDeps(runner.WithDoctorTemperature(in.Settings, in.Temperature))
	if err != nil {
		return runner.Deps{}, err
	}
	if len(in.MemoryRuns) > 0 && in.Settings.Memory.K > 0 {
		// Evaluations read a stream's memory too: the same check as a
		// stream's at its start.
		if err := a.memoryFor(in.Settings); err != nil {
			return runner.Deps{}, badInput(fmt.Errorf("run %s: %w", in.Run, err))
		}
		d.Memory = a.Memory
	}
	return d, nil
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
	// MS is the time the decision took; Step records it with its own, in
	// one write of the turn's diagnose time.
	MS float64 `json:"ms,omitempty"`
	// Pruned are the cards the learning method's refine step pruned before
	// this turn's retrieval (ReMem), and RefineMS the part of MS it took:
	// Step records that part as update time.
	Pruned   []string `json:"pruned,omitempty"`
	RefineMS float64  `json:"refine_ms,omitempty"`
}

func (d decision) summary() TurnSummary {
	return TurnSummary{Action: string(d.Output.Action), Cards: len(d.Cards)}
}

// start rebuilds an episode from its stored events.
func (a *Activities) start(in EpisodeInput, d runner.Deps, events []clinic.Event) (episode.Env, error) {
	c, err := a.Corpora.Case(in.Corpus, in.CaseID)
	if err != nil {
		return nil, err
	}
	ep, err := d.Start(c, events)
	if err != nil {
		return nil, badInput(err)
	}
	return ep, nil
}

// Decide builds the doctor's view from the stored turns, retrieves cards, asks
// the doctor and stores its decision. A retry returns the stored decision, and
// so does a second worker racing the first: the first stored decision wins.
func (a *Activities) Decide(ctx context.Context, in TurnInput) (_ TurnSummary, err error) {
	defer classified(&err)
	if err := a.resolve(ctx, &in.EpisodeInput); err != nil {
		return TurnSummary{}, err
	}
	raw, err := a.Results.Decision(ctx, in.EpisodeID, in.Turn)
	switch {
	case err == nil:
		return storedDecision(in, raw)
	case !errors.Is(err, results.ErrNotFound):
		return TurnSummary{}, err // the store failed: retry
	}
	start := time.Now()
	dec, err := a.decide(ctx, in)
	if err != nil {
		return TurnSummary{}, err
	}
	if dec.LLMError {
		activity.GetLogger(ctx).Warn("doctor reply unusable after one repair request: llm_error turn", "episode", in.EpisodeID, "turn", in.Turn)
	}
	dec.MS = msSince(start)
	b, err := json.Marshal(dec)
	if err != nil {
		return TurnSummary{}, badInput(err)
	}
	stored, err := a.Results.PutDecision(ctx, in.EpisodeID, in.Turn, b)
	if err != nil {
		return TurnSummary{}, err
	}
	if bytes.Equal(stored, b) {
		return dec.summary(), nil // this worker's decision is the one stored
	}
	return storedDecision(in, stored)
}

// storedDecision is the turn's decision as the results store holds it.
func storedDecision(in TurnInput, raw []byte) (TurnSummary, error) {
	var d decision
	if err := json.Unmarshal(raw, &d); err != nil {
		return TurnSummary{}, badInput(fmt.Errorf("episode %s turn %d: stored decision: %w", in.EpisodeID, in.Turn, err))
	}
	return d.summary(), nil
}

// decide rebuilds the episode from its stored turns and asks the doctor for
// the next one (runner.DecideTurn), metered on the episode.
func (a *Activities) decide(ctx context.Context, in TurnInput) (decision, error) {
	events, err := a.Results.Events(ctx, in.EpisodeID, in.Turn)
	if err != nil {
		return decision{}, err
	}
	if len(events) != in.Turn {
		return decision{}, badInput(fmt.Errorf("episode %s: turn %d asked with %d turns stored", in.EpisodeID, in.Turn, len(events)))
	}
	d, err := a.deps(in.EpisodeInput)
	if err != nil {
		return decision{}, err
	}
	ep, err := a.start(in.EpisodeInput, d, events)
	if err != nil {
		return decision{}, err
	}
	view := ep.View(nil, in.Rules)
	var dec decision
	err = a.metered(llm.WithEpoch(ctx, in.Epoch), in.EpisodeID, func(ctx context.Context) error {
		doctor, err := d.Doctor()
		if err != nil {
			return err
		}
		t, err := runner.DecideTurn(ctx, d, meta(in.EpisodeInput), doctor, view, events)
		if err != nil {
			return err
		}
		dec.Output, dec.LLMError = t.Output, t.LLMError
		if t.Refined {
			dec.Pruned, dec.RefineMS = t.Pruned, t.RefineMS
		}
		for _, c := range t.Cards {
			dec.Cards = append(dec.Cards, c.ID)
		}
		return nil
	})
	return dec, err
}

// addTurnTime accounts a turn's time: its decision and its step (stepMS)
// as diagnose time, a learning method's refine step between turns as
// update time.
func (a *Activities) addTurnTime(ctx context.Context, episodeID string, dec decision, stepMS float64) error {
	if err := a.Results.AddTime(ctx, episodeID, results.PhaseDiagnose, dec.MS-dec.RefineMS+stepMS); err != nil {
		return err
	}
	if dec.RefineMS > 0 {
		return a.Results.AddTime(ctx, episodeID, results.PhaseUpdate, dec.RefineMS)
	}
	return nil
}

// storedDecision is the doctor's decision Decide stored for the turn.
func (a *Activities) storedDecision(ctx context.Context, in TurnInput) (decision, error) {
	raw, err := a.Results.Decision(ctx, in.EpisodeID, in.Turn)
	if errors.Is(err, results.ErrNotFound) {
		return decision{}, badInput(fmt.Errorf("episode %s turn %d: stepped before a decision was stored", in.EpisodeID, in.Turn))
	}
	if err != nil {
		return decision{}, err // the store failed: retry
	}
	var dec decision
	if err := json.Unmarshal(raw, &dec); err != nil {
		return decision{}, badInput(fmt.Errorf("episode %s turn %d: stored decision: %w", in.EpisodeID, in.Turn, err))
	}
	return dec, nil
}

// Step applies the stored decision of a turn to the environment and stores the
// event. A retry returns the stored event.
func (a *Activities) Step(ctx context.Context, in TurnInput) (_ TurnSummary, err error) {
	defer classified(&err)
	if err := a.resolve(ctx, &in.EpisodeInput); err != nil {
		return TurnSummary{}, err
	}
	events, err := a.Results.Events(ctx, in.EpisodeID, in.Turn+1)
	if err != nil {
		return TurnSummary{}, err
	}
	d, err := a.deps(in.EpisodeInput)
	if err != nil {
		return TurnSummary{}, err
	}
	if len(events) == in.Turn+1 { // already stepped
		ep, err := a.start(in.EpisodeInput, d, events)
		if err != nil {
			return TurnSummary{}, err
		}
		return TurnSummary{Action: string(events[in.Turn].Action), Status: string(events[in.Turn].Status), Done: ep.Done()}, nil
	}
	dec, err := a.storedDecision(ctx, in)
	if err != nil {
		return TurnSummary{}, err
	}
	ep, err := a.start(in.EpisodeInput, d, events)
	if err != nil {
		return TurnSummary{}, err
	}
	if ep.Done() {
		return TurnSummary{}, badInput(fmt.Errorf("episode %s ended before turn %d", in.EpisodeID, in.Turn))
	}
	var ev clinic.Event
	start := time.Now()
	if err := a.metered(llm.WithEpoch(ctx, in.Epoch), in.EpisodeID, func(ctx context.Context) error {
		var err error
		ev, err = ep.Step(ctx, episode.StepInput{Output: dec.Output, RetrievedCards: dec.Cards, PrunedCards: dec.Pruned, LLMError: dec.LLMError})
		return err
	}); err != nil {
		return TurnSummary{}, err
	}
	if err := a.addTurnTime(ctx, in.EpisodeID, dec, msSince(start)); err != nil {
		return TurnSummary{}, err
	}
	stored, err := a.Results.PutEvent(ctx, in.EpisodeID, ev)
	if err != nil {
		return TurnSummary{}, err
	}
	// The first stored event wins: a worker that raced this one stepped
	// first, and the episode is rebuilt with its event.
	if !sameEvent(stored, ev) {
		if ep, err = a.start(in.EpisodeInput, d, append(events, stored)); err != nil {
			return TurnSummary{}, err
		}
	}
	return TurnSummary{Action: string(stored.Action), Status: string(stored.Status), Done: ep.Done()}, nil
}

// Score builds the scored trace from the stored turns and keeps it for Grade,
// Evolve and Record.
func (a *Activities) Score(ctx context.Context, in EpisodeInput) (_ contract.ScoreSummary, err error) {
	defer classified(&err)
	if err := a.resolve(ctx, &in); err != nil {
		return contract.ScoreSummary{}, err
	}
	c, err := a.Corpora.Case(in.Corpus, in.CaseID)
	if err != nil {
		return contract.ScoreSummary{}, err
	}
	events, err := a.Results.Events(ctx, in.EpisodeID, 1<<30)
	if err != nil {
		return contract.ScoreSummary{}, err
	}
	d, err := a.deps(in)
	if err != nil {
		return contract.ScoreSummary{}, err
	}
	var t clinic.Trace
	start := time.Now()
	if err := a.metered(llm.WithEpoch(ctx, in.Epoch), in.EpisodeID, func(ctx context.Context) error {
		var err error
		t, err = runner.Finish(ctx, c, d, meta(in), events)
		return err
	}); err != nil {
		return contract.ScoreSummary{}, err
	}
	if err := a.spent(ctx, in.EpisodeID, results.PhaseDiagnose, start); err != nil {
		return contract.ScoreSummary{}, err
	}
	if t.Termination == "" {
		return contract.ScoreSummary{}, badInput(fmt.Errorf("episode %s has not ended (%d turns stored)", in.EpisodeID, len(events)))
	}
	if err := a.Results.PutTrace(ctx, t); err != nil {
		return contract.ScoreSummary{}, err
	}
	s := t.Scores
	kind := metric.WithAttributes(attribute.String("kind", string(in.Kind)))
	episodesDone.Add(ctx, 1, kind)
	scoreS.Record(ctx, s.S, kind)
	return Summary(*s, t.Termination), nil
}

// Summary is what a workflow history keeps of an episode's scores.
func Summary(s clinic.Scores, end clinic.Termination) contract.ScoreSummary {
	return contract.ScoreSummary{S: s.S, Diagnosis: s.Diagnosis, Strict: s.Strict, Pass: s.Pass, U: s.U, T: s.T, E: s.E,
		Cost: s.Cost, Termination: string(end)}
}

// Grade labels every action of an episode and stores the labels. The grader
// reads the manager's key only in write-back mode (runner.ProcessInput).
func (a *Activities) Grade(ctx context.Context, in GradeInput) (_ map[grader.Label]int, err error) {
	defer classified(&err)
	c, err := a.Corpora.Case(in.Corpus, in.CaseID)
	if err != nil {
		return nil, err
	}
	t, err := a.Results.Trace(ctx, in.EpisodeID)
	if err != nil {
		return nil, err
	}
	d, err := a.runDeps(in.Settings)
	if err != nil {
		return nil, err
	}
	pg, err := d.Grader()
	if err != nil {
		return nil, badInput(err)
	}
	var g grader.ProcessGrade
	start := time.Now()
	if err := a.metered(ctx, in.EpisodeID, func(ctx context.Context) error {
		var err error
		g, err = pg.GradeProcess(ctx, runner.ProcessInput(t, in.Settings), runner.WriteBack(d.Bench, &c, t, in.Settings))
		return err
	}); err != nil {
		return nil, err
	}
	if err := a.spent(ctx, in.EpisodeID, results.PhaseUpdate, start); err != nil {
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
func (a *Activities) Evolve(ctx context.Context, in EvolveInput) (_ EvolveOutput, err error) {
	defer classified(&err)
	d, err := a.runDeps(in.Settings)
	if err != nil {
		return EvolveOutput{}, err
	}
	if len(in.MemoryRuns) > 0 {
		d.Memory = a.Memory
	}
	out := EvolveOutput{RuleBook: in.RuleBook}
	log := activity.GetLogger(ctx)
	evotest := in.Settings.Evolver.MethodName() == settings.MethodEvoTest
	var tree *evolver.EvoTestTree
	if evotest && len(in.Episodes) > 0 {
		// EvoTest's search as of the episode before the batch.
		if tree, err = a.evotestTree(ctx, in.Run, in.Episodes[0].Number-1); err != nil {
			return EvolveOutput{}, err
		}
		d.EvoTestBook = func(ctx context.Context, n int) ([]clinic.Rule, error) {
			var p evolver.Output
			if err := a.Results.Proposal(ctx, evotestKey(in.Run, n), &p); err != nil {
				return nil, err
			}
			return p.Rules, nil
		}
	}
	played := -1
	if tree != nil {
		played = tree.Played
	}
	for i, ref := range in.Episodes {
		start := time.Now()
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
		if evotest {
			// Every episode of the batch played the configuration the
			// batch started with: all but the last only score it.
			m.EvoTest, m.EvoTestDefer = tree, i < len(in.Episodes)-1
			if tree != nil {
				m.EvoTest = &evolver.EvoTestTree{Nodes: tree.Nodes, Played: played}
			}
		}
		// The evolver's proposal is stored before it is applied, so a retry
		// applies the same proposal even when the evolver is a sampling model.
		var prop evolver.Output
		if err := a.Results.Proposal(ctx, ref.EpisodeID, &prop); err != nil {
			if !errors.Is(err, results.ErrNotFound) {
				return EvolveOutput{}, err
			}
			if m.Attempts, err = a.attemptInputs(ctx, d, c, ref, m); err != nil {
				return EvolveOutput{}, err
			}
			if err := a.metered(ctx, ref.EpisodeID, func(ctx context.Context) error {
				var err error
				prop, err = runner.Propose(ctx, d, c, t, g, m, out.RuleBook)
				return err
			}); err != nil {
				return EvolveOutput{}, err
			}
			if err := a.Results.PutProposal(ctx, ref.EpisodeID, prop); err != nil {
				return EvolveOutput{}, err
			}
		}
		if evotest {
			if prop.EvoTest == nil {
				return EvolveOutput{}, fmt.Errorf("episode %s: evotest proposal without its search tree", ref.EpisodeID)
			}
			// Indexed by episode number too: the next batch reads the tree,
			// and a later child its parent's rule book, from here.
			if err := a.Results.PutProposal(ctx, evotestKey(in.Run, ref.Number), prop); err != nil {
				return EvolveOutput{}, err
			}
			tree = prop.EvoTest
			if played < 0 {
				played = 0 // the root the first batch played
			}
			out.Temperature = prop.Temperature
		}
		var l runner.Lesson
		if err := a.metered(ctx, ref.EpisodeID, func(ctx context.Context) error { // card embeddings
			var err error
			l, err = runner.Apply(ctx, d, prop, m, g)
			return err
		}); err != nil {
			return EvolveOutput{}, err
		}
		if len(l.Evicted) > 0 {
			log.Info("cards evicted", "run", in.Run, "episode", ref.EpisodeID, "evicted", len(l.Evicted), "memory_budget", in.Settings.Evolver.MemoryBudget)
		}
		if m := in.Settings.Evolver.MethodName(); m != settings.MethodClinevo {
			log.Info("learning method updated", "run", in.Run, "episode", ref.EpisodeID, "method", m, "rules", len(l.Rules),
				"written", len(l.Written), "evicted", len(l.Evicted), "credited", l.Credited, "edits", strings.Join(l.Edits, "; "))
		}
		if len(l.Skipped) > 0 {
			log.Info("evolver edits rejected by the leak screen", "run", in.Run, "episode", ref.EpisodeID, "rejected", len(l.Skipped))
		}
		if err := a.spent(ctx, ref.EpisodeID, results.PhaseUpdate, start); err != nil {
			return EvolveOutput{}, err
		}
		out.RuleBook = l.Rules
		out.Lessons = append(out.Lessons, EpisodeLesson{EpisodeID: ref.EpisodeID, Written: l.Written, Evicted: l.Evicted, Edits: l.Edits})
	}
	return out, nil
}

// evotestKey is where EvoTest's proposal of episode number n of a run is
// stored beside its episode ID (results.Grading's proposals).
func evotestKey(run string, n int) string { return fmt.Sprintf("evotest/%s/%d", run, n) }

// evotestTree is EvoTest's search as of episode number n of a run: the tree
// its proposal stored; nil before the first (or in a run that carries from
// another: its tree starts from the rule book it carried).
func (a *Activities) evotestTree(ctx context.Context, run string, n int) (*evolver.EvoTestTree, error) {
	var p evolver.Output
	err := a.Results.Proposal(ctx, evotestKey(run, n), &p)
	if errors.Is(err, results.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return p.EvoTest, nil
}

// Record upserts the episode record, keyed by episode ID.
func (a *Activities) Record(ctx context.Context, in RecordInput) (err error) {
	defer classified(&err)
	t, err := a.Results.Trace(ctx, in.EpisodeID)
	if err != nil {
		return err
	}
	var g grader.ProcessGrade
	if err := a.Results.Grade(ctx, in.EpisodeID, &g); err != nil && !errors.Is(err, results.ErrNotFound) {
		return err // frozen evaluations are not graded (not found); anything else is a fault
	}
	r := results.Record{EpisodeID: in.EpisodeID, WorkflowID: in.EpisodeID, Run: in.Run, Kind: string(in.Kind), Pass: in.Pass,
		Stage: in.Stage, Index: in.Index, Epoch: in.Epoch, Number: in.Number, CaseID: in.CaseID, Condition: t.Condition, Scores: *t.Scores,
		Final: t.Final, Termination: t.Termination, Turns: len(t.Events), Written: in.Lesson.Written, Evicted: in.Lesson.Evicted,
		RuleEdits: in.Lesson.Edits, LLMErrorTurns: t.LLMErrorTurns}
	if r.Attempts, err = a.attemptsOf(ctx, t, in); err != nil {
		return err
	}
	if in.Kind == contract.KindStream {
		r.RuleBook = append([]clinic.Rule{}, in.RuleBook...) // a list even when empty: the record of a stream episode holds its rule book
		r.Temperature = in.Temperature
	}
	if t.MemoryWrite == "" { // a stream episode that went through Evolve
		t.MemoryWrite = clinic.MemoryNone
		if len(in.Lesson.Written) > 0 {
			t.MemoryWrite = clinic.MemoryWritten
		}
	}
	if err := a.addAccounts(ctx, &r); err != nil {
		return err
	}
	profile := in.Benchmark
	if profile == "" && in.SettingsRef != "" {
		e := EpisodeInput{EpisodeID: in.EpisodeID, SettingsRef: in.SettingsRef}
		if err := a.resolve(ctx, &e); err != nil {
			return err
		}
		profile = e.Settings.Benchmark
	}
	b, _ := a.Benchmarks.Get(profile) // nil (not in this build): the shared reading of every action
	seen := map[string]bool{}
	for _, ev := range t.Events {
		r.Actions = append(r.Actions, fmt.Sprintf("%s %s -> %s", ev.Action, bench.Describe(b, ev).Target, ev.Status))
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

// addAccounts puts the episode's model use and activity time into its
// record (none: left out).
func (a *Activities) addAccounts(ctx context.Context, r *results.Record) error {
	usage, err := a.Results.UsageOf(ctx, r.EpisodeID)
	if err != nil {
		return err
	}
	if len(usage) > 0 {
		r.Usage = usage
	}
	spent, err := a.Results.TimeOf(ctx, r.EpisodeID)
	if err != nil {
		return err
	}
	if len(spent) > 0 {
		r.TimeMS = spent
	}
	return nil
}

// Learn is a stream's update step in one call: Evolve over a batch of graded
// episodes when the run keeps a rule book or memory, then Record of each with
// what learning from it changed. Both are idempotent (stored proposals,
// deterministic card IDs, upserted records), so Learn may run again after a
// crash (the stream runs it as a local activity) and changes nothing more.
// An episode without a stored grade is graded first: a worker from before
// episodes graded themselves may have played it during a rolling upgrade.
func (a *Activities) Learn(ctx context.Context, in EvolveInput) (_ EvolveOutput, err error) {
	defer classified(&err)
	for _, ref := range attemptRefs(in.Episodes) {
		var g grader.ProcessGrade
		err := a.Results.Grade(ctx, ref.EpisodeID, &g)
		if errors.Is(err, results.ErrNotFound) {
			_, err = a.Grade(ctx, GradeInput{EpisodeRef: ref, Settings: in.Settings})
		}
		if err != nil {
			return EvolveOutput{}, err
		}
	}
	out := EvolveOutput{RuleBook: in.RuleBook}
	if in.Settings.Evolver.Rules() || len(in.MemoryRuns) > 0 {
		var err error
		if out, err = a.Evolve(ctx, in); err != nil {
			return EvolveOutput{}, err
		}
	}
	for i, ref := range in.Episodes {
		rec := RecordInput{EpisodeRef: ref, Run: in.Run, Kind: contract.KindStream, Pass: in.Pass, RuleBook: out.RuleBook, Temperature: out.Temperature,
			Benchmark: in.Settings.Benchmark}
		if i < len(out.Lessons) {
			rec.Lesson = out.Lessons[i]
		}
		if err := a.Record(ctx, rec); err != nil {
			return EvolveOutput{}, err
		}
	}
	return out, nil
}

// CompleteRun stores a run's result, so an experiment resumed later reuses it
// and a carry run continues from it.
func (a *Activities) CompleteRun(ctx context.Context, c RunCompletion) (err error) {
	defer classified(&err)
	b, err := json.Marshal(c.Result)
	if err != nil {
		return badInput(err)
	}
	if err := a.Results.CompleteRun(ctx, c.Run, string(c.Kind), b); err != nil {
		return err
	}
	activity.GetLogger(ctx).Info("run completed", "run", c.Run, "kind", string(c.Kind))
	return nil
}

// RunSpend is a run's model spend so far, its evaluations' included: what
// the stream checks its budget against.
func (a *Activities) RunSpend(ctx context.Context, run string) (_ contract.Spend, err error) {
	defer classified(&err)
	usage, err := a.Results.RunUsage(ctx, run)
	if err != nil {
		return contract.Spend{}, err
	}
	var s contract.Spend
	for _, u := range usage {
		s.USD += u.CostUSD
		s.Tokens += u.PromptTokens + u.CompletionTokens
	}
	return s, nil
}

// ExperimentSpend is the model spend so far of an experiment's runs (each
// with its evaluations): what a stream checks its experiment's cap against.
func (a *Activities) ExperimentSpend(ctx context.Context, runs []string) (contract.Spend, error) {
	var s contract.Spend
	for _, run := range runs {
		sp, err := a.RunSpend(ctx, run)
		if err != nil {
			return contract.Spend{}, err
		}
		s.USD += sp.USD
		s.Tokens += sp.Tokens
	}
	return s, nil
}

// RunResult returns a finished run's stored result, or found=false.
func (a *Activities) RunResult(ctx context.Context, run string) (_ RunResultReply, err error) {
	defer classified(&err)
	b, err := a.Results.RunResult(ctx, run)
	if errors.Is(err, results.ErrNotFound) {
		return RunResultReply{}, nil
	}
	if err != nil {
		return RunResultReply{}, err
	}
	return RunResultReply{Found: true, Result: b}, nil
}

// spent adds the time since start to an episode's phase: EvoClinician's split
// of time into diagnosing and updating, measured as activity time.
func (a *Activities) spent(ctx context.Context, episodeID, phase string, start time.Time) error {
	return a.Results.AddTime(ctx, episodeID, phase, msSince(start))
}

// msSince is the time since start in milliseconds.
func msSince(start time.Time) float64 { return float64(time.Since(start).Microseconds()) / 1000 }

// sameEvent reports whether the stored event is the one this worker made
// (as stored: compared as JSON).
func sameEvent(stored, made clinic.Event) bool {
	a, errA := json.Marshal(stored)
	b, errB := json.Marshal(made)
	return errA == nil && errB == nil && bytes.Equal(a, b)
}

// PutExperiment checks an experiment, resolves every condition's settings
// (the base, the experiment's overrides, the condition's) and its defaults,
// and records it under its claim (a name another experiment claimed is
// refused). The experiment runs its conditions with the plan it returns,
// recorded in its history, so a replay never depends on this build's
// defaults or override rules.
func (a *Activities) PutExperiment(ctx context.Context, spec contract.ExperimentSpec) (_ ExperimentPlan, err error) {
	defer classified(&err)
	if err := spec.Validate(); err != nil {
		return ExperimentPlan{}, badInput(err)
	}
	base, err := settings.Apply(spec.Base.OrDefault(), "settings", spec.Settings)
	if err != nil {
		return ExperimentPlan{}, badInput(fmt.Errorf("experiment %s: %w", spec.Name, err))
	}
	plan := ExperimentPlan{EvalConcurrency: spec.EvalConcurrency, Durability: base.Durability.OrDefault()}
	if plan.EvalConcurrency == 0 {
		plan.EvalConcurrency = contract.DefaultEvalConcurrency
	}
	for i := range spec.Conditions {
		s, err := spec.SettingsOf(i)
		if err != nil {
			return ExperimentPlan{}, badInput(err)
		}
		s.Durability = s.Durability.OrDefault()
		plan.Settings = append(plan.Settings, s)
	}
	b, err := json.Marshal(spec)
	if err != nil {
		return ExperimentPlan{}, badInput(err)
	}
	if err := a.conditionsFree(ctx, spec); err != nil {
		return ExperimentPlan{}, err
	}
	if err := a.claim(ctx, results.Run{Run: spec.Name, Kind: string(contract.KindExperiment), WorkflowID: contract.ExperimentWorkflowID(spec.Name), Spec: b,
		Claim: spec.Claim}, "experiment"); err != nil {
		return ExperimentPlan{}, err
	}
	return plan, nil
}

// conditionsFree refuses, when an experiment that claims its conditions'
// run IDs first starts, a condition run ID that names a run already (one
// started between the command's check and this claim) or that another
// experiment claims. A resumed experiment (described already, under its
// own claim) has run its conditions under those IDs itself.
func (a *Activities) conditionsFree(ctx context.Context, spec contract.ExperimentSpec) error {
	if !spec.ClaimsConditions {
		return nil
	}
	runs, counts, err := a.Results.Runs(ctx)
	if err != nil {
		return err
	}
	if slices.ContainsFunc(runs, func(r results.Run) bool { return r.Run == spec.Name && r.Claim == spec.Claim }) {
		return nil
	}
	for _, c := range spec.Conditions {
		run := spec.RunID(c.Name)
		described := slices.ContainsFunc(runs, func(r results.Run) bool { return r.Run == run })
		exp, _, claimed := results.ConditionClaim(runs, run)
		if described || counts[run] > 0 || (claimed && exp != spec.Name) {
			return fault.Permanent("input", fault.Invalid, RunExistsFix("experiment", spec.Name),
				fmt.Errorf("experiment %s: condition run %s names another run already: %w", spec.Name, run, results.ErrRunExists))
		}
	}
	return nil
}
