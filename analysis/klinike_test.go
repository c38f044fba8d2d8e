package analysis_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/bench/klinike"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/results"
)

// TestKendallTau works τ-b out by hand.
func TestKendallTau(t *testing.T) {
	tests := []struct {
		name string
		x, y []float64
		want float64
	}{
		// Pairs of (1,2,3,4) against (1,3,2,4): only (2,3) is discordant, so
		// n_c = 5, n_d = 1 and τ = (5 − 1)/6 = 0.6667.
		{"one swap", []float64{1, 2, 3, 4}, []float64{1, 3, 2, 4}, 4.0 / 6},
		{"the same order", []float64{0.3, 0.2, 0.1}, []float64{30, 20, 10}, 1},
		{"the reverse order", []float64{1, 2, 3}, []float64{3, 2, 1}, -1},
		// x ties its first two items: n₀ = 3, n₁ = 1, n₂ = 0, n_c = 2, n_d = 0,
		// τ_b = 2/√((3 − 1)(3 − 0)) = 2/√6 = 0.8165.
		{"a tie", []float64{1, 1, 2}, []float64{1, 2, 3}, 2 / 2.449489742783178},
		{"all ties", []float64{1, 1, 1}, []float64{1, 2, 3}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.InDelta(t, tc.want, analysis.KendallTau(tc.x, tc.y), 1e-12)
		})
	}
}

func klinikeRecords(run string, pass []float64, gates bool) []results.Record {
	var out []results.Record
	for i, p := range pass {
		m := map[string]float64{"d": p}
		if gates {
			m = map[string]float64{"d": 1, "w": 1, "a": p, "h": 1, "pass1": p, "r_multi": (2 + 1 + p + 1) / 5}
		}
		out = append(out, results.Record{EpisodeID: fmt.Sprintf("%s/e%d", run, i), Run: run, CaseID: fmt.Sprintf("t%d", i), Index: i + 1,
			Scores: clinic.Scores{S: p, Metrics: m}})
	}
	return out
}

// TestKlinikeSection: strict pass@1 and gates per condition and re-scored
// run, each variant's change per doctor with its interval, and Kendall's τ.
func TestKlinikeSection(t *testing.T) {
	spec := contract.ExperimentSpec{Name: "exp", Conditions: []contract.ConditionSpec{
		{Name: "A", Kind: contract.KindHeldOut}, {Name: "B", Kind: contract.KindHeldOut},
		{Name: "A@cap45", Kind: contract.KindHeldOut, PairedWith: "A"}, {Name: "B@cap45", Kind: contract.KindHeldOut, PairedWith: "B"},
		{Name: "A@chart", Kind: contract.KindHeldOut, PairedWith: "A"}}}
	in := analysis.Input{Spec: spec, Records: map[string][]results.Record{
		"exp-A":         klinikeRecords("exp-A", []float64{1, 0, 0, 1}, true),
		"exp-B":         klinikeRecords("exp-B", []float64{0, 0, 0, 1}, true),
		"exp-A@cap45":   klinikeRecords("exp-A@cap45", []float64{1, 1, 0, 1}, true),
		"exp-B@cap45":   klinikeRecords("exp-B@cap45", []float64{0, 0, 0, 0}, true),
		"exp-A@chart":   klinikeRecords("exp-A@chart", []float64{1, 1, 1, 0}, false),
		"exp-A@judge-b": klinikeRecords("exp-A@judge-b", []float64{0, 0, 0, 1}, true),
		"exp-B@judge-b": klinikeRecords("exp-B@judge-b", []float64{1, 1, 0, 1}, true),
		"other-A@x":     klinikeRecords("other-A@x", []float64{1}, true),
	}}
	for _, c := range spec.Conditions {
		in.Result.Conditions = append(in.Result.Conditions, contract.ConditionResult{Name: c.Name, Run: spec.RunID(c.Name)})
	}
	rep := analysis.Build(in)
	k := rep.Klinike
	require.NotNil(t, k)
	var names []string
	for _, c := range k.Conditions {
		names = append(names, c.Name)
	}
	require.Equal(t, []string{"A", "B", "A@cap45", "B@cap45", "A@chart", "A@judge-b", "B@judge-b"}, names, "conditions, then re-scored runs")
	require.Equal(t, 0.5, *k.Conditions[0].Pass1)
	require.True(t, k.Conditions[5].Rescored)
	require.Nil(t, k.Conditions[4].Pass1, "the chart mode has no pass@1")
	require.Nil(t, k.Conditions[4].W)

	require.Len(t, k.Variants, 3)
	cap45 := k.Variants[0]
	require.Equal(t, "cap45", cap45.Variant)
	require.Equal(t, "pass1", cap45.Metric)
	require.Len(t, cap45.Changes, 2)
	// A: 0.5 -> 0.75 (one task gained), B: 0.25 -> 0 (one lost); the ranking A > B holds: τ = 1.
	require.Equal(t, analysis.KlinikeChange{Doctor: "A", N: 4, Base: 0.5, Variant: 0.75, Delta: 0.25, CI: cap45.Changes[0].CI}, cap45.Changes[0])
	require.Equal(t, -0.25, cap45.Changes[1].Delta)
	require.LessOrEqual(t, cap45.Changes[0].CI.Low, 0.25)
	require.GreaterOrEqual(t, cap45.Changes[0].CI.High, 0.25)
	require.Equal(t, 1.0, *cap45.Tau)
	chart := k.Variants[1]
	require.Equal(t, "d", chart.Metric, "the chart mode compares diagnosis accuracy")
	require.Nil(t, chart.Tau, "one doctor")
	require.Equal(t, -0.25, chart.Changes[0].Delta, "D: the chart mode 1,1,1,0 against the encounter 1,1,1,1")
	judge := k.Variants[2]
	require.Equal(t, "judge-b", judge.Variant)
	require.Equal(t, -1.0, *judge.Tau, "the re-scored runs swap the doctors: A 0.25, B 0.75")

	dir := t.TempDir()
	require.NoError(t, analysis.Write(dir, rep, func(id string) (clinic.Trace, error) { return clinic.Trace{EpisodeID: id}, nil }))
	page, err := os.ReadFile(filepath.Join(dir, "index.html"))
	require.NoError(t, err)
	require.Contains(t, string(page), "KlinikeBench: strict pass@1 and gates")
	require.Contains(t, string(page), "<td>A@judge-b (re-scored)</td>")
	require.Contains(t, string(page), "Kendall")
}

// TestStepsCarryToolCalls: the step export keeps a tool call's tool and arguments.
func TestStepsCarryToolCalls(t *testing.T) {
	tr := clinic.Trace{EpisodeID: "e", Events: []clinic.Event{{Turn: 0, Action: clinic.ToolCall, Tool: "order_imaging",
		Arguments: []byte(`{"modality":"CT","region":"abdomen"}`), Status: clinic.StatusReturned, Reply: "ct abdomen: normal"},
		{Turn: 1, Action: clinic.ToolCall, Tool: "record_diagnosis", Arguments: []byte(`{"diagnosis":"x"}`), Status: clinic.StatusFinalized}},
		Scores: &clinic.Scores{S: 1}}
	steps := analysis.Steps(tr, klinike.Benchmark{})
	require.Equal(t, "order_imaging", steps[0].Action.Tool)
	require.JSONEq(t, `{"modality":"CT","region":"abdomen"}`, string(steps[0].Action.Arguments))
	require.Equal(t, []string{`TOOL_CALL order_imaging {"modality":"CT","region":"abdomen"} -> ct abdomen: normal`}, steps[1].State)
	require.Equal(t, 1.0, steps[1].Reward)
}
