package evolver_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/evolver"
	"github.com/clinevo/clinevo/grader"
)

// attempt is an episode on the chest presentation as the doctor played it:
// a question on the triggers (answered "Walking uphill."), an ECG, then
// the final answer dx citing evidence; leads are the leading working
// diagnoses of the three decisions; forced ends it at the turn limit. Its
// score fails whatever it did: the self-judgement must not read it.
func attempt(dx string, evidence, leads []string, forced bool) evolver.Input {
	in := episode(1, "c1", dx, false)
	fin := &clinic.FinalOutput{Diagnosis: []string{dx}, Evidence: evidence}
	in.Final = *fin
	in.Events[2].Final = fin
	if forced {
		in.Events[2].Final, in.Events[2].ForcedFinal = nil, fin
	}
	for i, l := range leads {
		in.Events[i].WorkingDiagnoses = []string{l, "other"}
	}
	return in
}

func rbJudged(t *testing.T, in evolver.Input) (string, evolver.Output) {
	t.Helper()
	out, err := evolver.ReasoningBank{}.Evolve(context.Background(), cfg(), in, nil, nil)
	require.NoError(t, err)
	require.NotEmpty(t, out.Edits)
	return out.Edits[0], out
}

// The mechanical self-judgement reads what the doctor did and was told,
// never the score: every attempt below scored a fail (S = 0.3).
func TestReasoningBankJudgesItself(t *testing.T) {
	told := []string{"Walking uphill."}
	for _, tc := range []struct {
		name string
		in   evolver.Input
		want string
	}{
		{"settled and supported", attempt("angina", told, []string{"angina", "angina", "angina"}, false),
			"reasoningbank attempt 1 judged success: a named diagnosis that held to the end, with findings the doctor was told"},
		{"no diagnosis", attempt("undifferentiated chest pain", told, nil, false), "reasoningbank attempt 1 judged failure: no diagnosis was named"},
		{"turn limit", attempt("angina", told, nil, true),
			"reasoningbank attempt 1 judged failure: the turn limit ended the episode before the doctor committed"},
		// The ECG's result overturned the leader: pericarditis before the
		// last decision, angina at it.
		{"overturned", attempt("angina", told, []string{"angina", "pericarditis", "angina"}, false),
			"reasoningbank attempt 1 judged failure: the leading diagnosis changed at the last step"},
		{"unsupported", attempt("angina", []string{"crushing pain at rest"}, nil, false),
			"reasoningbank attempt 1 judged failure: no cited finding was something the doctor was told"},
		{"no evidence", attempt("angina", nil, nil, false),
			"reasoningbank attempt 1 judged failure: no cited finding was something the doctor was told"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := rbJudged(t, tc.in)
			require.Equal(t, tc.want, got)
		})
	}
	// A passing score does not make an unsupported answer a success.
	in := attempt("angina", nil, nil, false)
	in.Outcome = grader.Outcome{S: 0.9, Pass: true}
	got, _ := rbJudged(t, in)
	require.Contains(t, got, "judged failure")
}

// A success is a validated strategy suggesting its diagnosis with what was
// asked and returned; a failure a lesson warning against its diagnosis.
func TestReasoningBankDistilsStrategiesAndLessons(t *testing.T) {
	_, out := rbJudged(t, attempt("angina", []string{"Walking uphill."}, nil, false))
	require.Len(t, out.Cards, 1)
	c := out.Cards[0]
	require.Equal(t, clinic.CardStrategy, c.Kind)
	require.Equal(t, evolver.CardID("r", "c1", 1, 5000, "strategy"), c.ID)
	require.Equal(t, "angina", c.Diagnosis)
	require.Empty(t, c.Avoid)
	require.Equal(t, []string{clinic.TopicTriggers}, c.Ask)
	require.Equal(t, []string{"ecg"}, c.Tests)
	require.Equal(t, chest, c.Context)
	require.Contains(t, c.Text, "Title: A resolved presentation of this kind\nDescription: A like presentation was judged resolved as angina.\nContent: History asked: triggers; tests that came back: ecg;")

	_, out = rbJudged(t, attempt("angina", nil, nil, false))
	require.Len(t, out.Cards, 1)
	c = out.Cards[0]
	require.Equal(t, "angina", c.Avoid)
	require.Empty(t, c.Diagnosis)
	require.Empty(t, c.Ask)
	require.Contains(t, c.Text, "Description: A like presentation ended in angina, judged not resolved: no cited finding was something the doctor was told.")
}

// MaTTS's contrast of three attempts: two named angina and were judged
// successes (the second also asked about onset), one named pericarditis
// and failed (nothing it cited was told). Angina: 2 of 3 attempts, 2
// successes > 2/2, a validated strategy with what both successes shared
// (triggers, not onset; the ECG); pericarditis a lesson in the next slot.
func TestReasoningBankContrastsAttempts(t *testing.T) {
	told := []string{"Walking uphill."}
	first := attempt("angina", told, nil, false)
	second := attempt("angina", told, nil, false)
	second.Events = append([]clinic.Event{{Turn: 0, Action: clinic.Ask, Topic: clinic.TopicOnset, Question: "When did it start?",
		Status: clinic.StatusReturned, Reply: "A week ago.", RevealedFacts: []string{"f0"}}}, second.Events...)
	first.Attempts = []evolver.Input{second, attempt("pericarditis", []string{"pain lying flat"}, nil, false)}
	out, err := evolver.ReasoningBank{}.Evolve(context.Background(), cfg(), first, nil, nil)
	require.NoError(t, err)
	require.Len(t, out.Edits, 3)
	require.Contains(t, out.Edits[2], "attempt 3 judged failure")
	require.Len(t, out.Cards, 2)
	v, l := out.Cards[0], out.Cards[1]
	require.Equal(t, "angina", v.Diagnosis)
	require.Equal(t, []string{clinic.TopicTriggers}, v.Ask, "onset was asked by one success only")
	require.Equal(t, []string{"ecg"}, v.Tests)
	require.Contains(t, v.Text, "Description: 2 of 3 attempts named angina; 2 judged resolved.")
	require.Equal(t, "pericarditis", l.Avoid)
	require.Equal(t, evolver.CardID("r", "c1", 1, 5001, "strategy"), l.ID)
	require.Contains(t, l.Text, "Content: Do not settle on pericarditis: no cited finding was something the doctor was told.")

	// Identical attempts (the deterministic built-in doctors): one item,
	// in the slot a single attempt writes, saying they played alike.
	same := attempt("angina", told, nil, false)
	same.Attempts = []evolver.Input{same, same}
	out, err = evolver.ReasoningBank{}.Evolve(context.Background(), cfg(), same, nil, nil)
	require.NoError(t, err)
	require.Len(t, out.Cards, 1)
	require.Equal(t, evolver.CardID("r", "c1", 1, 5000, "strategy"), out.Cards[0].ID)
	require.Contains(t, out.Cards[0].Text, "Description: all 3 attempts played alike and named angina; judged success.")
	require.Equal(t, "angina", out.Cards[0].Diagnosis)
}

// With the evolver role's model: the model judges (shown no score) and
// extracts; at most 3 items are kept (arXiv 2509.25140 A.2); the first
// carries the verdict in the fields the built-in doctors read.
func TestReasoningBankAsksTheModel(t *testing.T) {
	item := `{"title":"t%d","description":"d","content":"c"}`
	model, srv := scripted(t, `{"thoughts":"the ECG does not fit","status":"failure"}`,
		`{"items":[`+fmt.Sprintf(item, 1)+`,`+fmt.Sprintf(item, 2)+`,`+fmt.Sprintf(item, 3)+`,`+fmt.Sprintf(item, 4)+`]}`)
	in := attempt("angina", []string{"Walking uphill."}, nil, false)
	in.Outcome = grader.Outcome{S: 0.87, Pass: true}
	out, err := evolver.ReasoningBank{Model: model}.Evolve(context.Background(), cfg(), in, nil, nil)
	require.NoError(t, err)
	require.Len(t, srv.Requests(), 2, "judge, then extract")
	for _, r := range srv.Requests() {
		require.NotContains(t, r.User, "0.87", "the score never reaches the judge or the extractor")
	}
	require.Contains(t, srv.Requests()[1].User, `"judged": "failure"`)
	require.Equal(t, "reasoningbank attempt 1 judged failure: the ECG does not fit", out.Edits[0])
	require.Len(t, out.Cards, 3)
	require.Equal(t, "Title: t1\nDescription: d\nContent: c", out.Cards[0].Text)
	require.Equal(t, "angina", out.Cards[0].Avoid)
	require.Empty(t, out.Cards[1].Avoid)
}

// Under MaTTS with a model: each attempt is judged, then one contrast
// request holds every attempt with its verdict (A.3 Figure 10); at most 5
// items are kept from it.
func TestReasoningBankAsksTheModelToContrast(t *testing.T) {
	var items []string
	for i := 1; i <= 6; i++ {
		items = append(items, fmt.Sprintf(`{"title":"t%d","description":"d","content":"c"}`, i))
	}
	model, srv := scripted(t, `{"thoughts":"fits","status":"success"}`, `{"thoughts":"does not fit","status":"failure"}`,
		`{"items":[`+strings.Join(items, ",")+`]}`)
	in := attempt("angina", []string{"Walking uphill."}, nil, false)
	in.Attempts = []evolver.Input{attempt("pericarditis", nil, nil, false)}
	out, err := evolver.ReasoningBank{Model: model}.Evolve(context.Background(), cfg(), in, nil, nil)
	require.NoError(t, err)
	require.Len(t, srv.Requests(), 3, "two judgements, one contrast")
	contrast := srv.Requests()[2].User
	require.Contains(t, contrast, `"trajectories"`)
	require.Contains(t, contrast, `"judged": "success"`)
	require.Contains(t, contrast, `"judged": "failure"`)
	require.Contains(t, contrast, "diagnosis pericarditis")
	require.Len(t, out.Cards, 5)
	require.Equal(t, "angina", out.Cards[0].Diagnosis, "the first attempt was judged a success")
}
