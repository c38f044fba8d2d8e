package klinike_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/klinike"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/evolver"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
)

// toolEpisode is a graded encounter in a tool sandbox: one question, an
// imaging order, a refused call and the recorded diagnosis.
func toolEpisode(pass bool) evolver.Input {
	events := []clinic.Event{
		{Turn: 0, Action: clinic.Ask, Question: "When did this start?", Status: clinic.StatusReturned, Reply: "Two days ago.", RevealedFacts: []string{"f1"}},
		toolEvent(clinic.Event{Turn: 1, Status: clinic.StatusReturned, Reply: "ct abdomen: aneurysm"}, "order_imaging", `{"modality":"CT","region":"abdomen"}`),
		toolEvent(clinic.Event{Turn: 2, Status: clinic.StatusInvalid}, "order_imaging", `{"modality":"PET"}`),
		toolEvent(clinic.Event{Turn: 3, Status: clinic.StatusFinalized,
			Final: &clinic.FinalOutput{Diagnosis: []string{"Abdominal aortic aneurysm"}}}, "record_diagnosis", `{"diagnosis":"Abdominal aortic aneurysm"}`),
	}
	s := 0.0
	if pass {
		s = 1
	}
	g := grader.GradeProcess(grader.ProcessInput{Events: events, Final: *events[3].Final, Outcome: grader.Outcome{S: s, Pass: pass}}, nil, klinike.Benchmark{})
	return evolver.Input{Run: "r", Pass: 1, Episode: 3, CaseID: "case-77", Opening: "Burning pain in my belly going through to my back",
		Events: events, Final: *events[3].Final, Outcome: grader.Outcome{S: s, Pass: pass}, Grade: g, WriteCards: true}
}

func lessonCard(out evolver.Output) *clinic.Card {
	for i, c := range out.Cards {
		if c.Kind == clinic.CardSuccess || c.Kind == clinic.CardCorrection {
			return &out.Cards[i]
		}
	}
	return nil
}

// TestToolLessons: with write-back the key's calls and must-ask topics go on
// the card and become CALL rules; under score-only feedback only a passing
// episode's executed calls do; an episode without tools learns no calls.
func TestToolLessons(t *testing.T) {
	cfg := settings.Default().Evolver
	own := &klinike.Key{Calls: []string{"get_patient_info()", "order_imaging(modality=CT, region=abdomen)", "admit_to_hospital()"},
		Avoid:   []string{"prescribe_medication(drug=amoxicillin)"},
		MustAsk: []string{"onset", "social"}}
	truth := &grader.Key{Diagnosis: "Abdominal aortic aneurysm", DiagnosisGrade: 0.25, Bench: own}
	t.Run("write-back", func(t *testing.T) {
		out := evolver.Evolve(cfg, toolEpisode(false), truth, nil, klinike.Benchmark{})
		c := lessonCard(out)
		require.NotNil(t, c)
		require.Equal(t, clinic.CardCorrection, c.Kind)
		require.Equal(t, own.Calls, c.Calls)
		require.Subset(t, c.Ask, []string{"onset", "social"})
		require.Contains(t, c.Text, "calls: get_patient_info(); order_imaging(modality=CT, region=abdomen)")
		require.Contains(t, c.Text, "never: prescribe_medication(drug=amoxicillin)")
		var calls []string
		for _, r := range out.Rules {
			if d, ok := clinic.ParseRule(r.Text); ok && d.Verb == clinic.VerbCall {
				calls = append(calls, d.Target)
				require.NotEmpty(t, d.When, "a rule is for presentations like this one")
			}
		}
		require.Equal(t, []string{"order_imaging(modality=CT, region=abdomen)"}, calls, "only calls with arguments become rules")
		require.False(t, slices.ContainsFunc(out.Rules, func(r clinic.Rule) bool { return strings.Contains(r.Text, "case-77") }))
	})
	t.Run("score-only, passed", func(t *testing.T) {
		c := lessonCard(evolver.Evolve(cfg, toolEpisode(true), nil, nil, klinike.Benchmark{}))
		require.NotNil(t, c)
		require.Equal(t, []string{"order_imaging(modality=CT, region=abdomen)"}, c.Calls, "executed calls only, not the refused one nor record_diagnosis")
	})
	t.Run("score-only, failed", func(t *testing.T) {
		out := evolver.Evolve(cfg, toolEpisode(false), nil, nil, klinike.Benchmark{})
		if c := lessonCard(out); c != nil {
			require.Empty(t, c.Calls)
		}
	})
	t.Run("no tools", func(t *testing.T) {
		in := toolEpisode(false)
		in.Events = in.Events[:1]
		in.Grade = grader.GradeProcess(grader.ProcessInput{Events: in.Events, Outcome: in.Outcome}, nil, klinike.Benchmark{})
		c := lessonCard(evolver.Evolve(cfg, in, truth, nil, klinike.Benchmark{}))
		require.NotNil(t, c)
		require.Empty(t, c.Calls, "a MedEvoEval episode learns as before")
		require.NotContains(t, c.Text, "calls:")
	})
}
