package actor

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/textmatch"
)

// The panel doctor: MAI-DxO's virtual panel of physicians (Nori et al.
// 2025), a doctor for every benchmark (settings doctor.mode: panel). Five
// roles deliberate on each turn, each reading the view and the notes of the
// roles before it, and the panel takes one action: ask, order tests, or
// commit to the diagnosis.
const (
	// Hypothesis keeps a ranked differential and says when it is confident
	// enough to commit.
	Hypothesis = "hypothesis"
	// TestChooser proposes the tests that best separate the leading
	// candidates, and the questions still worth asking.
	TestChooser = "test_chooser"
	// Challenger argues against the leading candidate: the alternative, and
	// a test that could falsify the lead.
	Challenger = "challenger"
	// Stewardship approves tests by value: it vetoes low-yield and
	// over-budget ones (built in: by price against the budget where the
	// view prices tests, else by count against the test budget).
	Stewardship = "stewardship"
	// Checklist checks the panel's proposal before it goes out: valid test
	// names, nothing repeated, an action the view allows.
	Checklist = "checklist"
)

// PanelRoles are the five roles in the order they speak.
var PanelRoles = []string{Hypothesis, TestChooser, Challenger, Stewardship, Checklist}

// PanelNote is what one panel role says on a turn.
type PanelNote struct {
	Role string `json:"role"`
	// Differential is the ranked differential (hypothesis); Ready says the
	// lead is confident enough to commit.
	Differential []string `json:"differential,omitempty"`
	Ready        bool     `json:"ready,omitempty"`
	// Tests and Questions are proposed (test chooser, challenger), or, after
	// stewardship and checklist, approved.
	Tests     []string `json:"tests,omitempty"`
	Questions []string `json:"questions,omitempty"`
	// Vetoed are tests stewardship or checklist refused.
	Vetoed []string `json:"vetoed,omitempty"`
	// Reason is the role's one line of reasoning.
	Reason string `json:"reason,omitempty"`
	// Final is the closing output the hypothesis role would give now (its
	// diagnosis, evidence and plan), used when the panel commits.
	Final *clinic.DoctorOutput `json:"final,omitempty"`
}

// PanelMember is one role of the panel.
type PanelMember interface {
	// Deliberate returns the role's note on view v after the notes of the
	// roles before it. An error is a transient fault.
	Deliberate(ctx context.Context, v clinic.DoctorView, notes []PanelNote) (PanelNote, error)
}

// Panel is the panel doctor: its members, one per PanelRoles entry, and the
// base doctor it defers to where the panel's action is not one the view
// allows (a benchmark with actions of its own: the panel speaks in ask,
// order and diagnose).
type Panel struct {
	Members map[string]PanelMember
	Base    Doctor
}

var _ Doctor = Panel{}

// Decide runs the five roles in order and reconciles their notes
// (Reconcile); the notes become the decision's rationale.
func (p Panel) Decide(ctx context.Context, v clinic.DoctorView) (Decision, error) {
	var notes []PanelNote
	for _, role := range PanelRoles {
		m, ok := p.Members[role]
		if !ok {
			return Decision{}, fmt.Errorf("panel: no %s member", role)
		}
		n, err := m.Deliberate(ctx, v, notes)
		if err != nil {
			return Decision{}, fmt.Errorf("panel %s: %w", role, err)
		}
		n.Role = role
		notes = append(notes, n)
	}
	out, ok := Reconcile(v, notes)
	if !ok && p.Base != nil {
		d, err := p.Base.Decide(ctx, v)
		d.Output.Rationale = append(rationale(notes), d.Output.Rationale...)
		return d, err
	}
	return Decision{Output: out}, nil
}

// Reconcile turns the panel's notes into one action: commit when the
// hypothesis role is ready or the turns are running out; else ask the
// questions the checklist approved, grouped in one turn; else order the
// tests it approved; else commit. ok is false when that action is not one
// the view allows.
func Reconcile(v clinic.DoctorView, notes []PanelNote) (clinic.DoctorOutput, bool) {
	var hyp, final PanelNote
	for _, n := range notes {
		switch n.Role {
		case Hypothesis:
			hyp = n
		case Checklist:
			final = n
		}
	}
	out := clinic.DoctorOutput{WorkingDiagnoses: hyp.Differential, Rationale: rationale(notes)}
	switch {
	case hyp.Ready || v.Turn >= v.MaxTurns-1 || (len(final.Questions) == 0 && len(final.Tests) == 0):
		out.Action = clinic.Finalize
		if hyp.Final != nil {
			f := *hyp.Final
			out.Diagnosis, out.Evidence, out.Plan, out.Followup = f.Diagnosis, f.Evidence, f.Plan, f.Followup
		}
		if len(out.Diagnosis) == 0 && len(hyp.Differential) > 0 {
			out.Diagnosis = hyp.Differential[:1]
		}
	case len(final.Questions) > 0:
		out.Action = clinic.Ask
		out.Question = strings.Join(final.Questions, " ")
		out.Utterance = out.Question
	default:
		out.Action = clinic.RequestTest
		out.TestName = strings.Join(final.Tests, "; ")
		out.Utterance = "I would like to arrange: " + strings.Join(final.Tests, ", ") + "."
	}
	if out.Action == clinic.Finalize && missingFinal(out, v.FinalFields) {
		return out, false // the benchmark's closing fields (evidence, plan) are the base doctor's to write
	}
	return out, slices.Contains(v.Actions, string(out.Action))
}

// missingFinal reports whether a closing output leaves a required field empty.
func missingFinal(o clinic.DoctorOutput, fields []string) bool {
	for _, f := range fields {
		v := map[string][]string{"diagnosis": o.Diagnosis, "evidence": o.Evidence, "plan": o.Plan, "followup": o.Followup}[f]
		if len(v) == 0 {
			return true
		}
	}
	return false
}

func rationale(notes []PanelNote) []string {
	var out []string
	for _, n := range notes {
		if n.Reason != "" {
			out = append(out, n.Role+": "+n.Reason)
		}
	}
	return out
}

// BuiltinPanel is the panel's built-in form, for plumbing without a model:
// five deterministic roles on the case-based clinician's reading of the view
// (CaseState), deferring to base where its action is not allowed.
func BuiltinPanel(base Doctor) Panel {
	m := map[string]PanelMember{}
	for _, r := range PanelRoles {
		m[r] = builtinMember{r}
	}
	return Panel{Members: m, Base: base}
}

type builtinMember struct{ role string }

// panelTests and panelTopics bound what the built-in panel puts in one turn
// (clinevo's choice; the paper's test chooser proposes up to three tests).
const (
	panelTests  = 3
	panelTopics = 3
	stewardKeep = 2 // billable tests stewardship approves per turn where tests are counted, not priced
)

// Deliberate is the role's deterministic note.
func (b builtinMember) Deliberate(ctx context.Context, v clinic.DoctorView, notes []PanelNote) (PanelNote, error) {
	st := newState(v)
	cands := st.rank()
	prev := func(role string) PanelNote {
		for _, n := range notes {
			if n.Role == role {
				return n
			}
		}
		return PanelNote{}
	}
	fresh := func(tests []string) []string {
		var out []string
		for _, t := range tests {
			if t = st.canonical(t); !st.requested[t] && !st.avoid[t] && !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
		return out
	}
	switch b.role {
	case Hypothesis:
		d, err := Builtin{}.Decide(ctx, v)
		if err != nil {
			return PanelNote{}, err
		}
		working := workingNames(cands, v)
		final := st.finalize(cands, working)
		n := PanelNote{Differential: working, Final: &final, Ready: d.Output.Action == clinic.Finalize}
		if len(working) > 0 {
			n.Reason = "leading: " + working[0]
		}
		return n, nil
	case TestChooser:
		var tests []string
		if !st.requested[catalog.PhysicalKey] {
			tests = append(tests, catalog.PhysicalKey)
		}
		tests = append(tests, fresh(st.testPlan(cands))...)
		if len(tests) > panelTests {
			tests = tests[:panelTests]
		}
		var qs []string
		for _, t := range st.topicPlan(cands) {
			if !st.asked[t] && !st.avoidAsk[t] && len(qs) < panelTopics {
				qs = append(qs, QuestionFor(t))
			}
		}
		return PanelNote{Tests: tests, Questions: qs, Reason: fmt.Sprintf("%d tests, %d questions to separate the candidates", len(tests), len(qs))}, nil
	case Challenger:
		if len(cands) < 2 {
			return PanelNote{Reason: "no alternative to argue for"}, nil
		}
		var tests []string
		for _, t := range fresh(st.testPlan(cands[1:2])) {
			if !slices.Contains(prev(TestChooser).Tests, t) {
				tests = append(tests, t)
				break
			}
		}
		return PanelNote{Differential: []string{cands[1].name}, Tests: tests, Reason: "consider " + cands[1].name}, nil
	case Stewardship:
		return steward(v, st, append(slices.Clone(prev(TestChooser).Tests), prev(Challenger).Tests...)), nil
	case Checklist:
		tests := fresh(prev(Stewardship).Tests)
		var qs []string
		for _, q := range prev(TestChooser).Questions {
			if !askedBefore(v, q) {
				qs = append(qs, q)
			}
		}
		return PanelNote{Tests: tests, Questions: qs, Reason: "checked names and repeats"}, nil
	}
	return PanelNote{}, fmt.Errorf("panel: unknown role %q", b.role)
}

// steward is the built-in stewardship's note on the proposed tests: an
// examination is always approved; a billable test, where the view prices
// tests (Costs), when its price fits in what is left of the budget with the
// tests approved before it (all of them without a budget), else, by count,
// within the test budget and stewardKeep a turn.
func steward(v clinic.DoctorView, st *state, proposed []string) PanelNote {
	var free, billable, ok, vetoed []string
	for _, t := range proposed {
		if it, m := st.catalog.Lookup(t); m != catalog.MatchNone && it.Free() {
			free = append(free, t)
		} else {
			billable = append(billable, t)
		}
	}
	if _, priced := v.Ext.(Costs); priced {
		ok = Affordable(v, billable)
	} else {
		ok = billable[:min(len(billable), stewardKeep, max(v.MaxTests-v.TestsUsed, 0))]
	}
	for _, t := range billable {
		if !slices.Contains(ok, t) {
			vetoed = append(vetoed, t)
		}
	}
	return PanelNote{Tests: append(free, ok...), Vetoed: vetoed, Reason: fmt.Sprintf("approve %d, veto %d", len(free)+len(ok), len(vetoed))}
}

// askedBefore reports whether q was asked on an earlier turn, alone or as
// part of a turn's questions.
func askedBefore(v clinic.DoctorView, q string) bool {
	n := textmatch.Normalize(q)
	for _, ex := range v.Exchanges {
		if strings.Contains(textmatch.Normalize(ex.Question), n) {
			return true
		}
	}
	return false
}
