package ddxplus_test

import (
	"reflect"
	"testing"

	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/benchmarks/ddxplus"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/settings"
)

func TestConformance(t *testing.T) {
	benchtest.Run(t, ddxplus.Benchmark{}, benchtest.Config{
		Settings: []settings.Settings{run(ddxplus.ModeStream), run(ddxplus.ModeInteractive)},
		Cases:    sample(t)[:12],
		Moves: func(v clinic.DoctorView) []clinic.DoctorOutput {
			opts := ddxplus.ViewOf(v).Options
			return []clinic.DoctorOutput{
				{Action: clinic.Ask, Question: "Do you have a fever?"},
				{Action: clinic.Ask, Question: "Have you ever been to the moon?"},
				{Action: clinic.Finalize, Diagnosis: []string{opts[v.Turn%len(opts)], "URTI", "Influenza"}},
			}
		},
		BadSettings: []benchtest.Bad[settings.Overrides]{
			{Name: "unknown mode", Input: settings.Overrides{"episode": map[string]any{"ddxplus_mode": "batch"}}, Want: "episode.ddxplus_mode"},
			{Name: "write-back under StreamBench", Input: settings.Overrides{"evolver": map[string]any{"mode": "write_back"}}, Want: "score_only"},
		},
		BadCases: []benchtest.Bad[func(*clinic.Case)]{
			{Name: "no profile", Input: func(c *clinic.Case) { c.Exam.Ext = nil }, Want: "exam_view.evidences"},
			{Name: "initial evidence not in the profile", Input: func(c *clinic.Case) {
				c.Exam.Ext, _ = c.Exam.Ext.Put(ddxplus.Record{Findings: ddxplus.RecordOf(c).Findings, Initial: "E_999"})
			}, Want: "exam_view.initial_evidence"},
			{Name: "unknown pathology", Input: func(c *clinic.Case) { c.Manager.Diagnosis.Name = "Scurvy" }, Want: "manager_view.diagnosis.display_name"},
		},
		View: reflect.TypeFor[ddxplus.View](),
	})
}
