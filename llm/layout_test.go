package llm_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/llm/llmtest"
)

// TestDoctorPromptStablePrefix: the doctor's prompt puts what stays the same
// across a run's episodes first (instructions, reply schema, budgets, the
// catalog and the rule book) and the episode's own part last, so a
// provider's prefix cache hits: two episodes at different turns share the
// system message and the user message up to the patient, byte for byte.
func TestDoctorPromptStablePrefix(t *testing.T) {
	a := view()
	a.Rules = []string{"ASK about triggers WHEN headache"}
	b := a
	b.OpeningComplaint, b.Demographics.Text, b.Turn, b.TestsUsed = "I have had a cough for a week.", "54-year-old man", 3, 1
	b.Exchanges = []clinic.Exchange{{Question: "Any fever?", Answer: "No."}}
	pa, err := llm.DoctorPrompt(a)
	require.NoError(t, err)
	pb, err := llm.DoctorPrompt(b)
	require.NoError(t, err)
	require.Equal(t, pa[0].Content, pb[0].Content, "the system message is the same in every episode and turn")
	prefix := func(m llm.Message) string {
		i := strings.Index(m.Content, "Patient: ")
		require.Positive(t, i, "the user message holds the patient part")
		return m.Content[:i]
	}
	require.Equal(t, prefix(pa[1]), prefix(pb[1]))
	require.Contains(t, prefix(pa[1]), "Test catalog: ecg")
	require.Contains(t, prefix(pa[1]), "ASK about triggers")
	for _, changing := range []string{b.OpeningComplaint, "turn 4", "1 of 3 tests", "Any fever?"} {
		require.NotContains(t, pb[0].Content+prefix(pb[1]), changing, "the episode's part comes last")
		require.Contains(t, pb[1].Content, changing)
	}
}

// TestCachedTokens: the cached prompt tokens a provider reports are counted
// on the meter beside the prompt tokens.
func TestCachedTokens(t *testing.T) {
	srv := llmtest.New(t)
	srv.CachedTokens = 5
	var tally llm.Tally
	ctx := llm.WithMeter(context.Background(), &tally)
	c := srv.Client(t, "judge", nil)
	var out struct{}
	require.NoError(t, c.JSON(ctx, []llm.Message{llm.System("You are the examiner"), llm.User("grade this answer now please")}, &out, nil))
	u := tally.ByRole()["judge"]
	require.Equal(t, 5, u.CachedTokens)
	require.Greater(t, u.PromptTokens, 5)
}

// TestProvenance: every reply's system_fingerprint and served model are
// kept with the role's usage, each once, sorted: three replies served by
// fp_b, fp_a and fp_b again give fp_a and fp_b; a reply without a
// fingerprint adds none.
func TestProvenance(t *testing.T) {
	srv := llmtest.New(t)
	srv.Fingerprints, srv.ServedModel = []string{"fp_b", "fp_a"}, "test-model-2026-01-01"
	var tally llm.Tally
	ctx := llm.WithMeter(context.Background(), &tally)
	c := srv.Client(t, "judge", nil)
	var out struct{}
	for range 3 {
		require.NoError(t, c.JSON(ctx, []llm.Message{llm.System("You are the examiner"), llm.User("grade this answer now please")}, &out, nil))
	}
	u := tally.ByRole()["judge"]
	require.Equal(t, 3, u.Calls)
	require.Equal(t, []string{"fp_a", "fp_b"}, u.Fingerprints)
	require.Equal(t, []string{"test-model-2026-01-01"}, u.ServedModels)

	srv.Fingerprints = nil
	var plain llm.Tally
	require.NoError(t, c.JSON(llm.WithMeter(context.Background(), &plain), []llm.Message{llm.User("grade this too")}, &out, nil))
	require.Nil(t, plain.ByRole()["judge"].Fingerprints)
}
