package klinike_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/benchmarks/klinike"
	"github.com/clinevo/clinevo/benchmarks/klinike/sandbox"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
)

// aaa is a hand-written task after KlinikeBench's Figure 1: a 68-year-old man
// with burning abdominal pain through to the back (an abdominal aortic
// aneurysm), three must-ask topics, four required tools, a CT of the abdomen
// that must be ordered, and a penicillin the doctor must never prescribe.
func aaa() clinic.Case {
	c := clinic.Case{SchemaVersion: clinic.CaseSchemaVersion, ID: "aaa-1", Condition: "aaa",
		Patient: clinic.PatientView{Demographics: clinic.Demographics{Age: 68, Sex: "male", Text: "68-year-old man"},
			OpeningComplaint: "It's a burning pain in my belly, and it goes through to my back.",
			Facts: []clinic.Fact{
				{ID: "f1", Text: "It started two days ago.", Topics: []string{clinic.TopicOnset}},
				{ID: "f2", Text: "It burns and throbs.", Topics: []string{clinic.TopicCharacter}},
				{ID: "f3", Text: "I smoked for forty years.", Topics: []string{clinic.TopicSocial}},
				{ID: "f4", Text: "I have not vomited blood.", Topics: []string{clinic.TopicAssociated}, Absent: true},
				{ID: "f5", Text: "I am allergic to penicillin.", Topics: []string{clinic.TopicAllergies}},
			},
			Persona: clinic.Persona{Personality: "neutral", Language: "fluent", Recall: "high", Clarity: "clear"}},
		Exam: clinic.ExamView{
			Findings: []clinic.Finding{{System: "vitals", Text: "BP 150/90 mmHg, HR 96."}, {System: "abdominal", Text: "Pulsatile mass above the umbilicus.", Abnormal: true}},
			Tests:    []clinic.TestValue{{Name: "ct abdomen", Result: "Infrarenal aortic aneurysm of 6 cm.", Abnormal: true}},
		},
		Manager: clinic.ManagerView{Diagnosis: clinic.Diagnosis{Name: "Abdominal aortic aneurysm", Acceptable: []string{"AAA"}},
			MustAsk: []string{clinic.TopicOnset, clinic.TopicCharacter, clinic.TopicSocial}},
		Provenance: clinic.Provenance{Source: "test"}}
	klinike.SetTask(&c, &klinike.Sandbox{Tools: []string{"get_patient_info", "get_patient_allergies", "get_patient_vitals", "order_imaging",
		"prescribe_medication", "admit_to_hospital", "record_diagnosis"}, Forbidden: []string{"create_follow_up_plan"},
		Record: sandbox.Record{Allergies: []string{"penicillin (rash)"}}},
		&klinike.ToolKey{Required: []string{"get_patient_info", "get_patient_allergies", "order_imaging", "admit_to_hospital"},
			Constraints: []klinike.ActionConstraint{
				{Tool: "order_imaging", Rule: klinike.RuleMust, Arguments: map[string]string{"modality": "CT", "region": "abdomen"}},
				{Tool: "prescribe_medication", Rule: klinike.RuleNever, Arguments: map[string]string{"drug": "amoxicillin"}},
			}})
	return c
}

func ask(q string) clinic.DoctorOutput { return clinic.DoctorOutput{Action: clinic.Ask, Question: q} }

func call(tool, args string) clinic.DoctorOutput {
	return klinike.CallOutput(tool, json.RawMessage(args))
}

func klinikeSettings() settings.Settings {
	s := settings.Default()
	s.Benchmark = klinike.Name
	return s
}

// restore is klinike.Restore of valid settings.
func restore(t *testing.T, c clinic.Case, s settings.Settings, roles episode.Roles, events []clinic.Event) *klinike.Env {
	t.Helper()
	env, err := klinike.Restore(c, s, roles, events)
	require.NoError(t, err)
	return env
}

// play steps a scripted agent through the encounter and scores it with the
// built-in judges.
func play(t *testing.T, c clinic.Case, s settings.Settings, script []clinic.DoctorOutput) (*klinike.Env, clinic.Scores) {
	t.Helper()
	env := restore(t, c, s, episode.BuiltinRoles(), nil)
	for _, out := range script {
		_, err := env.Step(context.Background(), episode.StepInput{Output: out})
		require.NoError(t, err)
	}
	final, _ := env.Final()
	sc, err := klinike.Score(context.Background(), &c, s, env.Events(), final, nil)
	require.NoError(t, err)
	return env, sc
}

func TestTaskValidates(t *testing.T) {
	c := aaa()
	require.NoError(t, benchtest.Library(klinike.Benchmark{}).Validate(&c))
}

// TestGates works the four gates, strict success and r_multi out by hand for
// scripted agents.
func TestGates(t *testing.T) {
	history := []clinic.DoctorOutput{ask("When did this start?"), ask("Can you describe what it feels like?"), ask("Do you smoke?")}
	encounter := func(questions []clinic.DoctorOutput, imaging string, extra ...clinic.DoctorOutput) []clinic.DoctorOutput {
		out := append([]clinic.DoctorOutput(nil), questions...)
		out = append(out, call("get_patient_info", `{}`), call("get_patient_allergies", `{}`), call("order_imaging", imaging),
			call("admit_to_hospital", `{"reason":"symptomatic aneurysm"}`))
		out = append(out, extra...)
		return append(out, call("record_diagnosis", `{"diagnosis":"Abdominal aortic aneurysm","confidence":"high"}`))
	}
	tools := func(imaging string, extra ...clinic.DoctorOutput) []clinic.DoctorOutput {
		return encounter(history, imaging, extra...)
	}
	ct := `{"modality":"CT","region":"abdomen"}`
	tests := []struct {
		name         string
		script       []clinic.DoctorOutput
		d, w, a, h   float64
		pass, rmulti float64
		required     float64
		violations   []string
	}{
		// Everything right: s = 1·1·1·1[1 = 1] = 1; r_multi = (2·1 + 1 + 1 + 1)/5 = 1.
		{name: "every gate", script: tools(ct), d: 1, w: 1, a: 1, h: 1, pass: 1, rmulti: 1, required: 1},
		// Every required tool called, but the imaging with modality MRI: W stays 1
		// (order_imaging ran; no MRI of the abdomen is on record, so it came back
		// unavailable), A is 0 (the must-constraint CT abdomen is unmet), s = 1·1·0·1 = 0,
		// r_multi = (2·1 + 1 + 0 + 1)/5 = 0.8.
		{name: "one wrong argument", script: tools(`{"modality":"MRI","region":"abdomen"}`), d: 1, w: 1, a: 0, h: 1, pass: 0, rmulti: 0.8, required: 1,
			violations: []string{"missing order_imaging(modality=CT, region=abdomen)"}},
		// A contraindicated drug: A = 0 (never amoxicillin); s = 0; r_multi = 0.8.
		{name: "a never-constraint broken", script: tools(ct, call("prescribe_medication", `{"drug":"Amoxicillin","dose":"500 mg","route":"oral"}`)),
			d: 1, w: 1, a: 0, h: 1, pass: 0, rmulti: 0.8, required: 1, violations: []string{"made prescribe_medication(drug=amoxicillin)"}},
		// A forbidden tool: refused, so it never ran (appendix B.1): A reads the
		// argument-level constraints of the calls that ran and stays 1; s = 1.
		{name: "a forbidden tool", script: tools(ct, call("create_follow_up_plan", `{"plan":"review"}`)),
			d: 1, w: 1, a: 1, h: 1, pass: 1, rmulti: 1, required: 1},
		// A forbidden call whose arguments would break a never-constraint were it
		// exposed: still refused, still no violation.
		{name: "a refused call meeting a never-constraint", script: tools(ct, call("prescribe_drug", `{"drug":"amoxicillin","dose":"500 mg","route":"oral"}`)),
			d: 1, w: 1, a: 1, h: 1, pass: 1, rmulti: 1, required: 1},
		// The accepted alternative "AAA" passes D as the reference does (§2.1 A(d)).
		{name: "an accepted alternative", script: append(append([]clinic.DoctorOutput(nil), tools(ct)[:7]...), call("record_diagnosis", `{"diagnosis":"AAA"}`)),
			d: 1, w: 1, a: 1, h: 1, pass: 1, rmulti: 1, required: 1},
		// A less specific name ("aneurysm": grade 75) does not match: D = 0, r_multi = 0.6.
		{name: "a less specific name", script: append(append([]clinic.DoctorOutput(nil), tools(ct)[:7]...), call("record_diagnosis", `{"diagnosis":"aneurysm"}`)),
			d: 0, w: 1, a: 1, h: 1, pass: 0, rmulti: 0.6, required: 1},
		// No smoking question: H = 2/3 = 0.6667, so s = 0 though D = W = A = 1;
		// r_multi = (2 + 1 + 1 + 0.6667)/5 = 0.9333.
		{name: "a must-ask topic missed", script: encounter(history[:2], ct), d: 1, w: 1, a: 1, h: 0.6667, pass: 0, rmulti: 0.9333, required: 1},
		// No allergy check and no admission: W = 0 with 2 of 4 required tools (0.5);
		// s = 0; r_multi = (2 + 0 + 1 + 1)/5 = 0.8.
		{name: "required tools missed", script: append(append(append([]clinic.DoctorOutput(nil), history...), call("get_patient_info", `{}`),
			call("order_imaging", ct)), call("record_diagnosis", `{"diagnosis":"AAA"}`)), d: 1, w: 0, a: 1, h: 1, pass: 0, rmulti: 0.8, required: 0.5},
		// A wrong diagnosis: D = 0; r_multi = (0 + 1 + 1 + 1)/5 = 0.6.
		{name: "a wrong diagnosis", script: append(append([]clinic.DoctorOutput(nil), tools(ct)[:7]...), call("record_diagnosis", `{"diagnosis":"Suspected pancreatic neoplasm"}`)),
			d: 0, w: 1, a: 1, h: 1, pass: 0, rmulti: 0.6, required: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := aaa()
			env, sc := play(t, c, klinikeSettings(), tc.script)
			require.True(t, env.Done())
			m := sc.Metrics
			require.Equal(t, tc.d, m[klinike.MetricD], "D")
			require.Equal(t, tc.w, m[klinike.MetricW], "W")
			require.Equal(t, tc.a, m[klinike.MetricA], "A")
			require.Equal(t, tc.h, m[klinike.MetricH], "H")
			require.Equal(t, tc.pass, m[klinike.MetricPass], "strict success")
			require.Equal(t, tc.rmulti, m[klinike.MetricRMulti], "r_multi")
			require.Equal(t, tc.pass, sc.S, "S is strict success")
			require.Equal(t, tc.pass == 1, sc.Pass)
			require.Equal(t, tc.d == 1, sc.Strict, "the diagnosis matched")
			require.Equal(t, tc.required, sc.Required)
			require.Equal(t, tc.h, sc.MustAsk)
			_, _, _, _, violations, err := klinike.ToolGates(&c, env.Events())
			require.NoError(t, err)
			require.Equal(t, tc.violations, violations)
		})
	}
}

// TestInvalidArgumentsAreRecorded: a call whose arguments break the schema is
// an invalid step with the schema error as its reply, shown to the doctor;
// the encounter goes on and a later good call runs.
func TestInvalidArgumentsAreRecorded(t *testing.T) {
	tests := []struct {
		name, tool, args, reply string
	}{
		{"a value outside the enum", "order_imaging", `{"modality":"PET","region":"abdomen"}`, "at /modality: value must be one of 'X-ray', 'CT', 'MRI', 'ultrasound'"},
		{"a missing argument", "order_imaging", `{"modality":"CT"}`, "at /: missing property 'region'"},
		{"an unknown argument", "admit_to_hospital", `{"reason":"x","ward":"surgical"}`, "additional properties 'ward' not allowed"},
		{"not an object", "order_imaging", `["CT","abdomen"]`, "must be a JSON object"},
		// Text that is not JSON travels as a JSON string of it (an output is
		// JSON on the wire), which is not an object.
		{"not JSON at all", "order_imaging", `modality=CT`, "must be a JSON object"},
		{"a wrong type", "record_diagnosis", `{"diagnosis":42}`, "at /diagnosis: got number, want string"},
		{"an unexposed tool", "refer_to_specialist", `{"specialty":"vascular surgery","urgency":"emergency"}`, `tool "refer_to_specialist" is not available`},
		{"an unknown tool", "order_pet_scan", `{}`, `tool "order_pet_scan" is not available`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := aaa()
			env := restore(t, c, klinikeSettings(), episode.BuiltinRoles(), nil)
			ev, err := env.Step(context.Background(), episode.StepInput{Output: call(tc.tool, tc.args)})
			require.NoError(t, err)
			require.Equal(t, clinic.StatusInvalid, ev.Status)
			require.Contains(t, ev.Reply, tc.reply)
			require.True(t, json.Valid(callOf(ev).Arguments), "the trace keeps the arguments as valid JSON")
			require.False(t, env.Done())
			v := klinike.ViewOf(env.View(nil, nil))
			require.Len(t, v.ToolResults, 1)
			require.Equal(t, clinic.StatusInvalid, v.ToolResults[0].Status)
			require.Contains(t, v.ToolResults[0].Text, tc.reply, "the error goes back to the doctor")
			require.Equal(t, 31, v.StepsLeft, "a refused call spends a step")
			ev, err = env.Step(context.Background(), episode.StepInput{Output: call("order_imaging", `{"modality":"CT","region":"abdomen"}`)})
			require.NoError(t, err)
			require.Equal(t, clinic.StatusReturned, ev.Status)
			require.Equal(t, "ct abdomen: Infrarenal aortic aneurysm of 6 cm.", ev.Reply)
			_, _, _, _, violations, err := klinike.ToolGates(&c, env.Events())
			require.NoError(t, err)
			require.NotContains(t, violations, "missing order_imaging(modality=CT, region=abdomen)", "only executed calls count")
		})
	}
}

// TestBudgets: every question and call is a step; the patient answers at most
// max_patient_turns questions; when the steps are spent only record_diagnosis
// remains, and an agent that does not record one ends with no diagnosis.
func TestBudgets(t *testing.T) {
	s := klinikeSettings()
	s.Episode.Ext = map[string]any{"max_steps": 3, "max_patient_turns": 1}
	t.Run("told to record a diagnosis", func(t *testing.T) {
		c := aaa()
		env := restore(t, c, s, episode.BuiltinRoles(), nil)
		v := env.View(nil, nil)
		require.Equal(t, []string{"ASK", "TOOL_CALL"}, v.Actions)
		require.Equal(t, 3, klinike.ViewOf(v).StepsLeft)
		require.Equal(t, 1, klinike.ViewOf(v).PatientTurnsLeft)
		step := func(out clinic.DoctorOutput) clinic.Event {
			ev, err := env.Step(context.Background(), episode.StepInput{Output: out})
			require.NoError(t, err)
			return ev
		}
		require.Equal(t, clinic.StatusReturned, step(ask("When did this start?")).Status)
		require.Equal(t, []string{"TOOL_CALL"}, env.View(nil, nil).Actions, "no patient turn left")
		ev := step(ask("Do you smoke?"))
		require.Equal(t, clinic.StatusOverBudget, ev.Status)
		require.Contains(t, ev.Reply, "patient turns are spent")
		require.Equal(t, clinic.StatusReturned, step(call("get_patient_info", `{}`)).Status)
		v = env.View(nil, nil)
		require.Equal(t, klinike.PhaseRecord, klinike.ViewOf(v).Phase)
		require.Equal(t, []string{"TOOL_CALL"}, v.Actions)
		require.Len(t, klinike.ViewOf(v).Tools, 1)
		require.Equal(t, "record_diagnosis", klinike.ViewOf(v).Tools[0].Name)
		require.False(t, env.Done())
		ev = step(call("record_diagnosis", `{"diagnosis":"AAA"}`))
		require.Equal(t, clinic.StatusFinalized, ev.Status)
		final, end := env.Final()
		require.Equal(t, clinic.EndFinalized, end)
		require.Equal(t, []string{"AAA"}, final.Diagnosis)
		_, err := env.Step(context.Background(), episode.StepInput{Output: ask("More?")})
		require.ErrorIs(t, err, episode.ErrDone)
	})
	t.Run("no diagnosis recorded", func(t *testing.T) {
		c := aaa()
		env, sc := play(t, c, s, []clinic.DoctorOutput{call("get_patient_info", `{}`), call("get_patient_vitals", `{}`),
			call("get_patient_allergies", `{}`), call("order_imaging", `{"modality":"CT","region":"abdomen"}`)})
		require.True(t, env.Done())
		final, end := env.Final()
		require.Equal(t, clinic.EndTurnLimit, end)
		require.True(t, final.Forced)
		require.Empty(t, final.Diagnosis, "no diagnosis is made up")
		last := env.Events()[3]
		require.Equal(t, clinic.StatusInvalid, last.Status, "only record_diagnosis after the budget")
		require.Zero(t, sc.Metrics[klinike.MetricD])
	})
	t.Run("no step cap", func(t *testing.T) {
		s := klinikeSettings()
		s.Episode.Ext = map[string]any{"max_steps": 0}
		env := restore(t, aaa(), s, episode.BuiltinRoles(), nil)
		require.Equal(t, klinike.Uncapped, klinike.ViewOf(env.View(nil, nil)).StepsLeft)
	})
}

// TestRestore rebuilds an encounter from its events without calling a role
// and reaches the same view and end.
func TestRestore(t *testing.T) {
	c := aaa()
	s := klinikeSettings()
	script := []clinic.DoctorOutput{ask("When did this start?"), ask("When did this start?"), call("order_imaging", `{"modality":"PET"}`),
		call("get_patient_allergies", `{}`), ask("Do you smoke?")}
	env, _ := play(t, c, s, script)
	require.True(t, env.Events()[1].Cached, "the same question gets the same answer")
	again := restore(t, c, s, episode.Roles{}, env.Events()) // nil roles: nothing may be called
	require.Equal(t, env.View(nil, nil), again.View(nil, nil))
	require.Equal(t, env.Revealed(), again.Revealed())
	// The patient side continues where it stopped: a repeated question is cached.
	ev, err := again.Step(context.Background(), episode.StepInput{Output: ask("Do you smoke?")})
	require.NoError(t, err)
	require.True(t, ev.Cached)
}

// TestChartMode: the whole intake in one view, record_diagnosis only; scored
// on D alone (S = D).
func TestChartMode(t *testing.T) {
	c := aaa()
	s := klinikeSettings()
	s.Episode.Mode = settings.Static
	env := restore(t, c, s, episode.BuiltinRoles(), nil)
	v := env.View(nil, nil)
	require.Equal(t, klinike.PhaseChart, klinike.ViewOf(v).Phase)
	require.Equal(t, []string{"TOOL_CALL"}, v.Actions)
	require.Len(t, klinike.ViewOf(v).Tools, 1)
	require.Contains(t, v.Exchanges[0].Answer, "I smoked for forty years.")
	require.Contains(t, v.Exchanges[0].Answer, "I have not vomited blood.", "denied findings are part of the history")
	require.Equal(t, "penicillin (rash)", v.Exchanges[1].Answer)
	require.NotContains(t, env.Revealed(), "aneurysm of 6 cm", "no test result in the chart")
	_, sc := play(t, c, s, []clinic.DoctorOutput{call("record_diagnosis", `{"diagnosis":"abdominal aortic aneurysm"}`)})
	require.Equal(t, map[string]float64{klinike.MetricD: 1}, sc.Metrics)
	require.Equal(t, 1.0, sc.S)
	_, sc = play(t, c, s, []clinic.DoctorOutput{ask("Any pain?")})
	require.Zero(t, sc.S, "an ask in the chart mode is refused, and the encounter ends with no diagnosis")
}

// flipJudge raises no must-ask topic at all.
type flipJudge struct{ grader.RubricJudge }

func (flipJudge) JudgeMustAsk(_ context.Context, _ *clinic.Case, topics, _ []string) ([]bool, error) {
	return make([]bool, len(topics)), nil
}

// TestRescoreChangesOnlyMustAsk: under another judge only H is judged again
// (KlinikeBench §4.1); D, W and A stay.
func TestRescoreChangesOnlyMustAsk(t *testing.T) {
	c := aaa()
	s := klinikeSettings()
	env, sc := play(t, c, s, []clinic.DoctorOutput{ask("When did this start?"), call("order_imaging", `{"modality":"MRI","region":"abdomen"}`),
		call("record_diagnosis", `{"diagnosis":"Abdominal aortic aneurysm"}`)})
	require.Equal(t, 0.3333, sc.Metrics[klinike.MetricH])
	again, err := klinike.Rescore(context.Background(), &c, s, env.Events(), sc, flipJudge{})
	require.NoError(t, err)
	require.Zero(t, again.Metrics[klinike.MetricH])
	for _, k := range []string{klinike.MetricD, klinike.MetricW, klinike.MetricA} {
		require.Equal(t, sc.Metrics[k], again.Metrics[k], k)
	}
	// r_multi = (2·1 + 0 + 0 + 0)/5 = 0.4 against (2 + 0 + 0 + 0.3333)/5 = 0.4667 before.
	require.Equal(t, 0.4667, sc.Metrics[klinike.MetricRMulti])
	require.Equal(t, 0.4, again.Metrics[klinike.MetricRMulti])
}

// TestJudgeCheckedAtStart: a run's judge must give the diagnosis grade and
// the must-ask verdicts; one without is refused, at start and by scoring,
// never replaced by the rubric.
func TestJudgeCheckedAtStart(t *testing.T) {
	b := klinike.Benchmark{}
	require.NoError(t, bench.CheckJudge(b, nil), "the built-in judge")
	require.NoError(t, bench.CheckJudge(b, klinike.Rubric{}))
	require.NoError(t, bench.CheckJudge(b, klinike.ModelJudge{}))
	err := bench.CheckJudge(b, grader.RubricJudge{})
	require.ErrorContains(t, err, "benchmark klinike: judge: grader.RubricJudge has no JudgeMustAsk (gate H)")
	c := aaa()
	env, _ := play(t, c, klinikeSettings(), []clinic.DoctorOutput{call("record_diagnosis", `{"diagnosis":"AAA"}`)})
	final, _ := env.Final()
	_, err = klinike.Score(context.Background(), &c, klinikeSettings(), env.Events(), final, grader.RubricJudge{})
	require.ErrorContains(t, err, "has no JudgeMustAsk")
}
