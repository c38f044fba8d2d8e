package sdbench_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/benchmarks/sdbench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/settings"
)

// TestSection: the report's SDBench section splits each condition's cost
// into visits and tests and counts the tests the price table did not match;
// the terminal summary says the same in one line.
func TestSection(t *testing.T) {
	spec := contract.ExperimentSpec{Name: "x", Corpus: "builtin:sdbench@7", Conditions: []contract.ConditionSpec{
		{Name: "NB", Kind: contract.KindStream}, {Name: "QO", Kind: contract.KindStream}}}
	in := analysis.Input{Benchmarks: benchtest.SetOf(t, sdbench.Benchmark{}), Spec: spec, Records: map[string][]results.Record{}, Settings: map[string]settings.Settings{}}
	ep := func(run, id string, visits, tests, unmatched int, testUSD float64) results.Record {
		return results.Record{EpisodeID: run + id, Run: run, CaseID: id, Scores: clinic.Scores{E: tests, Cost: 300*float64(visits) + testUSD,
			Metrics: map[string]float64{"visits": float64(visits), "visit_cost_usd": 300 * float64(visits), "test_cost_usd": testUSD, "unmatched_orders": float64(unmatched), "correct": 0}}}
	}
	// NB: 2 visits and 3 tests ($120) with 1 unmatched, then 1 visit and 1 test ($7.77): means 1.5 visits, $450, $63.885.
	in.Records["x-NB"] = []results.Record{ep("x-NB", "a", 2, 3, 1, 120), ep("x-NB", "b", 1, 1, 0, 7.77)}
	in.Records["x-QO"] = []results.Record{ep("x-QO", "a", 1, 0, 0, 0), ep("x-QO", "b", 1, 0, 0, 0)}
	for _, c := range spec.Conditions {
		s := benchtest.Settings(sdbench.Benchmark{})
		in.Settings["x-"+c.Name] = s
		in.Result.Conditions = append(in.Result.Conditions, contract.ConditionResult{Name: c.Name, Kind: "stream", Run: "x-" + c.Name})
	}
	rep := analysis.Build(in)
	require.Equal(t, []string{"sdbench tests the price table did not match (priced at their category's median): NB 1 of 4, QO 0 of 0"}, rep.Summary)
	require.Equal(t, []sdbench.CostRow{
		{Condition: "NB", Episodes: 2, Visits: 1.5, VisitUSD: 450, TestUSD: 63.89, Tests: 4, Unmatched: 1},
		{Condition: "QO", Episodes: 2, Visits: 1, VisitUSD: 300, Tests: 0},
	}, rep.SectionData(sdbench.Name))
	html, err := analysis.HTML(rep, func(string) string { return "#" })
	require.NoError(t, err)
	require.True(t, strings.Contains(string(html), "<td>NB</td><td>2</td><td>1.50</td><td>450</td><td>63.89</td><td>4</td><td>1</td>"), "the section's row")
}
