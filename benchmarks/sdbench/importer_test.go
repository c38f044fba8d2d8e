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

// TestImport reads the fixture through `corpus import sdbench`'s format and
// plays one imported case: the abstract opens the encounter, a recorded
// test (named as the file names it) returns its result, an unrecorded one a
// synthetic result, and the judge credits the final diagnosis.
func TestImport(t *testing.T) {
	f, err := os.Open("testdata/cases.json")
	require.NoError(t, err)
	defer f.Close()
	cases, skipped, err := benchtest.Library(sdbench.Benchmark{}).Import(sdbench.Name, f, "cases.json", corpus.Options{})
	require.NoError(t, err)
	require.Empty(t, skipped)
	require.Len(t, cases, 2)
	c := cases[0]
	require.Equal(t, 29, c.Patient.Demographics.Age)
	require.Equal(t, "female", c.Patient.Demographics.Sex)
	require.Len(t, c.Patient.Facts, 8, "without history, the full case's sentences are the facts")
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
