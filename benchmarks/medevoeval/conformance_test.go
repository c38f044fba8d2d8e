package medevoeval_test

import (
	"testing"

	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/benchmarks/medevoeval"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus/synth"
	"github.com/clinevo/clinevo/settings"
)

func TestConformance(t *testing.T) {
	base := settings.Default()
	static := base.Clone()
	static.Episode.Mode = settings.Static
	noMDT := base.Clone()
	noMDT.Episode.MDT = settings.MDTOff
	benchtest.Run(t, medevoeval.Benchmark{}, benchtest.Config{
		Settings: []settings.Settings{base, static, noMDT},
		Cases:    synth.Generate(7)["stream"][:12],
		Moves:    Moves,
	})
}

// Moves are a valid output for each of the four actions.
func Moves(v clinic.DoctorView) []clinic.DoctorOutput {
	test := "physical examination"
	if len(v.Catalog) > 0 {
		test = v.Catalog[(v.Turn*7)%len(v.Catalog)]
	}
	return []clinic.DoctorOutput{
		{Action: clinic.Ask, Question: "When did it start, and what makes it worse?"},
		{Action: clinic.RequestTest, TestName: test},
		{Action: clinic.CallMDT, Question: "What should I ask next?"},
		{Action: clinic.Finalize, Diagnosis: []string{"viral illness"}, Evidence: []string{"the history"}, Plan: []string{"rest"}, Followup: []string{"review in a week"}},
	}
}
