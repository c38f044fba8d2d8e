package grader

import (
	"context"
	"fmt"
	"strings"

	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/textmatch"
)

// Label is the process grader's verdict on one action.
type Label string

// Process labels.
const (
	HighYield     Label = "HIGH_YIELD"
	LowYield      Label = "LOW_YIELD"
	Inefficient   Label = "INEFFICIENT"
	CriticalError Label = "CRITICAL_ERROR"
)

// ActionGrade is the label of one action with its reason.
type ActionGrade struct {
	Turn      int               `json:"turn"`
	Action    clinic.ActionKind `json:"action"`
	Target    string            `json:"target,omitempty"` // topic, question or test
	Label     Label             `json:"label"`
	Rationale string            `json:"rationale"`
}

// ProcessGrade is the graded trace of one episode.
type ProcessGrade struct {
	Actions []ActionGrade `json:"actions"`
	Summary string        `json:"summary"`
	Counts  map[Label]int `json:"counts"`
}

// Outcome is what the learner may know of an episode's result in every
// feedback mode: the score and the cost (EvoClinician §4.1: the agent observes
// the final judge score S and the total cost C), and the process counts it can
// read off its own trace. No answer-key value fits in it.
type Outcome struct {
	S    float64 `json:"s"`
	Pass bool    `json:"pass"`
	Cost float64 `json:"cost_usd"`
	T    int     `json:"t"`
	E    int     `json:"e"`
	R    float64 `json:"r"`
	U    float64 `json:"u"`
}

// OutcomeOf takes the learner-visible numbers of the manager's scores.
func OutcomeOf(s clinic.Scores) Outcome {
	return Outcome{S: s.S, Pass: s.Pass, Cost: s.Cost, T: s.T, E: s.E, R: s.R, U: s.U}
}

// Key is the answer key and the manager's judgement derived from it, which
// the manager writes back in write-back mode (MedEvoEval §3.4). Score-only
// learners get none of it.
type Key struct {
	Diagnosis      string   `json:"diagnosis"`
	Evidence       []string `json:"evidence"`
	Management     []string `json:"management"`
	Dangerous      []string `json:"dangerous"`
	DiagnosisGrade float64  `json:"diagnosis_grade"` // the manager's grade of the doctor's diagnosis
	Unsafe         []string `json:"unsafe_plan"`     // plan items the manager judged unsafe
	Referral       string   `json:"referral"`        // the manager's referral verdict
	// Bench is the run's benchmark's own part of the key (KeyMaker), typed by
	// the benchmark; nil where it adds none.
	Bench any `json:"bench,omitempty"`
}

// KeyOf is the write-back key of a scored episode.
func KeyOf(c *clinic.Case, s clinic.Scores) *Key {
	k := &Key{Diagnosis: c.Manager.Diagnosis.Name, Evidence: c.Manager.Evidence, Management: c.Manager.Management,
		Dangerous: c.Manager.Diagnosis.Dangerous, DiagnosisGrade: s.Diagnosis, Unsafe: s.Unsafe, Referral: s.Referral}
	return k
}

// ProcessInput is what the process grader reads in every feedback mode: the
// trace, the outcome (score and cost) and the run's prices. It has no field
// that could hold the answer key: score-only learning stays score-only by
// construction, and the write-back key travels beside it, nil when absent.
type ProcessInput struct {
	Events  []clinic.Event     `json:"events"`
	Final   clinic.FinalOutput `json:"final"`
	Outcome Outcome            `json:"outcome"`
	Prices  map[string]float64 `json:"prices,omitempty"` // the run's price table, for cost judgements
	// YieldOnly grades by clinical yield alone, without resource efficiency
	// (EvoClinician's yield-only grading ablation).
	YieldOnly bool `json:"yield_only,omitempty"`
}

// expensive tests cost at least this much; returning one that nobody used is inefficient.
const expensive = 250.0

// usedAt is the share of an evidence item's words a reply must hold to count as used.
const usedAt = 0.6

// ProcessGrader labels every action of an episode; key is the manager's
// write-back, nil under score-only feedback.
type ProcessGrader interface {
	GradeProcess(ctx context.Context, in ProcessInput, key *Key) (ProcessGrade, error)
}

// BuiltinProcessGrader is the deterministic process grader (GradeProcess),
// with the run's benchmark's labels for its own actions.
type BuiltinProcessGrader struct{ Labels Labeler }

var _ ProcessGrader = BuiltinProcessGrader{}

// GradeProcess labels every action with the built-in rules.
func (g BuiltinProcessGrader) GradeProcess(_ context.Context, in ProcessInput, key *Key) (ProcessGrade, error) {
	return GradeProcess(in, key, g.Labels), nil
}

// GradeProcess labels every action from clinical yield and resource efficiency
// (EvoClinician §3, process grader): information revealed and used, cost
// against cheaper alternatives, dangerous actions. It reads the trace, the
// outcome and, when given, the write-back key; labels (nil for none) labels
// the benchmark's own actions first.
func GradeProcess(in ProcessInput, key *Key, labels Labeler) ProcessGrade {
	s := in.Outcome
	g := ProcessGrade{Counts: map[Label]int{}}
	sh := sharedLabels{final: in.Final, key: key, seen: map[string]bool{}}
	sh.lc = LabelContext{Outcome: s, Key: key, Supports: sh.supports, Prices: in.Prices, YieldOnly: in.YieldOnly}
	for _, ev := range in.Events {
		if labels != nil {
			if a, ok := labels.LabelAction(ev, sh.lc); ok {
				a.Turn, a.Action = ev.Turn, ev.Action
				g.Counts[a.Label]++
				g.Actions = append(g.Actions, a)
				continue
			}
		}
		a := sh.label(ev)
		g.Counts[a.Label]++
		g.Actions = append(g.Actions, a)
	}
	g.Summary = fmt.Sprintf("%d actions: %d high yield, %d low yield, %d inefficient, %d critical; S=%.2f, U=%.2f, cost %.0f USD",
		len(g.Actions), g.Counts[HighYield], g.Counts[LowYield], g.Counts[Inefficient], g.Counts[CriticalError], s.S, s.U, s.Cost)
	return g
}

// sharedLabels labels the actions no benchmark labels itself, in turn
// order: seen holds the facts earlier questions revealed.
type sharedLabels struct {
	final clinic.FinalOutput
	key   *Key
	lc    LabelContext
	seen  map[string]bool
}

// supports says whether a reply was used: it covers most of a cited
// evidence item (or, with the write-back key, of a key point).
func (sh *sharedLabels) supports(reply string) bool {
	rs := textmatch.Set(reply)
	for _, e := range sh.final.Evidence {
		if textmatch.Coverage(textmatch.Set(e), rs) >= usedAt {
			return true
		}
	}
	if sh.key != nil {
		for _, p := range sh.key.Evidence {
			if textmatch.Coverage(textmatch.Set(p), rs) >= usedAt {
				return true
			}
		}
	}
	return false
}

func (sh *sharedLabels) label(ev clinic.Event) ActionGrade {
	a := ActionGrade{Turn: ev.Turn, Action: ev.Action}
	switch ev.Action {
	case clinic.Ask:
		return sh.ask(ev)
	case clinic.RequestTest:
		it := catalog.Item{Name: ev.Test, Category: catalog.Infer(ev.Test)}
		if d, m := catalog.Default().Lookup(ev.Test); m != catalog.MatchNone {
			it = d
		}
		return LabelTest(ev, sh.lc, catalog.Price(it, sh.lc.Prices))
	case clinic.CallMDT:
		if ev.Status == clinic.StatusReturned {
			a.Label, a.Rationale = LowYield, "a consultation spends a turn; value depends on the next step"
		} else {
			a.Label, a.Rationale = Inefficient, "the consultant was not available"
		}
	case clinic.Finalize:
		return sh.finalize(ev)
	default:
		a.Label, a.Rationale = Inefficient, "not a valid action"
	}
	return a
}

// ask labels a question by the new facts it revealed and whether the
// assessment used them.
func (sh *sharedLabels) ask(ev clinic.Event) ActionGrade {
	a := ActionGrade{Turn: ev.Turn, Action: ev.Action, Target: ev.Topic}
	if a.Target == "" {
		a.Target = ev.Question
	}
	fresh := 0
	for _, f := range ev.RevealedFacts {
		if !sh.seen[f] {
			fresh++
			sh.seen[f] = true
		}
	}
	switch {
	case ev.Status != clinic.StatusReturned:
		a.Label, a.Rationale = Inefficient, "the question was "+string(ev.Status)
	case ev.Cached:
		a.Label, a.Rationale = Inefficient, "repeated a question already answered"
	case fresh > 0 && sh.supports(ev.Reply):
		a.Label, a.Rationale = HighYield, fmt.Sprintf("revealed %d new fact(s) that the assessment used", fresh)
	case fresh > 0:
		a.Label, a.Rationale = LowYield, fmt.Sprintf("revealed %d new fact(s) that the assessment did not use", fresh)
	default:
		a.Label, a.Rationale = Inefficient, "revealed nothing new"
	}
	return a
}

// finalize labels the closing action: critical where the key (or, score
// only, a zero S) finds it dangerous, else by whether it passed.
func (sh *sharedLabels) finalize(ev clinic.Event) ActionGrade {
	a := ActionGrade{Turn: ev.Turn, Action: ev.Action}
	key, s := sh.key, sh.lc.Outcome
	switch {
	case ev.Status != clinic.StatusFinalized:
		a.Label, a.Rationale = Inefficient, "FINALIZE was incomplete: "+ev.Reply
	case key != nil && len(key.Unsafe) > 0:
		a.Label, a.Rationale = CriticalError, "the plan contains unsafe management: "+strings.Join(key.Unsafe, "; ")
	case key != nil && dangerous(sh.final, key.Dangerous):
		a.Label, a.Rationale = CriticalError, "the diagnosis names a dangerous alternative"
	case key != nil && key.Referral == ReferralMissed:
		a.Label, a.Rationale = CriticalError, "a needed referral was missed"
	case key == nil && s.S == 0:
		// Score-only: a grade of 0 is "a dangerous or clearly wrong diagnosis"
		// (MedEvoEval C.1), the one verdict the score alone can give.
		a.Label, a.Rationale = CriticalError, "the assessment scored 0: a dangerous or clearly wrong diagnosis"
	case s.Pass:
		a.Label, a.Rationale = HighYield, fmt.Sprintf("a passing assessment (S=%.2f)", s.S)
	default:
		a.Label, a.Rationale = LowYield, fmt.Sprintf("the assessment did not pass (S=%.2f)", s.S)
	}
	return a
}

// LabelTest labels a test request by its yield and, unless the grading is
// by yield alone, its price (USD): a returned result nobody used that cost
// at least expensive is inefficient. A benchmark prices its own tests
// (Labeler); the shared labels price them by the default catalog.
func LabelTest(ev clinic.Event, lc LabelContext, price float64) ActionGrade {
	a := ActionGrade{Turn: ev.Turn, Action: ev.Action, Target: ev.Test}
	switch {
	case ev.Status == clinic.StatusOverBudget:
		a.Label, a.Rationale = Inefficient, "requested past the test budget"
	case ev.Status != clinic.StatusReturned:
		a.Label, a.Rationale = Inefficient, "the request was "+string(ev.Status)
	case lc.Supports(ev.Reply):
		a.Label, a.Rationale = HighYield, "the result was used in the assessment"
	case price >= expensive && !lc.YieldOnly:
		a.Label, a.Rationale = Inefficient, fmt.Sprintf("a %.0f USD test whose result was not used; a cheaper step would have done", price)
	default:
		a.Label, a.Rationale = LowYield, "the result did not change the assessment"
	}
	return a
}

func dangerous(final clinic.FinalOutput, names []string) bool {
	if len(final.Diagnosis) == 0 {
		return false
	}
	for _, d := range names {
		if NameGrade(final.Diagnosis[0], d) >= 0.75 {
			return true
		}
	}
	return false
}
