package corpus_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/corpus"
)

// TestGroupTestsTestSlots: DiagnosisArena writes what a test was as a
// "Test" entry ("Test: Punch biopsy of the skin", "Test Type: MRI") and its
// outcome as "Test Result" or "Finding"; neither label is a test's name. A
// "Test" entry names the test that follows, a "Test Result" entry is the
// result of the test before, and "Others" in a differential count is a
// line of it (records 336, 551, 781 and 861 of the release made tests
// called "test" and "others").
func TestGroupTestsTestSlots(t *testing.T) {
	for _, tc := range []struct {
		name  string
		items []corpus.TestItem
		want  map[string]string // test name -> result
	}{
		{
			name: "free text: a Test entry names a test of its own",
			items: corpus.TextTestItems("- Laboratory Tests: - Lipase: 13.7 µkat/L (elevated) " +
				"- Test: Computed tomography of abdomen and pelvis - Finding: No acute abnormality"),
			want: map[string]string{
				"laboratory tests": "Lipase: 13.7 µkat/L (elevated)",
				"lipase":           "13.7 µkat/L (elevated)",
				"computed tomography of abdomen and pelvis": "Finding: No acute abnormality",
			},
		},
		{
			name:  "free text: a Test Result entry is the result of the test before",
			items: corpus.TextTestItems("- Genetic Testing: - Whole-exome sequencing performed - Test Result: A KRT6A variant"),
			want: map[string]string{
				"genetic testing": "Whole-exome sequencing performed; Test Result: A KRT6A variant",
			},
		},
		{
			name: "a dict's Test key names the test its Results belong to",
			items: []corpus.TestItem{
				{Depth: 0, Label: "Pathology"},
				{Depth: 1, Label: "Test", Text: "Punch biopsy of the skin"},
				{Depth: 1, Label: "Results", Text: "Diffuse dermal basophilic deposits"},
			},
			want: map[string]string{
				"pathology":                "Punch biopsy of the skin: Results: Diffuse dermal basophilic deposits",
				"punch biopsy of the skin": "Results: Diffuse dermal basophilic deposits",
			},
		},
		{
			name: "a Test key's name stays in its section's result where scores follow as entries of their own",
			items: []corpus.TestItem{
				{Depth: 0, Label: "Cognitive Assessment"},
				{Depth: 1, Label: "Test", Text: "Mini Mental State Examination (MMSE)"},
				{Depth: 1, Label: "Initial Score", Text: "24/30"},
			},
			want: map[string]string{
				"cognitive assessment": "Mini Mental State Examination (MMSE); Initial Score: 24/30",
			},
		},
		{
			name: "Others is a line of the count before it",
			items: corpus.TextTestItems("- Bronchoscopy Findings: - BAL cell differential: - Macrophages: 56% " +
				"- Eosinophils: 0% - Others: 3%"),
			want: map[string]string{
				"macrophages": "56%",
				"eosinophils": "0% Others: 3%",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]string{}
			for _, tv := range corpus.GroupTests(tc.items) {
				got[tv.Name] = tv.Result
			}
			for name, result := range tc.want {
				require.Contains(t, got, name)
				require.Equal(t, result, got[name], name)
			}
			for _, generic := range []string{"test", "tests", "others"} {
				require.NotContains(t, got, generic)
			}
		})
	}
}
