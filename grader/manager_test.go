package grader_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/grader"
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

// TestScoreHandComputed checks every formula against numbers worked out by hand
// (see the comments).
func TestScoreHandComputed(t *testing.T) {
	c := anginaCase()
	cfg := episode.DefaultConfig() // Tmax 10, Emax 3
	w := grader.DefaultWeights()   // λ 0.5, μ 1
	final := clinic.FinalOutput{
		Diagnosis: []string{"Angina pectoris"},
		Evidence:  []string{"chest tightness on exertion", "relieved by rest", "troponin normal", "history of diabetes"},
		Plan:      []string{"aspirin and statin", "discharge without follow up"},
		Followup:  []string{"review in two weeks"},
	}
	s := grader.Score(&c, cfg, anginaEvents(), final, w)
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
	// T = 3 non-final actions; E = 2 billable tests, 1 unavailable: R = 0.5
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
	s = grader.Score(&c, cfg, anginaEvents(), final, w)
	require.InDelta(t, 0.825+0.2*0.5, s.S, 1e-9) // both management points now matched: plan = 1
	require.True(t, s.Pass)
	require.Equal(t, grader.ReferralCorrect, s.Referral)
}

func TestPlanNotScoredIsNotZero(t *testing.T) {
	c := anginaCase()
	c.Manager.Management = nil
	final := clinic.FinalOutput{Diagnosis: []string{"stable angina"}, Evidence: []string{"chest tightness on exertion", "relieved by rest", "troponin normal"}}
	s := grader.Score(&c, episode.DefaultConfig(), anginaEvents(), final, grader.DefaultWeights())
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
	s := grader.Score(&c, episode.DefaultConfig(), events, final, grader.DefaultWeights())
	key := &grader.Key{Evidence: c.Manager.Evidence, Dangerous: c.Manager.Diagnosis.Dangerous}
	g := grader.GradeProcess(events, final, s, key, nil)
	var labels []grader.Label
	for _, a := range g.Actions {
		labels = append(labels, a.Label)
	}
	require.Equal(t, []grader.Label{grader.HighYield, grader.HighYield, grader.Inefficient, grader.Inefficient, grader.Inefficient, grader.CriticalError}, labels)
	require.Contains(t, g.Actions[3].Rationale, "700 USD")
	require.Contains(t, g.Summary, "6 actions")
}
