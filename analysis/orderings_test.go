package analysis_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/results"
)

// orderingsFixture is an experiment over 3 orderings: E0 (no memory, S 0.1
// on every case), E1 (S 0.5, 0.3 and, in ordering 3, 0.0 and 0.2 in turn),
// H0 (S 0.1) and H3 from E1 (S 0.4 in every ordering), 2 stages of 4 cases.
func orderingsFixture() analysis.Input {
	spec := contract.ExperimentSpec{Name: "o", Corpus: "builtin:stream", StageSize: 4, HeldOut: "builtin:heldout", Orderings: 3,
		Conditions: []contract.ConditionSpec{{Name: "E0", Kind: "stream", Memory: "disabled"}, {Name: "E1", Kind: "stream", Memory: "empty"},
			{Name: "H0", Kind: "heldout"}, {Name: "H3", Kind: "heldout", From: "E1"}}}.Expand()
	in := analysis.Input{Benchmarks: testSet(), Spec: spec, Records: map[string][]results.Record{}}
	rec := func(run string, stage, idx int, s float64) results.Record {
		id := contract.EpisodeWorkflowID(run, 1, stage, idx, fmt.Sprintf("c%d", idx))
		return results.Record{EpisodeID: id, WorkflowID: id, Run: run, Stage: stage, Index: idx, CaseID: fmt.Sprintf("c%d", idx),
			Scores: clinic.Scores{S: s, Strict: s >= 0.5, T: 5, E: 1, Cost: 60}}
	}
	e1 := []func(i int) float64{func(int) float64 { return 0.5 }, func(int) float64 { return 0.3 }, func(i int) float64 { return 0.2 * float64(i%2) }}
	for _, c := range spec.Conditions {
		run := spec.RunID(c.Name)
		res := contract.ConditionResult{Name: c.Name, Kind: c.Kind, Run: run}
		k := max(c.Ordering, 1)
		switch {
		case c.Kind == contract.KindStream:
			res.Stream = &contract.StreamResult{StageEnds: []int{4, 8}}
			for i := 1; i <= 8; i++ {
				s := 0.1
				if strings.HasPrefix(c.Name, "E1") {
					s = e1[k-1](i)
				}
				in.Records[run] = append(in.Records[run], rec(run, (i-1)/4+1, i, s))
			}
		default:
			for i := 1; i <= 4; i++ {
				s := 0.1
				if c.From != "" {
					s = 0.4
				}
				in.Records[run] = append(in.Records[run], rec(run, 1, i, s))
			}
		}
		in.Result.Conditions = append(in.Result.Conditions, res)
	}
	return in
}

// TestOrderings: each repeated condition's S over the orderings with its t
// interval, the stage curve averaged over orderings, and a comparison that
// holds in two orderings of three reported as not holding in every one.
func TestOrderings(t *testing.T) {
	rep := analysis.Build(orderingsFixture())
	o := rep.Orderings
	require.NotNil(t, o)
	require.Equal(t, []uint64{0, 1, 2}, o.Seeds)
	var names []string
	for _, c := range o.Conditions {
		names = append(names, c.Name)
	}
	require.Equal(t, []string{"E0", "E1", "H3"}, names, "H0 reads no stream: played once, not an ordering's")
	e1 := o.Conditions[1]
	require.Equal(t, []string{"o-E1", "o-E1.o2", "o-E1.o3"}, e1.Runs)
	// S per ordering 0.5, 0.3, 0.1: mean 0.3, sd 0.2, t(2) = 4.303, half
	// width 4.303 · 0.2 / √3 = 0.4969.
	require.InDeltaSlice(t, []float64{0.5, 0.3, 0.1}, e1.Overall.Values, 1e-9)
	require.InDelta(t, 0.3, e1.Overall.Mean, 1e-9)
	require.InDelta(t, 0.2, e1.Overall.SD, 1e-9)
	require.InDelta(t, 0.3-0.4969, e1.Overall.CI.Low, 1e-4)
	require.InDelta(t, 0.3+0.4969, e1.Overall.CI.High, 1e-4)
	require.InDeltaSlice(t, []float64{0.5, 0.3, 0.1}, e1.Final.Values, 1e-9, "the last stage of ordering 3: 0, 0.2, 0, 0.2")
	require.Len(t, e1.Stages, 2)
	require.InDelta(t, 0.3, e1.Stages[1].S, 1e-9)
	require.Equal(t, 12, e1.Stages[1].N, "4 episodes in each of 3 orderings")

	var s, et *analysis.OrderedComparison
	for i, c := range o.Comparisons {
		if c.Pair == [2]string{"E0", "E1"} && c.Metric == "S" {
			s = &o.Comparisons[i]
		}
	}
	for i, c := range o.Transfers {
		if c.Pair == [2]string{"H0", "H3"} && c.Metric == "ET(S)" {
			et = &o.Transfers[i]
		}
	}
	require.NotNil(t, s)
	require.Equal(t, []string{"higher", "higher", "no difference"}, s.Verdict)
	require.False(t, s.Holds)
	require.InDeltaSlice(t, []float64{0.4, 0.2, 0}, s.Diff.Values, 1e-9)
	require.NotNil(t, et)
	require.InDeltaSlice(t, []float64{0.3, 0.3, 0.3}, et.Diff.Values, 1e-9)
	require.True(t, et.Holds)

	var out bytes.Buffer
	analysis.WriteSummary(&out, rep)
	require.Contains(t, out.String(), "orderings: 3 (seeds 0, 1, 2; 0 is the published order)")
	require.Contains(t, out.String(), "  E1   overall 0.300 [-0.197, 0.797] (0.100–0.500)  last stage 0.300 [-0.197, 0.797] (0.100–0.500)\n")
	require.Contains(t, out.String(), "does not hold in every ordering: E1 vs E0 (S): ordering 1 +0.400 [0.400, 0.400] higher; ordering 2 +0.200 [0.200, 0.200] higher; ordering 3 +0.000")
	require.Contains(t, out.String(), "comparisons of S that hold in every ordering: 1 of 2\n", "ET(S) of H3 vs H0 holds (its S comparison is the same numbers), E1 vs E0 does not")
	require.NotContains(t, out.String(), "H3 vs H0 (S)")

	html, err := analysis.HTML(rep, func(id string) string { return id })
	require.NoError(t, err)
	for _, want := range []string{`<h2 id="orderings">Orderings</h2>`, "Order robustness: last-stage S in each ordering", "Order robustness: ET(S) in each ordering",
		"<td>0.500 / 0.300 / 0.100</td>", "<strong>no</strong>"} {
		require.Contains(t, string(html), want)
	}
}

// TestNoOrderingsNoSection: an experiment in the published order only has
// no orderings in its report, and its comparisons are as before.
func TestNoOrderingsNoSection(t *testing.T) {
	rep := analysis.Build(fixture())
	require.Nil(t, rep.Orderings)
	html, err := analysis.HTML(rep, func(id string) string { return id })
	require.NoError(t, err)
	require.NotContains(t, string(html), `id="orderings"`)
}
