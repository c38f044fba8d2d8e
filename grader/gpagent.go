package grader

import (
	"fmt"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/textmatch"
)

// gradeGPAction labels GPAgentBench's own actions (§4): an examination by its
// yield, a diagnosis by its grade, and the two terminal actions by whether the
// pathway was right, with the write-back key where there is one and the score
// otherwise.
func gradeGPAction(ev clinic.Event, s Outcome, key *Key, supports func(string) bool) ActionGrade {
	a := ActionGrade{Turn: ev.Turn, Action: ev.Action, Target: ev.Target}
	switch {
	case ev.Status == clinic.StatusMasked:
		a.Label, a.Rationale = Inefficient, fmt.Sprintf("%s is masked in that workflow state: a wasted turn and c_workflow", ev.Action.Name())
		return a
	case ev.Status == clinic.StatusUnparseable || ev.Status == clinic.StatusInvalid:
		a.Label, a.Rationale = Inefficient, "the action was "+string(ev.Status)
		return a
	}
	switch ev.Action {
	case clinic.BodyExam:
		switch {
		case ev.Status != clinic.StatusReturned:
			a.Label, a.Rationale = Inefficient, "the examination was "+string(ev.Status)
		case key != nil && key.Refer != nil && ShowsRedFlag(ev.Reply, key.Refer.RedFlags):
			a.Label, a.Rationale = HighYield, "the examination showed a red flag"
		case supports(ev.Reply):
			a.Label, a.Rationale = HighYield, "the finding was used in the assessment"
		default:
			a.Label, a.Rationale = LowYield, "the finding did not change the assessment"
		}
	case clinic.Diagnose:
		a.Target = first(ev.WorkingDiagnoses)
		switch {
		case key != nil && key.DiagnosisGrade >= 1:
			a.Label, a.Rationale = HighYield, "the reference diagnosis"
		case key != nil && key.Pathway == clinic.PathwayRefer:
			a.Label, a.Rationale = LowYield, "committed to local management of a case that needed referral"
		case key != nil:
			a.Label, a.Rationale = LowYield, "not the reference diagnosis"
		case s.Pass:
			a.Label, a.Rationale = HighYield, fmt.Sprintf("led to a passing outcome (S=%.2f)", s.S)
		default:
			a.Label, a.Rationale = LowYield, fmt.Sprintf("the outcome did not pass (S=%.2f)", s.S)
		}
	case clinic.Treat:
		switch {
		case key != nil && key.Pathway == clinic.PathwayRefer:
			a.Label, a.Rationale = CriticalError, "a missed referral: treated locally a case that needed escalation"
		case key != nil && len(key.Unsafe) > 0:
			a.Label, a.Rationale = CriticalError, "the plan contains unsafe management"
		case key == nil && s.S == 0:
			a.Label, a.Rationale = CriticalError, "the outcome scored 0: a wrong pathway or a wrong diagnosis"
		case s.Pass:
			a.Label, a.Rationale = HighYield, fmt.Sprintf("a passing local management (S=%.2f)", s.S)
		default:
			a.Label, a.Rationale = LowYield, fmt.Sprintf("local management that did not pass (S=%.2f)", s.S)
		}
	case clinic.Refer:
		switch {
		case key != nil && key.Pathway == clinic.PathwayManage:
			a.Label, a.Rationale = Inefficient, "an unnecessary referral: the case was manageable in primary care"
		case key == nil && s.S == 0:
			a.Label, a.Rationale = Inefficient, "the referral scored 0: most likely unnecessary"
		case s.S >= 1:
			a.Label, a.Rationale = HighYield, "a needed referral to a right destination"
		default:
			a.Label, a.Rationale = LowYield, fmt.Sprintf("the referral did not reach a right destination (S=%.2f)", s.S)
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
