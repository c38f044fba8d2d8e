package grader_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/medevoeval"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
)

func anginaCase() clinic.Case {
	return clinic.Case{ID: "t1", Patient: clinic.PatientView{OpeningComplaint: "My chest hurts", Demographics: clinic.Demographics{Text: "60-year-old man"}},
		Manager: clinic.ManagerView{
			Diagnosis:        clinic.Diagnosis{Name: "Stable angina", Acceptable: []string{"angina pectoris"}, Dangerous: []string{"acute coronary syndrome"}},
			Evidence:         []string{"chest tightness on exertion", "relieved by rest", "smoker", "normal troponin"},
			Management:       []string{"aspirin and statin", "refer to chest pain clinic"},
			UnsafeManagement: []string{"discharge without follow up"},
			Referral:         &clinic.Referral{Needed: true, Destination: "cardiology", Urgency: "urgent"},
			MustAsk:          []string{clinic.TopicTriggers, clinic.TopicSocial},
			RequiredActions:  []string{"REQUEST_TEST:troponin", "REQUEST_TEST:ecg"},
		}}
}

func anginaEvents() []clinic.Event {
	return []clinic.Event{
		{Turn: 0, Action: clinic.Ask, Question: "What brings it on?", Status: clinic.StatusReturned, Reply: "Tightness in my chest on exertion, relieved by rest.", RevealedFacts: []string{"f1"}, Cost: 5},
		{Turn: 1, Action: clinic.RequestTest, Test: "troponin", Status: clinic.StatusReturned, Reply: "Troponin normal.", Cost: 45},
		{Turn: 2, Action: clinic.RequestTest, Test: "unobtainium", Status: clinic.StatusUnavailable, Cost: 5},
		{Turn: 3, Action: clinic.Finalize, Status: clinic.StatusFinalized, Cost: 5},
	}
}

// score scores events with the built-in judge under the default settings
// (Tmax 10, Emax 3, λ 0.5, μ 1), reading what was revealed off the episode.
func score(c *clinic.Case, s settings.Settings, events []clinic.Event, final clinic.FinalOutput) clinic.Scores {
	env := episode.Restore(*c, s.Episode, medevoeval.Rules(), episode.Roles{}, events)
	return grader.Score(c, s, events, final, env.Revealed())
}

// TestScoreHandComputed checks every formula against numbers worked out by hand
// (see the comments).
func TestScoreHandComputed(t *testing.T) {
	c := anginaCase()
	set := settings.Default()
	final := clinic.FinalOutput{
		Diagnosis: []string{"Angina pectoris"},
		Evidence:  []string{"chest tightness on exertion", "relieved by rest", "troponin normal", "history of diabetes"},
		Plan:      []string{"aspirin and statin", "discharge without follow up"},
		Followup:  []string{"review in two weeks"},
	}
	s := score(&c, set, anginaEvents(), final)
	require.Equal(t, 1.0, s.Diagnosis) // an acceptable name
	require.True(t, s.Strict)
	// 3 of 4 key points matched, 1 hallucinated (diabetes was never revealed): (3 − 0.5·1)/4
	require.Equal(t, []string{"history of diabetes"}, s.Halluc)
	require.InDelta(t, 0.625, *s.Evidence, 1e-9)
	// 1 of 2 management points matched, 1 unsafe item: max(0, (1 − 1·1)/2)
	require.Equal(t, []string{"discharge without follow up"}, s.Unsafe)
	require.InDelta(t, 0.0, *s.Plan, 1e-9)
	// S = 0.5·1 + 0.3·0.625 + 0.2·0 = 0.6875, below the 0.7 pass mark
	require.InDelta(t, 0.6875, s.S, 1e-9)
	require.False(t, s.Pass)
	require.Equal(t, 69, s.Grade)
	// MedEvoEval C.3: T = #ASK + #REQUEST_TEST = 1 + 2; E = #REQUEST_TEST = 2, I = 1 unavailable: R = 0.5
	require.Equal(t, 3, s.T)
	require.Equal(t, 2, s.E)
	require.InDelta(t, 0.5, s.R, 1e-9)
	// U = 0.6·0.6875 − 0.2·3/10 − 0.1·2/3 − 0.1·0.5 = 0.235833…
	require.InDelta(t, 0.2358, s.U, 1e-9)
	require.InDelta(t, 60.0, s.Cost, 1e-9)
	require.Equal(t, grader.ReferralMissed, s.Referral)
	require.InDelta(t, 0.5, s.MustAsk, 1e-9)  // triggers asked, social not
	require.InDelta(t, 0.5, s.Required, 1e-9) // troponin done, ECG not

	// Without the hallucination and the unsafe item the same episode passes:
	// S = 0.5 + 0.3·3/4 + 0.2·1/2 = 0.825
	final.Evidence = final.Evidence[:3]
	final.Plan = []string{"aspirin and statin", "refer to the chest pain clinic"}
	s = score(&c, set, anginaEvents(), final)
	require.InDelta(t, 0.825+0.2*0.5, s.S, 1e-9) // both management points now matched: plan = 1
	require.True(t, s.Pass)
	require.Equal(t, grader.ReferralCorrect, s.Referral)
}

func TestPlanNotScoredIsNotZero(t *testing.T) {
	c := anginaCase()
	c.Manager.Management = nil
	final := clinic.FinalOutput{Diagnosis: []string{"stable angina"}, Evidence: []string{"chest tightness on exertion", "relieved by rest", "troponin normal"}}
	s := score(&c, settings.Default(), anginaEvents(), final)
	require.Nil(t, s.Plan, "no management key points: the plan is not scored")
	// S renormalises over the scored parts: (0.5·1 + 0.3·0.75) / 0.8
	require.InDelta(t, 0.9063, s.S, 1e-4)
}

func TestGradeDiagnosis(t *testing.T) {
	angina := anginaCase().Manager.Diagnosis
	pneumonia := clinic.Diagnosis{Name: "Community-acquired pneumonia", Dangerous: []string{"pulmonary embolism"}}
	tests := []struct {
		pred string
		dx   clinic.Diagnosis
		want float64
	}{
		{"Stable angina", angina, 1},
		{"stable  ANGINA.", angina, 1},
		{"angina pectoris", angina, 1},
		{"angina", angina, 0.75},                  // less specific
		{"variant angina pectoris", angina, 0.75}, // more specific than an acceptable name
		{"acquired pneumonia aspiration", pneumonia, 0.5},
		{"unstable angina", angina, 0.25},      // shares a specific word
		{"acute coronary syndrome", angina, 0}, // a dangerous alternative
		{"pulmonary embolism", pneumonia, 0},
		{"reflux", angina, 0},
		{"", angina, 0},
	}
	// Near-miss pairs: names that share only clinical filler, a site or a kind
	// earn nothing; each was 0.25 or more before the floor (the last 0.75).
	for _, nm := range []struct{ pred, ref string }{
		{"urinary tract infection", "chest infection"},
		{"viral pharyngitis", "viral gastroenteritis"},
		{"acute otitis media", "acute sinusitis"},
		{"iron deficiency anaemia", "vitamin B12 deficiency"},
		{"heart failure", "renal failure"},
		{"pulmonary embolism", "pulmonary fibrosis"},
		{"chronic kidney disease", "chronic liver disease"},
		{"allergic rhinitis", "allergic conjunctivitis"},
		{"inflammatory arthritis", "inflammatory bowel disease"},
		{"chest infection", "chest wall pain"},
	} {
		tests = append(tests, struct {
			pred string
			dx   clinic.Diagnosis
			want float64
		}{nm.pred, clinic.Diagnosis{Name: nm.ref}, 0})
	}
	// ... while a shared disease word still counts.
	tests = append(tests, struct {
		pred string
		dx   clinic.Diagnosis
		want float64
	}{"allergic conjunctivitis", clinic.Diagnosis{Name: "bacterial conjunctivitis"}, 0.25},
		struct {
			pred string
			dx   clinic.Diagnosis
			want float64
		}{"pneumonia", clinic.Diagnosis{Name: "bacterial pneumonia"}, 0.75},
		struct {
			pred string
			dx   clinic.Diagnosis
			want float64
		}{"urinary tract infection", clinic.Diagnosis{Name: "lower urinary tract infection"}, 0.75})
	for _, tc := range tests {
		t.Run(tc.pred, func(t *testing.T) {
			require.Equal(t, tc.want, grader.GradeDiagnosis(tc.pred, tc.dx))
		})
	}
}

func TestProcessLabels(t *testing.T) {
	c := anginaCase()
	events := append(anginaEvents()[:3],
		clinic.Event{Turn: 3, Action: clinic.RequestTest, Test: "mri brain", Status: clinic.StatusReturned, Reply: "Normal brain.", Cost: 705},
		clinic.Event{Turn: 4, Action: clinic.Ask, Question: "What brings it on?", Status: clinic.StatusReturned, Cached: true},
		clinic.Event{Turn: 5, Action: clinic.Finalize, Status: clinic.StatusFinalized})
	final := clinic.FinalOutput{Diagnosis: []string{"acute coronary syndrome"}, Evidence: []string{"chest tightness on exertion", "troponin normal"}}
	s := score(&c, settings.Default(), events, final)
	key := &grader.Key{Evidence: c.Manager.Evidence, Dangerous: c.Manager.Diagnosis.Dangerous}
	g := grader.GradeProcess(grader.ProcessInput{Events: events, Final: final, Outcome: grader.OutcomeOf(s)}, key, nil)
	var labels []grader.Label
	for _, a := range g.Actions {
		labels = append(labels, a.Label)
	}
	require.Equal(t, []grader.Label{grader.HighYield, grader.HighYield, grader.Inefficient, grader.Inefficient, grader.Inefficient, grader.CriticalError}, labels)
	require.Contains(t, g.Actions[3].Rationale, "700 USD")
	require.Contains(t, g.Summary, "6 actions")
}

// TestProcessMetricsAsPublished checks T, E, R and U against MedEvoEval's
// definitions (appendix C.3, and §4 / C.2 for U) on traces worked out by hand.
func TestProcessMetricsAsPublished(t *testing.T) {
	ev := func(turn int, a clinic.ActionKind, test string, st clinic.Status) clinic.Event {
		return clinic.Event{Turn: turn, Action: a, Test: test, Status: st}
	}
	mdtOff := settings.Default().Episode
	mdtOff.MDT = settings.MDTOff
	tests := []struct {
		name   string
		cfg    settings.Episode
		events []clinic.Event
		t, e   int
		r      float64
	}{
		{name: "the issue's trace: an off-catalog and an unmatched request, an incomplete FINALIZE", cfg: settings.Default().Episode,
			// T = 0 ASK + 3 REQUEST_TEST + 0 CALL_MDT = 3 (neither FINALIZE counts);
			// E = 3; I = 2 (invalid off-catalog, unavailable): R = 2/3.
			events: []clinic.Event{ev(0, clinic.RequestTest, "ct head", clinic.StatusInvalid), ev(1, clinic.RequestTest, "serum unobtainium", clinic.StatusUnavailable),
				ev(2, clinic.RequestTest, "troponin", clinic.StatusReturned), ev(3, clinic.Finalize, "", clinic.StatusInvalid), ev(4, clinic.Finalize, "", clinic.StatusFinalized)},
			t: 3, e: 3, r: 0.6667},
		{name: "CALL_MDT counts only when consultation is enabled", cfg: settings.Default().Episode,
			events: []clinic.Event{ev(0, clinic.Ask, "", clinic.StatusReturned), ev(1, clinic.CallMDT, "", clinic.StatusReturned), ev(2, clinic.Finalize, "", clinic.StatusFinalized)},
			t:      2, e: 0, r: 0},
		{name: "#CALL_MDT = 0 when consultation is disabled", cfg: mdtOff,
			events: []clinic.Event{ev(0, clinic.Ask, "", clinic.StatusReturned), ev(1, clinic.CallMDT, "", clinic.StatusInvalid), ev(2, clinic.Finalize, "", clinic.StatusFinalized)},
			t:      1, e: 0, r: 0},
		{name: "the examination counts in E; duplicate, over-budget and unparseable requests are invalid", cfg: settings.Default().Episode,
			// T = 5 REQUEST_TEST (the llm-error turn has no action) = 5; E = 5;
			// I = duplicate + over budget + unparseable = 3: R = 3/5.
			events: []clinic.Event{ev(0, clinic.RequestTest, "physical examination", clinic.StatusReturned), ev(1, clinic.RequestTest, "ecg", clinic.StatusReturned),
				ev(2, clinic.RequestTest, "ecg", clinic.StatusDuplicate), ev(3, clinic.RequestTest, "troponin", clinic.StatusOverBudget),
				ev(4, clinic.RequestTest, "", clinic.StatusUnparseable), {Turn: 5, Status: clinic.StatusUnparseable, LLMError: true}},
			t: 5, e: 5, r: 0.6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			T, E, R := grader.Process(tc.events, tc.cfg)
			require.Equal(t, tc.t, T)
			require.Equal(t, tc.e, E)
			require.InDelta(t, tc.r, R, 1e-9)
		})
	}

	// The trace scored whole: diagnosis 1; evidence 2 of 4 key points,
	// nothing hallucinated: 0.5; plan 2 of 2: 1. S = 0.5·1 + 0.3·0.5 + 0.2·1 = 0.85.
	// U = 0.6·0.85 − 0.2·3/10 − 0.1·3/3 − 0.1·2/3 = 0.51 − 0.06 − 0.1 − 0.0667 = 0.2833.
	// (The old count, T = 4, E = 2, R = 0.5, gave U = 0.51 − 0.08 − 0.0667 − 0.05 = 0.3133.)
	c := anginaCase()
	c.Patient.OpeningComplaint = "Chest tightness on exertion, relieved by rest."
	events := tests[0].events
	events[2].Reply = "Troponin normal."
	final := clinic.FinalOutput{Diagnosis: []string{"Stable angina"}, Evidence: []string{"chest tightness on exertion", "troponin normal"},
		Plan: []string{"aspirin and statin", "refer to the chest pain clinic"}, Followup: []string{"review in two weeks"}}
	s := score(&c, settings.Default(), events, final)
	require.InDelta(t, 0.85, s.S, 1e-9)
	require.Equal(t, 3, s.T)
	require.Equal(t, 3, s.E)
	require.InDelta(t, 0.667, s.R, 5e-4)
	require.InDelta(t, 0.283, s.U, 5e-4)
}

// TestScoreOnlyGradingReadsTheScoreOnly grades the same trace with and
// without the write-back key: without it, a wrong diagnosis is critical only
// when the score itself is 0 (MedEvoEval C.1's "dangerous or clearly wrong").
func TestScoreOnlyGradingReadsTheScoreOnly(t *testing.T) {
	c := anginaCase()
	events := anginaEvents()
	final := clinic.FinalOutput{Diagnosis: []string{"acute coronary syndrome"}, Evidence: []string{"chest tightness on exertion"}}
	s := score(&c, settings.Default(), events, final)
	in := grader.ProcessInput{Events: events, Final: final, Outcome: grader.OutcomeOf(s)}
	withKey := grader.GradeProcess(in, grader.KeyOf(&c, s), nil)
	require.Equal(t, grader.CriticalError, withKey.Actions[3].Label, "the key names the diagnosis a dangerous alternative")
	scoreOnly := grader.GradeProcess(in, nil, nil)
	require.Greater(t, s.S, 0.0)
	require.NotEqual(t, grader.CriticalError, scoreOnly.Actions[3].Label, "S > 0: the score alone shows no danger")
	in.Outcome.S = 0
	require.Equal(t, grader.CriticalError, grader.GradeProcess(in, nil, nil).Actions[3].Label)
}
