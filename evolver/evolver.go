// Package evolver turns a graded episode into edits of the doctor's rule book
// (add, merge, retire within the rule budget B_P) and memory cards (write, and
// evict down to the memory budget B_M by keep score). It is deterministic.
package evolver

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/google/uuid"

	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/textmatch"
)

// Input is one graded episode as the evolver sees it.
type Input struct {
	Run     string
	Pass    int
	Stage   int
	Episode int    // episode number within the run (1-based)
	CaseID  string // provenance only: never written into a rule or card text
	// Presentation is what the doctor saw at the door.
	Demographics clinic.Demographics
	Opening      string
	Events       []clinic.Event
	Final        clinic.FinalOutput
	// Outcome is the score and cost, all a score-only learner sees.
	Outcome grader.Outcome
	Grade   grader.ProcessGrade
	// WriteCards is false when the run has no memory: rules only.
	WriteCards bool
	// Forbidden is what no rule or card may carry (see Screen).
	Forbidden Forbidden
	// Attempts are the case's other attempts under MaTTS
	// (settings.MaTTS), in attempt order: ReasoningBank contrasts them with
	// this one. Empty without MaTTS.
	Attempts []Input
}

// Output is the evolver's decision for one episode.
type Output struct {
	Rules []clinic.Rule // the new rule book
	Cards []clinic.Card // cards to upsert
	// Evict are cards the method deletes from memory at this episode (Mem0's
	// DELETE and UPDATE, ReMem's pruning), beside the budget's evictions.
	Evict   []string `json:",omitempty"`
	Edits   []string // human-readable log of rule edits
	Skipped []string // edits and cards rejected by the leak screen
	// EvoTest is EvoTest's search tree after the episode, and Temperature
	// the doctor's sampling temperature for the next episode (EvoTest's
	// hyperparameter); nil for the other methods.
	EvoTest     *EvoTestTree `json:",omitempty"`
	Temperature *float64     `json:",omitempty"`
	// Credits are the utility updates of the cards the episode retrieved
	// (the methods that learn a utility: MemRL, Memento), written with the
	// cards (memory.Store.Credit); nil for the other methods.
	Credits []memory.Credit `json:",omitempty"`
}

var uuidSpace = uuid.MustParse("6f1c5bb4-6c36-4f0e-9d4a-0c3f2a3b7e11")

// CardID is the deterministic ID of a card: UUIDv5 of run, case, pass, turn and kind.
func CardID(run, caseID string, pass, turn int, kind string) string {
	return uuid.NewSHA1(uuidSpace, []byte(fmt.Sprintf("%s|%s|%d|%d|%s", run, caseID, pass, turn, kind))).String()
}

// Evolver turns one graded episode into a new rule book and cards. Input has
// no field that could hold the answer key; truth is the manager's write-back,
// nil under score-only feedback.
type Evolver interface {
	Evolve(ctx context.Context, cfg settings.Evolver, in Input, truth *grader.Key, rules []clinic.Rule) (Output, error)
}

// Builtin is the deterministic evolver, with the run's benchmark's lessons.
type Builtin struct{ Lessons Lessons }

var _ Evolver = Builtin{}

// Evolve applies the built-in rules (see Evolve).
func (b Builtin) Evolve(_ context.Context, cfg settings.Evolver, in Input, truth *grader.Key, rules []clinic.Rule) (Output, error) {
	return Evolve(cfg, in, truth, rules, b.Lessons), nil
}

// Evolve computes rule edits and cards for one graded episode; lessons (nil
// for none) are the benchmark's own.
func Evolve(cfg settings.Evolver, in Input, truth *grader.Key, rules []clinic.Rule, lessons Lessons) Output {
	var out Output
	ctxWords := ContextWords(in.Opening)
	out.Rules = append([]clinic.Rule(nil), rules...)
	screen := NewScreen(cfg, in.Forbidden, truth)
	if cfg.Rules() {
		out.Rules = Cite(out.Rules, in, cfg.CiteWindow)
		var edits []Edit
		for _, d := range proposals(cfg, in, ctxWords) {
			edits = append(edits, Edit{Op: OpAdd, Text: ruleText(d)})
		}
		edits = append(edits, TraceEdits(cfg, in, truth, lessons)...)
		out.Rules, out.Edits, out.Skipped = ApplyEdits(out.Rules, edits, in.Episode, cfg, screen)
	}
	if in.WriteCards {
		var skipped []string
		out.Cards, skipped = FinishCards(cfg, in, truth, cards(cfg, in, truth, ctxWords), screen, lessons)
		out.Skipped = append(out.Skipped, skipped...)
	}
	return out
}

// TraceEdits are the rule edits that follow from the trace and the key alone,
// whichever evolver proposes the rest: the benchmark's lessons' (nil for
// none), unless the feedback is transcript-level.
func TraceEdits(cfg settings.Evolver, in Input, truth *grader.Key, lessons Lessons) []Edit {
	if cfg.TranscriptOnly || lessons == nil {
		return nil
	}
	return lessons.Edits(cfg, in, truth)
}

// FinishCards completes an evolver's cards from the trace and the key, the
// same for the built-in and the model evolver: the benchmark's lessons
// (Lessons); then it keeps the kinds the run writes and screens them for
// leaks.
func FinishCards(cfg settings.Evolver, in Input, truth *grader.Key, cs []clinic.Card, screen *Screen, lessons Lessons) ([]clinic.Card, []string) {
	if lessons != nil {
		cs = lessons.Cards(in, truth, cs)
	}
	return ScreenCards(KeepKinds(cs, cfg.CardKinds), screen)
}

// Edit operations on the rule book.
const (
	OpAdd    = "add"
	OpMerge  = "merge"
	OpRetire = "retire"
)

// Edit is one proposed change to the rule book. Add merges into an existing rule
// with the same directive; merge replaces the text of rule ID; retire removes it.
type Edit struct {
	Op   string `json:"op"`
	ID   string `json:"id,omitempty"`
	Text string `json:"text,omitempty"`
}

// ApplyEdits applies edits in order within budget B_P (cfg.RuleBudget),
// rejecting any whose text the screen finds leaking (a nil screen rejects
// nothing); over budget, the rule least cited in the last cfg.CiteWindow
// episodes retires. It returns the new book, a log and the rejections.
func ApplyEdits(rules []clinic.Rule, edits []Edit, episodeN int, cfg settings.Evolver, screen *Screen) (out []clinic.Rule, log, skipped []string) {
	budget, window := cfg.RuleBudget, cfg.CiteWindow
	out = append([]clinic.Rule(nil), rules...)
	for _, e := range edits {
		if why := screen.Leaks(e.Text); why != "" {
			skipped = append(skipped, fmt.Sprintf("%s rejected: %s", e.Op, why))
			continue
		}
		if len(e.Text) > MaxRuleText {
			skipped = append(skipped, fmt.Sprintf("%s rejected: %d bytes of rule; a rule takes at most %d", e.Op, len(e.Text), MaxRuleText))
			continue
		}
		switch e.Op {
		case OpAdd:
			if d, ok := clinic.ParseRule(e.Text); ok {
				var entry string
				out, entry = applyRule(out, d, e.Text, episodeN, budget, window)
				log = append(log, entry)
				continue
			}
			if strings.TrimSpace(e.Text) == "" {
				continue
			}
			// A rule the book already holds is cited again, never added twice
			// (a model evolver proposing one rule after every
			// episode filled the book with copies of it).
			if i := duplicateOf(out, e.Text, cfg.SameAt); i >= 0 {
				out[i] = cite(out[i], episodeN, window)
				log = append(log, "merge "+out[i].ID)
				continue
			}
			if budget == 0 {
				continue
			}
			id := fmt.Sprintf("r%d-%d", episodeN, len(out)+1)
			out = append(out, clinic.Rule{ID: id, Text: e.Text, Citations: 1, Created: episodeN, CitedAt: []int{episodeN}})
			log = append(log, "add "+id)
			if len(out) > budget {
				var retired string
				out, retired = retireLeastCited(out, episodeN, window)
				log = append(log, "retire "+retired)
			}
		case OpMerge:
			for i := range out {
				if out[i].ID == e.ID && strings.TrimSpace(e.Text) != "" {
					out[i].Text = e.Text
					out[i] = cite(out[i], episodeN, window)
					log = append(log, "merge "+e.ID)
				}
			}
		case OpRetire:
			for i := range out {
				if out[i].ID == e.ID {
					out = append(out[:i], out[i+1:]...)
					log = append(log, "retire "+e.ID)
					break
				}
			}
		}
	}
	return out, log, skipped
}

// Distinct merges every rule that says the same as an earlier one in the
// book (the same text, the same directive about an overlapping context, or
// texts at least `at` similar: sameBullet, evolver.same_at) into the earlier
// one, adding its citations and ACE counters, so a book never holds a rule
// twice whichever method wrote it. It returns the book and a log entry per
// merge ("merge <dropped> into <kept>").
func Distinct(rules []clinic.Rule, at float64) ([]clinic.Rule, []string) {
	out := append([]clinic.Rule(nil), rules...)
	var log []string
	for i := 0; i < len(out); i++ {
		for j := i + 1; j < len(out); {
			if !sameBullet(out[i].Text, out[j].Text, at) {
				j++
				continue
			}
			out[i] = absorb(out[i], out[j])
			log = append(log, fmt.Sprintf("merge %s into %s", out[j].ID, out[i].ID))
			out = append(out[:j], out[j+1:]...)
		}
	}
	return out, log
}

// absorb is rule r with the citations and counters of its duplicate d.
func absorb(r, d clinic.Rule) clinic.Rule {
	r.Citations += d.Citations
	r.Helpful += d.Helpful
	r.Harmful += d.Harmful
	cited := append(append([]int(nil), r.CitedAt...), d.CitedAt...)
	slices.Sort(cited)
	r.CitedAt = slices.Compact(cited)
	return r
}

// KeepKinds drops the cards of kinds the run does not write (evolver.card_kinds).
func KeepKinds(cards []clinic.Card, kinds []string) []clinic.Card {
	var out []clinic.Card
	for _, c := range cards {
		if slices.Contains(kinds, string(c.Kind)) {
			out = append(out, c)
		}
	}
	return out
}

var digits = regexp.MustCompile(`\d`)

// ContextWords compresses a presentation to at most six content words,
// without numbers or demographics, so rules stay general: what a learned
// rule's WHEN names.
func ContextWords(opening string) []string { return historyWords(opening, nil, 6) }

// TopicsOf are the history topics a question was about: the topic the doctor
// meant to cover, or those its words cue (episode.QuestionTopics).
func TopicsOf(ev clinic.Event) []string {
	if ev.Topic != "" {
		return []string{ev.Topic}
	}
	return episode.QuestionTopics(ev.Question)
}

// cards are the cards an episode writes, built from its graded trace: its
// outcome card, rule cards, memory entries (unless transcript only) and the
// transcript summary; truth is the manager's write-back, nil without it.
func cards(cfg settings.Evolver, in Input, truth *grader.Key, ctxWords []string) []clinic.Card {
	labels := map[int]grader.Label{}
	for _, a := range in.Grade.Actions {
		labels[a.Turn] = a.Label
	}
	ask, tests := goodActions(cfg, in, labels)
	base := cardBase(in, labels)
	predicted := ""
	if len(in.Final.Diagnosis) > 0 {
		predicted = in.Final.Diagnosis[0]
	}
	out := outcomeCard(in, truth, base, predicted, ask, tests)
	out = append(out, ruleCards(cfg, in, base, ctxWords)...)
	if !cfg.TranscriptOnly {
		out = append(out, entries(cfg, in, predicted, base)...)
	}
	return append(out, summary(in, predicted, ask, tests, base))
}

// goodActions are the topics asked and the billable tests ordered in the
// turns worth repeating: high-yield ones, or (transcript only, without
// per-action labels) every answered turn of a passing episode.
func goodActions(cfg settings.Evolver, in Input, labels map[int]grader.Label) (ask, tests []string) {
	for _, ev := range in.Events {
		good := labels[ev.Turn] == grader.HighYield
		if cfg.TranscriptOnly {
			good = in.Outcome.Pass && ev.Status == clinic.StatusReturned // no per-action labels
		}
		if !good {
			continue
		}
		switch ev.Action {
		case clinic.Ask:
			for _, t := range TopicsOf(ev) {
				if !slices.Contains(ask, t) {
					ask = append(ask, t)
				}
			}
		case clinic.RequestTest:
			if !ev.Free && !slices.Contains(tests, ev.Test) {
				tests = append(tests, ev.Test)
			}
		}
	}
	return ask, tests
}

// cardBase makes the cards of an episode: its run, case and episode, the
// card's ID, kind and bank, the opening as context, and the opening with
// the replies of the high-yield questions that revealed facts as what
// retrieval matches.
func cardBase(in Input, labels map[int]grader.Label) func(kind clinic.CardKind, turn int) clinic.Card {
	var revealed []string
	for _, ev := range in.Events {
		if ev.Action == clinic.Ask && ev.Status == clinic.StatusReturned && len(ev.RevealedFacts) > 0 && labels[ev.Turn] == grader.HighYield {
			revealed = append(revealed, ev.Reply)
		}
	}
	search := strings.Join(append([]string{in.Opening}, revealed...), " ")
	return func(kind clinic.CardKind, turn int) clinic.Card {
		c := clinic.Card{Run: in.Run, Pass: in.Pass, Stage: in.Stage, SourceCase: in.CaseID, CreatedEpisode: in.Episode,
			Bank: memory.BankOf(kind), SearchText: search}
		c.ID = CardID(in.Run, in.CaseID, in.Pass, turn, string(kind))
		c.Kind = kind
		c.Context = in.Opening
		return c
	}
}

// outcomeCard is the episode's success card, or its correction card when
// there is something to correct: a wrong answer to avoid or the right one.
// With the write-back the manager's diagnosis grade decides success;
// score-only learners have the pass mark of S only.
func outcomeCard(in Input, truth *grader.Key, base func(clinic.CardKind, int) clinic.Card, predicted string, ask, tests []string) []clinic.Card {
	presentation, finalTurn := in.Opening, len(in.Events)
	success := in.Outcome.Pass
	if truth != nil {
		success = truth.DiagnosisGrade >= 0.75
	}
	if success {
		c := base(clinic.CardSuccess, finalTurn)
		c.Diagnosis = predicted
		c.Ask, c.Tests = ask, tests
		c.Evidence, c.Plan, c.Followup = in.Final.Evidence, in.Final.Plan, in.Final.Followup
		if truth != nil {
			c.Diagnosis, c.Evidence, c.Plan = truth.Diagnosis, truth.Evidence, truth.Management
		}
		c.Grade = string(grader.HighYield)
		c.Text = fmt.Sprintf("IF %s THEN consider %s; ask about %s; tests: %s", presentation, c.Diagnosis, list(ask), list(tests))
		return []clinic.Card{c}
	}
	c := base(clinic.CardCorrection, finalTurn)
	if predicted != "" && !strings.HasPrefix(predicted, "undifferentiated") {
		c.Avoid = predicted
	}
	c.Ask, c.Tests = ask, tests
	c.Grade = string(grader.LowYield)
	c.Text = fmt.Sprintf("IF %s AVOID %s", presentation, orNone(c.Avoid))
	if truth != nil {
		c.Diagnosis, c.Evidence, c.Plan = truth.Diagnosis, truth.Evidence, truth.Management
		c.Text += "; USE " + truth.Diagnosis
	}
	if c.Avoid == "" && c.Diagnosis == "" {
		return nil // nothing to learn without a wrong answer or a correction
	}
	return []clinic.Card{c}
}

// ruleCards are MedEvoEval's rule cards: the billable tests graded high
// yield in a passing episode (none without per-action labels).
func ruleCards(cfg settings.Evolver, in Input, base func(clinic.CardKind, int) clinic.Card, ctxWords []string) []clinic.Card {
	var out []clinic.Card
	for _, a := range in.Grade.Actions {
		if a.Turn >= len(in.Events) {
			continue
		}
		ev := in.Events[a.Turn]
		if cfg.TranscriptOnly || ev.Action != clinic.RequestTest || ev.Free || a.Label != grader.HighYield || !in.Outcome.Pass {
			continue
		}
		c := base(clinic.CardRule, a.Turn)
		c.Action = string(ev.Action) + ":" + ev.Test
		c.Grade = string(a.Label)
		c.Text = fmt.Sprintf("ACTION=%s %s WHEN %s", ev.Action, ev.Test, strings.Join(ctxWords, " "))
		out = append(out, c)
	}
	return out
}

// Records are the cards of a run's memory that need no model to write: the
// memory entries (φ(h_t), a_t, outcome, g_t) of the turns whose labels the run
// keeps (EvoClinician §3, memory evolution) and the transcript summary (its
// memory-agent and RAG baselines), built from the graded trace alone. A model
// evolver writes its own lessons and these beside them.
func Records(cfg settings.Evolver, in Input) []clinic.Card {
	var out []clinic.Card
	for _, c := range cards(cfg, in, nil, ContextWords(in.Opening)) {
		if c.Kind == clinic.CardAdvice || c.Kind == clinic.CardSummary {
			out = append(out, c)
		}
	}
	return out
}

// entries are EvoClinician's memory entries (§3, memory evolution): for each
// turn whose label is one the run keeps (HIGH_YIELD and CRITICAL_ERROR, and
// other negative labels unless ablated), the compressed context φ(h_t) of the
// history before it, the action a_t, its outcome and its grade g_t. They are
// retrieved per turn by similarity of φ to the conversation so far.
func entries(cfg settings.Evolver, in Input, predicted string, base func(clinic.CardKind, int) clinic.Card) []clinic.Card {
	var out []clinic.Card
	for _, a := range in.Grade.Actions {
		if !slices.Contains(cfg.MemoryLabels, string(a.Label)) || a.Turn >= len(in.Events) {
			continue
		}
		ev := in.Events[a.Turn]
		action := actionOf(ev, predicted)
		if action == "" {
			continue
		}
		phi := strings.Join(historyWords(in.Opening, in.Events[:a.Turn], 24), " ")
		c := base(clinic.CardAdvice, a.Turn)
		c.Context, c.SearchText = phi, phi
		c.Action, c.Grade = action, string(a.Label)
		positive := a.Label == grader.HighYield
		switch {
		case ev.Action == clinic.Ask && positive:
			c.Ask = TopicsOf(ev)
		case ev.Action == clinic.RequestTest && positive:
			c.Tests = []string{ev.Test}
		case ev.Action == clinic.Finalize && positive:
			c.Diagnosis = predicted
		case ev.Action == clinic.Finalize && !strings.HasPrefix(predicted, "undifferentiated"):
			c.Avoid = predicted
		}
		c.Text = fmt.Sprintf("CONTEXT %s | ACTION %s | OUTCOME %s (S=%.2f, cost %.0f) | GRADE %s", phi, action, a.Rationale, in.Outcome.S, in.Outcome.Cost, a.Label)
		out = append(out, c)
	}
	return out
}

// actionOf names an action for a memory entry: ASK:<topic>, REQUEST_TEST:<test>
// or FINALIZE:<diagnosis>; "" for an action with nothing to name.
func actionOf(ev clinic.Event, predicted string) string {
	switch ev.Action {
	case clinic.Ask:
		if ts := TopicsOf(ev); len(ts) > 0 {
			return "ASK:" + ts[0]
		}
	case clinic.RequestTest:
		if ev.Test != "" {
			return "REQUEST_TEST:" + ev.Test
		}
	case clinic.Finalize:
		if ev.Status == clinic.StatusFinalized && predicted != "" {
			return "FINALIZE:" + predicted
		}
	}
	return ""
}

// historyWords compresses a history to at most n content words, without
// numbers: the opening, then what the patient said and the tests returned.
// MaxRuleText bounds a rule of the rule book: the book travels in every
// episode's input and every learning step's output, each a payload of a
// workflow history, so B_P rules (at most settings.RuleBudgetRange.Max) stay
// far below Temporal's 2 MiB payload limit: 200 rules of 1,000 bytes are
// 200 KB (clinevo's own choice; the rules clinevo writes are about 100
// bytes, a model evolver's a sentence or two).
const MaxRuleText = 1000

// maxContextWord bounds a word a rule or card takes from an episode as its
// context: no word of a presentation is longer, and a case text of one long
// "word" (a pasted blob) would otherwise make every rule that long
// (clinevo's own choice).
const maxContextWord = 40

func historyWords(opening string, events []clinic.Event, n int) []string {
	texts := []string{opening}
	for _, ev := range events {
		if ev.Status == clinic.StatusReturned && (ev.Action == clinic.Ask || ev.Action == clinic.RequestTest) {
			texts = append(texts, ev.Reply)
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, t := range texts {
		for _, w := range strings.Fields(textmatch.Normalize(t)) {
			st := textmatch.Stem(w)
			if len(st) < 3 || len(w) > maxContextWord || digits.MatchString(st) || seen[st] || len(textmatch.Tokens(w)) == 0 {
				continue
			}
			seen[st] = true
			out = append(out, w)
			if len(out) == n {
				return out
			}
		}
	}
	return out
}

// summary is the episode as a compressed transcript: what the memory agent
// carries and what RAG retrieves (EvoClinician §4's memory baselines). A
// passing episode's diagnosis is kept to reuse, a failing one's to avoid.
func summary(in Input, predicted string, ask, tests []string, base func(clinic.CardKind, int) clinic.Card) clinic.Card {
	c := base(clinic.CardSummary, len(in.Events)+1)
	lines := compressedLines(in)
	c.Ask, c.Tests = ask, tests
	if in.Outcome.Pass {
		c.Diagnosis = predicted
	} else if !strings.HasPrefix(predicted, "undifferentiated") {
		c.Avoid = predicted
	}
	c.Text = fmt.Sprintf("PATIENT %s | %s | DIAGNOSIS %s | S=%.2f, cost %.0f", in.Opening, strings.Join(lines, " | "), orNone(predicted), in.Outcome.S, in.Outcome.Cost)
	return c
}

// compressedLines are an episode's past transcript as the memory baselines
// keep it (EvoClinician §4): one short line per topic asked and per test
// returned, the rest dropped.
func compressedLines(in Input) []string {
	var lines []string
	for _, ev := range in.Events {
		switch {
		case ev.Action == clinic.Ask && ev.Status == clinic.StatusReturned:
			lines = append(lines, "asked "+strings.Join(TopicsOf(ev), "/")+": "+ev.Reply)
		case ev.Action == clinic.RequestTest && ev.Status == clinic.StatusReturned:
			lines = append(lines, ev.Test+": "+ev.Reply)
		}
	}
	return lines
}

func list(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

func orNone(s string) string {
	if s == "" {
		return "nothing specific"
	}
	return s
}

// proposals are the rule edits a graded episode suggests (EvoClinician §3,
// prompt evolution): a rule generalising every HIGH_YIELD question or test to
// presentations like this one, and a guard rule for every INEFFICIENT or
// CRITICAL_ERROR test (ordered and wasted) or question (that told nothing).
func proposals(cfg settings.Evolver, in Input, ctxWords []string) []clinic.RuleDirective {
	when := strings.Join(ctxWords, " ")
	var out []clinic.RuleDirective
	if cfg.TranscriptOnly {
		return nil
	}
	for _, a := range in.Grade.Actions {
		if a.Turn >= len(in.Events) {
			continue
		}
		ev := in.Events[a.Turn]
		negative := a.Label == grader.Inefficient || a.Label == grader.CriticalError
		switch {
		case ev.Action == clinic.RequestTest && !ev.Free && ev.Test != "" && a.Label == grader.HighYield:
			out = append(out, clinic.RuleDirective{Verb: clinic.VerbTest, Target: ev.Test, When: when})
		case ev.Action == clinic.RequestTest && !ev.Free && ev.Test != "" && negative:
			out = append(out, clinic.RuleDirective{Verb: clinic.VerbAvoidTest, Target: ev.Test, When: when})
		case ev.Action == clinic.Ask && a.Label == grader.HighYield:
			for _, t := range TopicsOf(ev) {
				out = append(out, clinic.RuleDirective{Verb: clinic.VerbAsk, Target: t, When: when})
			}
		case ev.Action == clinic.Ask && negative && !ev.Cached && len(ev.RevealedFacts) == 0 && !ev.Generated:
			for _, t := range TopicsOf(ev) {
				out = append(out, clinic.RuleDirective{Verb: clinic.VerbAvoidAsk, Target: t, When: when})
			}
		}
	}
	return out
}

// Cite counts, for each rule, the graded actions of this episode that support
// it: a HIGH_YIELD action its positive rule names, an INEFFICIENT or
// CRITICAL_ERROR one its guard rule names, in a presentation the rule's
// context covers. These citations decide which rule a full book retires.
func Cite(rules []clinic.Rule, in Input, window int) []clinic.Rule {
	out := append([]clinic.Rule(nil), rules...)
	opening := textmatch.Set(in.Opening)
	for i, r := range out {
		d, ok := clinic.ParseRule(r.Text)
		if !ok || (d.When != "" && textmatch.Coverage(textmatch.Set(d.When), opening) < 0.5) {
			continue
		}
		for _, a := range in.Grade.Actions {
			if a.Turn < len(in.Events) && supports(d, in.Events[a.Turn], a.Label) {
				out[i] = cite(out[i], in.Episode, window)
				break
			}
		}
	}
	return out
}

func supports(d clinic.RuleDirective, ev clinic.Event, l grader.Label) bool {
	negative := l == grader.Inefficient || l == grader.CriticalError
	switch d.Verb {
	case clinic.VerbTest:
		return l == grader.HighYield && ev.Action == clinic.RequestTest && catalog.Key(ev.Test) == catalog.Key(d.Target)
	case clinic.VerbAvoidTest:
		return negative && ev.Action == clinic.RequestTest && catalog.Key(ev.Test) == catalog.Key(d.Target)
	case clinic.VerbAsk:
		return l == grader.HighYield && ev.Action == clinic.Ask && slices.Contains(TopicsOf(ev), d.Target)
	case clinic.VerbAvoidAsk:
		return negative && ev.Action == clinic.Ask && slices.Contains(TopicsOf(ev), d.Target)
	}
	return false
}

// cite records a citation of r at episode n, keeping those of the last window episodes.
func cite(r clinic.Rule, n, window int) clinic.Rule {
	r.Citations++
	var kept []int
	for _, e := range append(r.CitedAt, n) {
		if e > n-window {
			kept = append(kept, e)
		}
	}
	r.CitedAt = kept
	return r
}

func ruleText(d clinic.RuleDirective) string {
	switch d.Verb {
	case clinic.VerbTest:
		return d.String() + ": this test changed the assessment for presentations like this"
	case clinic.VerbAvoidTest:
		return d.String() + ": this test cost much or came back empty and changed nothing for presentations like this"
	case clinic.VerbAsk:
		return d.String() + ": the answer moved the assessment for presentations like this"
	case clinic.VerbAvoidAsk:
		return d.String() + ": this question told nothing for presentations like this"
	}
	return d.String()
}

// applyRule adds or merges a rule and retires the least cited when over budget.
func applyRule(rules []clinic.Rule, d clinic.RuleDirective, text string, episodeN, budget, window int) ([]clinic.Rule, string) {
	for i, r := range rules {
		rd, ok := clinic.ParseRule(r.Text)
		if !ok || rd.Verb != d.Verb || catalog.Key(rd.Target) != catalog.Key(d.Target) {
			continue
		}
		a, b := strings.Fields(rd.When), strings.Fields(d.When)
		if textmatch.Jaccard(textmatch.Set(rd.When), textmatch.Set(d.When)) >= 0.2 || len(a) == 0 {
			merged := mergeWords(a, b)
			rd.When = strings.Join(merged, " ")
			rules[i].Text = ruleText(rd)
			rules[i] = cite(rules[i], episodeN, window)
			return rules, "merge " + rules[i].ID
		}
	}
	if budget == 0 {
		return rules, "skip (B_P is 0)"
	}
	id := fmt.Sprintf("r%d-%s", episodeN, strings.ReplaceAll(catalog.Key(d.Verb+" "+d.Target), " ", "-"))
	rules = append(rules, clinic.Rule{ID: id, Text: text, Citations: 1, Created: episodeN, CitedAt: []int{episodeN}})
	edit := "add " + id
	if len(rules) > budget {
		var retired string
		rules, retired = retireLeastCited(rules, episodeN, window)
		edit += "; retire " + retired
	}
	return rules, edit
}

// retireLeastCited removes the rule least cited in the last window episodes
// before episode n (EvoClinician §3: "the lowest-utility rules based on how
// often the grader cited them in recent episodes"), the oldest among equals.
func retireLeastCited(rules []clinic.Rule, n, window int) ([]clinic.Rule, string) {
	recent := func(r clinic.Rule) int {
		c := 0
		for _, e := range r.CitedAt {
			if e > n-window {
				c++
			}
		}
		return c
	}
	worst := 0
	for i, r := range rules {
		ri, rw := recent(r), recent(rules[worst])
		if ri < rw || (ri == rw && r.Created < rules[worst].Created) { // equals: the earliest in the book
			worst = i
		}
	}
	id := rules[worst].ID
	return append(rules[:worst], rules[worst+1:]...), id
}

// mergeWords keeps the words both contexts share first, then the rest, at most six.
func mergeWords(a, b []string) []string {
	var out []string
	seen := map[string]bool{}
	bs := map[string]bool{}
	for _, w := range b {
		bs[w] = true
	}
	for _, w := range a {
		if bs[w] && !seen[w] {
			out, seen[w] = append(out, w), true
		}
	}
	for _, w := range append(a, b...) {
		if len(out) == 6 {
			break
		}
		if !seen[w] {
			out, seen[w] = append(out, w), true
		}
	}
	return out
}

// Evictions returns the IDs to evict so that at most budget live cards remain
// after adding incoming: lowest keep score first (keep = reuse·retrievals −
// age·(episode − created)), ties by older, then ID. Incoming cards are never evicted.
func Evictions(live []clinic.Card, incoming int, budget, episodeN int, cfg settings.Evolver) []string {
	over := len(live) + incoming - budget
	if over <= 0 {
		return nil
	}
	type kc struct {
		id      string
		keep    float64
		created int
	}
	ks := make([]kc, len(live))
	for i, c := range live {
		ks[i] = kc{c.ID, cfg.KeepReuse*float64(c.Retrievals) - cfg.KeepAge*float64(episodeN-c.CreatedEpisode), c.CreatedEpisode}
	}
	sort.Slice(ks, func(i, j int) bool {
		if ks[i].keep != ks[j].keep {
			return ks[i].keep < ks[j].keep
		}
		if ks[i].created != ks[j].created {
			return ks[i].created < ks[j].created
		}
		return ks[i].id < ks[j].id
	})
	if over > len(ks) {
		over = len(ks)
	}
	ids := make([]string, over)
	for i := range ids {
		ids[i] = ks[i].id
	}
	return ids
}
