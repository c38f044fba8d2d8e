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
}

// Output is the evolver's decision for one episode.
type Output struct {
	Rules   []clinic.Rule // the new rule book
	Cards   []clinic.Card // cards to upsert
	Edits   []string      // human-readable log of rule edits
	Skipped []string      // edits and cards rejected by the leak screen
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

// Builtin is the deterministic evolver.
type Builtin struct{}

var _ Evolver = Builtin{}

// Evolve applies the built-in rules (see Evolve).
func (Builtin) Evolve(_ context.Context, cfg settings.Evolver, in Input, truth *grader.Key, rules []clinic.Rule) (Output, error) {
	return Evolve(cfg, in, truth, rules), nil
}

// Evolve computes rule edits and cards for one graded episode.
func Evolve(cfg settings.Evolver, in Input, truth *grader.Key, rules []clinic.Rule) Output {
	var out Output
	ctxWords := contextWords(in.Opening)
	out.Rules = append([]clinic.Rule(nil), rules...)
	screen := NewScreen(cfg, in.Forbidden, truth)
	if cfg.Rules() {
		var edits []Edit
		for _, d := range proposals(cfg, in, ctxWords) {
			edits = append(edits, Edit{Op: OpAdd, Text: ruleText(d)})
		}
		out.Rules, out.Edits, out.Skipped = ApplyEdits(out.Rules, edits, in.Episode, cfg.RuleBudget, screen)
	}
	if in.WriteCards {
		var skipped []string
		out.Cards, skipped = ScreenCards(KeepKinds(gpCards(in, truth, cards(cfg, in, truth, ctxWords)), cfg.CardKinds), screen)
		out.Skipped = append(out.Skipped, skipped...)
	}
	return out
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

// ApplyEdits applies edits in order within budget B_P, rejecting any whose text
// the screen finds leaking (a nil screen rejects nothing). It returns the new
// book, a log and the rejections.
func ApplyEdits(rules []clinic.Rule, edits []Edit, episodeN, budget int, screen *Screen) (out []clinic.Rule, log, skipped []string) {
	out = append([]clinic.Rule(nil), rules...)
	for _, e := range edits {
		if why := screen.Leaks(e.Text); why != "" {
			skipped = append(skipped, fmt.Sprintf("%s rejected: %s", e.Op, why))
			continue
		}
		switch e.Op {
		case OpAdd:
			if d, ok := clinic.ParseRule(e.Text); ok {
				var entry string
				out, entry = applyRule(out, d, e.Text, episodeN, budget)
				log = append(log, entry)
				continue
			}
			if strings.TrimSpace(e.Text) == "" || budget == 0 {
				continue
			}
			id := fmt.Sprintf("r%d-%d", episodeN, len(out)+1)
			out = append(out, clinic.Rule{ID: id, Text: e.Text, Citations: 1, Created: episodeN})
			log = append(log, "add "+id)
			if len(out) > budget {
				var retired string
				out, retired = retireLeastCited(out)
				log = append(log, "retire "+retired)
			}
		case OpMerge:
			for i := range out {
				if out[i].ID == e.ID && strings.TrimSpace(e.Text) != "" {
					out[i].Text = e.Text
					out[i].Citations++
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

// contextWords compresses a presentation to at most six content words, without
// numbers or demographics, so rules stay general.
func contextWords(opening string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.Fields(textmatch.Normalize(opening)) {
		t := textmatch.Stem(w)
		if len(t) < 3 || digits.MatchString(t) || seen[t] || len(textmatch.Tokens(w)) == 0 {
			continue
		}
		seen[t] = true
		out = append(out, w)
		if len(out) == 6 {
			break
		}
	}
	return out
}

func topicOf(ev clinic.Event) []string {
	if ev.Topic != "" {
		return []string{ev.Topic}
	}
	return episode.QuestionTopics(ev.Question)
}

func cards(cfg settings.Evolver, in Input, truth *grader.Key, ctxWords []string) []clinic.Card {
	labels := map[int]grader.Label{}
	for _, a := range in.Grade.Actions {
		labels[a.Turn] = a.Label
	}
	var ask, tests []string
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
			for _, t := range topicOf(ev) {
				if !has(ask, t) {
					ask = append(ask, t)
				}
			}
		case clinic.RequestTest:
			if !ev.Free && !has(tests, ev.Test) {
				tests = append(tests, ev.Test)
			}
		}
	}
	var revealed []string
	for _, ev := range in.Events {
		if ev.Action == clinic.Ask && ev.Status == clinic.StatusReturned && len(ev.RevealedFacts) > 0 && labels[ev.Turn] == grader.HighYield {
			revealed = append(revealed, ev.Reply)
		}
	}
	presentation := in.Opening
	search := strings.Join(append([]string{in.Opening}, revealed...), " ")
	base := func(kind clinic.CardKind, turn int) clinic.Card {
		c := clinic.Card{Run: in.Run, Pass: in.Pass, Stage: in.Stage, SourceCase: in.CaseID, CreatedEpisode: in.Episode,
			Bank: memory.BankOf(kind), SearchText: search}
		c.ID = CardID(in.Run, in.CaseID, in.Pass, turn, string(kind))
		c.Kind = kind
		c.Context = presentation
		return c
	}
	predicted := ""
	if len(in.Final.Diagnosis) > 0 {
		predicted = in.Final.Diagnosis[0]
	}
	finalTurn := len(in.Events)
	var out []clinic.Card
	// With the write-back the manager's diagnosis grade decides; score-only
	// learners have the pass mark of S only.
	success := in.Outcome.Pass
	if truth != nil {
		success = truth.DiagnosisGrade >= 0.75
	}
	switch {
	case success:
		c := base(clinic.CardSuccess, finalTurn)
		c.Diagnosis = predicted
		c.Ask, c.Tests = ask, tests
		c.Evidence, c.Plan, c.Followup = in.Final.Evidence, in.Final.Plan, in.Final.Followup
		if truth != nil {
			c.Diagnosis, c.Evidence, c.Plan = truth.Diagnosis, truth.Evidence, truth.Management
		}
		c.Grade = string(grader.HighYield)
		c.Text = fmt.Sprintf("IF %s THEN consider %s; ask about %s; tests: %s", presentation, c.Diagnosis, list(ask), list(tests))
		out = append(out, c)
	case !success:
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
			break // nothing to learn without a wrong answer or a correction
		}
		out = append(out, c)
	}
	// Rule cards and advice for actions that stood out.
	for _, a := range in.Grade.Actions {
		if a.Action == clinic.Finalize || cfg.TranscriptOnly {
			continue
		}
		var target string
		ev := in.Events[a.Turn]
		switch ev.Action {
		case clinic.Ask:
			if ts := topicOf(ev); len(ts) > 0 {
				target = ts[0]
			}
		case clinic.RequestTest:
			target = ev.Test
		}
		if target == "" {
			continue
		}
		action := string(ev.Action) + ":" + target
		switch {
		case a.Label == grader.HighYield && in.Outcome.Pass && ev.Action == clinic.RequestTest && !ev.Free:
			c := base(clinic.CardRule, a.Turn)
			c.Action = action
			c.Grade = string(a.Label)
			c.Text = fmt.Sprintf("ACTION=%s %s WHEN %s", ev.Action, target, strings.Join(ctxWords, " "))
			out = append(out, c)
		case (a.Label == grader.Inefficient && ev.Action == clinic.RequestTest && ev.Status == clinic.StatusReturned) || a.Label == grader.CriticalError:
			c := base(clinic.CardAdvice, a.Turn)
			c.Action = action
			c.Grade = string(a.Label)
			c.Text = fmt.Sprintf("CONTEXT %s | ACTION %s | OUTCOME %s | GRADE %s", strings.Join(ctxWords, " "), action, a.Rationale, a.Label)
			out = append(out, c)
		}
	}
	return out
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

func has(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// proposals are the rule edits a graded episode suggests: keep doing high-yield
// tests of passing episodes, stop inefficient expensive ones, and finalise sooner
// when an episode spent turns that revealed nothing.
func proposals(cfg settings.Evolver, in Input, ctxWords []string) []clinic.RuleDirective {
	when := strings.Join(ctxWords, " ")
	var out []clinic.RuleDirective
	if cfg.TranscriptOnly {
		return nil
	}
	for _, a := range in.Grade.Actions {
		ev := in.Events[a.Turn]
		switch {
		case ev.Action == clinic.RequestTest && !ev.Free && a.Label == grader.HighYield && in.Outcome.Pass:
			out = append(out, clinic.RuleDirective{Verb: clinic.VerbTest, Target: ev.Test, When: when})
		case ev.Action == clinic.RequestTest && !ev.Free && a.Label == grader.Inefficient && ev.Status == clinic.StatusReturned:
			out = append(out, clinic.RuleDirective{Verb: clinic.VerbAvoidTest, Target: ev.Test, When: when})
		}
	}
	return out
}

func ruleText(d clinic.RuleDirective) string {
	switch d.Verb {
	case clinic.VerbTest:
		return d.String() + ": this test changed the assessment for presentations like this"
	case clinic.VerbAvoidTest:
		return d.String() + ": this test cost much and changed nothing for presentations like this"
	}
	return d.String()
}

// applyRule adds or merges a rule and retires the least cited when over budget.
func applyRule(rules []clinic.Rule, d clinic.RuleDirective, text string, episodeN, budget int) ([]clinic.Rule, string) {
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
			rules[i].Citations++
			return rules, "merge " + rules[i].ID
		}
	}
	if budget == 0 {
		return rules, "skip (B_P is 0)"
	}
	id := fmt.Sprintf("r%d-%s", episodeN, strings.ReplaceAll(catalog.Key(d.Verb+" "+d.Target), " ", "-"))
	rules = append(rules, clinic.Rule{ID: id, Text: text, Citations: 1, Created: episodeN})
	edit := "add " + id
	if len(rules) > budget {
		var retired string
		rules, retired = retireLeastCited(rules)
		edit += "; retire " + retired
	}
	return rules, edit
}

// retireLeastCited removes the least cited rule, the oldest among equals.
func retireLeastCited(rules []clinic.Rule) ([]clinic.Rule, string) {
	worst := 0
	for i, r := range rules {
		if r.Citations < rules[worst].Citations || (r.Citations == rules[worst].Citations && r.Created < rules[worst].Created) {
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
