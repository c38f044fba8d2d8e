package grader

import (
	"context"
	"fmt"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/textmatch"
)

// GPJudge judges GPAgentBench's two semantic scores (appendix C.2): the
// diagnosis accuracy, 1 when the predicted diagnosis is clinically equivalent
// to the ground truth and 0 otherwise, and the treatment score in {0, 0.5, 1}
// against the ground-truth treatment.
type GPJudge interface {
	JudgeDx(ctx context.Context, c *clinic.Case, diagnosis string) (int, error)
	JudgeTx(ctx context.Context, c *clinic.Case, plan []string) (float64, error)
}

var _ GPJudge = RubricJudge{}

// JudgeDx is the rubric's reading of C.2's three rules: the same condition in
// other words counts (an accepted name: grade 1); so does a name that differs
// only in specificity when the core condition is kept ("pneumonia" for
// "bacterial pneumonia": the prediction is the more specific name, or holds at
// least half of the reference's specific words); a vague or overly broad name
// does not ("infection" for "urinary tract infection"), nor one naming a
// dangerous alternative.
func (RubricJudge) JudgeDx(_ context.Context, c *clinic.Case, diagnosis string) (int, error) {
	dx := c.Manager.Diagnosis
	switch GradeDiagnosis(diagnosis, dx) {
	case 1:
		return 1, nil
	case 0.75:
		p := textmatch.Specific(diagnosis)
		for _, ref := range append([]string{dx.Name}, dx.Acceptable...) {
			r := textmatch.Specific(ref)
			if nameGrade(diagnosis, ref) < 0.75 || len(r) == 0 {
				continue
			}
			if textmatch.Subset(r, p) || 2*len(p) >= len(r) {
				return 1, nil
			}
		}
	}
	return 0, nil
}

// txFullAt is the share of the ground-truth treatment items a plan must cover
// for the rubric's 1.
const txFullAt = 0.75

// JudgeTx is the rubric's reading of C.2's treatment rules: 0 when the plan
// holds an unsafe item of the case; 1 when it covers the key components (at
// least three quarters of the ground-truth treatment items, each matched as
// the evidence rubric matches key points); 0.5 when it covers some; 0 when it
// covers none.
func (r RubricJudge) JudgeTx(_ context.Context, c *clinic.Case, plan []string) (float64, error) {
	ref := c.Manager.TreatmentReference()
	if len(ref) == 0 {
		return 0, fmt.Errorf("case %s has no ground-truth treatment", c.ID)
	}
	for _, p := range plan {
		for _, u := range c.Manager.UnsafeManagement {
			if textmatch.Coverage(textmatch.Set(u), textmatch.Set(p)) >= 0.6 {
				return 0, nil
			}
		}
	}
	matched, _ := matchPoints(ref, plan, r.W.MatchAt)
	switch share := float64(len(matched)) / float64(len(ref)); {
	case share >= txFullAt:
		return 1, nil
	case share > 0:
		return 0.5, nil
	}
	return 0, nil
}

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
