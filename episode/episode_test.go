package episode_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/medevoeval"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus/synth"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/settings"
)

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

func final() clinic.DoctorOutput {
	return clinic.DoctorOutput{Action: clinic.Finalize, Diagnosis: []string{"Stable angina"}, Evidence: []string{"pain on exertion"},
		Plan: []string{"aspirin"}, Followup: []string{"review in two weeks"}}
}

func TestGating(t *testing.T) {
	c := testCase(t)
	cfg := settings.Default().Episode
	tests := []struct {
		name   string
		cfg    func(*settings.Episode)
		before []clinic.DoctorOutput
		out    clinic.DoctorOutput
		status clinic.Status
		check  func(t *testing.T, ev clinic.Event, e *episode.Episode)
	}{
		{name: "unknown action is an invalid turn", out: clinic.DoctorOutput{Action: "PRESCRIBE"}, status: clinic.StatusInvalid,
			check: func(t *testing.T, ev clinic.Event, e *episode.Episode) {
				require.Equal(t, 1, len(e.Events()))
				require.False(t, e.Done())
			}},
		{name: "ask without a question is unparseable", out: clinic.DoctorOutput{Action: clinic.Ask}, status: clinic.StatusUnparseable},
		{name: "ask is answered from facts", out: clinic.DoctorOutput{Action: clinic.Ask, Question: "What brings it on?"}, status: clinic.StatusReturned,
			check: func(t *testing.T, ev clinic.Event, _ *episode.Episode) { require.NotEmpty(t, ev.RevealedFacts) }},
		{name: "test without a name is unparseable and billed", out: clinic.DoctorOutput{Action: clinic.RequestTest}, status: clinic.StatusUnparseable,
			check: func(t *testing.T, _ clinic.Event, e *episode.Episode) { require.Equal(t, 1, e.TestsUsed()) }},
		{name: "unknown test is unavailable", out: clinic.DoctorOutput{Action: clinic.RequestTest, TestName: "serum unobtainium"}, status: clinic.StatusUnavailable},
		{name: "alias returns the stored result verbatim", out: clinic.DoctorOutput{Action: clinic.RequestTest, TestName: "12 lead ECG"}, status: clinic.StatusReturned,
			check: func(t *testing.T, ev clinic.Event, _ *episode.Episode) {
				require.Equal(t, "ecg", ev.Test)
				require.Equal(t, resultOf(c, "ecg"), ev.Reply)
				require.Equal(t, cfg.BaseTurnCost+50, ev.Cost)
			}},
		{name: "catalog test without a result for this case is unavailable", out: clinic.DoctorOutput{Action: clinic.RequestTest, TestName: "MRI brain"}, status: clinic.StatusUnavailable},
		{name: "test outside the allowed catalog is invalid", cfg: nil, out: clinic.DoctorOutput{Action: clinic.RequestTest, TestName: "ct head"}, status: clinic.StatusInvalid},
		{name: "duplicate test", before: []clinic.DoctorOutput{{Action: clinic.RequestTest, TestName: "troponin"}},
			out: clinic.DoctorOutput{Action: clinic.RequestTest, TestName: "hs troponin"}, status: clinic.StatusDuplicate,
			check: func(t *testing.T, _ clinic.Event, e *episode.Episode) { require.Equal(t, 2, e.TestsUsed()) }},
		{name: "over budget is refused and not billed", cfg: func(c *settings.Episode) { c.MaxTests = 1 },
			before: []clinic.DoctorOutput{{Action: clinic.RequestTest, TestName: "ecg"}},
			out:    clinic.DoctorOutput{Action: clinic.RequestTest, TestName: "troponin"}, status: clinic.StatusOverBudget,
			check: func(t *testing.T, ev clinic.Event, e *episode.Episode) {
				require.Equal(t, 1, e.TestsUsed())
				require.Equal(t, 5.0, ev.Cost)
			}},
		{name: "physical examination is free and outside the budget", cfg: func(c *settings.Episode) { c.MaxTests = 0 },
			out: clinic.DoctorOutput{Action: clinic.RequestTest, TestName: "cardiac examination"}, status: clinic.StatusReturned,
			check: func(t *testing.T, ev clinic.Event, e *episode.Episode) {
				require.True(t, ev.Free)
				require.Equal(t, 0, e.TestsUsed())
			}},
		{name: "consultant disabled", cfg: func(c *settings.Episode) { c.MDT = settings.MDTOff }, out: clinic.DoctorOutput{Action: clinic.CallMDT}, status: clinic.StatusInvalid,
			check: func(t *testing.T, ev clinic.Event, _ *episode.Episode) {
				require.Equal(t, "disabled", ev.ConsultantStatus)
			}},
		{name: "consultant suggests one next step", out: clinic.DoctorOutput{Action: clinic.CallMDT}, status: clinic.StatusReturned,
			check: func(t *testing.T, ev clinic.Event, _ *episode.Episode) {
				require.Equal(t, "answered", ev.ConsultantStatus)
				require.Contains(t, ev.Reply, "onset")
			}},
		{name: "finalize needs all four fields", out: clinic.DoctorOutput{Action: clinic.Finalize, Diagnosis: []string{"x"}}, status: clinic.StatusInvalid,
			check: func(t *testing.T, ev clinic.Event, e *episode.Episode) {
				require.Contains(t, ev.Reply, "evidence, plan, followup")
				require.False(t, e.Done())
			}},
		{name: "finalize ends the episode", out: final(), status: clinic.StatusFinalized,
			check: func(t *testing.T, _ clinic.Event, e *episode.Episode) {
				f, end := e.Final()
				require.True(t, e.Done())
				require.Equal(t, clinic.EndFinalized, end)
				require.Equal(t, []string{"Stable angina"}, f.Diagnosis)
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs := c
			switch tc.name {
			case "test outside the allowed catalog is invalid":
				cs.Exam.Catalog = []string{"ecg"}
			case "catalog test without a result for this case is unavailable":
				// The built-in corpus answers every test; an imported case need not.
				cs.Exam.Tests = withoutTest(cs.Exam.Tests, "mri brain")
			}
			cf := cfg
			if tc.cfg != nil {
				tc.cfg(&cf)
			}
			e := episode.New(cs, cf, medevoeval.Rules(), episode.BuiltinRoles())
			for _, b := range tc.before {
				step(t, e, b)
			}
			ev := step(t, e, tc.out)
			require.Equal(t, tc.status, ev.Status, ev.Reply)
			if tc.check != nil {
				tc.check(t, ev, e)
			}
		})
	}
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

func resultOf(c clinic.Case, name string) string {
	for _, tv := range c.Exam.Tests {
		if tv.Name == name {
			return tv.Result
		}
	}
	return ""
}

func TestForcedFinalisationAtTurnLimit(t *testing.T) {
	c := testCase(t)
	cfg := settings.Default().Episode
	cfg.MaxTurns = 3
	e := episode.New(c, cfg, medevoeval.Rules(), episode.BuiltinRoles())
	step(t, e, clinic.DoctorOutput{Action: clinic.Ask, Question: "When did it start?", WorkingDiagnoses: []string{"GERD"}})
	step(t, e, clinic.DoctorOutput{Action: clinic.Ask, Question: "What brings it on?", WorkingDiagnoses: []string{"Stable angina", "GERD"}})
	require.False(t, e.Done())
	step(t, e, clinic.DoctorOutput{Action: clinic.Ask, Question: "Any family history?"}) // no working diagnosis this turn
	require.True(t, e.Done())
	f, end := e.Final()
	require.Equal(t, clinic.EndTurnLimit, end)
	require.True(t, f.Forced)
	require.Equal(t, []string{"Stable angina", "GERD"}, f.Diagnosis, "the latest working diagnosis is carried")
	_, err := e.Step(context.Background(), episode.StepInput{Output: final()})
	require.ErrorIs(t, err, episode.ErrDone)

	// Rebuilding from the events derives the same end without calling any role.
	r := episode.Restore(c, cfg, medevoeval.Rules(), episode.Roles{}, e.Events())
	rf, rend := r.Final()
	require.True(t, r.Done())
	require.Equal(t, end, rend)
	require.Equal(t, f, rf)
}

func TestLLMErrorTurnIsUnparseable(t *testing.T) {
	e := episode.New(testCase(t), settings.Default().Episode, medevoeval.Rules(), episode.BuiltinRoles())
	ev, err := e.Step(context.Background(), episode.StepInput{Output: clinic.DoctorOutput{}, LLMError: true})
	require.NoError(t, err)
	require.Equal(t, clinic.StatusUnparseable, ev.Status)
	require.True(t, ev.LLMError)
}

func TestRepeatedQuestionIsAnsweredFromCache(t *testing.T) {
	e := episode.New(testCase(t), settings.Default().Episode, medevoeval.Rules(), episode.BuiltinRoles())
	a := step(t, e, clinic.DoctorOutput{Action: clinic.Ask, Question: "What makes it worse?"})
	b := step(t, e, clinic.DoctorOutput{Action: clinic.Ask, Question: "what makes it worse"})
	require.False(t, a.Cached)
	require.True(t, b.Cached)
	require.Equal(t, a.Reply, b.Reply)
}

func TestStaticModeShowsTheWholeCaseAndTakesOneTurn(t *testing.T) {
	c := testCase(t)
	cfg := settings.Default().Episode
	cfg.Mode = settings.Static
	e := episode.New(c, cfg, medevoeval.Rules(), episode.BuiltinRoles())
	v := e.View(nil, nil)
	require.Equal(t, 1, v.MaxTurns)
	require.Len(t, v.Exchanges, 1)
	for _, f := range c.Patient.Facts {
		require.Contains(t, v.Exchanges[0].Answer, f.Text, "every fact is shown")
	}
	require.Len(t, v.Results, len(c.Exam.Tests)+1, "the physical examination and every test result")
	for _, tv := range c.Exam.Tests {
		require.Contains(t, e.Revealed(), tv.Result)
	}
	// Nothing of the manager view is shown.
	b, err := json.Marshal(v)
	require.NoError(t, err)
	require.NotContains(t, string(b), c.Manager.Diagnosis.Name)

	// Anything but FINALIZE is invalid, and the one turn ends the episode.
	ev := step(t, e, clinic.DoctorOutput{Action: clinic.Ask, Question: "When did it start?", WorkingDiagnoses: []string{"GERD"}})
	require.Equal(t, clinic.StatusInvalid, ev.Status)
	require.True(t, e.Done())
	f, end := e.Final()
	require.Equal(t, clinic.EndTurnLimit, end)
	require.Equal(t, []string{"GERD"}, f.Diagnosis)

	e = episode.New(c, cfg, medevoeval.Rules(), episode.BuiltinRoles())
	require.Equal(t, clinic.StatusFinalized, step(t, e, final()).Status)
}

func TestLatestWorking(t *testing.T) {
	events := []clinic.Event{{WorkingDiagnoses: []string{"angina"}}, {WorkingDiagnoses: []string{" ", ""}}, {}}
	require.Equal(t, []string{"angina"}, episode.LatestWorking(events), "blank working diagnoses are none")
	require.Equal(t, []string{"a", "b"}, episode.Named([]string{" a ", "", "b"}))
	require.Nil(t, episode.LatestWorking(nil))
}
