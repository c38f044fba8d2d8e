package sdbench_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/benchmarks/sdbench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/episode"
)

// importFixture imports testdata/cases.json as `corpus import sdbench` does.
func importFixture(t *testing.T) []clinic.Case {
	t.Helper()
	f, err := os.Open("testdata/cases.json")
	require.NoError(t, err)
	defer f.Close()
	cases, skipped, err := benchtest.Library(sdbench.Benchmark{}).Import(sdbench.Name, f, "cases.json", corpus.Options{})
	require.NoError(t, err)
	require.Empty(t, skipped)
	require.Len(t, cases, 3)
	return cases
}

// TestImport reads the fixture through `corpus import sdbench`'s format and
// plays one imported case: the abstract opens the encounter, a recorded
// test (named as the file names it) returns its result, an unrecorded one
// the gatekeeper's answer, and the judge credits the final diagnosis.
func TestImport(t *testing.T) {
	cases := importFixture(t)
	c := cases[0]
	require.Equal(t, 29, c.Patient.Demographics.Age)
	require.Equal(t, "female", c.Patient.Demographics.Sex)
	var facts []string
	for _, f := range c.Patient.Facts {
		facts = append(facts, f.Text)
	}
	require.Equal(t, []string{"The sore throat began seven weeks before admission.", "The right side became more painful and swollen.",
		"She had no fever and no headache.", "She does not smoke and drinks little alcohol."}, facts,
		"without history, the full case's history sentences are the facts: no examination, no result")
	require.Contains(t, sdbench.RecordOf(&c).FullCase, "MyoD1")
	require.Equal(t, "complete blood count", c.Exam.Tests[0].Name, "a test the catalog knows takes its name")
	require.Equal(t, []string{"h1", "h2", "h3"}, []string{cases[1].Patient.Facts[0].ID, cases[1].Patient.Facts[1].ID, cases[1].Patient.Facts[2].ID})
	require.NoError(t, benchtest.Library(sdbench.Benchmark{}).Validate(&c))

	env := start(t, c, sdSettings(), episode.BuiltinRoles(), nil)
	require.Equal(t, c.Patient.OpeningComplaint, env.View(nil, nil).OpeningComplaint)
	ev := step(t, env, clinic.DoctorOutput{Action: clinic.RequestTest, TestName: "biopsy of the mass; ecg"})
	orders := sdbench.TurnOf(ev).Orders
	require.Contains(t, orders[0].Result, "desmin")
	require.False(t, orders[0].Synthetic)
	require.True(t, orders[1].Synthetic)
	require.Equal(t, "Ecg: no result is recorded for this patient.", orders[1].Result, "an imported record promises no normal result")
	step(t, env, clinic.DoctorOutput{Action: clinic.Finalize, Diagnosis: []string{"rhabdomyosarcoma of the oropharynx"}})
	sc, err := sdbench.Benchmark{}.Score(context.Background(), bench.ScoreInput{Case: &c, Settings: sdSettings(), Env: env})
	require.NoError(t, err)
	require.Equal(t, 1.0, sc.Metrics["correct"])

	// A test the full record tells of in its narrative only is answered from it, not made up.
	env = start(t, cases[1], sdSettings(), episode.BuiltinRoles(), nil)
	o := sdbench.TurnOf(step(t, env, clinic.DoctorOutput{Action: clinic.RequestTest, TestName: "chest x-ray"})).Orders[0]
	require.Equal(t, "A chest x ray was clear.", o.Result)
	require.False(t, o.Synthetic)
}

// TestImportSplitsNarrative: a case given as prose alone is split into
// history (what the patient tells), examination findings and investigations
// by test; no fact or finding names the diagnosis (the father's lymphoma
// would give it away), while the biopsy, the confirmatory test, still
// reports it; and the built-in gatekeeper never contradicts the record.
func TestImportSplitsNarrative(t *testing.T) {
	c := importFixture(t)[2]
	var facts []string
	for _, f := range c.Patient.Facts {
		facts = append(facts, f.Text)
	}
	require.Equal(t, []string{"The swelling in the left neck appeared two months ago and has slowly grown.", "He has lost 6 kg and has had night sweats.",
		"He has smoked for twenty years."}, facts)
	// Systems by the published-cases importers' cues (corpus.FindingSystem),
	// which name no neck sign: the node is "general", still told for the
	// neck by its region (record.go).
	require.Equal(t, []clinic.Finding{{System: "general", Text: "On examination there was a firm 3 cm node in the left neck."},
		{System: "abdominal", Text: "The spleen was palpable."}}, c.Exam.Findings)
	tests := map[string]string{}
	for _, tv := range c.Exam.Tests {
		tests[tv.Name] = tv.Result
	}
	require.Equal(t, map[string]string{
		"complete blood count": "A complete blood count showed a lymphocyte count of 1.1 x10^9/L.",
		"ct chest":             "A CT of the chest showed mediastinal lymphadenopathy.",
		"lymph node biopsy":    "An excisional lymph node biopsy showed Reed-Sternberg cells in a mixed inflammatory background, diagnostic of classic Hodgkin lymphoma.",
	}, tests)

	env := start(t, c, sdSettings(), episode.BuiltinRoles(), nil)
	for _, q := range []string{"Any other symptoms?", "Has anyone in the family been diagnosed with cancer?", "Tell me everything else."} {
		a := sdbench.TurnOf(step(t, env, clinic.DoctorOutput{Action: clinic.Ask, Question: q})).Answers[0]
		require.False(t, a.Refused, q)
		require.NotContains(t, strings.ToLower(a.Reply), "lymphoma", q)
		require.NotContains(t, a.Reply, "Reed-Sternberg", q)
	}
	for _, tc := range []struct{ order, want string }{
		{"CT neck", "Ct neck: no separate result is recorded; the examination found On examination there was a firm 3 cm node in the left neck."},
		{"chest x ray", "Chest x ray: no result is recorded for this patient."}, // the recorded CT chest covers the chest
		{"ferritin", "Ferritin: no result is recorded for this patient."},
		{"full blood count", tests["complete blood count"]},
		{"excisional lymph node biopsy", tests["lymph node biopsy"]}, // through the price table: the row "lymph node biopsy"
	} {
		o := sdbench.TurnOf(step(t, env, clinic.DoctorOutput{Action: clinic.RequestTest, TestName: tc.order})).Orders[0]
		require.Equal(t, tc.want, o.Result, tc.order)
	}
}

// TestBuiltinGatekeeperOnCompleteRecords: on a synthetic case, whose record
// holds every abnormal finding, an unrecorded test of no described region is
// normal, and one of a region the examination describes is answered from it.
func TestBuiltinGatekeeperOnCompleteRecords(t *testing.T) {
	c := sampleCases(t)[0]
	require.True(t, sdbench.RecordOf(&c).Complete)
	got, err := sdbench.Builtin{}.Synthesize(context.Background(), &c, "ferritin", "")
	require.NoError(t, err)
	require.Regexp(t, `^Ferritin: (within normal limits|no abnormality detected|unremarkable; all values in the reference range)\.$`, got)
	var f clinic.Finding
	for _, x := range c.Exam.Findings {
		if x.System == "abdominal" {
			f = x
		}
	}
	if f.Text == "" {
		c.Exam.Findings = append(c.Exam.Findings, clinic.Finding{System: "abdominal", Text: "Tender in the right upper quadrant."})
		f = c.Exam.Findings[len(c.Exam.Findings)-1]
	}
	got, err = sdbench.Builtin{}.Synthesize(context.Background(), &c, "mri abdomen", "")
	require.NoError(t, err)
	require.Equal(t, "Mri abdomen: no separate result is recorded; the examination found abdominal: "+f.Text, got)
}

// TestImportRefuses names the record and field of a bad case, and with
// skip-invalid imports the rest.
func TestImportRefuses(t *testing.T) {
	good := `{"id":"a","abstract":"A 40-year-old man with chest pain.","full_case":"Pain began an hour ago.","final_diagnosis":"Acute myocardial infarction"}`
	for _, tc := range []struct{ name, in, want string }{
		{"no diagnosis", `{"id":"b","abstract":"x","full_case":"y."}`, "cases.jsonl:2: field final_diagnosis: required"},
		{"unknown field", `{"id":"b","abstract":"x","full_case":"y.","final_diagnosis":"z","diagnossis":"z"}`, "cases.jsonl:2: field diagnossis: unknown field"},
		{"duplicate", good, `cases.jsonl:2: field id: duplicate case ID "a"`},
		{"bad test", `{"id":"b","abstract":"x","full_case":"y.","final_diagnosis":"z","tests":[{"name":"ecg"}]}`, "field tests[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := good + "\n" + tc.in + "\n"
			_, _, err := benchtest.Library(sdbench.Benchmark{}).Import(sdbench.Name, strings.NewReader(in), "cases.jsonl", corpus.Options{})
			require.ErrorContains(t, err, tc.want)
			cases, skipped, err := benchtest.Library(sdbench.Benchmark{}).Import(sdbench.Name, strings.NewReader(in), "cases.jsonl", corpus.Options{SkipInvalid: true})
			require.NoError(t, err)
			require.Len(t, cases, 1)
			require.Len(t, skipped, 1)
			require.Equal(t, 2, skipped[0].Line)
		})
	}
}
