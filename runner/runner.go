// Package runner plays episodes and learns from them in process: the loop the
// Temporal workflows run step by step through activities, and the baseline
// their overhead is measured against.
package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/actor/textbook"
	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/evolver"
	"github.com/clinevo/clinevo/fault"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/internal/tokens"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/settings"
)

var (
	tracer         = otel.Tracer("clinevo/memory")
	meterRunner    = otel.Meter("clinevo/runner")
	retrievalMS, _ = meterRunner.Float64Histogram("clinevo.memory.retrieval_ms", metric.WithDescription("memory retrieval latency per doctor turn"))
	evictions, _   = meterRunner.Int64Counter("clinevo.memory.evictions", metric.WithDescription("cards evicted"))
)

// Roles are the roles a run plays with. A nil doctor, judge, grader or
// evolver is the built-in one of the run's benchmark (Deps.Doctor, ...).
type Roles struct {
	Doctor  actor.Doctor
	Env     episode.Roles // patient, exam service, consultant
	Judge   grader.Judge
	Grader  grader.ProcessGrader
	Evolver evolver.Evolver
	// Model is the evolver role as the learning methods other than
	// clinevo's ask it (reflection, consolidation, mutation); nil: their
	// mechanical forms.
	Model evolver.Model
}

// BuiltinRoles are the deterministic built-in roles: the environment's here,
// the doctor, judge, grader and evolver the run's benchmark's (nil).
func BuiltinRoles() Roles {
	return Roles{Env: episode.BuiltinRoles()}
}

// Deps are the parts one episode needs.
type Deps struct {
	// Bench is the run's benchmark, the one its settings select (the
	// engine resolves it once: bench.Set.Of).
	Bench    bench.Benchmark
	Roles    Roles
	Settings settings.Settings
	Memory   memory.Store // nil: memory disabled
	// EvoTestBook reads the rule book EvoTest evolved at an episode of the
	// run (the rules of that episode's stored proposal); nil: only the
	// root of EvoTest's tree can be a parent.
	EvoTestBook func(ctx context.Context, episode int) ([]clinic.Rule, error)
}

// Doctor is the run's doctor: the roles', or the benchmark's built-in one,
// as the benchmark composes it under the run's settings (actor.Composer).
func (d Deps) Doctor() (actor.Doctor, error) {
	doc, err := d.baseDoctor()
	if err != nil {
		return nil, err
	}
	return actor.ComposeFor(d.Bench, doc, d.Settings), nil
}

func (d Deps) baseDoctor() (actor.Doctor, error) {
	if d.Roles.Doctor != nil {
		return d.Roles.Doctor, nil
	}
	b := d.Bench
	if r := d.Settings.Roles["doctor"]; r.Model == textbook.Name && (r.Backend == "" || r.Backend == settings.Builtin) {
		if err := actor.CheckTextbook(b, b.Name(), d.Settings); err != nil {
			// Invalid, not waited out: no retry can change the settings.
			return nil, fault.New("roles.doctor", fault.Invalid, err)
		}
		return textbook.New(), nil
	}
	return actor.BuiltinFor(b), nil
}

// Grader is the run's process grader: the roles', or the built-in one with
// the benchmark's labels.
func (d Deps) Grader() (grader.ProcessGrader, error) {
	if d.Roles.Grader != nil {
		return d.Roles.Grader, nil
	}
	return grader.BuiltinProcessGrader{Labels: grader.LabelerOf(d.Bench)}, nil
}

// Evolver is the run's evolver: the roles', or the built-in one with the
// benchmark's lessons.
func (d Deps) Evolver() (evolver.Evolver, error) {
	if d.Roles.Evolver != nil {
		return d.Roles.Evolver, nil
	}
	return evolver.Builtin{Lessons: evolver.LessonsOf(d.Bench)}, nil
}

// Method is the run's learning method (evolver.method) learning from
// episode m: clinevo's evolver (Evolver), or another method with the
// evolver role's model and the memory as it was before the episode.
func (d Deps) Method(m Meta) (evolver.Evolver, error) {
	clin, err := d.Evolver()
	if err != nil {
		return nil, err
	}
	env := evolver.Env{Model: d.Roles.Model, Lessons: evolver.LessonsOf(d.Bench), Clinevo: clin,
		EvoTest: evolver.EvoTest{Tree: m.EvoTest, Root: evolver.Hyper{Temperature: float64(d.Settings.Roles["doctor"].Temperature)},
			Book: d.EvoTestBook, Defer: m.EvoTestDefer}, Utility: d.Settings.Memory.Utilities()}
	if d.Memory != nil {
		env.Bank = bankView{store: d.Memory, f: memory.Filter{Runs: m.MemoryRuns, AsOf: m.Number - 1}}
	}
	return evolver.New(d.Settings.Evolver, env)
}

// bankView is a memory lineage as of an episode: what a learning method
// reads of memory.
type bankView struct {
	store memory.Store
	f     memory.Filter
}

func (b bankView) Search(ctx context.Context, text string, k int, kinds ...clinic.CardKind) ([]memory.Hit, error) {
	if b.f.AsOf <= 0 {
		return nil, nil // nothing can have been written before the first episode
	}
	f := b.f
	f.Kinds = kinds
	return b.store.Search(ctx, memory.Query{Text: text, K: k, Filter: f})
}

func (b bankView) Cards(ctx context.Context, ids []string) ([]clinic.Card, error) {
	var out []clinic.Card
	for _, id := range ids {
		c, err := b.store.Get(ctx, id)
		if errors.Is(err, memory.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if b.f.AsOf > 0 && memory.Match(&c, b.f) {
			out = append(out, c)
		}
	}
	return out, nil
}

// Refines says whether episode m refines memory between its turns: a
// learning episode (not frozen) with memory, of a run whose method is ReMem
// (evolver.ReMem).
func (d Deps) Refines(m Meta) bool {
	return d.Memory != nil && !m.Frozen && d.Settings.Evolver.MethodName() == settings.MethodReMem
}

// RefineTurn is the refine step before the turn that follows events
// (evolver.ReMem.RefineTurn), with the memory as it was before the episode:
// the cards to prune now; none when the episode does not refine or before
// its first turn.
func RefineTurn(ctx context.Context, d Deps, m Meta, opening string, events []clinic.Event) ([]string, error) {
	if !d.Refines(m) || len(events) == 0 {
		return nil, nil
	}
	r := evolver.ReMem{Model: d.Roles.Model, Bank: bankView{store: d.Memory, f: memory.Filter{Runs: m.MemoryRuns, AsOf: m.Number - 1}}}
	pruned, err := r.RefineTurn(ctx, d.Settings.Evolver, evolver.Turn{Opening: opening, Events: events})
	if err != nil {
		return nil, fmt.Errorf("remem refine: %w", err)
	}
	return pruned, nil
}

// TurnDecision is one turn's decision with the memory it was made with:
// the cards shown, and what ReMem's refine step pruned before it (Refined:
// a refine step ran, taking RefineMS of the turn's time, update time).
type TurnDecision struct {
	actor.Decision
	Cards    []clinic.CardHint
	Pruned   []string
	Refined  bool
	RefineMS float64
}

// DecideTurn retrieves memory for view and asks the doctor for the turn
// that follows events. In a ReMem run (Deps.Refines) after the first turn,
// a doctor that chooses when to refine (actor.RefineChooser: think, act or
// refine, Evo-Memory's ReMem) is offered the choice: when it asks, the
// refine step runs and it decides again with the refined memory. For any
// other doctor the mechanical refine step chooses, before every action,
// and prunes only what yielded nothing or repeats (evolver.ReMem).
func DecideTurn(ctx context.Context, d Deps, m Meta, doctor actor.Doctor, view clinic.DoctorView, events []clinic.Event) (TurnDecision, error) {
	var t TurnDecision
	refines := d.Refines(m) && len(events) > 0
	chooser, ok := doctor.(actor.RefineChooser)
	chooses := refines && ok && chooser.ChoosesRefine()
	if refines && !chooses {
		if err := t.refine(ctx, d, m, view.OpeningComplaint, events); err != nil {
			return TurnDecision{}, err
		}
	}
	view.MayRefine = chooses
	if err := t.decide(ctx, d, m, doctor, view, events); err != nil {
		return TurnDecision{}, err
	}
	if !chooses || !t.Output.Refine {
		return t, nil
	}
	if err := t.refine(ctx, d, m, view.OpeningComplaint, events); err != nil {
		return TurnDecision{}, err
	}
	view.MayRefine = false // one refine a turn: the doctor now acts
	if err := t.decide(ctx, d, m, doctor, view, events); err != nil {
		return TurnDecision{}, err
	}
	t.Output.Rationale = append(t.Output.Rationale, fmt.Sprintf("refine: memory refined before this action (%d pruned)", len(t.Pruned)))
	return t, nil
}

// refine runs the refine step and times it.
func (t *TurnDecision) refine(ctx context.Context, d Deps, m Meta, opening string, events []clinic.Event) error {
	start := time.Now()
	pruned, err := RefineTurn(ctx, d, m, opening, events)
	if err != nil {
		return err
	}
	t.Pruned, t.Refined = pruned, true
	t.RefineMS += float64(time.Since(start).Microseconds()) / 1000
	return nil
}

// decide retrieves the cards not pruned in this episode and asks the doctor.
func (t *TurnDecision) decide(ctx context.Context, d Deps, m Meta, doctor actor.Doctor, view clinic.DoctorView, events []clinic.Event) error {
	m.Exclude = append(Pruned(events), t.Pruned...)
	cards, err := Retrieve(ctx, d.Memory, view, d.Settings.Recall(), m)
	if err != nil {
		return err
	}
	view.Cards = cards
	dec, err := doctor.Decide(ctx, view)
	if err != nil {
		return fmt.Errorf("doctor: %w", err)
	}
	t.Decision, t.Cards = dec, cards
	return nil
}

// Pruned are the cards the refine steps of events pruned, in order.
func Pruned(events []clinic.Event) []string {
	var out []string
	for _, ev := range events {
		out = append(out, ev.PrunedCards...)
	}
	return out
}

// WithDoctorTemperature are settings whose doctor role samples at t (the
// temperature EvoTest chose for the episode); nil leaves them as they are.
// The roles map is copied: s's is not changed.
func WithDoctorTemperature(s settings.Settings, t *float64) settings.Settings {
	if t == nil {
		return s
	}
	roles := make(settings.Roles, len(s.Roles))
	for k, v := range s.Roles {
		roles[k] = v
	}
	r := roles["doctor"]
	r.Temperature = float32(*t)
	roles["doctor"] = r
	s.Roles = roles
	return s
}

// Start begins (or rebuilds from events) an episode in the run's benchmark.
func (d Deps) Start(c clinic.Case, events []clinic.Event) (episode.Env, error) {
	if d.Bench == nil {
		return nil, errors.New("runner: no benchmark: Deps.Bench is the run's (bench.Set.Of)")
	}
	return d.Bench.Start(c, d.Settings, d.Roles.Env, events)
}

// Meta places an episode in a run.
type Meta struct {
	RunID     string
	EpisodeID string
	Number    int // episode number within the run, 1-based
	Pass      int
	Stage     int
	Rules     []string
	// AsOf fixes the memory the episode reads (frozen evaluations); 0 reads the
	// memory as it was after the previous episode.
	AsOf int
	// MemoryRuns is the memory lineage retrieval reads: this run and the runs it
	// carries memory from. Empty reads every run.
	MemoryRuns []string
	// Frozen episodes do not count retrievals.
	Frozen bool
	// Exclude are cards the episode's refine steps pruned (ReMem): no
	// longer retrieved for the rest of the episode.
	Exclude []string
	// EvoTest is EvoTest's search as of the episode before (nil: none
	// yet), EvoTestDefer that learning from the episode only scores the
	// configuration it played (evolver.EvoTest.Defer).
	EvoTest      *evolver.EvoTestTree
	EvoTestDefer bool
	// Attempts are the case's other attempts under MaTTS, as the evolver
	// reads them (evolver.Input.Attempts); learning from the first
	// contrasts them.
	Attempts []evolver.Input
}

// Retrieve returns the cards shown to the doctor for a view: at most K
// (MedEvoEval §3.4: the top-K relevant cards), from two queries merged: the
// presentation alone and the whole conversation. Each card appears once with
// its better similarity, best first, ties by ID. The presentation query keeps
// the cards of a similar complaint in view once the conversation has moved on;
// the conversation query finds cards that the revealed findings point to.
//
// With retrieval "recent" the K newest live cards are shown instead, whatever
// their similarity (EvoClinician §4's memory agent, which carries the latest
// transcripts and drops the oldest).
//
// With retrieval "memrl" or "memento" (the methods that learn a utility:
// settings.Settings.Recall) k1 cards are recalled by similarity and the K
// shown are chosen by utility (ranked); the doctor still sees each card's
// similarity.
func Retrieve(ctx context.Context, store memory.Store, view clinic.DoctorView, s settings.Memory, m Meta) ([]clinic.CardHint, error) {
	k := s.K
	if store == nil || k <= 0 {
		return nil, nil
	}
	asOf := m.AsOf
	if asOf == 0 {
		asOf = m.Number - 1
	}
	if asOf <= 0 {
		return nil, nil // nothing can have been written before the first episode
	}
	f := memory.Filter{Runs: m.MemoryRuns, AsOf: asOf}
	ctx, span := tracer.Start(ctx, "memory.search", trace.WithAttributes(attribute.Int("memory.k", s.K), attribute.Int("memory.as_of", asOf)))
	defer span.End()
	start := time.Now()
	defer func() { retrievalMS.Record(ctx, float64(time.Since(start).Microseconds())/1000) }()
	hits, err := candidates(ctx, store, view, s, f, m.Exclude)
	if err != nil {
		return nil, fmt.Errorf("retrieve: %w", err)
	}
	hits = withinTokens(ranked(hits, view, s), s.ContextTokens)
	span.SetAttributes(attribute.Int("memory.hits", len(hits)))
	out := make([]clinic.CardHint, len(hits))
	ids := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Card.CardHint
		out[i].Similarity = h.Score
		ids[i] = h.Card.ID
	}
	if !m.Frozen {
		if err := store.MarkRetrieved(ctx, ids, m.Number); err != nil {
			return nil, fmt.Errorf("retrieve: %w", err)
		}
	}
	return out, nil
}

// candidates are the cards a retrieval chooses among, in no order: the K
// newest (recent), or the most similar to either query, K of them, or k1
// (memory.utility.recall, at least K) for the retrievals that rank by
// utility next (MemRL's phase A). Pruned cards (exclude) are left out.
func candidates(ctx context.Context, store memory.Store, view clinic.DoctorView, s settings.Memory, f memory.Filter, exclude []string) ([]memory.Hit, error) {
	if s.Retrieval == "recent" {
		return recent(ctx, store, f, s.K, exclude)
	}
	k := s.K
	if s.Retrieval == settings.MethodMemRL || s.Retrieval == settings.MethodMemento {
		k = max(k, s.Utilities().Recall)
	}
	k += len(exclude) // pruned cards are dropped below: k others remain
	best := map[string]memory.Hit{}
	for _, q := range []string{view.OpeningComplaint, QueryText(view)} {
		hits, err := store.Search(ctx, memory.Query{Text: q, K: k, Filter: f})
		if err != nil {
			return nil, err
		}
		for _, h := range hits {
			if slices.Contains(exclude, h.Card.ID) {
				continue
			}
			if b, ok := best[h.Card.ID]; !ok || h.Score > b.Score {
				best[h.Card.ID] = h
			}
		}
		if len(view.Exchanges) == 0 {
			break // both queries are the same before the first answer
		}
	}
	out := make([]memory.Hit, 0, len(best))
	for _, h := range best {
		out = append(out, h)
	}
	return out, nil
}

// recent are the k newest live cards, whatever their similarity.
func recent(ctx context.Context, store memory.Store, f memory.Filter, k int, exclude []string) ([]memory.Hit, error) {
	live, err := store.List(ctx, f)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(live, func(i, j int) bool {
		if live[i].CreatedEpisode != live[j].CreatedEpisode {
			return live[i].CreatedEpisode > live[j].CreatedEpisode
		}
		return live[i].ID < live[j].ID
	})
	live = slices.DeleteFunc(live, func(c clinic.Card) bool { return slices.Contains(exclude, c.ID) })
	out := make([]memory.Hit, 0, min(k, len(live)))
	for i, c := range live[:min(k, len(live))] {
		// No similarity ranks them: the newest first, at 1 down to just above 0.5.
		out = append(out, memory.Hit{Card: c, Score: 1 - 0.5*float64(i)/float64(k)})
	}
	return out, nil
}

// ranked are the K cards shown, best first: by similarity (ties by ID), or,
// for the methods that learn a utility, by MemRL's blend of similarity and
// utility (memory.RankMemRL) or Memento's kernel estimate of Q for the
// presentation (memory.RankMemento). Each keeps its similarity as Score,
// which the doctor sees (CardHint.Similarity): utility changes which cards
// are shown and their order, never what a card's similarity says.
func ranked(hits []memory.Hit, view clinic.DoctorView, s settings.Memory) []memory.Hit {
	u := s.Utilities()
	switch s.Retrieval {
	case settings.MethodMemRL:
		return memory.RankMemRL(hits, s.K, u.Lambda, u.Initial)
	case settings.MethodMemento:
		return memory.RankMemento(hits, s.K, view.OpeningComplaint, u.Tau, u.Initial)
	}
	return memory.TopK(hits, s.K)
}

// withinTokens keeps the hits, in order, while their texts fit in budget
// tokens (settings.Memory.ContextTokens; 0 keeps them all), counted by the
// estimate the model client's rate limiter makes of every role's requests
// (tokens.Of), so the budget means the same for a model doctor and the
// built-in one.
func withinTokens(hits []memory.Hit, budget int) []memory.Hit {
	if budget <= 0 {
		return hits
	}
	used := 0
	for i, h := range hits {
		if used += tokens.Of(h.Card.Text); used > budget {
			return hits[:i]
		}
	}
	return hits
}

// QueryText is the memory query for a view: the presentation, weighted twice,
// and the answers in which the patient told something.
func QueryText(v clinic.DoctorView) string {
	parts := []string{v.OpeningComplaint, v.OpeningComplaint}
	for _, ex := range v.Exchanges {
		if ex.Answered {
			parts = append(parts, ex.Answer)
		}
	}
	return strings.Join(parts, " ")
}

// Play runs one episode to its end and scores it.
func Play(ctx context.Context, c clinic.Case, d Deps, m Meta) (clinic.Trace, error) {
	ep, err := d.Start(c, nil)
	if err != nil {
		return clinic.Trace{}, err
	}
	doctor, err := d.Doctor()
	if err != nil {
		return clinic.Trace{}, err
	}
	for !ep.Done() {
		t, err := DecideTurn(ctx, d, m, doctor, ep.View(nil, m.Rules), ep.Events())
		if err != nil {
			return clinic.Trace{}, err
		}
		if _, err := ep.Step(ctx, episode.StepInput{Output: t.Output, RetrievedCards: cardIDs(t.Cards), PrunedCards: t.Pruned, LLMError: t.LLMError}); err != nil {
			return clinic.Trace{}, err
		}
	}
	return Finish(ctx, c, d, m, ep.Events())
}

// PlayStream plays cases in order as run's stage 1, each with the rule book
// as the episodes before it left it, and learns from each: the in-process
// stream of a test or a reference without stage evaluations. It returns
// every trace and the final rule book.
func PlayStream(ctx context.Context, d Deps, cases []clinic.Case, run string) ([]clinic.Trace, []clinic.Rule, error) {
	var rules []clinic.Rule
	var out []clinic.Trace
	for i, c := range cases {
		m := Meta{RunID: run, EpisodeID: fmt.Sprintf("%s/e%d-%s", run, i+1, c.ID), Number: i + 1, Pass: 1, Stage: c.Meta.Stage,
			Rules: RuleTexts(rules), MemoryRuns: []string{run}}
		tr, err := Play(ctx, c, d, m)
		if err != nil {
			return out, rules, fmt.Errorf("%s: %w", m.EpisodeID, err)
		}
		l, err := Learn(ctx, d, c, tr, m, rules)
		if err != nil {
			return out, rules, fmt.Errorf("%s: learn: %w", m.EpisodeID, err)
		}
		rules = l.Rules
		out = append(out, tr)
	}
	return out, rules, nil
}

// Finish scores a finished episode's events into a trace.
func Finish(ctx context.Context, c clinic.Case, d Deps, m Meta, events []clinic.Event) (clinic.Trace, error) {
	ep, err := d.Start(c, events)
	if err != nil {
		return clinic.Trace{}, err
	}
	final, end := ep.Final()
	s, err := d.Bench.Score(ctx, bench.ScoreInput{Case: &c, Settings: d.Settings, Env: ep, Judge: d.Roles.Judge})
	if err != nil {
		return clinic.Trace{}, err
	}
	t := clinic.Trace{SchemaVersion: clinic.TraceSchemaVersion, EpisodeID: m.EpisodeID, RunID: m.RunID, CaseID: c.ID,
		Condition: c.Condition, Events: events, Termination: end, Final: final, Scores: &s, LLMErrorTurns: []int{}}
	switch {
	case m.Frozen:
		t.MemoryWrite = clinic.MemoryFrozen
	case d.Memory == nil:
		t.MemoryWrite = clinic.MemoryDisabled
	}
	for _, ev := range events {
		if ev.LLMError {
			t.LLMErrorTurns = append(t.LLMErrorTurns, ev.Turn)
		}
	}
	return t, nil
}

func cardIDs(cards []clinic.CardHint) []string {
	var ids []string
	for _, c := range cards {
		ids = append(ids, c.ID)
	}
	return ids
}

// Lesson is what learning from one episode produced.
type Lesson struct {
	Grade   grader.ProcessGrade
	Rules   []clinic.Rule
	Written []string
	Evicted []string
	Edits   []string
	Skipped []string
	// Credited counts the utility updates written (memrl, memento).
	Credited int
	// EvoTest and Temperature are the method's search tree after the
	// episode and the next episode's doctor temperature (EvoTest only).
	EvoTest     *evolver.EvoTestTree
	Temperature *float64
}

// ProcessInput is what the process grader reads of a scored episode.
func ProcessInput(t clinic.Trace, s settings.Settings) grader.ProcessInput {
	return grader.ProcessInput{Events: t.Events, Final: t.Final, Outcome: grader.OutcomeOf(*t.Scores), Prices: s.Episode.Prices, YieldOnly: s.Evolver.YieldOnly}
}

// WriteBack is the manager's key for the learner under the run's feedback
// mode: the key with write-back (MedEvoEval §3.4), nil under score-only
// feedback (EvoClinician §4.1). b is the run's benchmark (its own key, where
// it makes one).
func WriteBack(b bench.Benchmark, c *clinic.Case, t clinic.Trace, s settings.Settings) *grader.Key {
	if s.Evolver.Mode != settings.WriteBack {
		return nil
	}
	return grader.KeyOfBench(b, c, *t.Scores)
}

// Learn grades an episode's process, then learns from it (LearnGraded).
func Learn(ctx context.Context, d Deps, c clinic.Case, t clinic.Trace, m Meta, rules []clinic.Rule) (Lesson, error) {
	g, err := d.Grader()
	if err != nil {
		return Lesson{}, err
	}
	pg, err := g.GradeProcess(ctx, ProcessInput(t, d.Settings), WriteBack(d.Bench, &c, t, d.Settings))
	if err != nil {
		return Lesson{}, fmt.Errorf("process grader: %w", err)
	}
	return LearnGraded(ctx, d, c, t, pg, m, rules)
}

// LearnGraded evolves the rule book and writes and evicts cards from a graded
// episode: Propose, then Apply.
func LearnGraded(ctx context.Context, d Deps, c clinic.Case, t clinic.Trace, pg grader.ProcessGrade, m Meta, rules []clinic.Rule) (Lesson, error) {
	out, err := Propose(ctx, d, c, t, pg, m, rules)
	if err != nil {
		return Lesson{}, err
	}
	return Apply(ctx, d, out, m, pg)
}

// EvolverInput is what the evolver reads of a graded episode in every
// feedback mode: the trace, the outcome (score and cost), the labels, and the
// leak screen's input.
func EvolverInput(c clinic.Case, t clinic.Trace, pg grader.ProcessGrade, m Meta, d Deps) (evolver.Input, error) {
	env, err := d.Start(c, t.Events)
	if err != nil {
		return evolver.Input{}, err
	}
	// The presentation is the doctor's view of it, which a benchmark may
	// build beyond the case's opening (a whole vignette shown at once).
	door := env.View(nil, nil)
	return evolver.Input{Run: m.RunID, Pass: m.Pass, Stage: m.Stage, Episode: m.Number, CaseID: c.ID,
		Demographics: door.Demographics, Opening: door.OpeningComplaint, Events: t.Events, Final: t.Final,
		Outcome: grader.OutcomeOf(*t.Scores), Grade: pg, WriteCards: d.Memory != nil, Forbidden: Forbidden(c, t.Events, env.Revealed())}, nil
}

// Propose asks the evolver for the new rule book and the cards to write.
func Propose(ctx context.Context, d Deps, c clinic.Case, t clinic.Trace, pg grader.ProcessGrade, m Meta, rules []clinic.Rule) (evolver.Output, error) {
	in, err := EvolverInput(c, t, pg, m, d)
	if err != nil {
		return evolver.Output{}, err
	}
	in.Attempts = m.Attempts
	evo, err := d.Method(m)
	if err != nil {
		return evolver.Output{}, err
	}
	out, err := evo.Evolve(ctx, d.Settings.Evolver, in, WriteBack(d.Bench, &c, t, d.Settings), rules)
	if err != nil {
		return evolver.Output{}, fmt.Errorf("evolver: %w", err)
	}
	// Whichever method wrote the book, it holds no rule twice.
	var merged []string
	out.Rules, merged = evolver.Distinct(out.Rules, d.Settings.Evolver.SameAt)
	out.Edits = append(out.Edits, merged...)
	return out, nil
}

// Apply writes an evolver output's cards and evicts down to B_M. Card IDs are
// deterministic and evictions keep their first episode, so Apply may be repeated.
func Apply(ctx context.Context, d Deps, out evolver.Output, m Meta, pg grader.ProcessGrade) (Lesson, error) {
	l := Lesson{Grade: pg, Rules: out.Rules, Edits: out.Edits, Skipped: out.Skipped, EvoTest: out.EvoTest, Temperature: out.Temperature}
	if d.Memory == nil || (len(out.Cards) == 0 && len(out.Evict) == 0 && len(out.Credits) == 0) {
		return l, nil
	}
	live, err := d.Memory.List(ctx, memory.Filter{Runs: m.MemoryRuns, AsOf: m.Number - 1})
	if err != nil {
		return Lesson{}, fmt.Errorf("learn: %w", err)
	}
	// Cards this episode already wrote (a retry) are not counted twice.
	written := map[string]bool{}
	for _, c := range out.Cards {
		written[c.ID] = true
		l.Written = append(l.Written, c.ID)
	}
	// The method's own deletions go first; the budget evicts among the rest.
	gone := map[string]bool{}
	for _, id := range out.Evict {
		gone[id] = true
	}
	var older []clinic.Card
	for _, c := range live {
		if !written[c.ID] && !gone[c.ID] {
			older = append(older, c)
		}
	}
	l.Evicted = append(append([]string(nil), out.Evict...), budgetEvictions(d.Settings, older, out, m.Number)...)
	if err := d.Memory.Upsert(ctx, out.Cards); err != nil {
		return Lesson{}, fmt.Errorf("learn: %w", err)
	}
	// Credits follow the cards so that a card written and credited by the
	// same proposal exists; first write per card and episode wins, so a
	// retry writes nothing twice.
	if err := d.Memory.Credit(ctx, out.Credits); err != nil {
		return Lesson{}, fmt.Errorf("learn: %w", err)
	}
	l.Credited = len(out.Credits)
	if err := d.Memory.Evict(ctx, l.Evicted, m.Number); err != nil {
		return Lesson{}, fmt.Errorf("learn: %w", err)
	}
	evictions.Add(ctx, int64(len(l.Evicted)))
	return l, nil
}

// budgetEvictions are the cards B_M evicts at an episode among older ones to
// make room for an output's new cards: by keep score (evolver.Evictions), or, for a method
// that learns a utility, the least useful first with the episode's own
// credits counted (evolver.LeastUseful); none for a method that keeps every
// card (settings.Evolver.Bounded).
func budgetEvictions(s settings.Settings, older []clinic.Card, out evolver.Output, episode int) []string {
	cfg := s.Evolver
	switch {
	case !cfg.Bounded():
		return nil
	case cfg.LearnsUtility():
		now := map[string]float64{}
		for _, c := range out.Credits {
			now[c.Card] = c.Q
		}
		initial := s.Memory.Utilities().Initial
		return evolver.LeastUseful(older, len(out.Cards), cfg.MemoryBudget, func(c clinic.Card) float64 {
			if q, ok := now[c.ID]; ok {
				return q
			}
			return memory.Q(c, initial)
		})
	}
	return evolver.Evictions(older, len(out.Cards), cfg.MemoryBudget, episode, cfg)
}

// Forbidden is the leak screen's input for one episode (evolver.Screen): the
// case's identifiers, every fact, finding and test result the episode did not
// reveal, and what the doctor saw or said in it (demographics, opening
// complaint, answers, returned results; its questions, working diagnoses and
// final output, which it could only build from what it saw), whose words and
// values rules and cards may use.
func Forbidden(c clinic.Case, events []clinic.Event, shown string) evolver.Forbidden {
	f := evolver.Forbidden{IDs: []string{c.ID, c.Provenance.SourceCaseID}}
	f.Revealed = []string{shown}
	for _, ev := range events {
		f.Revealed = append(f.Revealed, ev.Question)
		f.Revealed = append(f.Revealed, ev.WorkingDiagnoses...)
		for _, fo := range []*clinic.FinalOutput{ev.Final, ev.ForcedFinal} {
			if fo != nil {
				f.Revealed = append(append(append(append(f.Revealed, fo.Diagnosis...), fo.Evidence...), fo.Plan...), fo.Followup...)
			}
		}
	}
	told := map[string]bool{}
	for _, ev := range events {
		for _, id := range ev.RevealedFacts {
			told[id] = true
		}
	}
	hidden := func(v string) {
		if strings.TrimSpace(v) != "" && !strings.Contains(shown, v) {
			f.Hidden = append(f.Hidden, v)
		}
	}
	for _, fact := range c.Patient.Facts {
		if !told[fact.ID] {
			hidden(fact.Text)
		}
	}
	for _, fd := range c.Exam.Findings {
		hidden(fd.Text)
	}
	for _, tv := range c.Exam.Tests {
		hidden(tv.Result)
	}
	return f
}

// RuleTexts returns the texts of a rule book.
func RuleTexts(rules []clinic.Rule) []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = r.Text
	}
	return out
}

// Format renders a trace of benchmark bm (nil: none known) for a terminal,
// with the benchmark's readings of its own actions and endings
// (bench.Describe).
func Format(t clinic.Trace, bm bench.Benchmark) string {
	var b strings.Builder
	fmt.Fprintf(&b, "episode %s  case %s  (%s)\n", t.EpisodeID, t.CaseID, t.Condition)
	for _, ev := range t.Events {
		d := bench.Describe(bm, ev)
		fmt.Fprintf(&b, "[%2d] %-12s %-13s %s\n", ev.Turn, ev.Action, ev.Status, d.Target)
		if ev.Reply != "" && ev.Action != clinic.Finalize {
			for _, line := range strings.Split(ev.Reply, "\n") {
				fmt.Fprintf(&b, "     > %s\n", line)
			}
		}
		if len(ev.RetrievedCards) > 0 {
			fmt.Fprintf(&b, "     cards: %d retrieved: %s\n", len(ev.RetrievedCards), strings.Join(ev.RetrievedCards, ", "))
		}
		if d.Note != "" {
			fmt.Fprintf(&b, "     %s\n", d.Note)
		}
	}
	fmt.Fprintf(&b, "end: %s\n", t.Termination)
	if d := bench.Disposition(bm, t.Final); d != "" {
		fmt.Fprintf(&b, "disposition: %s\n", d)
	}
	fmt.Fprintf(&b, "diagnosis: %s\nevidence:  %s\nplan:      %s\nfollow-up: %s\n",
		strings.Join(t.Final.Diagnosis, "; "), strings.Join(t.Final.Evidence, " | "), strings.Join(t.Final.Plan, "; "), strings.Join(t.Final.Followup, "; "))
	if s := t.Scores; s != nil {
		fmt.Fprintf(&b, "scores: S=%.3f diag=%.2f evi=%s plan=%s strict=%v pass=%v grade=%d\n", s.S, s.Diagnosis, part(s.Evidence), part(s.Plan), s.Strict, s.Pass, s.Grade)
		fmt.Fprintf(&b, "process: T=%d E=%d R=%.2f U=%s cost=%.2f USD referral=%s must-ask=%.2f required=%.2f (catalog %s)\n",
			s.T, s.E, s.R, utility(bm, s.U), s.Cost, s.Referral, s.MustAsk, s.Required, catalog.Version)
		if len(s.Metrics) > 0 {
			fmt.Fprintf(&b, "metrics: %s\n", metrics(s.Metrics))
		}
	}
	return b.String()
}

// metrics spells a profile's named metrics in name order: "a=1 d=0 h=0.75".
func metrics(m map[string]float64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%.4g", k, m[k])
	}
	return strings.Join(parts, " ")
}

// utility spells U, or "–" where the benchmark declares no U (MedEvoEval's
// utility, §4 and appendix C.2; bench.ShowsU): the record holds 0 there,
// which is not a score.
func utility(bm bench.Benchmark, u float64) string {
	if !bench.ShowsU(bm) {
		return "–"
	}
	return fmt.Sprintf("%.3f", u)
}

func part(p *float64) string {
	if p == nil {
		return "not scored"
	}
	return fmt.Sprintf("%.2f", *p)
}

// WriteTraces writes traces as JSONL, one episode a line, atomically.
func WriteTraces(path string, traces []clinic.Trace) error {
	return corpus.WriteAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		for i := range traces {
			if err := enc.Encode(&traces[i]); err != nil {
				return err
			}
		}
		return nil
	})
}
