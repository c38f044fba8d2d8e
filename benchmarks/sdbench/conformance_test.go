package sdbench_test

import (
	"reflect"
	"testing"

	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/benchmarks/sdbench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/settings"
)

// TestConformance runs the conformance suite on SDBench's variants (no
// budget, budgeted, question only, instant answer, ensemble), on cases of
// the stream and of the held-out conditions.
func TestConformance(t *testing.T) {
	base := sdSettings()
	runs := []settings.Settings{base, budgeted(base, 900), withEpisode(base, "variant", sdbench.QuestionOnly),
		withEpisode(base, "variant", sdbench.InstantAnswer), withEpisode(base, "variant", sdbench.Ensemble)}
	benchtest.Run(t, sdbench.Benchmark{}, benchtest.Config{
		Settings: runs,
		Cases:    sampleCases(t),
		Moves: func(v clinic.DoctorView) []clinic.DoctorOutput {
			tests := []string{"complete blood count", "chest x ray", "serum unobtainium", "physical examination", "ct head; urinalysis"}
			return []clinic.DoctorOutput{
				{Action: clinic.Ask, Question: "When did it start? Does anything make it worse?"},
				{Action: clinic.RequestTest, TestName: tests[v.Turn%len(tests)]},
				{Action: clinic.Finalize, Diagnosis: []string{"community acquired pneumonia"}},
			}
		},
		BadSettings: []benchtest.Bad[settings.Overrides]{
			{Name: "a negative cost cap", Input: settings.Overrides{"episode": map[string]any{"variant": "budgeted", "cost_cap": -5}}, Want: "episode.cost_cap"},
			{Name: "a budget without the budgeted variant", Input: episodeKey("cost_cap", 500), Want: "episode.cost_cap 500 is the budgeted variant's"},
			{Name: "an unknown variant", Input: episodeKey("variant", "later"), Want: `episode.variant "later"`},
			{Name: "an ensemble of one", Input: settings.Overrides{"episode": map[string]any{"variant": "ensemble", "panels": 1}}, Want: "episode.panels"},
			// Issue 37, item 12: every size has an upper bound.
			{Name: "an ensemble of a hundred million", Input: settings.Overrides{"episode": map[string]any{"variant": "ensemble", "panels": 100_000_000}},
				Want: "episode.panels (the ensemble variant's) must be at least 2 and at most 20, got 100000000"},
			{Name: "a visit cost that is no number", Input: episodeKey("visit_cost", "free"), Want: "episode.visit_cost"},
			{Name: "static mode", Input: episodeKey("mode", "static"), Want: "episode.mode static"},
		},
		BadCases: []benchtest.Bad[func(*clinic.Case)]{
			{Name: "no abstract", Input: func(c *clinic.Case) { c.Patient.OpeningComplaint = " " }, Want: "patient_view.opening_complaint"},
			{Name: "no final diagnosis", Input: func(c *clinic.Case) { c.Manager.Diagnosis.Name = "" }, Want: "manager_view.diagnosis.display_name"},
		},
		View: reflect.TypeFor[sdbench.View](),
	})
}
