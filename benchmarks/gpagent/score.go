package gpagent

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/textmatch"
)

// The reward weights of GPAgentBench's Table 7 (appendix C.6): the diagnosis
// and treatment rewards are the judges' scores times w_diag and w_treat.
const (
	WDiag  = 5.0
	WTreat = 3.0
)

// Names of the profile's metrics in clinic.Scores.Metrics. A metric an episode
// does not define is absent (Miss-Refer only on cases that need referral).
const (
	MetricDx = "dx" // diagnosis accuracy, 0 or 1, on every case (a referral names no diagnosis: 0)
	MetricTx = "tx" // treatment score, 0, 0.5 or 1, on every case with a treatment reference (not treated: 0)
	// The same two over the episodes that do not end in refer only: clinevo's
	// secondary figures (the accuracy of the diagnoses and plans made), not
	// the paper's, which averages over all test cases (§5, Table 1; C.2).
	MetricDxCommitted = "dx_committed"
	MetricTxCommitted = "tx_committed"
	MetricMgmt        = "mgmt"       // management accuracy, 0 or 1
	MetricMissRefer   = "miss_refer" // 1: a case needing referral was not referred (cases needing referral only)
	MetricMissGP      = "miss_gp"    // 1: a manageable case was not managed locally (manageable cases only)
	MetricDest        = "dest"       // referred to a right destination, 0 or 1 (cases needing referral only; no referral: 0)
	MetricTurns       = "turns"      // actions taken
	MetricDupRate     = "dup_rate"   // duplicated ask, body_exam and test actions per turn
	MetricDupAsk      = "dup_ask"    // duplicated actions per trajectory, by kind (§5.3, Table 3)
	MetricDupExam     = "dup_body_exam"
	MetricDupTest     = "dup_test"
	MetricMasked      = "masked"   // masked actions attempted (c_workflow each)
	MetricTimeout     = "timeout"  // 1: no terminal action within the turn limit (c_timeout)
	MetricReferred    = "referred" // 1: the episode ended in refer
)

// outcome is how a consultation ended: manage (treat), refer, or "" (a timeout).
func outcome(final clinic.FinalOutput, end clinic.Termination) string {
	if end != clinic.EndFinalized {
		return ""
	}
	return EndingOf(final).Disposition
}

// Score scores a finished consultation (appendix C.2). Management accuracy is
// 1 when the terminal action matches the case's label (treat for a manageable
// case, refer for one that needs escalation) and 0 otherwise, a timeout
// included; the safety cost is its complement, C_safety = 1[mgmt wrong].
// Miss-Refer is the safety failure of a case needing referral and Miss-GP
// that of a manageable case: averaged over their cases they are the false
// negative and the false positive rate with referral as the positive class
// (every episode ending in treat or refer), and a timeout counts as the
// failure of its case's class, so that Mgmt = 1 − (n_refer·MissRefer +
// n_manage·MissGP)/n exactly, as Table 1's rows satisfy (GPT-5.4: 201 refer
// cases at 51.2%, 284 manageable at 38.4%: (201·0.488 + 284·0.616)/485 =
// 56.3% = its Mgmt). Dx (binary) and Tx ({0, 0.5, 1}) come from the judge
// and are defined on every case, so that their means are over all test
// cases as the paper reports them (C.2: "We report the metrics averaged over
// all test cases"; §5, Table 1): an episode that ends in refer names no
// diagnosis and no plan (C.1's format) and scores 0 on both, as does a
// missing diagnosis or plan. dx_committed and tx_committed keep the two over
// the episodes that do not end in refer, a secondary figure. On a case
// that needs referral, Dest is 1 when the patient was referred to one of the
// case's destinations after normalisation (§5: "evaluated by string match")
// and 0 otherwise, a referral not made included: Dest ≤ 1 − Miss-Refer, and
// Dest/(1 − Miss-Refer) is the accuracy of the referrals made. The
// diagnostic cost is the tests' Table 4 prices (Event.Cost); turns count
// every action; the duplicated-action rate counts the ask, body_exam and test
// actions that repeat one already answered (§5.3).
//
// S, the headline every report and the learner read, is clinevo's, not the
// paper's: 0 on a wrong pathway (the safety constraint C_safety ≤ τ_safety = 0
// of Table 7, taken as hard); on a treated case the normalised reward
// (w_diag·Dx + w_treat·Tx)/(w_diag + w_treat); on a referred case
// (1 + dest)/2. The paper's reward w_diag·Dx + w_treat·Tx is the metric
// "reward" and C_safety the metric "cost_safety" (the trajectory export's
// per-step reward and safety cost).
func Score(ctx context.Context, c *clinic.Case, s settings.Settings, env episode.Env, judge Judge) (clinic.Scores, error) {
	if judge == nil {
		judge = rubric(s.Scoring)
	}
	events := env.Events()
	final, end := env.Final()
	out := outcome(final, end)
	m := map[string]float64{}
	var sc clinic.Scores
	dx, tx := 0.0, 0.0
	txScored := len(TreatmentReference(c)) > 0
	if out != PathwayRefer {
		if len(final.Diagnosis) > 0 {
			g, err := judge.JudgeDx(ctx, c, final.Diagnosis[0])
			if err != nil {
				return sc, fmt.Errorf("judge dx: %w", err)
			}
			dx = float64(g)
		}
		m[MetricDxCommitted] = dx
		if txScored {
			if out == PathwayManage {
				g, err := judge.JudgeTx(ctx, c, append(append([]string(nil), final.Plan...), final.Followup...))
				if err != nil {
					return sc, fmt.Errorf("judge tx: %w", err)
				}
				tx = g
			}
			m[MetricTxCommitted] = tx
		}
	}
	m[MetricDx] = dx
	if txScored {
		m[MetricTx] = tx
	}
	dest := 0.0
	if out == PathwayRefer && sameDestination(EndingOf(final).Destination, destinations(c.Manager.Referral)) {
		dest = 1
	}
	right := true
	switch label := Pathway(c); label {
	case PathwayManage, PathwayRefer:
		right = out == label
		m[MetricMgmt] = grader.Indicator(right)
		m[analysis.MetricSafetyCost] = grader.Indicator(!right)
		if label == PathwayRefer {
			m[MetricMissRefer] = grader.Indicator(!right)
			m[MetricDest] = dest
		} else {
			m[MetricMissGP] = grader.Indicator(!right)
		}
	}
	m[analysis.MetricReward] = WDiag*dx + WTreat*tx
	m[MetricTurns] = float64(len(events))
	ask, exam, test := duplicates(events)
	m[MetricDupAsk], m[MetricDupExam], m[MetricDupTest] = float64(ask), float64(exam), float64(test)
	if len(events) > 0 {
		m[MetricDupRate] = grader.Round4(float64(ask+exam+test) / float64(len(events)))
	}
	m[MetricMasked] = 0
	for _, ev := range events {
		if ev.Status == clinic.StatusMasked {
			m[MetricMasked]++
		}
		sc.Cost += ev.Cost
	}
	m[MetricTimeout] = grader.Indicator(end == clinic.EndTurnLimit)
	m[MetricReferred] = grader.Indicator(out == PathwayRefer)

	sc.S = grader.Round4(HeadlineS(right, out == PathwayRefer, txScored, dx, tx, dest))
	sc.Metrics = m
	sc.Diagnosis = dx
	sc.Strict = sc.S == 1
	sc.Pass = sc.S >= s.Scoring.PassAt
	sc.Grade = int(math.Round(100 * sc.S))
	sc.Cost = grader.Round4(sc.Cost)
	sc.T = len(events)
	_, sc.E, sc.R = grader.Process(events, s.Episode)
	sc.Referral = referral(Pathway(c), out)
	sc.MustAsk, sc.Required = grader.MustAsk(c.Manager.MustAsk, events), 1
	return sc, nil
}

// HeadlineS is clinevo's S of a consultation (see Score): 0 on a wrong
// pathway, (1 + dest)/2 on a referral, the normalised reward
// (w_diag·Dx + w_treat·Tx)/(w_diag + w_treat) on a treated case, and Dx where
// the corpus has no treatment reference.
func HeadlineS(right, referred, txScored bool, dx, tx, dest float64) float64 {
	switch {
	case !right:
		return 0
	case referred:
		return (1 + dest) / 2
	case txScored:
		return (WDiag*dx + WTreat*tx) / (WDiag + WTreat)
	}
	return dx
}

func referral(label, out string) string {
	switch {
	case label == "":
		return grader.ReferralNotScored
	case label == PathwayRefer && out == PathwayRefer:
		return grader.ReferralCorrect
	case label == PathwayRefer:
		return grader.ReferralMissed
	case out == PathwayRefer:
		return grader.ReferralUnneeded
	}
	return grader.ReferralNone
}

// duplicates counts the actions that repeat one already answered (§5.3,
// Table 3): a question asked before in the same words or one whose answer
// told only facts already told, an examination or a test already returned.
func duplicates(events []clinic.Event) (ask, exam, test int) {
	told := map[string]bool{}
	for _, ev := range events {
		switch ev.Action {
		case clinic.Ask:
			if ev.Status != clinic.StatusReturned {
				continue
			}
			fresh := false
			for _, id := range ev.RevealedFacts {
				fresh = fresh || !told[id]
				told[id] = true
			}
			if ev.Cached || (len(ev.RevealedFacts) > 0 && !fresh) {
				ask++
			}
		case BodyExam:
			if ev.Status == clinic.StatusDuplicate {
				exam++
			}
		case clinic.RequestTest:
			if ev.Status == clinic.StatusDuplicate {
				test++
			}
		}
	}
	return ask, exam, test
}

// sameDestination reports whether a referral's destination is one of the
// case's after normalisation (SameDestination).
func sameDestination(got string, want []string) bool {
	for _, w := range want {
		if SameDestination(got, w) {
			return true
		}
	}
	return false
}

// destinationSynonyms fold the usual names of a destination into one.
var destinationSynonyms = []struct{ from, to string }{
	{"accident and emergency", "emergency"}, {"a and e", "emergency"}, {"a e", "emergency"},
	{"emergency room", "emergency"}, {"emergency department", "emergency"}, {"ed", "emergency"}, {"er", "emergency"},
	{"ear nose and throat", "ent"}, {"otolaryngology", "ent"}, {"otorhinolaryngology", "ent"},
	{"eye casualty", "ophthalmology"}, {"mental health crisis", "crisis"},
}

// genericWords say what kind of place a destination is, not which.
var genericWords = map[string]bool{"the": true, "to": true, "a": true, "an": true, "of": true, "department": true, "dept": true,
	"clinic": true, "service": true, "services": true, "team": true, "unit": true, "specialist": true, "specialists": true,
	"referral": true, "outpatient": true, "outpatients": true, "hospital": true, "medicine": true}

// SameDestination compares two referral destinations by normalised string
// match (GPAgentBench §5): letter case, punctuation, generic words
// (department, clinic, team, specialist, ...), common synonyms (ED, A&E and
// emergency room; ENT), a specialist for the specialty (cardiologist,
// cardiology) and British and American spelling (haematology, hematology)
// are folded before the two are compared.
func SameDestination(a, b string) bool {
	ca, cb := canonicalDestination(a), canonicalDestination(b)
	return ca != "" && ca == cb
}

func canonicalDestination(d string) string {
	n := " " + textmatch.Normalize(d) + " "
	for _, s := range destinationSynonyms {
		n = strings.ReplaceAll(n, " "+s.from+" ", " "+s.to+" ")
	}
	var out []string
	for _, w := range strings.Fields(n) {
		if genericWords[w] {
			continue
		}
		w = strings.TrimSuffix(w, "s") // orthopaedics, paediatrics
		switch {
		case strings.HasSuffix(w, "ologist"):
			w = strings.TrimSuffix(w, "ist") + "y"
		case strings.HasSuffix(w, "surgeon"):
			w = strings.TrimSuffix(w, "eon") + "ery"
		}
		w = strings.ReplaceAll(strings.ReplaceAll(w, "ae", "e"), "oe", "e")
		out = append(out, w)
	}
	return strings.Join(out, " ")
}
