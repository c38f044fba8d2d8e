package medevoeval_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/medevoeval"
	"github.com/clinevo/clinevo/clinic"
)

// TestImport reads the three-view format in both of its shapes; a broken
// record's error names its line and field.
func TestImport(t *testing.T) {
	in := `[{"case_id":"mee-1","source":"medevoeval-demo","patient_view":{"demographics":{"age":54,"sex":"male"},"chief_complaint":"Chest pain on exertion",
 "history_facts":["The pain started two months ago.",{"id":"h2","text":"I smoke twenty a day.","topic":"social"}]},
 "exam_view":{"tests":{"ECG":"ST depression in V4-V6","Troponin":{"value":"normal"}},"test_catalog":["ECG","Troponin","Chest X-ray"]},
 "manager_view":{"ground_truth":{"diagnosis":{"display_name":"Stable angina","acceptable_names":["angina pectoris"]},
 "evidence_rubric":{"key_points":["exertional chest pain"]},"management_rubric":{"key_points":["aspirin","GTN spray"]}}}}]`
	cases, err := medevoeval.Import(strings.NewReader(in), "demo.json")
	require.NoError(t, err)
	require.Len(t, cases, 1)
	c := cases[0]
	require.Equal(t, "mee-1", c.ID)
	require.Equal(t, 54, c.Patient.Demographics.Age)
	require.Equal(t, "male", c.Patient.Demographics.Sex)
	require.Equal(t, "h2", c.Patient.Facts[1].ID)
	require.Equal(t, clinic.TopicSocial, c.Patient.Facts[1].Topics[0])
	require.Contains(t, c.Patient.Facts[0].Topics, clinic.TopicOnset)
	require.Equal(t, []string{"ecg", "troponin", "chest x ray"}, c.Exam.Catalog)
	require.Equal(t, "ST depression in V4-V6", c.Exam.Tests[0].Result)
	require.Equal(t, []string{"aspirin", "GTN spray"}, c.Manager.Management)

	// The same record as JSONL, two lines, the second broken.
	jsonl := strings.ReplaceAll(in[1:len(in)-1], "\n", " ") + "\n" + `{"case_id":"mee-2","patient_view":{"chief_complaint":"x","history_facts":["a"]},"manager_view":{"ground_truth":{"diagnosis":{}}}}`
	_, err = medevoeval.Import(strings.NewReader(jsonl), "demo.jsonl")
	require.ErrorContains(t, err, "demo.jsonl:2")
	require.ErrorContains(t, err, "manager_view.ground_truth.diagnosis.display_name")
}
