package ddxplus_test

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/ddxplus"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/settings"
)

// play runs the built-in doctor through one encounter with the given cards.
func play(t *testing.T, c clinic.Case, s settings.Settings, cards []clinic.CardHint) episode.Env {
	t.Helper()
	e, err := ddxplus.Start(c, s, nil)
	require.NoError(t, err)
	for !e.Done() {
		dec, err := ddxplus.Doctor{}.Decide(context.Background(), e.View(cards, nil))
		require.NoError(t, err)
		step(t, e, dec.Output)
	}
	return e
}

func answer(e episode.Env) []string {
	f, _ := e.Final()
	return f.Diagnosis
}

// TestDoctorWithoutMemory: the pathology the patient's own words name, one
// answer in stream mode; the answer key plays no part (the same doctor on
// the case with another key answers the same).
func TestDoctorWithoutMemory(t *testing.T) {
	c := sample(t)[0] // "Have you ever had pneumonia? Yes." is in the profile
	s := run(ddxplus.ModeStream)
	require.Equal(t, []string{"Pneumonia"}, answer(play(t, c, s, nil)))

	other := c
	other.Manager.Diagnosis.Name = "Bronchitis"
	other.Manager.Ext = nil
	require.Equal(t, []string{"Pneumonia"}, answer(play(t, other, s, nil)), "the key is never read")
}

// profileCard is a card about a past patient with this profile whose answer
// was right (diagnosis) or wrong (avoid).
func profileCard(t *testing.T, c clinic.Case, diagnosis, avoid string) clinic.CardHint {
	t.Helper()
	e, err := ddxplus.Start(c, run(ddxplus.ModeStream), nil)
	require.NoError(t, err)
	x := e.View(nil, nil).OpeningComplaint
	return clinic.CardHint{ID: "k", Kind: clinic.CardExample, Text: x, Context: x, Diagnosis: diagnosis, Avoid: avoid}
}

// TestDoctorLearnsFromCards: a like past patient whose answer was right
// brings that answer; one whose answer was wrong takes it away; an unlike
// one (below the similarity threshold) changes nothing.
func TestDoctorLearnsFromCards(t *testing.T) {
	cases := sample(t)
	c := cases[0]
	s := run(ddxplus.ModeStream)
	require.Equal(t, []string{"Bronchitis"}, answer(play(t, c, s, []clinic.CardHint{profileCard(t, c, "Bronchitis", "")})),
		"the same profile answered Bronchitis, marked correct: similarity 1 outweighs the name credit")
	avoided := answer(play(t, c, s, []clinic.CardHint{profileCard(t, c, "", "Pneumonia")}))
	require.NotEqual(t, []string{"Pneumonia"}, avoided, "the same profile answered Pneumonia, marked wrong")
	unlike := profileCard(t, cases[1], "Bronchitis", "")
	require.Equal(t, []string{"Pneumonia"}, answer(play(t, c, s, []clinic.CardHint{unlike})), "an unlike patient says nothing")
}

// TestDoctorInteractive: it asks the release's questions, follows up what
// the patient confirms, keeps the last turn for its answer and names five
// pathologies; what like past patients were asked comes first.
func TestDoctorInteractive(t *testing.T) {
	c := sample(t)[0]
	s := run(ddxplus.ModeInteractive)
	e := play(t, c, s, nil)
	events := e.Events()
	require.Len(t, events, s.Episode.MaxTurns)
	for _, ev := range events[:len(events)-1] {
		require.Equal(t, clinic.Ask, ev.Action)
		require.NotEmpty(t, ev.Topic, "every question is one the release asks: %q", ev.Question)
	}
	require.Equal(t, clinic.StatusFinalized, events[len(events)-1].Status)
	require.Len(t, answer(e), 5)
	// A confirmed root question is followed by its follow-ups.
	d := dict(t)
	for i, ev := range events[:len(events)-2] {
		if len(ev.RevealedFacts) == 0 {
			continue
		}
		next, _ := d.Evidence(events[i+1].Topic)
		if next.Group == ev.Topic && next.Code != ev.Topic {
			return
		}
	}
	t.Fatalf("no follow-up question after a confirmed evidence in %v", topics(events))
}

func TestDoctorAsksWhatLikePatientsWereAsked(t *testing.T) {
	c := sample(t)[0]
	s := run(ddxplus.ModeInteractive)
	first := play(t, c, s, nil).Events()[0].Topic
	card := clinic.CardHint{ID: "k", Kind: clinic.CardExample, Context: c.Patient.OpeningComplaint + "\nDo you have a cough? Yes.",
		Ask: []string{"E_201"}, Diagnosis: "Bronchitis"}
	require.NotEqual(t, "E_201", first)
	require.Equal(t, "E_201", play(t, c, s, []clinic.CardHint{card}).Events()[0].Topic)
}

func topics(events []clinic.Event) []string {
	var out []string
	for _, ev := range events {
		out = append(out, ev.Topic)
	}
	return out
}

// TestTheKnowledgeBaseGivesItAway is why the built-in doctor does not read
// release_conditions.json: naming the pathology whose listed evidences are
// closest (cosine of the evidence sets) to the patient's is right for every
// shipped patient, so a doctor that read it would have nothing to learn.
func TestTheKnowledgeBaseGivesItAway(t *testing.T) {
	d := dict(t)
	right := 0
	for _, c := range sample(t) {
		have := map[string]bool{}
		for _, f := range ddxplus.RecordOf(&c).Findings {
			have[f.Code] = true
		}
		best, bestCos := "", -1.0
		for _, name := range d.Pathologies() {
			cond, _ := d.Condition(name)
			listed := append(append([]string(nil), cond.Symptoms...), cond.Antecedents...)
			both := 0
			for _, code := range listed {
				if have[code] {
					both++
				}
			}
			if cos := float64(both) / math.Sqrt(float64(len(listed)*len(have))); cos > bestCos {
				best, bestCos = name, cos
			}
		}
		if best == c.Manager.Diagnosis.Name {
			right++
		}
	}
	require.Equal(t, 300, right)
}
