package analysis_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/results"
)

// A prompt optimiser's development phase (playing and breeding its
// candidates) is part of its update cost: the report adds its time and model
// use, spread over the stream's episodes, to the stream's update figures.
func TestDevPhaseIsUpdateCost(t *testing.T) {
	spec := contract.ExperimentSpec{Name: "t", Corpus: "builtin:stream", Conditions: []contract.ConditionSpec{
		{Name: "G", Kind: contract.KindStream, Memory: contract.MemoryDisabled}}}
	in := analysis.Input{Benchmarks: testSet(), Spec: spec, Result: contract.ExperimentResult{Conditions: []contract.ConditionResult{{Name: "G", Kind: contract.KindStream, Run: "t-G"}}},
		Records: map[string][]results.Record{}, Openings: map[string]map[string]string{"builtin:stream": {"s1": "a", "s2": "b"}}}
	for i, c := range []string{"s1", "s2"} {
		in.Records["t-G"] = append(in.Records["t-G"], results.Record{EpisodeID: "t-G/e" + c, Run: "t-G", Stage: 1, Index: i + 1, CaseID: c,
			Scores: clinic.Scores{S: 0.5}, TimeMS: map[string]float64{results.PhaseDiagnose: 10, results.PhaseUpdate: 2},
			Usage: map[string]results.Usage{"evolver": {PromptTokens: 40, CompletionTokens: 10, CostUSD: 0.01}}})
	}
	dev := func(run string, ms float64, tokens int) {
		in.Records[run] = append(in.Records[run], results.Record{EpisodeID: run + "/e1", Run: run, Stage: 1, Index: 1, CaseID: "d1",
			TimeMS: map[string]float64{results.PhaseDiagnose: ms}, Usage: map[string]results.Usage{"doctor": {PromptTokens: tokens, CostUSD: 0.1}}})
	}
	dev("t-G/dev/g00-c00", 30, 100)
	dev("t-G/dev/g01-c00", 50, 300)
	in.Breeding = map[string]analysis.Spent{"t-G/dev/g01-c00/breed": {TimeMS: map[string]float64{results.PhaseUpdate: 20},
		Usage: map[string]results.Usage{"evolver": {PromptTokens: 200, CostUSD: 0.2}}}}
	rep := analysis.Build(in)
	g := rep.Conditions[0]
	require.NotNil(t, g.DevPhase)
	// 30 + 50 ms played, 20 ms bred; 100 + 300 doctor and 200 evolver tokens.
	require.Equal(t, analysis.DevPhase{Candidates: 2, Episodes: 2, TimeMS: 100, Tokens: map[string]float64{"doctor": 400, "evolver": 200},
		ModelUSD: map[string]float64{"doctor": 0.2, "evolver": 0.2}}, *g.DevPhase)
	// Per stream episode (2): update 2 + 100/2 = 52 ms; diagnose stays 10.
	require.InDelta(t, 52, g.Overall.TimeMS[results.PhaseUpdate], 1e-9)
	require.InDelta(t, 10, g.Overall.TimeMS[results.PhaseDiagnose], 1e-9)
	require.InDelta(t, 300, g.Overall.Tokens[analysis.DevPhaseKey], 1e-9, "600 development tokens over 2 episodes")
	require.InDelta(t, 0.2, g.Overall.ModelUSD[analysis.DevPhaseKey], 1e-9)
	require.InDelta(t, 50, g.Overall.Tokens["evolver"], 1e-9, "the stream's own evolver use is unchanged")
	require.Len(t, rep.Conditions, 1, "development runs are no condition of their own")
}
