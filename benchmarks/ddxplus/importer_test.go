package ddxplus_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/benchmarks/ddxplus"
	"github.com/clinevo/clinevo/corpus"
)

// release lays out a release's files in a directory: the shipped dictionaries
// beside a patients file with the given rows under the release's header.
func release(t *testing.T, dir string, rows ...string) string {
	t.Helper()
	for _, f := range []string{ddxplus.EvidencesFile, ddxplus.ConditionsFile} {
		b, err := os.ReadFile(filepath.Join("data", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
	}
	path := filepath.Join(dir, "patients.csv")
	csv := "AGE,DIFFERENTIAL_DIAGNOSIS,SEX,PATHOLOGY,EVIDENCES,INITIAL_EVIDENCE\n" + strings.Join(rows, "\n") + "\n"
	require.NoError(t, os.WriteFile(path, []byte(csv), 0o644))
	return path
}

func importFile(t *testing.T, path string, opt corpus.Options) ([]corpus.Skipped, error) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	_, skipped, err := benchtest.Library(ddxplus.Benchmark{}).Import(ddxplus.Name, f, path, opt)
	return skipped, err
}

// A valid row: a child with a cough and a fever, URTI first in the differential.
const goodRow = `5,"[['URTI', 0.6], ['Bronchitis', 0.3], ['Pneumonia', 0.005]]",F,URTI,"['E_201', 'E_91', 'E_55_@_V_89', 'E_55_@_V_108', 'E_56_@_4']",E_201`

// TestImportTheShippedSample: the shipped file imports through the
// dictionaries beside it to the built-in split, case for case.
func TestImportTheShippedSample(t *testing.T) {
	path := filepath.Join("data", ddxplus.SampleFile)
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	cases, skipped, err := benchtest.Library(ddxplus.Benchmark{}).Import(ddxplus.Name, f, path, corpus.Options{})
	require.NoError(t, err)
	require.Empty(t, skipped)
	require.Equal(t, sample(t), cases)
}

func TestImportOneRow(t *testing.T) {
	dir := t.TempDir()
	path := release(t, dir, goodRow)
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	cases, _, err := benchtest.Library(ddxplus.Benchmark{}).Import(ddxplus.Name, f, path, corpus.Options{})
	require.NoError(t, err)
	require.Len(t, cases, 1)
	c := cases[0]
	require.Equal(t, "ddxplus-patients-00001", c.ID)
	require.Equal(t, "patients.csv row 1", c.Provenance.SourceCaseID)
	require.Equal(t, "5-year-old female", c.Patient.Demographics.Text)
	require.Equal(t, "I have a cough.", c.Patient.OpeningComplaint)
	require.Equal(t, "URTI", c.Manager.Diagnosis.Name)
	require.Equal(t, "J06.9", c.Manager.Diagnosis.ICD10)
	require.Len(t, c.Patient.Facts, 4, "E_201, E_91, E_55 with its two values, E_56")
	require.Equal(t, "Do you feel pain somewhere? Forehead, cheek(R).", c.Patient.Facts[2].Text)
	require.Equal(t, []ddxplus.Weighted{{"URTI", 0.6}, {"Bronchitis", 0.3}, {"Pneumonia", 0.005}}, ddxplus.KeyOf(&c).Differential)
}

// TestImportErrors: every bad row is an error naming the file, the row, its
// line and the field; --skip-invalid imports the rest and lists them.
func TestImportErrors(t *testing.T) {
	bad := []struct{ row, want string }{
		{strings.Replace(goodRow, "'E_91'", "'E_999'", 1), `field EVIDENCES: unknown evidence code "E_999" (not in release_evidences.json)`},
		{strings.Replace(goodRow, "E_56_@_4", "E_56_@_40", 1), `field EVIDENCES: evidence "E_56_@_40": E_56 has no value "40"`},
		{strings.Replace(goodRow, ",E_201", ",E_97", 1), `field INITIAL_EVIDENCE: "E_97" is not one of the patient's evidences`},
		{strings.Replace(goodRow, ",URTI,", ",Scurvy,", 1), `field PATHOLOGY: unknown pathology "Scurvy" (not in release_conditions.json)`},
		{strings.Replace(goodRow, "0.3]", "1.3]", 1), "field DIFFERENTIAL_DIAGNOSIS: item 2: probability 1.3 is not within [0, 1]"},
		{strings.Replace(goodRow, "['Bronchitis', 0.3]", "['Bronchitis']", 1), "field DIFFERENTIAL_DIAGNOSIS: item 2: want [pathology, probability]"},
		{strings.Replace(goodRow, "5,", "five,", 1), `field AGE: want a whole number of years, got "five"`},
		{strings.Replace(goodRow, ",F,", ",X,", 1), `field SEX: want M or F, got "X"`},
		{strings.Replace(goodRow, ",URTI,", ",URT\xe9,", 1), "field PATHOLOGY: byte 0xE9 at character 4 is not UTF-8 (the release is UTF-8: re-save the file as UTF-8)"},
		{strings.Replace(goodRow, `"['E_201'`, `"[E_201`, 1), "field EVIDENCES: want a quoted text, a number or a list at character 2"},
	}
	for _, c := range bad {
		t.Run(c.want, func(t *testing.T) {
			path := release(t, t.TempDir(), goodRow, c.row, goodRow)
			_, err := importFile(t, path, corpus.Options{})
			require.ErrorContains(t, err, path+": row 2 (line 3): "+c.want)

			skipped, err := importFile(t, path, corpus.Options{SkipInvalid: true})
			require.NoError(t, err)
			require.Len(t, skipped, 1)
			require.Equal(t, corpus.Skipped{File: path, Line: 3, Reason: "row 2: " + c.want}, skipped[0])
		})
	}
	t.Run("all rows invalid", func(t *testing.T) {
		path := release(t, t.TempDir(), bad[0].row)
		_, err := importFile(t, path, corpus.Options{SkipInvalid: true})
		require.ErrorContains(t, err, "no valid patients (1 rows skipped)")
	})
	t.Run("a missing column", func(t *testing.T) {
		path := filepath.Join(release(t, t.TempDir()), "..", "short.csv")
		require.NoError(t, os.WriteFile(path, []byte("AGE,SEX\n5,F\n"), 0o644))
		_, err := importFile(t, path, corpus.Options{})
		require.ErrorContains(t, err, "short.csv: header: no column DIFFERENTIAL_DIAGNOSIS")
	})
}

// TestImportCompanionFiles: the dictionaries are looked for beside the
// file unless --file names them; a missing one, or a companion file the
// format does not read, is an error naming the option.
func TestImportCompanionFiles(t *testing.T) {
	dicts := t.TempDir()
	release(t, dicts)
	elsewhere := t.TempDir()
	path := filepath.Join(elsewhere, "patients.csv")
	b, err := os.ReadFile(filepath.Join(dicts, "patients.csv"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, append(b, []byte(goodRow+"\n")...), 0o644))

	_, err = importFile(t, path, corpus.Options{})
	require.ErrorContains(t, err, "evidence dictionary (--file evidences=PATH)")
	_, err = importFile(t, path, corpus.Options{Files: map[string]string{"evidences": filepath.Join(dicts, ddxplus.EvidencesFile)}})
	require.ErrorContains(t, err, "pathology dictionary (--file conditions=PATH)")
	_, err = importFile(t, path, corpus.Options{Files: map[string]string{
		"evidences": filepath.Join(dicts, ddxplus.EvidencesFile), "conditions": filepath.Join(dicts, ddxplus.ConditionsFile)}})
	require.NoError(t, err)
	_, err = importFile(t, path, corpus.Options{Files: map[string]string{"symptoms": "x.json"}})
	require.ErrorContains(t, err, "corpus import ddxplus: --file symptoms: unknown companion file, want evidences, conditions")

	require.NoError(t, os.WriteFile(filepath.Join(dicts, ddxplus.ConditionsFile), []byte(`{"Scurvy": {"condition_name": "Scurvy", "symptoms": {"E_999": {}}}}`), 0o644))
	_, err = importFile(t, path, corpus.Options{Files: map[string]string{
		"evidences": filepath.Join(dicts, ddxplus.EvidencesFile), "conditions": filepath.Join(dicts, ddxplus.ConditionsFile)}})
	require.ErrorContains(t, err, `release_conditions.json: condition "Scurvy": field symptoms: unknown evidence E_999`)
}

// TestUnparsableRowIsAnErrorNotAPanic (issue 37, item 12, found by
// FuzzImport): a row the CSV reader cannot parse (a quote never closed)
// used to panic in csv.Reader.FieldPos; it is an error naming the file, the
// row and its line, and --skip-invalid lists it and imports the rest.
func TestUnparsableRowIsAnErrorNotAPanic(t *testing.T) {
	path := release(t, t.TempDir(), goodRow, `"unclosed`)
	_, err := importFile(t, path, corpus.Options{})
	const why = `parse error on line 3, column 11: extraneous or missing " in quoted-field`
	require.EqualError(t, err, path+": row 2 (line 3): "+why)
	skipped, err := importFile(t, path, corpus.Options{SkipInvalid: true})
	require.NoError(t, err)
	require.Equal(t, []corpus.Skipped{{File: path, Line: 3, Reason: "row 2: " + why}}, skipped)
}
