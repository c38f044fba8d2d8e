package klinike_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/benchmarks/klinike"
	"github.com/clinevo/clinevo/benchmarks/klinike/sandbox"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/settings"
)

// validArguments are arguments each tool's schema accepts.
var validArguments = map[string]string{
	"examine_patient":       `{"system":"abdominal"}`,
	"order_lab_test":        `{"test_name":"full blood count"}`,
	"order_imaging":         `{"modality":"CT","region":"abdomen"}`,
	"prescribe_medication":  `{"drug":"paracetamol","dose":"1 g","route":"oral"}`,
	"refer_to_specialist":   `{"specialty":"general surgery","urgency":"urgent"}`,
	"admit_to_hospital":     `{"reason":"observation"}`,
	"create_follow_up_plan": `{"plan":"review in a week"}`,
	"record_differential":   `{"diagnoses":["migraine","tension headache"]}`,
	"record_diagnosis":      `{"diagnosis":"viral illness","confidence":"low"}`,
}

// moves are a question and a valid call of every tool the view offers.
func moves(v clinic.DoctorView) []clinic.DoctorOutput {
	out := []clinic.DoctorOutput{{Action: clinic.Ask, Question: "When did it start, and what makes it worse?"}}
	for _, t := range klinike.ViewOf(v).Tools {
		args, ok := validArguments[t.Name]
		if !ok {
			args = `{}`
		}
		out = append(out, klinike.CallOutput(t.Name, json.RawMessage(args)))
	}
	return out
}

func TestConformance(t *testing.T) {
	cases := func(ref string, n int) []clinic.Case {
		c, err := benchtest.Library(klinike.Benchmark{}).Load(ref)
		if err != nil {
			t.Fatal(err)
		}
		return c.Cases[:n]
	}
	base := klinikeSettings()
	chart := base.Clone()
	chart.Episode.Mode = settings.Static
	withExt := func(k string, v any) settings.Settings {
		s := base.Clone()
		s.Episode.Ext = map[string]any{k: v}
		return s
	}
	cfg := benchtest.Config{
		Settings: []settings.Settings{base, chart, withExt("max_steps", 45), withExt("max_steps", 0), withExt("max_patient_turns", 2)},
		Cases:    append(cases("builtin:klinike-train@7", 4), cases("builtin:klinike-test", 2)...),
		Moves:    moves,
		BadSettings: []benchtest.Bad[settings.Overrides]{
			{Name: "negative step cap", Input: settings.Overrides{"episode": map[string]any{"max_steps": -1}}, Want: "episode.max_steps"},
			{Name: "negative patient turns", Input: settings.Overrides{"episode": map[string]any{"max_patient_turns": -3}}, Want: "episode.max_patient_turns"},
			{Name: "a step cap that is no number", Input: settings.Overrides{"episode": map[string]any{"max_steps": "many"}}, Want: "episode.max_steps"},
			// Issue 37, item 12: every size has an upper bound.
			{Name: "a step cap past its bound", Input: settings.Overrides{"episode": map[string]any{"max_steps": 1_000_000_000}},
				Want: "episode.max_steps must be at least 0 and at most 1000 (0: no cap, 200 steps), got 1000000000"},
			{Name: "patient turns past their bound", Input: settings.Overrides{"episode": map[string]any{"max_patient_turns": 2_000_000_000}},
				Want: "episode.max_patient_turns must be at least 0 and at most 1000 (0: no cap), got 2000000000"},
		},
		View:   reflect.TypeFor[klinike.View](),
		Hidden: []reflect.Type{reflect.TypeFor[klinike.Sandbox](), reflect.TypeFor[sandbox.Record](), reflect.TypeFor[klinike.ToolKey](), reflect.TypeFor[klinike.Key]()},
	}
	for _, bt := range badTasks() {
		if bt.shared {
			continue
		}
		cfg.BadCases = append(cfg.BadCases, benchtest.Bad[func(*clinic.Case)]{Name: bt.name, Want: strings.Join(bt.want[:1], ""),
			Input: func(c *clinic.Case) { *c = spoiled(t, *c, bt) }})
	}
	cfg.BadCases = append(cfg.BadCases, benchtest.Bad[func(*clinic.Case)]{Name: "a sandbox that is not an object", Want: "exam_view.sandbox",
		Input: func(c *clinic.Case) { c.Exam.Ext = clinic.Ext{"sandbox": json.RawMessage(`["get_patient_info"]`)} }})
	benchtest.Run(t, klinike.Benchmark{}, cfg)
}
