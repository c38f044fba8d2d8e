package klinike_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/benchmarks/klinike"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/settings"
)

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
	in := analysis.Input{Benchmarks: benchtest.SetOf(t, klinike.Benchmark{}), Spec: spec, Records: map[string][]results.Record{
		"exp-A":         klinikeRecords("exp-A", []float64{1, 0, 0, 1}, true),
		"exp-B":         klinikeRecords("exp-B", []float64{0, 0, 0, 1}, true),
		"exp-A@cap45":   klinikeRecords("exp-A@cap45", []float64{1, 1, 0, 1}, true),
		"exp-B@cap45":   klinikeRecords("exp-B@cap45", []float64{0, 0, 0, 0}, true),
		"exp-A@chart":   klinikeRecords("exp-A@chart", []float64{1, 1, 1, 0}, false),
		"exp-A@judge-b": klinikeRecords("exp-A@judge-b", []float64{0, 0, 0, 1}, true),
		"exp-B@judge-b": klinikeRecords("exp-B@judge-b", []float64{1, 1, 0, 1}, true),
		"other-A@x":     klinikeRecords("other-A@x", []float64{1}, true),
	}}
	in.Settings = map[string]settings.Settings{}
	for _, c := range spec.Conditions {
		in.Result.Conditions = append(in.Result.Conditions, contract.ConditionResult{Name: c.Name, Run: spec.RunID(c.Name)})
		in.Settings[spec.RunID(c.Name)] = klinikeSettings()
	}
	rep := analysis.Build(in)
	k, ok := rep.SectionData(klinike.SectionKey).(*klinike.Report)
	require.True(t, ok, "the section is in the report")
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
	require.Equal(t, klinike.Change{Doctor: "A", N: 4, Base: 0.5, Variant: 0.75, Delta: 0.25, CI: cap45.Changes[0].CI}, cap45.Changes[0])
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
	tr := clinic.Trace{EpisodeID: "e", Events: []clinic.Event{toolEvent(clinic.Event{Turn: 0, Status: clinic.StatusReturned, Reply: "ct abdomen: normal"}, "order_imaging", `{"modality":"CT","region":"abdomen"}`),
		toolEvent(clinic.Event{Turn: 1, Status: clinic.StatusFinalized}, "record_diagnosis", `{"diagnosis":"x"}`)},
		Scores: &clinic.Scores{S: 1}}
	steps := analysis.Steps(tr, klinike.Benchmark{})
	require.Equal(t, "order_imaging", klinike.CallOf(steps[0].Action.Ext).Tool)
	require.JSONEq(t, `{"modality":"CT","region":"abdomen"}`, string(klinike.CallOf(steps[0].Action.Ext).Arguments))
	line, err := json.Marshal(steps[0])
	require.NoError(t, err)
	require.Contains(t, string(line), `"tool":"order_imaging"`, "steps.jsonl keeps the members' names")
	require.Equal(t, []string{`TOOL_CALL order_imaging {"modality":"CT","region":"abdomen"} -> ct abdomen: normal`}, steps[1].State)
	require.Equal(t, 1.0, steps[1].Reward)
}
