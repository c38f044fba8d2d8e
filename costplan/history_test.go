package costplan_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/costplan"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/settings"
)

// modelDoctorSpec is one stream condition of 4 cases whose doctor is model
// m1 (1 and 4 USD a million tokens); the other roles are built in.
func modelDoctorSpec(t *testing.T) contract.ExperimentSpec {
	base := defaultSet(t).DefaultSettings()
	base.ModelPrices = []settings.ModelPrice{{Model: "m1", Prompt: 1, Completion: 4}}
	doc := base.Roles["doctor"]
	doc.Backend, doc.BaseURL, doc.Model = settings.OpenAI, "http://127.0.0.1:1/v1", "m1"
	base.Roles["doctor"] = doc
	return contract.ExperimentSpec{Name: "x", Corpus: "builtin:stream@7", Limit: 4, StageSize: 2, Base: base,
		Conditions: []contract.ConditionSpec{{Name: "E0", Kind: contract.KindStream, Memory: contract.MemoryDisabled}}}
}

// TestPlanIgnoresUnrelatedRuns: records of runs whose roles were served
// otherwise (built-in, or another model) leave a model doctor's plan as it is
// without them: a built-in doctor's 2 turns are no measure of m1's calls,
// and another model's tokens are not m1's. A run on m1 does inform it.
func TestPlanIgnoresUnrelatedRuns(t *testing.T) {
	spec := modelDoctorSpec(t)
	alone, err := costplan.Experiment(defaultSet(t), spec, costplan.History{})
	require.NoError(t, err)
	builtin := results.Record{Kind: string(contract.KindStream), Turns: 2, Actions: []string{"ASK a -> answered", "FINALIZE -> ok"},
		TimeMS: map[string]float64{results.PhaseDiagnose: 40}}
	other := builtin
	other.Usage = map[string]results.Usage{"doctor": {Model: "m2", Calls: 2, PromptTokens: 100, CompletionTokens: 10}}
	for name, recs := range map[string][]results.Record{
		"five built-in episodes": {builtin, builtin, builtin, builtin, builtin},
		"another model's run":    {other, other},
	} {
		t.Run(name, func(t *testing.T) {
			p, err := costplan.Experiment(defaultSet(t), spec, costplan.NewHistory(recs))
			require.NoError(t, err)
			require.Equal(t, alone, p)
		})
	}
	t.Run("a run on m1", func(t *testing.T) {
		same := other
		same.Usage = map[string]results.Usage{"doctor": {Model: "m1", Calls: 2, PromptTokens: 100, CompletionTokens: 10}}
		p, err := costplan.Experiment(defaultSet(t), spec, costplan.NewHistory([]results.Record{same}))
		require.NoError(t, err)
		d := p.Total[0]
		// 4 episodes of 2 calls, 100 in and 10 out each: 8 calls, 400 and 40
		// tokens, 400·1/1e6 + 40·4/1e6 = 0.00056 USD.
		require.Equal(t, "recorded", d.Source)
		require.InDelta(t, 8, d.Calls, 1e-9)
		require.InDelta(t, 0.00056, d.CostUSD, 1e-12)
	})
}

// TestPlanIsDeterministic: the same records give the same plan, to the last
// bit, however the maps they pass through are ordered (times of 0.1, 0.2 and
// 0.7 ms summed in another order differ in the last bit).
func TestPlanIsDeterministic(t *testing.T) {
	spec := contract.ExperimentSpec{Name: "x", Corpus: "builtin:stream@7", Limit: 4, StageSize: 2, Base: defaultSet(t).DefaultSettings(),
		Conditions: []contract.ConditionSpec{{Name: "A", Kind: contract.KindStream, Memory: contract.MemoryDisabled},
			{Name: "B", Kind: contract.KindStream, Memory: contract.MemoryDisabled},
			{Name: "C", Kind: contract.KindStream, Memory: contract.MemoryDisabled},
			{Name: "D", Kind: contract.KindStream, Memory: contract.MemoryDisabled}}}
	var recs []results.Record
	for i, c := range spec.Conditions {
		ms := []float64{0.1, 0.2, 0.7, 1.3}[i]
		recs = append(recs, results.Record{Run: spec.RunID(c.Name), EpisodeID: fmt.Sprintf("%s/p1/s1/e1-c", spec.RunID(c.Name)),
			Kind: string(contract.KindStream), Turns: 2, Actions: []string{"ASK a -> answered", "FINALIZE -> ok"},
			TimeMS: map[string]float64{results.PhaseDiagnose: ms, results.PhaseUpdate: ms / 3}})
	}
	first, err := costplan.EstimateOf(defaultSet(t), spec, recs)
	require.NoError(t, err)
	want, err := json.Marshal(first)
	require.NoError(t, err)
	for range 50 {
		e, err := costplan.EstimateOf(defaultSet(t), spec, recs)
		require.NoError(t, err)
		got, err := json.Marshal(e)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got))
	}
}
