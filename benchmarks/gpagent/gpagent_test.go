package gpagent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/benchmarks/gpagent"
	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/settings"
)

func gpSettings() settings.Settings {
	s := settings.Default()
	s.Benchmark = gpagent.Name
	return s
}

// withEpisode sets one of the benchmark's episode keys, as a settings file does.
func withEpisode(t testing.TB, s settings.Settings, key string, v any) settings.Settings {
	t.Helper()
	out, err := settings.Apply(s, "test", settings.Overrides{"episode": map[string]any{key: v}})
	require.NoError(t, err)
	return out
}

// gpEpisode reads the benchmark's episode keys.
func gpEpisode(t testing.TB, s settings.Settings) gpagent.Episode {
	t.Helper()
	e, err := gpagent.EpisodeOf(s)
	require.NoError(t, err)
	return e
}

// gpCase returns a case of the GP stream with the label and condition.
func gpCase(t *testing.T, label, condition string) clinic.Case {
	t.Helper()
	cp, err := benchtest.Library(gpagent.Benchmark{}).Load("builtin:gp@7")
	require.NoError(t, err)
	for _, c := range cp.Cases {
		if gpagent.ManagementOf(&c).Label == label && (condition == "" || c.Condition == condition) {
			return c
		}
	}
	t.Fatalf("no %s case of %s", label, condition)
	return clinic.Case{}
}

// script plays a list of doctor outputs and returns the env.
func script(t *testing.T, c clinic.Case, s settings.Settings, outs ...clinic.DoctorOutput) *gpagent.Env {
	t.Helper()
	env, err := gpagent.Start(c, s, episode.BuiltinRoles(), nil)
	require.NoError(t, err)
	for _, o := range outs {
		_, err := env.Step(context.Background(), episode.StepInput{Output: o})
		require.NoError(t, err)
	}
	return env
}

var (
	ask      = clinic.DoctorOutput{Action: clinic.Ask, Question: "Have you noticed any other symptoms along with it?"}
	diagnose = clinic.DoctorOutput{Action: gpagent.Diagnose, Diagnosis: []string{"Migraine"}}
	treat    = clinic.DoctorOutput{Action: gpagent.Treat, Plan: []string{"rest"}}
)

// TestTreatBeforeDiagnoseIsMasked plays a scripted doctor that tries treat
// before diagnose (GPAgentBench §4.2: the workflow mask; C.6: c_workflow): the
// attempt is recorded as masked, costs c_workflow and ends nothing; the
// episode goes on to diagnose and treat.
func TestTreatBeforeDiagnoseIsMasked(t *testing.T) {
	c := gpCase(t, gpagent.PathwayManage, "")
	s := gpSettings()
	s = withEpisode(t, s, "workflow_penalty", 7) // not the default, so the test sees the setting
	env := script(t, c, s, ask, treat)
	ev := env.Events()[1]
	require.Equal(t, clinic.StatusMasked, ev.Status)
	require.Equal(t, 7.0, gpagent.StepOfEvent(ev).Penalty, "c_workflow")
	require.Zero(t, ev.Cost, "a safety cost, not a diagnostic one")
	require.Contains(t, ev.Reply, "treat is not allowed in workflow state collecting_evidence")
	require.False(t, env.Done(), "a masked action ends nothing")
	require.Equal(t, gpagent.Collecting, env.State())

	for _, o := range []clinic.DoctorOutput{diagnose, ask} {
		_, err := env.Step(context.Background(), episode.StepInput{Output: o})
		require.NoError(t, err)
	}
	require.Equal(t, clinic.StatusMasked, env.Events()[3].Status, "after diagnose, only treat: ask is masked")
	require.Equal(t, gpagent.Diagnosed, env.State())
	_, err := env.Step(context.Background(), episode.StepInput{Output: treat})
	require.NoError(t, err)
	final, end := env.Final()
	require.Equal(t, clinic.EndFinalized, end)
	require.Equal(t, gpagent.PathwayManage, gpagent.EndingOf(final).Disposition)
	require.Equal(t, []string{"Migraine"}, final.Diagnosis, "the committed diagnosis")

	sc, err := gpagent.Score(context.Background(), &c, s, env, nil)
	require.NoError(t, err)
	require.Equal(t, 2.0, sc.Metrics[gpagent.MetricMasked])
	require.Equal(t, 5.0, sc.Metrics[gpagent.MetricTurns])

	rebuilt, err := gpagent.Start(c, s, noCalls(t), env.Events())
	require.NoError(t, err)
	require.Equal(t, env.Events(), rebuilt.Events())
	f2, e2 := rebuilt.Final()
	require.Equal(t, final, f2)
	require.Equal(t, end, e2)
}

// noCalls are roles that fail the test when called: a rebuilt episode must
// call none.
func noCalls(t *testing.T) episode.Roles {
	return episode.Roles{Patient: failing{t}, Exam: failing{t}}
}

type failing struct{ t *testing.T }

func (f failing) Answer(context.Context, episode.PatientQuery) (episode.PatientReply, error) {
	f.t.Fatal("the patient was called")
	return episode.PatientReply{}, nil
}

func (f failing) Resolve(context.Context, string, *catalog.Catalog) (catalog.Item, catalog.Match, error) {
	f.t.Fatal("the exam service was called")
	return catalog.Item{}, catalog.MatchNone, nil
}

// TestTimeout plays ten questions: the tenth step costs c_timeout, the
// episode ends at the turn limit without a terminal action, and management
// is wrong whatever the case's label (C.2: C_safety = 1[mgmt wrong]).
func TestTimeout(t *testing.T) {
	t.Parallel()
	s := gpSettings()
	for _, label := range gpagent.Pathways {
		t.Run(label, func(t *testing.T) {
			c := gpCase(t, label, "")
			var outs []clinic.DoctorOutput
			for range s.Episode.MaxTurns {
				outs = append(outs, ask)
			}
			env := script(t, c, s, outs...)
			require.True(t, env.Done())
			final, end := env.Final()
			require.Equal(t, clinic.EndTurnLimit, end)
			require.True(t, final.Forced)
			events := env.Events()
			require.Len(t, events, s.Episode.MaxTurns)
			for _, ev := range events[:len(events)-1] {
				require.Zero(t, gpagent.StepOfEvent(ev).Penalty)
			}
			require.Equal(t, gpEpisode(t, s).TimeoutPenalty, gpagent.StepOfEvent(events[len(events)-1]).Penalty, "c_timeout on the last step")
			require.Equal(t, gpagent.TimedOut, env.State())
			sc, err := gpagent.Score(context.Background(), &c, s, env, nil)
			require.NoError(t, err)
			require.Equal(t, 0.0, sc.Metrics[gpagent.MetricMgmt])
			require.Equal(t, 1.0, sc.Metrics[analysis.MetricSafetyCost])
			require.Equal(t, 1.0, sc.Metrics[gpagent.MetricTimeout])
			require.Equal(t, 0.0, sc.Metrics[gpagent.MetricDx], "no diagnosis: Dx 0")
			miss := map[string]string{gpagent.PathwayRefer: gpagent.MetricMissRefer, gpagent.PathwayManage: gpagent.MetricMissGP}
			require.Equal(t, 1.0, sc.Metrics[miss[label]], "a timeout is its class's safety failure")
			require.Zero(t, sc.S)
			_, err = env.Step(context.Background(), episode.StepInput{Output: ask})
			require.ErrorIs(t, err, episode.ErrDone)
		})
	}
}

// TestView checks what the doctor is told (appendix C.1): the workflow state,
// the allowed and masked actions, the rounds and the record's targets, and
// in the diagnosed state its committed diagnosis with treat alone allowed.
func TestView(t *testing.T) {
	t.Parallel()
	c := gpCase(t, gpagent.PathwayManage, "")
	env := script(t, c, gpSettings())
	v := env.View(nil, nil)
	require.Equal(t, gpagent.Collecting, v.Phase)
	require.Equal(t, []string{"ASK", "BODY_EXAM", "REQUEST_TEST", "DIAGNOSE", "REFER"}, v.Actions)
	require.Equal(t, []string{"TREAT"}, gpagent.ViewOf(v).Masked)
	require.Equal(t, 10, v.MaxTurns)
	require.Zero(t, v.Turn)
	require.Contains(t, gpagent.ViewOf(v).ExamTargets, "vital signs")
	require.Len(t, gpagent.ViewOf(v).ExamTargets, len(c.Exam.Findings))
	require.Len(t, v.Catalog, len(c.Exam.Tests))
	require.Empty(t, v.Results, "nothing is shown before it is asked for")
	require.Empty(t, v.Exchanges)

	_, err := env.Step(context.Background(), episode.StepInput{Output: diagnose})
	require.NoError(t, err)
	v = env.View(nil, nil)
	require.Equal(t, gpagent.Diagnosed, v.Phase)
	require.Equal(t, []string{"TREAT"}, v.Actions)
	require.Equal(t, []string{"ASK", "BODY_EXAM", "REQUEST_TEST", "DIAGNOSE", "REFER"}, gpagent.ViewOf(v).Masked)
	require.Equal(t, []string{"Migraine"}, gpagent.ViewOf(v).Diagnosis)
	require.Equal(t, 1, v.Turn)
}

// TestTargets checks the record-derived targets (§4.2): a listed target
// returns the record, by its name or a clinician's alias; an unlisted one is
// unavailable and costs nothing; a repeat is a duplicate; a test costs its
// Table 4 price, an examination nothing.
func TestTargets(t *testing.T) {
	c := gpCase(t, gpagent.PathwayManage, "")
	s := gpSettings()
	exam := func(target string) clinic.DoctorOutput {
		return gpagent.WithOutput(clinic.DoctorOutput{Action: gpagent.BodyExam}, gpagent.Output{Target: target})
	}
	test := func(name string) clinic.DoctorOutput {
		return clinic.DoctorOutput{Action: clinic.RequestTest, TestName: name}
	}
	env := script(t, c, s, exam("Vital signs"), exam("pulmonary"), exam("examine the abdomen"), exam("fundoscopy of the retina"),
		exam("blood pressure"), test("FBC"), test("colonoscopy"), test("full blood count"), test("abdominal examination"), test("CT head"))
	ev := env.Events()
	want := []struct {
		status clinic.Status
		target string
		cost   float64
	}{
		{clinic.StatusReturned, "vital signs", 0}, {clinic.StatusReturned, "respiratory", 0}, {clinic.StatusReturned, "abdominal", 0},
		{clinic.StatusUnavailable, "fundoscopy of the retina", 0}, {clinic.StatusDuplicate, "vital signs", 0},
		{clinic.StatusReturned, "complete blood count", 30}, {clinic.StatusUnavailable, "colonoscopy", 0}, {clinic.StatusDuplicate, "complete blood count", 0},
		{clinic.StatusUnavailable, "abdominal examination", 0}, {clinic.StatusReturned, "ct head", 500},
	}
	for i, w := range want {
		target := gpagent.StepOfEvent(ev[i]).Target
		if ev[i].Action == clinic.RequestTest {
			target = ev[i].Test
		}
		require.Equal(t, w.status, ev[i].Status, "event %d: %s", i, ev[i].Reply)
		require.Equal(t, w.target, target, "event %d", i)
		require.Equal(t, w.cost, ev[i].Cost, "event %d", i)
		if w.status == clinic.StatusUnavailable {
			require.True(t, strings.HasPrefix(ev[i].Reply, "UNAVAILABLE: "), "a structured unavailable result, never invented evidence")
		}
	}
	require.Equal(t, c.Exam.Findings[findingOf(c, "vitals")].Text, ev[0].Reply)
	require.Contains(t, ev[8].Reply, "body_exam")
	v := env.View(nil, nil)
	require.Len(t, v.Results, 10, "every examination and test, unavailable ones too, is in the view")
	require.Equal(t, 2, v.TestsUsed)
	sc, err := gpagent.Score(context.Background(), &c, s, env, nil)
	require.NoError(t, err)
	require.Equal(t, 530.0, sc.Cost, "CBC 30 + CT 500; examinations, unavailable and duplicate requests are free")
	require.Equal(t, 1.0, sc.Metrics[gpagent.MetricDupExam])
	require.Equal(t, 1.0, sc.Metrics[gpagent.MetricDupTest])
	require.Equal(t, 0.2, sc.Metrics[gpagent.MetricDupRate], "2 duplicates in 10 turns")
}

func findingOf(c clinic.Case, system string) int {
	for i, f := range c.Exam.Findings {
		if f.System == system {
			return i
		}
	}
	return -1
}

// TestActionSpaceAblation restricts the action set to {diagnose, treat}
// (§5.1, Figure 3): the evidence of the left-out actions is in the opening
// presentation, they are neither allowed nor masked, and trying one costs
// c_workflow.
func TestActionSpaceAblation(t *testing.T) {
	c := gpCase(t, gpagent.PathwayRefer, "")
	s := gpSettings()
	s = withEpisode(t, s, "actions", []string{"diagnose", "treat"})
	require.NoError(t, benchtest.SetOf(t, gpagent.Benchmark{}).ValidateSettings(s))
	env := script(t, c, s)
	v := env.View(nil, nil)
	require.Equal(t, []string{"DIAGNOSE"}, v.Actions)
	require.Equal(t, []string{"TREAT"}, gpagent.ViewOf(v).Masked)
	require.Empty(t, gpagent.ViewOf(v).ExamTargets)
	require.Empty(t, v.Catalog)
	require.Len(t, v.Exchanges, 1)
	for _, f := range c.Patient.Facts {
		require.Contains(t, v.Exchanges[0].Answer, f.Text)
	}
	require.Len(t, v.Results, len(c.Exam.Findings)+len(c.Exam.Tests))
	for _, f := range c.Exam.Findings {
		require.Contains(t, env.Revealed(), f.Text)
	}
	_, err := env.Step(context.Background(), episode.StepInput{Output: ask})
	require.NoError(t, err)
	require.Equal(t, clinic.StatusMasked, env.Events()[0].Status)
	require.Equal(t, gpEpisode(t, s).WorkflowPenalty, gpagent.StepOfEvent(env.Events()[0]).Penalty)

	s = withEpisode(t, s, "actions", []string{"diagnose", "treat", "ask", "refer"})
	v = script(t, c, s).View(nil, nil)
	require.Equal(t, []string{"ASK", "DIAGNOSE", "REFER"}, v.Actions)
	require.Empty(t, v.Exchanges, "history is asked for")
	require.Len(t, v.Results, len(c.Exam.Findings)+len(c.Exam.Tests), "examinations and tests still up front")
}

// TestTable4 checks every alias of GPAgentBench's Table 4 (appendix C.2)
// against its category and price, and the tie-breaks and fallbacks.
func TestTable4(t *testing.T) {
	prices := settings.Default().Episode.Prices
	tests := []struct {
		names    []string
		category string
		price    float64
	}{
		{[]string{"strep test", "flu test", "pregnancy test", "rapid test", "h. pylori", "urine pregnancy test", "H pylori breath test"}, "Rapid Tests", 25},
		{[]string{"cbc", "complete blood count", "blood count", "blood test", "CBC with differential"}, "Complete Blood Count", 30},
		{[]string{"fingerstick glucose", "blood glucose", "hba1c"}, "Blood Glucose", 30},
		{[]string{"bmp", "basic metabolic panel", "metabolic panel"}, "Basic Metabolic Panel", 35},
		{[]string{"urinalysis", "urine", "urine dipstick", "urine culture"}, "Urinalysis", 35},
		{[]string{"troponin", "cardiac biomarker", "high sensitivity troponin"}, "Cardiac Biomarker", 40},
		{[]string{"ecg", "ekg", "electrocardiogram", "12-lead ECG"}, "Electrocardiogram", 50},
		{[]string{"tsh", "thyroid", "thyroid function", "thyroid function tests"}, "Thyroid Function", 50},
		{[]string{"x-ray", "xray", "chest x-ray", "radiograph", "knee X-Ray"}, "X-ray", 80},
		{[]string{"spirometry", "pulmonary function", "pulmonary function tests"}, "Spirometry", 100},
		{[]string{"ultrasound", "us", "sonograph", "renal US", "abdominal sonography"}, "Ultrasound", 250},
		{[]string{"ct", "ct scan", "computed tomography", "CT head"}, "Computed Tomography", 500},
		{[]string{"mri", "magnetic resonance", "MRI lumbar spine"}, "Magnetic Resonance", 700},
	}
	for _, tc := range tests {
		for _, n := range tc.names {
			t.Run(n, func(t *testing.T) {
				cat, _, ok := gpagent.Category(n)
				require.True(t, ok)
				require.Equal(t, tc.category, cat)
				require.Equal(t, tc.price, gpagent.Price(n, catalog.Item{Name: n, Category: catalog.Other}, prices))
			})
		}
	}
	for _, n := range []string{"lipase", "stool culture", "busy"} {
		_, _, ok := gpagent.Category(n)
		require.False(t, ok, n)
	}
	lipase, _ := catalog.Default().Lookup("lipase")
	require.Equal(t, 35.0, gpagent.Price("lipase", lipase, prices), "a test Table 4 does not name pays its catalog category")
	echo, _ := catalog.Default().Lookup("echo")
	require.Equal(t, 250.0, gpagent.Price("echo", echo, prices))
	vitals, _ := catalog.Default().Lookup("vital signs")
	require.Zero(t, gpagent.Price("vital signs", vitals, prices), "examinations and vital signs are free")
	custom := map[string]float64{"ct": 450}
	require.Equal(t, 450.0, gpagent.Price("ct", catalog.Item{Name: "ct"}, custom), "episode.prices overrides a category")
}

func TestSameDestination(t *testing.T) {
	tests := []struct {
		a, b string
		same bool
	}{
		{"Emergency Department", "emergency department", true},
		{"ED", "Emergency Department", true},
		{"A&E", "emergency department", true},
		{"the emergency room", "Emergency Department", true},
		{"Cardiologist", "cardiology", true},
		{"Cardiology clinic", "cardiology", true},
		{"Haematology", "hematology", true},
		{"Orthopaedics", "orthopedic surgeon", false},
		{"General surgeon", "general surgery", true},
		{"ENT", "Ear, Nose and Throat", true},
		{"Urology", "Gastroenterology", false},
		{"", "cardiology", false},
	}
	for _, tc := range tests {
		t.Run(tc.a+" vs "+tc.b, func(t *testing.T) {
			require.Equal(t, tc.same, gpagent.SameDestination(tc.a, tc.b))
		})
	}
}

// TestScoreRubric scores terminal outcomes with the built-in rubric.
func TestScoreRubric(t *testing.T) {
	t.Parallel()
	s := gpSettings()
	manage := gpCase(t, gpagent.PathwayManage, "migraine")
	refer := gpCase(t, gpagent.PathwayRefer, "migraine")
	dx := clinic.DoctorOutput{Action: gpagent.Diagnose, Diagnosis: []string{manage.Manager.Diagnosis.Name}}
	good := clinic.DoctorOutput{Action: gpagent.Treat, Plan: gpagent.ManagementOf(&manage).Treatment}
	tests := []struct {
		name   string
		c      clinic.Case
		outs   []clinic.DoctorOutput
		s      float64
		want   map[string]float64
		absent []string
	}{
		// (5·1 + 3·1)/8 = 1
		{"manage: right diagnosis, full plan", manage, []clinic.DoctorOutput{dx, good}, 1,
			map[string]float64{"dx": 1, "tx": 1, "mgmt": 1, "miss_gp": 0, "reward": 8, "cost_safety": 0}, []string{"miss_refer", "dest"}},
		// (5·1 + 3·0.5)/8 = 0.8125
		{"manage: right diagnosis, part of the plan", manage, []clinic.DoctorOutput{dx, {Action: gpagent.Treat, Plan: gpagent.ManagementOf(&manage).Treatment[:1]}}, 0.8125,
			map[string]float64{"dx": 1, "tx": 0.5, "reward": 6.5}, nil},
		// (5·0 + 3·1)/8 = 0.375
		{"manage: wrong diagnosis", manage, []clinic.DoctorOutput{{Action: gpagent.Diagnose, Diagnosis: []string{"headache"}}, good}, 0.375,
			map[string]float64{"dx": 0, "tx": 1, "reward": 3}, nil},
		{"manage: referred", manage, []clinic.DoctorOutput{referTo("Neurology", "urgent")}, 0,
			map[string]float64{"mgmt": 0, "miss_gp": 1, "cost_safety": 1, "reward": 0, "dx": 0, "tx": 0, "referred": 1}, []string{"dx_committed", "tx_committed", "dest"}},
		// (1 + 1)/2 = 1; a referral names no diagnosis: Dx = Tx = 0 over all cases
		{"refer: referred to an accepted destination", refer, []clinic.DoctorOutput{referTo("A&E", "Emergency")}, 1,
			map[string]float64{"mgmt": 1, "miss_refer": 0, "dest": 1, "cost_safety": 0, "dx": 0, "referred": 1}, []string{"dx_committed", "tx_committed", "miss_gp"}},
		// (1 + 0)/2 = 0.5
		{"refer: referred elsewhere", refer, []clinic.DoctorOutput{referTo("Dermatology", "routine")}, 0.5,
			map[string]float64{"mgmt": 1, "dest": 0}, nil},
		{"refer: treated", refer, []clinic.DoctorOutput{dx, good}, 0,
			map[string]float64{"mgmt": 0, "miss_refer": 1, "cost_safety": 1, "dest": 0}, []string{"miss_gp"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := script(t, tc.c, s, tc.outs...)
			sc, err := gpagent.Score(context.Background(), &tc.c, s, env, nil)
			require.NoError(t, err)
			require.InDelta(t, tc.s, sc.S, 1e-9)
			for k, v := range tc.want {
				require.Equal(t, v, sc.Metrics[k], k)
			}
			for _, k := range tc.absent {
				require.NotContains(t, sc.Metrics, k)
			}
			require.Equal(t, sc.S == 1, sc.Strict)
			require.Equal(t, sc.S >= s.Scoring.PassAt, sc.Pass)
		})
	}
}

// TestScoreUsesTheGPJudge checks that a model judge's scores are the ones used.
func TestScoreUsesTheGPJudge(t *testing.T) {
	t.Parallel()
	s := gpSettings()
	c := gpCase(t, gpagent.PathwayManage, "")
	env := script(t, c, s, diagnose, treat)
	sc, err := gpagent.Score(context.Background(), &c, s, env, fixedJudge{dx: 1, tx: 0.5})
	require.NoError(t, err)
	require.Equal(t, 1.0, sc.Metrics["dx"])
	require.Equal(t, 0.5, sc.Metrics["tx"])
	require.InDelta(t, (5*1+3*0.5)/8.0, sc.S, 1e-9)
}

type fixedJudge struct {
	dx int
	tx float64
}

var _ gpagent.Judge = fixedJudge{}

func (j fixedJudge) JudgeDx(context.Context, *clinic.Case, string) (int, error) { return j.dx, nil }
func (j fixedJudge) JudgeTx(context.Context, *clinic.Case, []string) (float64, error) {
	return j.tx, nil
}

// TestActionNamesAreTheSettings checks that the settings' names of the six
// actions (episode.actions) are those of the environment's, in the paper's
// order.
func TestActionNamesAreTheSettings(t *testing.T) {
	var names []string
	for _, a := range gpagent.Actions {
		names = append(names, gpagent.ActionName(a))
	}
	require.Equal(t, gpagent.ActionNames, names)
	require.Equal(t, []clinic.ActionKind{clinic.Ask, gpagent.Diagnose, gpagent.Treat}, gpagent.Enabled(gpagent.Episode{Actions: []string{"treat", "ask", "diagnose"}}))
}
