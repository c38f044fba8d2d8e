package grader_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
)

// TestSharedGenericWordEarnsNothing: a diagnosis that shares only a site or
// kind word with the key gets no credit (issue 35: the built-in judge gave
// 25/100 to "cutaneous meningeal heterotopia" for "primary cutaneous
// trichosporonosis", which made the whole of Med-Inquire's mean S).
func TestSharedGenericWordEarnsNothing(t *testing.T) {
	key := clinic.Diagnosis{Name: "Primary cutaneous trichosporonosis"}
	for _, tc := range []struct {
		pred string
		want int
	}{
		{"Cutaneous meningeal heterotopia", 0},
		{"Acute cutaneous syndrome", 0},
		{"Disseminated trichosporonosis", 25},       // shares the disease, not only its site: Jaccard 1/3 → 0.25
		{"Cutaneous trichosporonosis", 75},          // the same specific words, "primary" left out: more or less specific
		{"Trichosporonosis", 75},                    // a less specific name of the same disease
		{"not cutaneous trichosporonosis", 0},       // named only to be denied
		{"Primary cutaneous trichosporonosis", 100}, // the key itself
	} {
		t.Run(tc.pred, func(t *testing.T) {
			g, err := grader.RubricJudge{W: settings.Default().Scoring}.JudgeDiagnosis(context.Background(), &clinic.Case{Manager: clinic.ManagerView{Diagnosis: key}}, []string{tc.pred})
			require.NoError(t, err)
			require.Equal(t, tc.want, g.Grade)
		})
	}
}

// TestKeyPointsRespectNegation is a table of paraphrase and negation pairs:
// a key point matches a doctor's item only with the same polarity, in
// either text (issue 35: "no fever" matched "fever with rigors").
func TestKeyPointsRespectNegation(t *testing.T) {
	for _, tc := range []struct {
		key, item string
		match     bool
	}{
		{"no fever", "fever with rigors", false},
		{"no fever", "afebrile", true},
		{"no fever", "denies fever", true},
		{"no fever", "patient reports no fever or chills", true},
		{"fever", "no fever", false},
		{"fever with rigors", "fever and rigors for two days", true},
		{"denies chest pain", "chest pain on exertion", false},
		{"denies chest pain", "no chest pain", true},
		{"chest pain on exertion", "denies chest pain at rest", false},
		{"without rigors", "rigors", false},
		{"without rigors", "fever but no rigors", true},
		{"cough without sputum", "productive cough with sputum", false},
		{"cough without sputum", "dry cough, no sputum", true},
		{"no weight loss", "weight loss of 5 kg", false},
		{"blood cultures negative", "negative blood cultures", true},
		{"blood cultures negative", "blood cultures grew staphylococcus", false},
		{"rash on both legs", "bilateral leg rash", true},
		{"normal troponin", "troponin normal", true},
	} {
		t.Run(tc.key+" / "+tc.item, func(t *testing.T) {
			matched, _ := grader.MatchPoints([]string{tc.key}, []string{tc.item}, settings.Default().Scoring.MatchAt)
			require.Equal(t, tc.match, len(matched) == 1)
		})
	}
}

// TestNegatedEvidenceIsUnsupported: after the patient said "I have no
// fever", evidence "fever with rigors" is neither a key point's match nor
// supported by what was revealed, and "no fever" is both.
func TestNegatedEvidenceIsUnsupported(t *testing.T) {
	c := &clinic.Case{Manager: clinic.ManagerView{Diagnosis: clinic.Diagnosis{Name: "Viral pharyngitis"}, Evidence: []string{"no fever"}}}
	j := grader.RubricJudge{W: settings.Default().Scoring}
	got, err := j.Judge(context.Background(), c, "I have no fever. My throat is sore.", clinic.FinalOutput{Evidence: []string{"fever with rigors"}})
	require.NoError(t, err)
	require.Empty(t, got.Matched)
	require.Equal(t, []string{"fever with rigors"}, got.Hallucinated)
	got, err = j.Judge(context.Background(), c, "I have no fever. My throat is sore.", clinic.FinalOutput{Evidence: []string{"no fever"}})
	require.NoError(t, err)
	require.Equal(t, []string{"no fever"}, got.Matched)
	require.Empty(t, got.Hallucinated)
}
