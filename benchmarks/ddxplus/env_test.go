package ddxplus_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/benchmarks/ddxplus"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/settings"
)

func step(t *testing.T, e episode.Env, o clinic.DoctorOutput) clinic.Event {
	t.Helper()
	ev, err := e.Step(context.Background(), episode.StepInput{Output: o})
	require.NoError(t, err)
	return ev
}

func score(t *testing.T, c clinic.Case, s settings.Settings, e episode.Env) clinic.Scores {
	t.Helper()
	sc, err := ddxplus.Benchmark{}.Score(context.Background(), bench.ScoreInput{Case: &c, Settings: s, Env: e})
	require.NoError(t, err)
	return sc
}

// TestStreamMode is StreamBench's protocol: the whole profile is the input,
// the only action is the answer, and the answer is right or wrong.
func TestStreamMode(t *testing.T) {
	c := sample(t)[0] // an 8-year-old boy with pneumonia and 34 evidences
	s := run(ddxplus.ModeStream)
	e, err := ddxplus.Start(c, s, nil)
	require.NoError(t, err)
	v := e.View(nil, nil)
	require.Equal(t, []string{"FINALIZE"}, v.Actions)
	require.True(t, strings.HasPrefix(v.OpeningComplaint, "Patient: 8-year-old male.\nDo you have pain somewhere, related to your reason for consulting? Yes.\n"))
	require.Contains(t, v.OpeningComplaint, "\nHow intense is the pain? 2 on a scale of 0 to 10.\n")
	x := ddxplus.ViewOf(v)
	require.Len(t, x.Findings, 34)
	require.Len(t, x.Options, 49)

	ask := step(t, e, clinic.DoctorOutput{Action: clinic.Ask, Question: "Do you have a fever?"})
	require.Equal(t, clinic.StatusInvalid, ask.Status, "nothing to ask: the profile is whole")
	fin := step(t, e, clinic.DoctorOutput{Action: clinic.Finalize, Diagnosis: []string{"34. Pneumonia"}})
	require.Equal(t, clinic.StatusFinalized, fin.Status)
	sc := score(t, c, s, e)
	require.Equal(t, map[string]float64{"accuracy": 1}, sc.Metrics, "no differential metrics in stream mode")
	require.Equal(t, 1.0, sc.S)
	require.True(t, sc.Pass)
	require.Equal(t, 2, sc.T)

	e, _ = ddxplus.Start(c, s, nil)
	step(t, e, clinic.DoctorOutput{Action: clinic.Finalize, Diagnosis: []string{"Bronchitis", "Pneumonia"}})
	sc = score(t, c, s, e)
	require.Zero(t, sc.S, "the first pathology named is the answer")
	require.False(t, sc.Pass)
}

// TestInteractiveMode: the patient opens with the initial evidence, each
// question reveals the evidence it asks about, and the differential is
// scored with DDXPlus's metrics, by hand below.
func TestInteractiveMode(t *testing.T) {
	c := sample(t)[0]
	s := run(ddxplus.ModeInteractive)
	e, err := ddxplus.Start(c, s, nil)
	require.NoError(t, err)
	v := e.View(nil, nil)
	require.Equal(t, []string{"ASK", "FINALIZE"}, v.Actions)
	require.Equal(t, "I am experiencing shortness of breath or difficulty breathing in a significant way.", v.OpeningComplaint)
	require.Len(t, ddxplus.ViewOf(v).Findings, 1, "the initial evidence alone")

	fever := step(t, e, clinic.DoctorOutput{Action: clinic.Ask, Question: "Do you have a fever?"})
	require.Equal(t, "Yes.", fever.Reply)
	require.Equal(t, "E_91", fever.Topic)
	require.Equal(t, []string{"E_91"}, fever.RevealedFacts)
	throat := step(t, e, clinic.DoctorOutput{Action: clinic.Ask, Question: "Do you have a sore throat?"})
	require.Equal(t, "No.", throat.Reply)
	require.Equal(t, episode.NotInPatientView, throat.Unanswered)
	swelling := step(t, e, clinic.DoctorOutput{Action: clinic.Ask, Question: "Where is the swelling located?"})
	require.Equal(t, "No, I don't have that.", swelling.Reply)
	moon := step(t, e, clinic.DoctorOutput{Action: clinic.Ask, Question: "Have you ever been to the moon?"})
	require.Equal(t, episode.UnclearQuestion, moon.Unanswered)
	require.Empty(t, moon.Topic)
	v = e.View(nil, nil)
	require.Len(t, v.Exchanges, 4)
	require.Equal(t, []string{"E_66", "E_91"}, codes(ddxplus.ViewOf(v).Findings))

	step(t, e, clinic.DoctorOutput{Action: clinic.Finalize, Diagnosis: []string{"Pneumonia", "influenza", "Scurvy", "Anemia"}})
	sc := score(t, c, s, e)
	// Every one of the 17 pathologies of this patient's differential is above
	// 0.01, so |G| = 17; the doctor named P = {Pneumonia, Influenza, Anemia}
	// (Scurvy is none of the 49), of which Pneumonia and Influenza are in G:
	// DDR = 2/17, DDP = 2/3, DDF1 = 2·(2/3)·(2/17) / (2/3 + 2/17) = (8/51) / (40/51) = 0.2.
	// PER: of the 34 evidences the doctor knows the initial one and the fever: 2/34.
	require.Len(t, ddxplus.KeyOf(&c).Differential, 17)
	require.InDelta(t, 2.0/17, sc.Metrics["ddr"], 1e-12)
	require.InDelta(t, 2.0/3, sc.Metrics["ddp"], 1e-12)
	require.InDelta(t, 0.2, sc.Metrics["ddf1"], 1e-12)
	require.Equal(t, 1.0, sc.Metrics["gtpa"])
	require.InDelta(t, 2.0/34, sc.Metrics["per"], 1e-12)
	require.Equal(t, 1.0, sc.Metrics["accuracy"])
	require.Equal(t, 5, sc.T, "four questions and the answer")
}

// TestDifferentialThreshold: a pathology at or below 0.01 is not in the
// ground-truth differential (the release's code's threshold).
func TestDifferentialThreshold(t *testing.T) {
	d := dict(t)
	fs, err := d.Decode([]string{"E_201", "E_91"})
	require.NoError(t, err)
	c, err := d.NewCase("c1", "test", ddxplus.Patient{Age: 5, Sex: "F", Pathology: "URTI", Findings: fs, Initial: "E_201",
		Differential: []ddxplus.Weighted{{"URTI", 0.6}, {"Bronchitis", 0.3}, {"Pneumonia", 0.005}}})
	require.NoError(t, err)
	// G = {URTI, Bronchitis}; P = {Pneumonia, URTI}; G∩P = {URTI}:
	// DDR = 1/2, DDP = 1/2, DDF1 = 1/2; GTPA = 1 (URTI is named), accuracy 0
	// (Pneumonia is named first).
	sc := d.Scores(&c, ddxplus.ModeInteractive, []string{"Pneumonia", "URTI"}, nil)
	require.Equal(t, map[string]float64{"accuracy": 0, "ddr": 0.5, "ddp": 0.5, "ddf1": 0.5, "gtpa": 1, "per": 0.5}, sc.Metrics)
	sc = d.Scores(&c, ddxplus.ModeInteractive, nil, nil)
	require.Equal(t, map[string]float64{"accuracy": 0, "ddr": 0, "ddp": 0, "ddf1": 0, "gtpa": 0, "per": 0.5}, sc.Metrics, "no answer: all zero, no division by zero")
}

// TestTurnLimit: at Tmax the encounter ends with the latest working diagnoses.
func TestTurnLimit(t *testing.T) {
	c := sample(t)[0]
	s := run(ddxplus.ModeInteractive)
	s.Episode.MaxTurns = 2
	e, err := ddxplus.Start(c, s, nil)
	require.NoError(t, err)
	step(t, e, clinic.DoctorOutput{Action: clinic.Ask, Question: "Do you have a cough?", WorkingDiagnoses: []string{"Bronchitis"}})
	step(t, e, clinic.DoctorOutput{Action: clinic.Ask, Question: "Do you have a fever?"})
	require.True(t, e.Done())
	f, end := e.Final()
	require.Equal(t, clinic.EndTurnLimit, end)
	require.Equal(t, []string{"Bronchitis"}, f.Diagnosis)
}

func codes(fs []ddxplus.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Code)
	}
	return out
}
