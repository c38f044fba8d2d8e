package evolver_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/evolver"
	"github.com/clinevo/clinevo/settings"
)

func TestEditsAndCardsWithHiddenTextAreRejected(t *testing.T) {
	forbidden := []string{"stream-0042", "angina/stream/42", "Troponin 0.8 ng/mL (raised)"}
	rules := []clinic.Rule{{ID: "r1", Text: "ASK onset: always", Citations: 2}}
	edits := []evolver.Edit{
		{Op: evolver.OpAdd, Text: "REQUEST_TEST ecg WHEN chest tight exertion: it separated angina from reflux"},
		{Op: evolver.OpAdd, Text: "Remember case stream-0042 had angina"},
		{Op: evolver.OpAdd, Text: "If troponin 0.8 ng/mL (raised) appears, refer"},
		{Op: evolver.OpMerge, ID: "r1", Text: "ASK onset and triggers: always"},
	}
	out, log, skipped := evolver.ApplyEdits(rules, edits, 7, 12, forbidden)
	require.Len(t, skipped, 2)
	require.Len(t, out, 2)
	require.Equal(t, "ASK onset and triggers: always", out[0].Text)
	require.Equal(t, 3, out[0].Citations)
	require.Len(t, log, 2)

	cards := []clinic.Card{
		{CardHint: clinic.CardHint{ID: "a", Text: "IF chest tight THEN consider angina"}},
		{CardHint: clinic.CardHint{ID: "b", Text: "IF chest tight THEN see stream-0042"}},
		{CardHint: clinic.CardHint{ID: "c", Text: "IF chest tight", Evidence: []string{"Troponin 0.8 ng/mL (raised)"}}},
	}
	kept, rejected := evolver.ScreenCards(cards, forbidden)
	require.Len(t, kept, 1)
	require.Equal(t, "a", kept[0].ID)
	require.Len(t, rejected, 2)
}

func TestRuleBudgetRetiresLeastCited(t *testing.T) {
	var edits []evolver.Edit
	for _, test := range []string{"ecg", "troponin", "urinalysis", "ecg", "spirometry"} {
		edits = append(edits, evolver.Edit{Op: evolver.OpAdd, Text: "REQUEST_TEST " + test + " WHEN chest pain: useful"})
	}
	rules, log, _ := evolver.ApplyEdits(nil, edits, 1, 3, nil)
	require.Len(t, rules, 3, "never over B_P")
	require.Equal(t, []string{"add r1-request-ecg", "add r1-request-troponin", "add r1-request-urinalysis", "merge r1-request-ecg",
		"add r1-request-spirometry; retire r1-request-troponin"}, log, "a repeated rule merges; over budget the least cited, oldest rule retires")
	require.Equal(t, 2, rules[0].Citations)
}

func TestEvictionsKeepReusedCards(t *testing.T) {
	cfg := settings.Default().Evolver
	live := []clinic.Card{
		{CardHint: clinic.CardHint{ID: "old-used"}, CreatedEpisode: 1, Retrievals: 5},
		{CardHint: clinic.CardHint{ID: "old-unused"}, CreatedEpisode: 2},
		{CardHint: clinic.CardHint{ID: "new-unused"}, CreatedEpisode: 9},
	}
	require.Equal(t, []string{"old-unused"}, evolver.Evictions(live, 1, 3, 10, cfg))
	require.Empty(t, evolver.Evictions(live, 0, 3, 10, cfg))
	require.Equal(t, []string{"old-unused", "new-unused"}, evolver.Evictions(live, 1, 2, 10, cfg))
}
