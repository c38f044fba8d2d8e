package gpagent

import (
	"fmt"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/textmatch"
)

// Key is the benchmark's part of the manager's write-back (grader.Key.Bench):
// the case's management label and its referral answer (where, how soon, the
// red flags), what the labels and lessons of the six actions read.
type Key struct {
	Pathway string           `json:"pathway,omitempty"`
	Refer   *clinic.Referral `json:"refer,omitempty"`
}

var (
	_ grader.KeyMaker = Benchmark{}
	_ grader.Labeler  = Benchmark{}
)

// WriteBack is the case's Key.
func (Benchmark) WriteBack(c *clinic.Case, _ clinic.Scores) any {
	return Key{Pathway: Pathway(c), Refer: c.Manager.Referral}
}

// keyOf is the benchmark's part of a write-back key; false under score-only
// feedback (no key).
func keyOf(k *grader.Key) (Key, bool) {
	if k == nil {
		return Key{}, false
	}
	gk, ok := k.Bench.(Key)
	return gk, ok
}

// LabelAction labels the workflow's own actions (label), and a test by its
// own diagnostic cost (Event.Cost: the Table 4 price the environment
// charged) where the shared labels would price it by the default catalog;
// questions are the shared labels'.
func (Benchmark) LabelAction(ev clinic.Event, lc grader.LabelContext) (grader.ActionGrade, bool) {
	switch ev.Action {
	case BodyExam, Diagnose, Treat, Refer:
		return label(ev, lc.Outcome, lc.Key, lc.Supports), true
	case clinic.RequestTest:
		return grader.LabelTest(ev, lc, ev.Cost), true
	}
	return grader.ActionGrade{}, false
}

// label labels GPAgentBench's own actions (§4): an examination by its
// yield, a diagnosis by its grade, and the two terminal actions by whether the
// pathway was right, with the write-back key where there is one and the score
// otherwise.
func label(ev clinic.Event, s grader.Outcome, key *grader.Key, supports func(string) bool) grader.ActionGrade {
	a := grader.ActionGrade{Turn: ev.Turn, Action: ev.Action, Target: StepOfEvent(ev).Target}
	gk, hasKey := keyOf(key)
	switch {
	case ev.Status == clinic.StatusMasked:
		a.Label, a.Rationale = grader.Inefficient, fmt.Sprintf("%s is masked in that workflow state: a wasted turn and c_workflow", ActionName(ev.Action))
		return a
	case ev.Status == clinic.StatusUnparseable || ev.Status == clinic.StatusInvalid:
		a.Label, a.Rationale = grader.Inefficient, "the action was "+string(ev.Status)
		return a
	}
	switch ev.Action {
	case BodyExam:
		switch {
		case ev.Status != clinic.StatusReturned:
			a.Label, a.Rationale = grader.Inefficient, "the examination was "+string(ev.Status)
		case hasKey && gk.Refer != nil && ShowsRedFlag(ev.Reply, gk.Refer.RedFlags):
			a.Label, a.Rationale = grader.HighYield, "the examination showed a red flag"
		case supports(ev.Reply):
			a.Label, a.Rationale = grader.HighYield, "the finding was used in the assessment"
		default:
			a.Label, a.Rationale = grader.LowYield, "the finding did not change the assessment"
		}
	case Diagnose:
		a.Target = first(ev.WorkingDiagnoses)
		switch {
		case key != nil && key.DiagnosisGrade >= 1:
			a.Label, a.Rationale = grader.HighYield, "the reference diagnosis"
		case hasKey && gk.Pathway == PathwayRefer:
			a.Label, a.Rationale = grader.LowYield, "committed to local management of a case that needed referral"
		case key != nil:
			a.Label, a.Rationale = grader.LowYield, "not the reference diagnosis"
		case s.Pass:
			a.Label, a.Rationale = grader.HighYield, fmt.Sprintf("led to a passing outcome (S=%.2f)", s.S)
		default:
			a.Label, a.Rationale = grader.LowYield, fmt.Sprintf("the outcome did not pass (S=%.2f)", s.S)
		}
	case Treat:
		switch {
		case hasKey && gk.Pathway == PathwayRefer:
			a.Label, a.Rationale = grader.CriticalError, "a missed referral: treated locally a case that needed escalation"
		case key != nil && len(key.Unsafe) > 0:
			a.Label, a.Rationale = grader.CriticalError, "the plan contains unsafe management"
		case key == nil && s.S == 0:
			a.Label, a.Rationale = grader.CriticalError, "the outcome scored 0: a wrong pathway or a wrong diagnosis"
		case s.Pass:
			a.Label, a.Rationale = grader.HighYield, fmt.Sprintf("a passing local management (S=%.2f)", s.S)
		default:
			a.Label, a.Rationale = grader.LowYield, fmt.Sprintf("local management that did not pass (S=%.2f)", s.S)
		}
	case Refer:
		switch {
		case hasKey && gk.Pathway == PathwayManage:
			a.Label, a.Rationale = grader.Inefficient, "an unnecessary referral: the case was manageable in primary care"
		case key == nil && s.S == 0:
			a.Label, a.Rationale = grader.Inefficient, "the referral scored 0: most likely unnecessary"
		case s.S >= 1:
			a.Label, a.Rationale = grader.HighYield, "a needed referral to a right destination"
		default:
			a.Label, a.Rationale = grader.LowYield, fmt.Sprintf("the referral did not reach a right destination (S=%.2f)", s.S)
		}
	}
	return a
}

// ShowsRedFlag reports whether a reply shows one of the red flags: it holds
// at least half of the flag's content words.
func ShowsRedFlag(reply string, redFlags []string) bool {
	rs := textmatch.Set(reply)
	for _, f := range redFlags {
		if textmatch.Coverage(textmatch.Set(f), rs) >= 0.5 {
			return true
		}
	}
	return false
}

func first(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return xs[0]
}
