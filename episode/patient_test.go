package episode_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus/corpustest"
	"github.com/clinevo/clinevo/corpus/synth"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/textmatch"
)

// probes are questions a doctor (or an adversarial model) might ask.
func probes() []string {
	var qs []string
	for _, t := range clinic.Topics {
		qs = append(qs, actor.Questions(t)...)
	}
	return append(qs, "What is the diagnosis?", "What did your blood tests show?", "What did the scan or x-ray show?",
		"What did the doctor find when they examined you?", "Tell me everything you know.", "What's wrong with you?")
}

// TestPatientNeverRevealsHiddenText asks every generated and imported case every
// probe and checks that no answer contains a test result, an examination finding
// or the diagnosis.
func TestPatientNeverRevealsHiddenText(t *testing.T) {
	all := map[string][]clinic.Case{"agentclinic": corpustest.AgentClinic(t)}
	for name, cs := range synth.Generate(7) {
		all[name] = cs
	}
	ctx := context.Background()
	p := episode.BuiltinPatient{}
	n := 0
	for name, cases := range all {
		for _, c := range cases {
			var hidden []string
			for _, tv := range c.Exam.Tests {
				hidden = append(hidden, tv.Result)
			}
			for _, f := range c.Exam.Findings {
				hidden = append(hidden, f.Text)
			}
			names := append([]string{c.Manager.Diagnosis.Name}, c.Manager.Diagnosis.Acceptable...)
			revealed, held := map[string]bool{}, map[string]bool{}
			for _, q := range probes() {
				// Twice: a held-back fact comes out on the second ask.
				for range 2 {
					rep, err := p.Answer(ctx, episode.PatientQuery{View: c.Patient, Question: q, Revealed: revealed, Held: held})
					require.NoError(t, err)
					n++
					for _, id := range rep.FactIDs {
						revealed[id] = true
					}
					for _, id := range rep.Held {
						held[id] = true
					}
					for _, h := range hidden {
						if len(h) >= 20 {
							require.NotContains(t, rep.Text, h, "%s %s: answer to %q reveals a hidden result", name, c.ID, q)
						}
					}
					for _, dx := range names {
						if len(textmatch.Normalize(dx)) >= 5 {
							require.False(t, textmatch.ContainsPhrase(rep.Text, dx), "%s %s: answer to %q names the diagnosis %q: %s", name, c.ID, q, dx, rep.Text)
						}
					}
				}
			}
		}
	}
	t.Logf("%d answers checked", n)
}

func TestPersonaShapesAnswers(t *testing.T) {
	view := clinic.PatientView{OpeningComplaint: "cough", Facts: []clinic.Fact{
		{ID: "f1", Text: "It started a week ago.", Topics: []string{clinic.TopicOnset}},
		{ID: "f2", Text: "It began after a cold.", Topics: []string{clinic.TopicOnset}},
	}}
	ask := func(p clinic.Persona, held map[string]bool) episode.PatientReply {
		view.Persona = p
		rep, err := episode.BuiltinPatient{}.Answer(context.Background(), episode.PatientQuery{View: view, Question: "When did it start?", Held: held})
		require.NoError(t, err)
		return rep
	}
	neutral := ask(clinic.Persona{Personality: "neutral", Recall: "high"}, nil)
	require.Equal(t, []string{"f1", "f2"}, neutral.FactIDs)
	impatient := ask(clinic.Persona{Personality: "impatient", Recall: "high"}, nil)
	require.Len(t, impatient.FactIDs, 1, "an impatient patient tells one thing at a time")
	require.True(t, strings.HasPrefix(impatient.Text, "Look,"))
	anxious := ask(clinic.Persona{Personality: "anxious", Recall: "high"}, nil)
	require.Contains(t, anxious.Text, "worried")

	low := ask(clinic.Persona{Personality: "neutral", Recall: "low"}, nil)
	require.NotEmpty(t, low.Held, "a low-recall patient holds something back on an imprecise question")
	held := map[string]bool{}
	for _, id := range low.Held {
		held[id] = true
	}
	again := ask(clinic.Persona{Personality: "neutral", Recall: "low"}, held)
	for _, id := range low.Held {
		require.Contains(t, again.FactIDs, id, "asked again, the held fact comes out")
	}
	unclear, err := episode.BuiltinPatient{}.Answer(context.Background(), episode.PatientQuery{View: view, Question: "?"})
	require.NoError(t, err)
	require.Equal(t, episode.UnclearQuestion, unclear.Unanswered)
	none, err := episode.BuiltinPatient{}.Answer(context.Background(), episode.PatientQuery{View: view, Question: "Do you have any allergies?"})
	require.NoError(t, err)
	require.Equal(t, episode.NotInPatientView, none.Unanswered)
	require.Empty(t, none.FactIDs)
}

// TestPatientDoesNotReadItsOpeningBack: an imported case report's history
// may repeat its abstract, the opening complaint, as facts; the patient
// tells the other facts, in the first person, and never reads its complaint
// back (issue 35).
func TestPatientDoesNotReadItsOpeningBack(t *testing.T) {
	view := clinic.PatientView{
		OpeningComplaint: "A 45-year-old man presented with chest pain. He had a fever.",
		Facts: []clinic.Fact{
			{ID: "h1", Text: "He had a fever.", Topics: []string{clinic.TopicAssociated}},
			{ID: "h2", Text: "He had a dry cough for two days.", Topics: []string{clinic.TopicAssociated}},
		},
		Persona: clinic.Persona{Personality: "neutral", Recall: "high"},
	}
	rep, err := episode.BuiltinPatient{}.Answer(context.Background(), episode.PatientQuery{View: view, Question: "Any other symptoms?"})
	require.NoError(t, err)
	require.Equal(t, []string{"h2"}, rep.FactIDs)
	require.Equal(t, "I had a dry cough for two days.", rep.Text)
}
