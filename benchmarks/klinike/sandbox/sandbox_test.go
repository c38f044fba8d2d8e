package sandbox_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/klinike/sandbox"
	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
)

func patient() clinic.Case {
	return clinic.Case{
		Patient: clinic.PatientView{Demographics: clinic.Demographics{Age: 42, Sex: "female", Text: "42-year-old woman"}},
		Exam: clinic.ExamView{
			Findings: []clinic.Finding{{System: "vitals", Text: "BP 118/74 mmHg, HR 70."}, {System: "abdominal", Text: "Tender right upper quadrant."}},
			Tests:    []clinic.TestValue{{Name: "abdominal ultrasound", Result: "Gallstones."}, {Name: "complete blood count", Result: "Normal."}},
		},
	}
}

// chart is the patient's chart.
var chart = sandbox.Record{Medications: []string{"levothyroxine 50 micrograms"}}

// TestRegistry: every tool has a description and an object schema; names are
// unique; record_diagnosis is there.
func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, tool := range sandbox.Registry() {
		require.False(t, seen[tool.Name], tool.Name)
		seen[tool.Name] = true
		require.NotEmpty(t, tool.Description, tool.Name)
		var schema map[string]any
		require.NoError(t, json.Unmarshal(tool.Parameters, &schema), tool.Name)
		require.Equal(t, "object", schema["type"], tool.Name)
		require.Equal(t, false, schema["additionalProperties"], tool.Name)
	}
	require.True(t, seen[sandbox.RecordDiagnosis])
	// The catalog as stated in docs/benchmarks/klinike-gates.md: 28 tools of
	// their own, 12 aliases, one named study per billable catalog test.
	own, aliases, studies := 0, 0, 0
	for _, tool := range sandbox.Registry() {
		switch {
		case tool.AliasOf != "":
			aliases++
			target := mustLookup(t, tool.AliasOf)
			require.Equal(t, target.Parameters, tool.Parameters, tool.Name)
			require.Empty(t, target.AliasOf, "an alias names a tool of its own")
		case tool.Study != "":
			studies++
		default:
			own++
		}
	}
	require.Equal(t, [3]int{28, 12, 41}, [3]int{own, aliases, studies})
	require.Equal(t, "CT_Head", sandbox.StudyName("ct head"))
	require.Equal(t, "HBA1C", sandbox.StudyName("hba1c"))
	require.Len(t, sandbox.Names(), len(sandbox.Registry()))
	enum, ok := mustLookup(t, "order_imaging").Property("modality")
	require.True(t, ok)
	require.Equal(t, catalog.Modalities, enum, "the schema's modalities are the catalog's")
	_, ok = mustLookup(t, "order_imaging").Property("contrast")
	require.False(t, ok)
}

func mustLookup(t *testing.T, name string) sandbox.Tool {
	t.Helper()
	tool, ok := sandbox.Lookup(name)
	require.True(t, ok, name)
	return tool
}

// TestExecute: each handler reads the case and never makes anything up: what
// the case does not record comes back unavailable or as "nothing recorded".
func TestExecute(t *testing.T) {
	tests := []struct {
		tool, args string
		status     clinic.Status
		text       string
		cost       float64
		final      bool
	}{
		{"get_patient_info", `{}`, clinic.StatusReturned, "age 42; sex female; 42-year-old woman", 0, false},
		{"get_patient_medications", `{}`, clinic.StatusReturned, "levothyroxine 50 micrograms", 0, false},
		{"get_patient_allergies", `{}`, clinic.StatusReturned, "No drug allergies recorded.", 0, false},
		{"get_patient_history", `{}`, clinic.StatusReturned, "No past medical history recorded.", 0, false},
		{"get_patient_vitals", `{}`, clinic.StatusReturned, "BP 118/74 mmHg, HR 70.", 0, false},
		{"examine_patient", `{"system":"abdominal"}`, clinic.StatusReturned, "Tender right upper quadrant.", 0, false},
		{"examine_patient", `{"system":"respiratory"}`, clinic.StatusReturned, "No abnormality recorded on respiratory examination.", 0, false},
		{"order_lab_test", `{"test_name":"FBC"}`, clinic.StatusReturned, "complete blood count: Normal.", 30, false},
		// Appendix B: a named study returns the case's cached result, or not available;
		// an alias runs its built-in; knowledge tools are not available; defaults say so.
		{"Complete_Blood_Count", `{"patient_id":"P1"}`, clinic.StatusReturned, "complete blood count: Normal.", 30, false},
		{"Troponin", `{}`, clinic.StatusUnavailable, "no troponin result is recorded for this patient", 0, false},
		{"get_vital_signs", `{}`, clinic.StatusReturned, "BP 118/74 mmHg, HR 70.", 0, false},
		{"order_test", `{"test_name":"FBC"}`, clinic.StatusReturned, "complete blood count: Normal.", 30, false},
		{"get_treatment_guidance", `{"condition":"gallstones"}`, clinic.StatusUnavailable, "not_available: knowledge queries are not served in this runtime", 0, false},
		{"search_diseases_by_symptom", `{"symptoms":["pain"]}`, clinic.StatusUnavailable, "not_available: knowledge queries are not served in this runtime", 0, false},
		{"get_lab_results", `{}`, clinic.StatusUnavailable, "not_available: results come back with each order_lab_test call", 0, false},
		{"get_family_history", `{}`, clinic.StatusReturned, "No family history recorded (default entry).", 0, false},
		{"order_lab_test", `{"test_name":"troponin"}`, clinic.StatusUnavailable, "no troponin result is recorded for this patient", 0, false},
		{"order_lab_test", `{"test_name":"unicorn assay"}`, clinic.StatusUnavailable, `no test called "unicorn assay" is known`, 0, false},
		{"order_lab_test", `{"test_name":"chest x ray"}`, clinic.StatusUnavailable, "chest x ray is an imaging study: use order_imaging", 0, false},
		{"order_imaging", `{"modality":"ultrasound","region":"upper abdomen"}`, clinic.StatusReturned, "abdominal ultrasound: Gallstones.", 250, false},
		{"order_imaging", `{"modality":"CT","region":"abdomen"}`, clinic.StatusUnavailable, "no ct abdomen result is recorded for this patient", 0, false},
		{"order_imaging", `{"modality":"MRI","region":"abdomen"}`, clinic.StatusUnavailable, "no MRI study of the abdomen is available", 0, false},
		{"prescribe_medication", `{"drug":"ursodeoxycholic acid","dose":"300 mg","route":"oral"}`, clinic.StatusReturned, "Prescription recorded: ursodeoxycholic acid, 300 mg, oral.", 0, false},
		{"refer_to_specialist", `{"specialty":"general surgery","urgency":"routine"}`, clinic.StatusReturned, "Referral recorded: general surgery, routine.", 0, false},
		{"admit_to_hospital", `{"reason":"cholecystitis"}`, clinic.StatusReturned, "Admission recorded: cholecystitis.", 0, false},
		{"create_follow_up_plan", `{"plan":"review","interval":"two weeks"}`, clinic.StatusReturned, "Follow-up plan recorded: review (two weeks).", 0, false},
		{"record_differential", `{"diagnoses":["biliary colic","peptic ulcer"]}`, clinic.StatusReturned, "Differential recorded: biliary colic; peptic ulcer.", 0, false},
		{"record_diagnosis", `{"diagnosis":"Biliary colic","reasoning":"gallstones"}`, clinic.StatusFinalized, "Diagnosis recorded: Biliary colic.", 0, true},
	}
	c := patient()
	for _, tc := range tests {
		t.Run(tc.tool+" "+tc.args, func(t *testing.T) {
			tool := mustLookup(t, tc.tool)
			args, err := tool.Validate(json.RawMessage(tc.args))
			require.NoError(t, err)
			res, err := sandbox.Execute(context.Background(), &c, chart, episode.BuiltinExam{}, nil, tool, args)
			require.NoError(t, err)
			require.Equal(t, tc.status, res.Status)
			require.Equal(t, tc.text, res.Text)
			require.Equal(t, tc.cost, res.Cost)
			require.Equal(t, tc.final, res.Final != nil)
			if tc.final {
				require.Equal(t, []string{"Biliary colic"}, res.Final.Diagnosis)
				require.Equal(t, []string{"gallstones"}, res.Final.Evidence)
			}
		})
	}
	t.Run("a case without a vitals finding", func(t *testing.T) {
		bare := clinic.Case{}
		res, err := sandbox.Execute(context.Background(), &bare, sandbox.Record{}, episode.BuiltinExam{}, nil, mustLookup(t, "get_patient_vitals"), sandbox.Arguments{})
		require.NoError(t, err)
		require.Equal(t, clinic.StatusUnavailable, res.Status)
	})
}

// TestCanonical: arguments are kept as compact JSON with keys in order.
func TestCanonical(t *testing.T) {
	args, err := mustLookup(t, "order_imaging").Validate(json.RawMessage(` { "region" : "abdomen", "modality": "CT" } `))
	require.NoError(t, err)
	require.Equal(t, `{"modality":"CT","region":"abdomen"}`, string(args.Canonical()))
	require.Equal(t, map[string]string{"modality": "CT", "region": "abdomen"}, args.Strings())
	none, err := mustLookup(t, "get_patient_info").Validate(nil)
	require.NoError(t, err, "absent arguments are an empty object")
	require.Empty(t, none)
}

func TestValueMatches(t *testing.T) {
	tests := []struct {
		want, got string
		ok        bool
	}{
		{"CT", "ct", true},
		{"abdomen", "abdomen and pelvis", true},
		{"abdomen", "chest", false},
		{"amoxicillin", "Amoxicillin 500 mg", true},
		{"amoxicillin", "co-amoxiclav", false},
		{"X-ray", "x ray", true},
		{"emergency department", "emergency", false},
	}
	for _, tc := range tests {
		t.Run(tc.want+" in "+tc.got, func(t *testing.T) {
			require.Equal(t, tc.ok, sandbox.ValueMatches(tc.want, tc.got))
		})
	}
	require.True(t, sandbox.Meets(map[string]string{"modality": "CT", "region": "abdomen"}, map[string]string{"modality": "CT", "region": "Abdomen", "x": "y"}))
	require.False(t, sandbox.Meets(map[string]string{"modality": "CT", "region": "abdomen"}, map[string]string{"modality": "CT"}))
}
