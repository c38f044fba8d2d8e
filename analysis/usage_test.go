package analysis_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/results"
)

// The evolver role's model use is a learning method's update cost: the mean
// per episode by role, an episode without use counting as 0.
func TestStageMeansAverageModelUse(t *testing.T) {
	recs := []results.Record{
		{Run: "r", Stage: 1, Usage: map[string]results.Usage{"evolver": {PromptTokens: 300, CompletionTokens: 100, CostUSD: 0.02}}},
		{Run: "r", Stage: 1},
	}
	m := analysis.StageMeans(recs)[0]
	// (300 + 100 + 0) / 2 = 200 tokens; (0.02 + 0) / 2 = 0.01 USD.
	require.Equal(t, map[string]float64{"evolver": 200}, m.Tokens)
	require.InDelta(t, 0.01, m.ModelUSD["evolver"], 1e-12)
	require.Nil(t, analysis.StageMeans(recs[1:])[0].Tokens, "no model use: the field stays out of report.json")
}

// Cached prompt tokens are averaged like the tokens, and stay out of
// report.json for roles whose provider reports none.
func TestStageMeansAverageCachedTokens(t *testing.T) {
	recs := []results.Record{
		{Run: "r", Stage: 1, Usage: map[string]results.Usage{"doctor": {PromptTokens: 900, CachedTokens: 600}, "judge": {PromptTokens: 50}}},
		{Run: "r", Stage: 1, Usage: map[string]results.Usage{"doctor": {PromptTokens: 300, CachedTokens: 200}}},
		{Run: "r", Stage: 1},
	}
	m := analysis.StageMeans(recs)[0]
	// (600 + 200 + 0) / 3 episodes; the judge's provider reported none.
	require.Equal(t, map[string]float64{"doctor": 800.0 / 3}, m.CachedTokens)
	require.Nil(t, analysis.StageMeans(recs[2:])[0].CachedTokens)
}
