// Package grader holds the manager, which scores an episode's outcome and process
// against the answer key, and the process grader, which labels every action.
package grader

import (
	"context"
	"math"
	"strings"

	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/textmatch"
)

// GradeDiagnosis grades a predicted diagnosis against the reference:
//
//	1    the prediction names the reference or an acceptable name (same words after normalisation);
//	0.75 the specific words of one name contain those of the other (a more or less specific name);
//	0.5  the specific words overlap by Jaccard >= 0.5;
//	0.25 they share at least one specific word;
//	0    otherwise, and always when the prediction names a dangerous alternative
//	     at 0.75 or better.
//
// "Specific words" are content words without generic ones (acute, chronic,
// disease, syndrome, infection, inflammation, ...), see textmatch.Specific;
// the grades below 1 need a shared specific word that is not a qualifier
// (a site or a kind: "chest", "viral", "failure"), so one shared filler or
// site word earns nothing (textmatch.SharesSpecific). The grade levels are
// clinevo's; EvoClinician's judge grades 0–100 without a rubric of words.
func GradeDiagnosis(pred string, dx clinic.Diagnosis) float64 {
	if strings.TrimSpace(pred) == "" {
		return 0
	}
	for _, d := range dx.Dangerous {
		if NameGrade(pred, d) >= 0.75 && NameGrade(pred, dx.Name) < 1 && bestAcceptable(pred, dx) < 1 {
			return 0
		}
	}
	return bestAcceptable(pred, dx)
}

func bestAcceptable(pred string, dx clinic.Diagnosis) float64 {
	best := NameGrade(pred, dx.Name)
	for _, a := range dx.Acceptable {
		best = math.Max(best, NameGrade(pred, a))
	}
	return best
}

// NameGrade is the grade of a predicted diagnosis against one reference
// name, on GradeDiagnosis's scale, before dangerous alternatives count.
func NameGrade(pred, ref string) float64 {
	if textmatch.Contradicts(textmatch.Claims(pred), textmatch.Claims(ref)) {
		return 0 // "not appendicitis" names appendicitis only to deny it
	}
	pa, ra := textmatch.Set(pred), textmatch.Set(ref)
	if len(pa) > 0 && textmatch.Subset(pa, ra) && textmatch.Subset(ra, pa) {
		return 1
	}
	p, r := textmatch.Specific(pred), textmatch.Specific(ref)
	if !textmatch.SharesSpecific(p, r) {
		return 0
	}
	switch j := textmatch.Jaccard(p, r); {
	case textmatch.Subset(p, r) || textmatch.Subset(r, p):
		return 0.75
	case j >= 0.5:
		return 0.5
	case j > 0:
		return 0.25
	}
	return 0
}

// Judgement is what a judge decides about a final output: the diagnosis grade
// and which evidence and plan items match, are unsupported, or are unsafe.
type Judgement struct {
	Diagnosis    float64  `json:"diagnosis"`
	Matched      []string `json:"matched_evidence"`      // key points matched
	Hallucinated []string `json:"hallucinated_evidence"` // evidence items not supported by anything revealed
	PlanMatched  []string `json:"matched_plan"`          // management key points matched
	Unsafe       []string `json:"unsafe_plan"`           // plan items that are unsafe
}

// Judge grades a final output against the answer key.
type Judge interface {
	// Judge returns the judgement; revealed is everything the doctor saw.
	Judge(ctx context.Context, c *clinic.Case, revealed string, final clinic.FinalOutput) (Judgement, error)
}

// DiagnosisGrade is a diagnosis-only grade on a 0–100 scale with its reason.
type DiagnosisGrade struct {
	Grade     int    `json:"grade"`
	Rationale string `json:"rationale"`
}

// DiagnosisJudge grades a submitted diagnosis alone against the reference,
// 0–100 (EvoClinician §3: the Judge's single graded mode, run deterministically).
type DiagnosisJudge interface {
	JudgeDiagnosis(ctx context.Context, c *clinic.Case, diagnosis []string) (DiagnosisGrade, error)
}

// RubricJudge is the built-in judge: GradeDiagnosis and lexical key-point
// matching with the thresholds of the scoring settings.
type RubricJudge struct{ W settings.Scoring }

var (
	_ Judge          = RubricJudge{}
	_ DiagnosisJudge = RubricJudge{}
)

// JudgeDiagnosis is the rubric's 0–100 equivalent: 100 times the five-level
// grade of the first submitted diagnosis (100, 75, 50, 25, 0; see GradeDiagnosis).
func (RubricJudge) JudgeDiagnosis(_ context.Context, c *clinic.Case, diagnosis []string) (DiagnosisGrade, error) {
	if len(diagnosis) == 0 {
		return DiagnosisGrade{Grade: 0, Rationale: "no diagnosis submitted"}, nil
	}
	g := GradeDiagnosis(diagnosis[0], c.Manager.Diagnosis)
	reason := map[float64]string{1: "the reference diagnosis or an accepted name", 0.75: "the same disease, more or less specific",
		0.5: "a closely related diagnosis", 0.25: "shares only part of the diagnosis", 0: "wrong or dangerous"}[g]
	return DiagnosisGrade{Grade: int(math.Round(100 * g)), Rationale: reason}, nil
}

// Judge applies the rubric.
func (r RubricJudge) Judge(_ context.Context, c *clinic.Case, revealed string, final clinic.FinalOutput) (Judgement, error) {
	w := r.W
	m := c.Manager
	var j Judgement
	if len(final.Diagnosis) > 0 {
		j.Diagnosis = GradeDiagnosis(final.Diagnosis[0], m.Diagnosis)
	}
	// What was revealed and what is claimed are read with their negations:
	// "no fever" is not supported by "I have a fever", nor "fever" by "I have no fever".
	seen := textmatch.Claims(revealed)
	j.Matched, _ = MatchPoints(m.Evidence, final.Evidence, w.MatchAt)
	for _, e := range final.Evidence {
		if claims := textmatch.Claims(e); textmatch.Coverage(claims, seen) < w.SupportAt || textmatch.Contradicts(claims, seen) {
			j.Hallucinated = append(j.Hallucinated, e)
		}
	}
	planItems := append(append([]string(nil), final.Plan...), final.Followup...)
	j.PlanMatched, _ = MatchPoints(m.Management, planItems, w.MatchAt)
	for _, p := range planItems {
		for _, u := range m.UnsafeManagement {
			if textmatch.Coverage(textmatch.Claims(u), textmatch.Claims(p)) >= 0.6 {
				j.Unsafe = append(j.Unsafe, p)
				break
			}
		}
	}
	return j, nil
}

// Score computes the manager's scores of a finished episode with the
// built-in judge; revealed is everything the doctor saw (episode.Env.Revealed).
func Score(c *clinic.Case, s settings.Settings, events []clinic.Event, final clinic.FinalOutput, revealed string) clinic.Scores {
	j, _ := RubricJudge{W: s.Scoring}.Judge(context.Background(), c, revealed, final) // the rubric never fails
	return Combine(c, s, events, final, j)
}

// Combine turns a judgement and the episode's process into scores.
func Combine(c *clinic.Case, set settings.Settings, events []clinic.Event, final clinic.FinalOutput, j Judgement) clinic.Scores {
	w, cfg := set.Scoring, set.Episode
	var s clinic.Scores
	m := c.Manager
	s.Diagnosis = j.Diagnosis
	s.Strict = s.Diagnosis == 1
	if k := len(m.Evidence); k > 0 {
		v := math.Max(0, (float64(len(j.Matched))-w.Lambda*float64(len(j.Hallucinated)))/float64(k))
		s.Evidence, s.Matched, s.Halluc = &v, j.Matched, j.Hallucinated
	}
	planItems := append(append([]string(nil), final.Plan...), final.Followup...)
	if k := len(m.Management); k > 0 {
		v := math.Max(0, (float64(len(j.PlanMatched))-w.Mu*float64(len(j.Unsafe)))/float64(k))
		s.Plan, s.PlanHit, s.Unsafe = &v, j.PlanMatched, j.Unsafe
	}
	num, den := w.Diagnosis*s.Diagnosis, w.Diagnosis
	if s.Evidence != nil {
		num, den = num+w.Evidence**s.Evidence, den+w.Evidence
	}
	if s.Plan != nil {
		num, den = num+w.Plan**s.Plan, den+w.Plan
	}
	s.S = Round4(num / den)
	s.Pass = s.S >= w.PassAt
	s.Grade = int(math.Round(100 * s.S))
	s.Referral = referral(m.Referral, planItems)

	s.T, s.E, s.R = Process(events, cfg)
	// MedEvoEval §4 and C.2: U = w1·S − w2·T/Tmax − w3·E/Emax − w4·R.
	u := w.US*s.S - w.UT*float64(s.T)/float64(cfg.MaxTurns) - w.UR*s.R
	if cfg.MaxTests > 0 {
		u -= w.UE * float64(s.E) / float64(cfg.MaxTests)
	}
	s.U = Round4(u)
	for _, ev := range events {
		s.Cost += ev.Cost
	}
	s.Cost = Round4(s.Cost)
	s.MustAsk = MustAsk(m.MustAsk, events)
	s.Required = required(m.RequiredActions, events)
	return s
}

// Process computes MedEvoEval's process metrics from the event log (appendix C.3):
//
//	T = #ASK + #REQUEST_TEST + #CALL_MDT, where #CALL_MDT = 0 when consultation is disabled;
//	E = #REQUEST_TEST;
//	R = I/E (0 when E = 0), where I counts the requests that returned nothing new:
//	    unavailable, unparseable, invalid or off-catalog, repeated (duplicate) and
//	    refused over the test budget.
//
// Every REQUEST_TEST counts in E, the free physical examination included; a
// FINALIZE (valid or not) and an unparseable turn with no action count in
// neither T nor E.
func Process(events []clinic.Event, cfg settings.Episode) (t, e int, r float64) {
	invalid := 0
	for _, ev := range events {
		switch ev.Action {
		case clinic.Ask:
			t++
		case clinic.CallMDT:
			if cfg.MDTAllowed() {
				t++
			}
		case clinic.RequestTest:
			t++
			e++
			if ev.Status != clinic.StatusReturned {
				invalid++
			}
		}
	}
	if e > 0 {
		r = Round4(float64(invalid) / float64(e))
	}
	return t, e, r
}

// MatchPoints returns the key points that some item covers (at least the
// share at of a point's words, a denied word counting only where the item
// denies it too: textmatch.Claims) without contradicting it, and those none
// does: "no fever" is not "fever with rigors", "denies chest pain" not
// "chest pain on exertion".
func MatchPoints(points, items []string, at float64) (matched, missed []string) {
	sets := make([]map[string]bool, len(items))
	for i, it := range items {
		sets[i] = textmatch.Claims(it)
	}
	for _, p := range points {
		ps := textmatch.Claims(p)
		hit := false
		for _, s := range sets {
			if textmatch.Coverage(ps, s) >= at && !textmatch.Contradicts(ps, s) {
				hit = true
				break
			}
		}
		if hit {
			matched = append(matched, p)
		} else {
			missed = append(missed, p)
		}
	}
	return matched, missed
}

// Referral outcomes.
const (
	ReferralCorrect   = "correct"
	ReferralMissed    = "missed"
	ReferralUnneeded  = "unneeded"
	ReferralNotScored = "not_scored"
	ReferralNone      = "none_needed"
)

func referral(r *clinic.Referral, plan []string) string {
	if r == nil {
		return ReferralNotScored
	}
	refers := false
	for _, p := range plan {
		t := textmatch.Normalize(p)
		if strings.Contains(t, "refer") || strings.Contains(t, "admit") || strings.Contains(t, "emergency") || strings.Contains(t, "transfer") || strings.Contains(t, "same day") {
			refers = true
		}
	}
	switch {
	case r.Needed && refers:
		return ReferralCorrect
	case r.Needed:
		return ReferralMissed
	case refers:
		return ReferralUnneeded
	}
	return ReferralNone
}

// AskedTopics returns the history topics covered by answered questions.
func AskedTopics(events []clinic.Event) map[string]bool {
	covered := map[string]bool{}
	for _, ev := range events {
		if ev.Action != clinic.Ask || ev.Status != clinic.StatusReturned {
			continue
		}
		for _, t := range episode.QuestionTopics(ev.Question) {
			covered[t] = true
		}
		if ev.Topic != "" {
			covered[ev.Topic] = true
		}
	}
	return covered
}

// MustAsk is the share of the must-ask topics the events asked about (1
// when there are none).
func MustAsk(topics []string, events []clinic.Event) float64 {
	if len(topics) == 0 {
		return 1
	}
	covered := AskedTopics(events)
	n := 0
	for _, t := range topics {
		if covered[t] {
			n++
		}
	}
	return Round4(float64(n) / float64(len(topics)))
}

func required(actions []string, events []clinic.Event) float64 {
	if len(actions) == 0 {
		return 1
	}
	covered := AskedTopics(events)
	n := 0
	for _, a := range actions {
		kind, target, _ := strings.Cut(a, ":")
		for _, ev := range events {
			if string(ev.Action) != kind {
				continue
			}
			ok := false
			switch ev.Action {
			case clinic.RequestTest:
				done := ev.Status == clinic.StatusReturned || ev.Status == clinic.StatusDuplicate
				full := ev.Test == catalog.PhysicalKey && strings.HasSuffix(target, " examination")
				ok = done && (full || catalog.Key(ev.Test) == catalog.Key(target))
			case clinic.Ask:
				ok = covered[target]
			default:
				ok = ev.Status == clinic.StatusReturned || ev.Status == clinic.StatusFinalized
			}
			if ok {
				n++
				break
			}
		}
	}
	return Round4(float64(n) / float64(len(actions)))
}

// Round4 rounds a score, a rate or a cost to four decimals, as the scorers
// of the manager and of every benchmark store them (clinevo's choice: finer
// than any figure a report shows, and the float noise of sums and ratios
// stays out of records).
func Round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// Indicator is 1 for true and 0 for false: a yes/no outcome as a score, a
// rate's term, or a count.
func Indicator(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
