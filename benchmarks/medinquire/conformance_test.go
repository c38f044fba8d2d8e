package medinquire_test

import (
	"testing"

	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/benchmarks/medinquire"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus/synth"
	"github.com/clinevo/clinevo/settings"
)

func TestConformance(t *testing.T) {
	s := benchtest.Settings(medinquire.Benchmark{})
	s.Evolver.Mode = settings.ScoreOnly
	benchtest.Run(t, medinquire.Benchmark{}, benchtest.Config{
		Settings: []settings.Settings{s},
		Cases:    synth.Generate(7)["stream"][:12],
		Moves: func(v clinic.DoctorView) []clinic.DoctorOutput {
			tests := []string{"full blood count", "serum unobtainium", "ECG", "physical examination"}
			return []clinic.DoctorOutput{
				{Action: clinic.Ask, Question: "Have you had anything like this before?"},
				{Action: clinic.RequestTest, TestName: tests[v.Turn%len(tests)]},
				{Action: clinic.Finalize, Diagnosis: []string{"stable angina"}},
			}
		},
	})
}
