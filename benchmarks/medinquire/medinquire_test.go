package medinquire_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/medinquire"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus/synth"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/settings"
)

// testCase is a stable angina case of the built-in stream, told by a patient
// who recalls well.
func testCase(t *testing.T) clinic.Case {
	t.Helper()
	for _, c := range synth.Generate(7)["stream"] {
		if c.Condition == "stable_angina" && c.Patient.Persona.Recall == "high" {
			return c
		}
	}
	t.Fatal("no stable angina case")
	return clinic.Case{}
}

func step(t *testing.T, e *episode.Episode, o clinic.DoctorOutput) clinic.Event {
	t.Helper()
	ev, err := e.Step(context.Background(), episode.StepInput{Output: o})
	require.NoError(t, err)
	return ev
}

func withoutTest(tests []clinic.TestValue, name string) []clinic.TestValue {
	var out []clinic.TestValue
	for _, tv := range tests {
		if tv.Name != name {
			out = append(out, tv)
		}
	}
	return out
}

// TestMedInquireCostsAndNotAvailable checks the cost rule of EvoClinician's
// appendix (cost = base cost per turn + the price of every ordered test; a
// test the cost table does not know pays a fixed default price) and that a test
// with no recorded result, or outside the case's record, is NOT AVAILABLE and
// still paid for.
func TestMedInquireCostsAndNotAvailable(t *testing.T) {
	c := testCase(t)
	cfg := settings.Default().Episode
	cfg.UnknownTestPrice = 77
	cfg.Prices = map[string]float64{"cbc": 31, "ct": 501}
	// Drop the CT head from the case's record: it is still a test of the cost table.
	var kept []string
	for _, n := range c.Exam.Catalog {
		if n != "ct head" {
			kept = append(kept, n)
		}
	}
	c.Exam.Catalog = kept
	c.Exam.Tests = withoutTest(c.Exam.Tests, "ct head")
	e := episode.New(c, cfg, medinquire.Rules(), episode.BuiltinRoles())
	require.Empty(t, e.View(nil, nil).Catalog, "no list of tests is shown")

	cbc := step(t, e, clinic.DoctorOutput{Action: clinic.RequestTest, TestName: "full blood count"})
	require.Equal(t, clinic.StatusReturned, cbc.Status)
	require.Equal(t, cfg.BaseTurnCost+31, cbc.Cost, "the base cost of the turn and the CBC price")
	unknown := step(t, e, clinic.DoctorOutput{Action: clinic.RequestTest, TestName: "serum unobtainium"})
	require.Equal(t, clinic.StatusUnavailable, unknown.Status)
	require.Equal(t, "NOT AVAILABLE", unknown.Reply)
	require.Equal(t, cfg.BaseTurnCost+77, unknown.Cost, "the fixed default price of a test the table does not know")
	ct := step(t, e, clinic.DoctorOutput{Action: clinic.RequestTest, TestName: "CT head"})
	require.Equal(t, clinic.StatusUnavailable, ct.Status)
	require.Equal(t, "NOT AVAILABLE", ct.Reply)
	require.Equal(t, cfg.BaseTurnCost+501, ct.Cost, "a known test outside the record is paid at its price")
	for i := 0; i < 4; i++ { // no test budget in Med-Inquire
		ev := step(t, e, clinic.DoctorOutput{Action: clinic.RequestTest, TestName: "urinalysis"})
		require.NotEqual(t, clinic.StatusOverBudget, ev.Status)
	}
	mdt := step(t, e, clinic.DoctorOutput{Action: clinic.CallMDT, Question: "What next?"})
	require.Equal(t, clinic.StatusInvalid, mdt.Status, "three actions only")
}

// TestMedInquireTurnLimitSubmitsTheBestGuess: at Tmax the episode ends with
// the doctor's latest working diagnosis (EvoClinician §3).
func TestMedInquireTurnLimitSubmitsTheBestGuess(t *testing.T) {
	cfg := settings.Default().Episode
	cfg.MaxTurns = 2
	e := episode.New(testCase(t), cfg, medinquire.Rules(), episode.BuiltinRoles())
	step(t, e, clinic.DoctorOutput{Action: clinic.Ask, Question: "When did it start?", WorkingDiagnoses: []string{"Stable angina"}})
	step(t, e, clinic.DoctorOutput{Action: clinic.RequestTest, TestName: "ecg"})
	require.True(t, e.Done())
	f, end := e.Final()
	require.Equal(t, clinic.EndTurnLimit, end)
	require.Equal(t, []string{"Stable angina"}, f.Diagnosis)
	require.Empty(t, f.Evidence)
}
