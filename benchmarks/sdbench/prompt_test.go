package sdbench_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/benchmarks/sdbench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/settings"
)

var update = flag.Bool("update", false, "rewrite the golden prompts in testdata/golden")

// promptViews are the views the golden prompts render: a no-budget
// encounter after a visit of three questions (one, a request for the
// diagnosis, refused) and an examination with a blood count, which ended
// the visit; and a budgeted one ($400) after a visit, an MRI quoted then
// refused for the budget, and two tests quoted.
func promptViews(t *testing.T) map[string]clinic.DoctorView {
	c := sampleCases(t)[0]
	play := func(s settings.Settings, outs ...clinic.DoctorOutput) clinic.DoctorView {
		env := start(t, c, s, episode.BuiltinRoles(), nil)
		for _, o := range outs {
			step(t, env, o)
		}
		return env.View(nil, []string{"Ask about travel before ordering serology."})
	}
	ask := func(q string) clinic.DoctorOutput { return clinic.DoctorOutput{Action: clinic.Ask, Question: q} }
	order := func(ts string) clinic.DoctorOutput {
		return clinic.DoctorOutput{Action: clinic.RequestTest, TestName: ts}
	}
	return map[string]clinic.DoctorView{
		"no_budget": play(sdSettings(), ask("When did it start? Any fever? What is the diagnosis?"), order("physical examination; complete blood count")),
		"budgeted":  play(budgeted(sdSettings(), 400), ask("When did it start?"), order("mri brain"), order("mri brain"), order("ct head; ecg")),
	}
}

// TestGoldenPrompts renders the SDBench doctor's prompt and the panel's
// (Dr Stewardship's, after Dr Test-Chooser) in both budget modes and
// compares them with testdata/golden (go test -update rewrites them). Each
// shows the spending, the visit price and what the next question costs;
// the budgeted ones the budget, what is left, the refusal with its reason
// and the quotes; none states a test cap.
func TestGoldenPrompts(t *testing.T) {
	notes := []actor.PanelNote{{Role: actor.Hypothesis, Differential: []string{"migraine", "tension headache"}, Reason: "leading: migraine"},
		{Role: actor.TestChooser, Tests: []string{"ct head"}, Reason: "1 test"}}
	for mode, v := range promptViews(t) {
		doctor, err := sdbench.DoctorPrompt(v)
		require.NoError(t, err)
		panel, err := sdbench.Benchmark{}.PanelPrompt(actor.Stewardship, v, notes)
		require.NoError(t, err)
		for name, msgs := range map[string][]llm.Message{"doctor_" + mode: doctor, "panel_" + mode: panel} {
			t.Run(name, func(t *testing.T) {
				got := msgs[0].Content + "\n---\n" + msgs[1].Content + "\n"
				path := filepath.Join("testdata", "golden", name+".txt")
				if *update {
					require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
					require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
				}
				want, err := os.ReadFile(path)
				require.NoError(t, err)
				require.Equal(t, string(want), got)
				require.Contains(t, got, "$300 a visit")
				require.Contains(t, got, "Spent so far: $")
				require.NotContains(t, got, "tests billed")
				require.NotContains(t, got, "NOT AVAILABLE")
				if mode == "budgeted" {
					require.Contains(t, got, "budget of $400")
					require.Contains(t, got, "($100 left)")
					require.Contains(t, got, "refused: $314.08 would pass the budget of $400 ($300 spent)")
					require.Contains(t, got, "ct head")
					require.Contains(t, got, "$105.13")
				} else {
					require.Contains(t, got, "I can report findings only")
					require.Contains(t, got, "begins a visit ($300)")
				}
			})
		}
	}
}
