package corpus_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/corpus/corpustest"
	"github.com/clinevo/clinevo/corpus/synth"
)

// TestGeneratorSplits checks the shape both generator versions share.
func TestGeneratorSplits(t *testing.T) {
	for v := synth.V1; v <= synth.Latest; v++ {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			splits, err := synth.GenerateVersion(v, corpus.DefaultSeed)
			require.NoError(t, err)
			checkSplits(t, splits, v)
		})
	}
}

func checkSplits(t *testing.T, splits map[string][]clinic.Case, version int) {
	want := map[string]int{"stream": synth.StreamSize, "heldout": synth.HeldOutSize, "cross": synth.CrossSize, "update": synth.StreamSize}
	total := 0
	conditions, systems := map[string]bool{}, map[string]bool{}
	ids := map[string]bool{}
	for name, n := range want {
		cs := splits[name]
		require.Len(t, cs, n, name)
		for i := range cs {
			require.NoError(t, corpus.Validate(&cs[i]), "%s %s", name, cs[i].ID)
			require.False(t, ids[cs[i].ID], "duplicate id %s", cs[i].ID)
			ids[cs[i].ID] = true
			conditions[cs[i].Condition] = true
			systems[cs[i].System] = true
		}
		if name != "update" {
			total += n
		}
	}
	require.Equal(t, 700, total, "stream + heldout + cross")
	require.GreaterOrEqual(t, len(conditions), 40)
	require.GreaterOrEqual(t, len(systems), 10)

	// Every stage of the stream holds every condition of the stream (from
	// version 3 on, all but the held-out-only ones): conditions recur.
	inStream := len(synth.Conditions())
	if version >= synth.V3 {
		inStream -= synth.V3UnseenConditions
	}
	stream := splits["stream"]
	for s := 1; s <= synth.StreamStages; s++ {
		seen := map[string]bool{}
		for _, c := range stream[(s-1)*synth.StageSize : s*synth.StageSize] {
			require.Equal(t, s, c.Meta.Stage)
			seen[c.Condition] = true
		}
		require.Len(t, seen, inStream, "stage %d", s)
	}
	// The update stream equals the stream outside stages 4-6 and shifts inside them.
	upd := splits["update"]
	for i := range upd {
		u, s := upd[i], stream[i]
		require.Equal(t, s.Condition, u.Condition)
		shifted := u.Meta.Stage >= 4 && u.Meta.Stage <= 6
		require.Equal(t, shifted, u.Meta.Shifted, u.ID)
		if !shifted {
			require.Equal(t, s.Patient, u.Patient, u.ID)
		}
	}
	// Held-out cases are new instances, not copies of stream cases.
	seen := map[string]bool{}
	for _, c := range stream {
		seen[c.Patient.OpeningComplaint+"|"+c.Patient.Demographics.Text+"|"+c.Patient.Facts[0].Text] = true
	}
	copies := 0
	for _, c := range splits["heldout"] {
		if seen[c.Patient.OpeningComplaint+"|"+c.Patient.Demographics.Text+"|"+c.Patient.Facts[0].Text] {
			copies++
		}
	}
	require.Less(t, copies, 5, "held-out cases should be new instances")
}

func TestGeneratorIsDeterministicBySeed(t *testing.T) {
	dir := t.TempDir()
	write := func(seed uint64, name string) []byte {
		p := filepath.Join(dir, name)
		require.NoError(t, corpus.Library{}.WriteJSONL(p, synth.Generate(seed)["stream"]))
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		return b
	}
	a, b, c := write(7, "a.jsonl"), write(7, "b.jsonl"), write(8, "c.jsonl")
	require.Equal(t, a, b)
	require.NotEqual(t, a, c)
}

func TestAgentClinicImportsAll(t *testing.T) {
	cases := corpustest.AgentClinic(t)
	require.Len(t, cases, 107)
	for i := range cases {
		require.NoError(t, corpus.Validate(&cases[i]))
		require.Equal(t, corpus.AgentClinicSource, cases[i].Provenance.Source)
		require.Empty(t, cases[i].Manager.Management, "AgentClinic has no management key points")
		require.Nil(t, cases[i].Manager.Referral)
		require.NotEmpty(t, cases[i].Exam.Catalog)
	}
	// Every case shares one catalog, so it cannot hint at a diagnosis.
	require.Equal(t, cases[0].Exam.Catalog, cases[106].Exam.Catalog)
}

func TestAgentClinicFieldByField(t *testing.T) {
	cases := corpustest.AgentClinic(t)
	byID := map[string]clinic.Case{}
	for _, c := range cases {
		byID[c.ID] = c
	}

	mg := byID["agentclinic-001"]
	require.Equal(t, clinic.Demographics{Age: 35, Sex: "female", Text: "35-year-old female"}, mg.Patient.Demographics)
	require.Equal(t, "Double vision", mg.Patient.OpeningComplaint)
	require.Equal(t, "Myasthenia gravis", mg.Manager.Diagnosis.Name)
	require.Empty(t, mg.Manager.Diagnosis.Acceptable)
	require.Equal(t, "The patient reports a 1-month history of experiencing double vision (diplopia), difficulty in climbing stairs, and weakness when trying to brush her hair.", mg.Patient.Facts[0].Text)
	require.Contains(t, mg.Patient.Facts[0].Topics, clinic.TopicOnset)
	require.Equal(t, clinic.Fact{ID: "f3", Text: "Difficulty climbing stairs", Topics: []string{clinic.TopicAssociated}}, mg.Patient.Facts[2])
	require.Equal(t, []string{"social"}, mg.Patient.Facts[6].Topics) // "Non-smoker, drinks wine occasionally."
	require.Len(t, mg.Patient.Facts, 9)
	require.Equal(t, []string{"vitals", "neurological"}, systemsOf(mg))
	require.True(t, mg.Exam.Findings[1].Abnormal)
	require.False(t, mg.Exam.Findings[0].Abnormal, "normal vital signs")
	require.Equal(t, []string{"acetylcholine receptor antibodies", "blood tests", "electromyography", "ct chest"}, testNames(mg))
	require.Equal(t, "Present (elevated)", mg.Exam.Tests[0].Result)
	require.Equal(t, "Findings: Normal, no thymoma or other masses detected.", mg.Exam.Tests[3].Result)
	require.False(t, mg.Exam.Tests[3].Abnormal)
	require.Equal(t, []string{
		"Acetylcholine Receptor Antibodies: Present (elevated)",
		"Electromyography Findings: Decreased muscle response with repetitive stimulation",
		"Neurological Examination Cranial Nerves: Presence of ptosis (drooping of the right upper eyelid) that worsens with sustained upward gaze.",
		"Neurological Examination Motor Strength: Diminished motor strength observed in the upper extremities, with normal tone and no obvious atrophy.",
	}, mg.Manager.Evidence)

	hd := byID["agentclinic-003"]
	require.Equal(t, clinic.Demographics{Age: 0, Sex: "male", Text: "8-month-old boy"}, hd.Patient.Demographics)
	require.Equal(t, "Hirschsprung disease", hd.Manager.Diagnosis.Name)
	require.Equal(t, []string{"vitals", "abdominal"}, systemsOf(hd))
	require.False(t, hd.Exam.Findings[0].Abnormal, "a heart rate of 120 is normal for an infant, as the case says")
	require.Equal(t, []string{"wbc", "hemoglobin", "platelets", "blood test", "abdominal x ray", "barium enema"}, testNames(hd))
	require.Equal(t, "WBC: Normal; Hemoglobin: Normal; Platelets: Normal", hd.Exam.Tests[3].Result)
	require.True(t, hd.Exam.Tests[5].Abnormal)
	require.Equal(t, "Barium Enema Findings: A transition zone in the distal colon, compatible with Hirschsprung disease", hd.Manager.Evidence[1])

	msk := byID["agentclinic-041"]
	require.Equal(t, "Medullary Sponge Kidney", msk.Manager.Diagnosis.Name)
	require.Equal(t, "Hematuria and right flank pain", msk.Patient.OpeningComplaint)
	require.Equal(t, []string{"vitals", "genitourinary"}, systemsOf(msk), "Kidney_Examination maps to genitourinary")
	require.Equal(t, []string{"urinalysis", "creatinine", "bun", "complete blood count", "blood work", "intravenous pyelogram"}, testNames(msk))
	require.Equal(t, "1.1 mg/dL", msk.Exam.Tests[1].Result)
	require.Equal(t, "Findings: Multiple cysts present in the collecting ducts of the medulla. No obstruction noted.", msk.Exam.Tests[5].Result)

	bppv := byID["agentclinic-054"]
	require.Equal(t, "Benign Paroxysmal Positional Vertigo", bppv.Manager.Diagnosis.Name)
	require.Equal(t, []string{"BPPV"}, bppv.Manager.Diagnosis.Acceptable, "a bracketed abbreviation becomes an acceptable name")
}

func systemsOf(c clinic.Case) []string {
	var out []string
	for _, f := range c.Exam.Findings {
		out = append(out, f.System)
	}
	return out
}

func testNames(c clinic.Case) []string {
	var out []string
	for _, t := range c.Exam.Tests {
		out = append(out, t.Name)
	}
	return out
}

func TestBadInputNamesLineAndField(t *testing.T) {
	good := synth.Generate(7)["heldout"][:2]
	dir := t.TempDir()
	src := filepath.Join(dir, "good.jsonl")
	require.NoError(t, corpus.Library{}.WriteJSONL(src, good))
	raw, err := os.ReadFile(src)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")

	tests := []struct {
		name, second string
		want         []string
	}{
		{"malformed JSON", `{"schema_version": 1, "id": `, []string{":2:", "malformed JSON"}},
		{"missing required field", strings.Replace(lines[1], `"opening_complaint":`, `"opening_complaint_x":`, 1), []string{":2:", "opening_complaint"}},
		{"duplicate case ID", lines[0], []string{":2:", "field id", "duplicate case ID", "first on line 1"}},
		{"unknown schema version", strings.Replace(lines[1], `"schema_version":1`, `"schema_version":9`, 1), []string{":2:", "schema_version", "unknown version 9"}},
		{"wrong type", strings.Replace(lines[1], `"schema_version":1`, `"schema_version":"one"`, 1), []string{":2:", "field schema_version", "expected int"}},
		{"unknown topic", strings.Replace(lines[1], `"topics":["`, `"topics":["gossip","`, 1), []string{":2:", "patient_view.facts[0].topics[0]", "gossip"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".jsonl")
			require.NoError(t, os.WriteFile(p, []byte(lines[0]+"\n"+tc.second+"\n"), 0o644))
			_, err := corpus.Library{}.Load(p)
			require.Error(t, err)
			for _, w := range tc.want {
				require.Contains(t, err.Error(), w)
			}
			require.Contains(t, err.Error(), p)
		})
	}
}

func TestFailedWriteLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	cases := synth.Generate(7)["cross"][:3]
	cases[2].Manager.Diagnosis.Name = ""
	out := filepath.Join(dir, "out.jsonl")
	err := corpus.Library{}.WriteJSONL(out, cases)
	require.ErrorContains(t, err, "manager_view.diagnosis.display_name")
	entries, _ := os.ReadDir(dir)
	require.Empty(t, entries, "no partial or temporary file is left")

	// A failing import writes nothing either: the CLI imports fully before writing.
	_, err = corpus.ImportAgentClinic(strings.NewReader("{\"OSCE_Examination\": {\"Patient_Actor\": {}}}\n{broken"), "x.jsonl")
	require.ErrorContains(t, err, "x.jsonl:1")
	require.ErrorContains(t, err, "Correct_Diagnosis")

	// An existing file is not touched by a failed rewrite.
	require.NoError(t, corpus.Library{}.WriteJSONL(out, cases[:2]))
	before, _ := os.ReadFile(out)
	require.Error(t, corpus.Library{}.WriteJSONL(out, cases))
	after, _ := os.ReadFile(out)
	require.Equal(t, before, after)
}

// Hand-written AgentClinic lines (not from the AgentClinic data): an asymptomatic
// screening follow-up with "Symptoms": {}, and a case with a primary symptom.
const (
	asymptomaticLine = `{"OSCE_Examination": {"Patient_Actor": {"Demographics": "52-year-old man", "History": "The patient attends for review of a raised fasting glucose found on a workplace screening. He has no complaints.", "Symptoms": {}, "Past_Medical_History": "Hypertension on amlodipine."}, "Physical_Examination_Findings": {"Vital_Signs": {"Blood_Pressure": "138/86 mmHg"}}, "Test_Results": {"HbA1c": "7.1% (raised)"}, "Correct_Diagnosis": "Type 2 diabetes mellitus"}}`
	symptomaticLine  = `{"OSCE_Examination": {"Patient_Actor": {"Demographics": "30-year-old woman", "History": "Three days of burning on passing urine.", "Symptoms": {"Primary_Symptom": "Burning when passing urine", "Secondary_Symptoms": ["Frequency"]}}, "Test_Results": {"Urinalysis": "Nitrites positive"}, "Correct_Diagnosis": "Acute cystitis"}}`
	noDiagnosisLine  = `{"OSCE_Examination": {"Patient_Actor": {"Demographics": "40-year-old man", "History": "A cough for two weeks.", "Symptoms": {"Primary_Symptom": "Cough"}}, "Test_Results": {"Sputum_Culture_Special": "No growth"}}}`
)

func TestAgentClinicAsymptomaticCase(t *testing.T) {
	cases, err := corpus.ImportAgentClinic(strings.NewReader(asymptomaticLine+"\n"), "screening.jsonl")
	require.NoError(t, err)
	require.Len(t, cases, 1)
	c := cases[0]
	require.Equal(t, "The patient attends for review of a raised fasting glucose found on a workplace screening.", c.Patient.OpeningComplaint,
		"without a primary symptom the history's first sentence opens the case, as written")
	require.Equal(t, "The patient attends for review of a raised fasting glucose found on a workplace screening.", c.Patient.Facts[0].Text)
	require.Equal(t, "He has no complaints.", c.Patient.Facts[1].Text)
	require.Equal(t, "Type 2 diabetes mellitus", c.Manager.Diagnosis.Name)
	require.NoError(t, corpus.Validate(&c))

	// With neither a primary symptom nor a history there is nothing to open with.
	bare := strings.Replace(asymptomaticLine, `"History": "The patient attends for review of a raised fasting glucose found on a workplace screening. He has no complaints.", `, "", 1)
	require.NotEqual(t, asymptomaticLine, bare)
	_, err = corpus.ImportAgentClinic(strings.NewReader(bare+"\n"), "bare.jsonl")
	require.ErrorContains(t, err, "bare.jsonl:1: field OSCE_Examination.Patient_Actor.Symptoms.Primary_Symptom: required when Patient_Actor.History is empty")
}

func TestAgentClinicSkipInvalid(t *testing.T) {
	in := strings.Join([]string{asymptomaticLine, `{"OSCE_Examination": {broken`, noDiagnosisLine, "", symptomaticLine}, "\n")

	// Without skipping the import is all or nothing.
	cases, err := corpus.ImportAgentClinic(strings.NewReader(in), "mixed.jsonl")
	require.ErrorContains(t, err, "mixed.jsonl:2: malformed JSON")
	require.Nil(t, cases)

	cases, skipped, err := corpus.ImportAgentClinicValid(strings.NewReader(in), "mixed.jsonl")
	require.NoError(t, err)
	require.Len(t, cases, 2)
	require.Equal(t, "agentclinic-001", cases[0].ID)
	require.Equal(t, "agentclinic-005", cases[1].ID, "IDs keep the line numbers of the input")
	require.Len(t, skipped, 2)
	require.Equal(t, "mixed.jsonl", skipped[0].File)
	require.Equal(t, 2, skipped[0].Line)
	require.Contains(t, skipped[0].String(), "mixed.jsonl:2: malformed JSON")
	require.Equal(t, "mixed.jsonl:3: field OSCE_Examination.Correct_Diagnosis: required", skipped[1].String())
	// A skipped line adds nothing to the shared catalog.
	require.Contains(t, cases[0].Exam.Catalog, "hba1c")
	require.NotContains(t, cases[0].Exam.Catalog, "sputum culture special")
	require.Equal(t, cases[0].Exam.Catalog, cases[1].Exam.Catalog)

	// Nothing valid at all is still an error, with the reasons.
	_, skipped, err = corpus.ImportAgentClinicValid(strings.NewReader("{broken\n"+noDiagnosisLine+"\n"), "bad.jsonl")
	require.ErrorContains(t, err, "bad.jsonl: no valid cases (2 lines skipped)")
	require.Len(t, skipped, 2)
}

// A member of a case's exam or manager view that no benchmark names is an
// unknown field, named with its line: a misspelt benchmark part is never
// kept in silence.
func TestUnknownCaseMembersAreRefused(t *testing.T) {
	good := synth.Generate(7)["stream"][0]
	b, err := json.Marshal(good)
	require.NoError(t, err)
	for _, tc := range []struct{ from, to, want string }{
		{`"manager_view":{`, `"manager_view":{"managment_label":"refer",`, "field manager_view.managment_label: unknown field"},
		{`"exam_view":{`, `"exam_view":{"sandbx":{"tools":[]},`, "field exam_view.sandbx: unknown field"},
	} {
		bad := strings.Replace(string(b), tc.from, tc.to, 1)
		require.NotEqual(t, string(b), bad)
		_, err := corpus.Library{}.ReadJSONL(strings.NewReader(string(b)+"\n"+bad+"\n"), "cases.jsonl")
		require.ErrorContains(t, err, "cases.jsonl:2:")
		require.ErrorContains(t, err, tc.want)
	}
	named := strings.Replace(string(b), `"manager_view":{`, `"manager_view":{"management_label":"manage",`, 1)
	_, err = toyLibrary().ReadJSONL(strings.NewReader(named+"\n"), "cases.jsonl")
	require.NoError(t, err, "a member a benchmark of the library names is read")
	_, err = corpus.Library{}.ReadJSONL(strings.NewReader(named+"\n"), "cases.jsonl")
	require.ErrorContains(t, err, "field manager_view.management_label: unknown field", "a library without that benchmark refuses it")
}
