package analysis_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/settings"
)

// TestPareto works the frontier out by hand: E (50, 0.2), A (100, 0.5), its
// twin F and B (200, 0.8) are optimal; C (300, 0.7) is dominated by B
// (cheaper and more accurate), D (100, 0.4) by A and F (same cost, more
// accurate), G (250, 0.8) by B (same accuracy, cheaper). C is dominated by
// G too (cheaper, more accurate), though G is not optimal. Twins dominate
// neither.
func TestPareto(t *testing.T) {
	ps := []analysis.FrontierPoint{
		{Condition: "A", Cost: 100, Accuracy: 0.5}, {Condition: "B", Cost: 200, Accuracy: 0.8}, {Condition: "C", Cost: 300, Accuracy: 0.7},
		{Condition: "D", Cost: 100, Accuracy: 0.4}, {Condition: "E", Cost: 50, Accuracy: 0.2}, {Condition: "F", Cost: 100, Accuracy: 0.5},
		{Condition: "G", Cost: 250, Accuracy: 0.8},
	}
	analysis.Pareto(ps)
	want := map[string][]string{"A": nil, "B": nil, "C": {"B", "G"}, "D": {"A", "F"}, "E": nil, "F": nil, "G": {"B"}}
	for _, p := range ps {
		require.Equal(t, want[p.Condition], p.DominatedBy, p.Condition)
		require.Equal(t, want[p.Condition] == nil, p.Pareto, p.Condition)
	}
}

// TestFrontierInReport: conditions of a benchmark with a headline cost
// (costed, shaped as SDBench) are points of its plane, with the accuracy of its declared
// accuracy metric, the mean cost and the cost per correct diagnosis; a
// benchmark whose cost is no headline (medevoeval) has no plane. The plane
// is a member of report.json and a chart of the page.
func TestFrontierInReport(t *testing.T) {
	spec := contract.ExperimentSpec{Name: "f", Corpus: "builtin:sdbench", Conditions: []contract.ConditionSpec{
		{Name: "single", Kind: "heldout"}, {Name: "panel", Kind: "heldout"}, {Name: "wasteful", Kind: "heldout"}, {Name: "mee", Kind: "heldout"}}}
	in := analysis.Input{Benchmarks: testSet(), Spec: spec, Records: map[string][]results.Record{}, Settings: map[string]settings.Settings{}}
	// single: 1 of 4 correct at $500 each; panel: 2 of 4 at $400; wasteful: 2 of 4 at $900.
	for _, c := range []struct {
		name    string
		correct int
		cost    float64
	}{{"single", 1, 500}, {"panel", 2, 400}, {"wasteful", 2, 900}, {"mee", 3, 100}} {
		run := "f-" + c.name
		s := settings.Default()
		s.Benchmark = costedProfile
		if c.name == "mee" {
			s.Benchmark = settings.MedEvoEval
		}
		in.Settings[run] = s
		in.Result.Conditions = append(in.Result.Conditions, contract.ConditionResult{Name: c.name, Kind: "heldout", Run: run})
		for i := 0; i < 4; i++ {
			ok := 0.0
			if i < c.correct {
				ok = 1
			}
			in.Records[run] = append(in.Records[run], results.Record{EpisodeID: run + string(rune('a'+i)), Run: run, CaseID: string(rune('a' + i)),
				Scores: clinic.Scores{S: ok, Cost: c.cost, Metrics: map[string]float64{"correct": ok}}})
		}
	}
	rep := analysis.Build(in)
	require.Len(t, rep.Frontiers, 1)
	f := rep.Frontiers[0]
	require.Equal(t, costedProfile, f.Benchmark)
	require.Equal(t, "correct", f.Accuracy)
	require.Len(t, f.Points, 3)
	byName := map[string]analysis.FrontierPoint{}
	for _, p := range f.Points {
		byName[p.Condition] = p
	}
	require.Equal(t, 0.25, byName["single"].Accuracy)
	require.Equal(t, 500.0, byName["single"].Cost)
	require.Equal(t, 2000.0, *byName["single"].CostPerCorrect, "4 × $500 / 1 correct")
	require.Equal(t, 800.0, *byName["panel"].CostPerCorrect, "4 × $400 / 2 correct")
	require.True(t, byName["panel"].Pareto)
	require.Equal(t, []string{"panel"}, byName["single"].DominatedBy)
	require.Equal(t, []string{"panel"}, byName["wasteful"].DominatedBy)

	b, err := json.Marshal(rep)
	require.NoError(t, err)
	var doc struct {
		Frontiers []analysis.Frontier `json:"frontiers"`
	}
	require.NoError(t, json.Unmarshal(b, &doc))
	require.Len(t, doc.Frontiers, 1)
	html, err := analysis.HTML(rep, func(string) string { return "#" })
	require.NoError(t, err)
	require.Contains(t, string(html), `class="chart frontier"`)
	require.Contains(t, string(html), `class="pareto"`)
	require.Contains(t, string(html), "<td>single</td><td>4</td><td>0.250</td>")
}

// TestFrontierOnePlanePerCaseSet: only conditions played on the same cases
// share a plane (Nori et al. 2025, Figure 9 draws the validation and test
// cases apart): the held-out condition, on other cases, has a plane of its
// own and dominates nothing on the stream's, however cheap; each point has
// bootstrap intervals around its means.
func TestFrontierOnePlanePerCaseSet(t *testing.T) {
	spec := contract.ExperimentSpec{Name: "p", Corpus: "builtin:sdbench", HeldOut: "builtin:sdbench-heldout", Conditions: []contract.ConditionSpec{
		{Name: "A", Kind: contract.KindStream}, {Name: "B", Kind: contract.KindStream}, {Name: "H", Kind: contract.KindHeldOut}}}
	in := analysis.Input{Benchmarks: testSet(), Spec: spec, Records: map[string][]results.Record{}, Settings: map[string]settings.Settings{}}
	for _, c := range []struct {
		name, cases string
		correct     int
		cost        float64
	}{{"A", "abcd", 2, 400}, {"B", "dcba", 1, 500}, {"H", "wxyz", 4, 100}} {
		run := "p-" + c.name
		s := settings.Default()
		s.Benchmark = costedProfile
		in.Settings[run] = s
		in.Result.Conditions = append(in.Result.Conditions, contract.ConditionResult{Name: c.name, Kind: "heldout", Run: run})
		for i, id := range c.cases {
			ok := 0.0
			if i < c.correct {
				ok = 1
			}
			in.Records[run] = append(in.Records[run], results.Record{EpisodeID: run + string(id), Run: run, CaseID: string(id),
				Scores: clinic.Scores{S: ok, Cost: c.cost + float64(10*i), Metrics: map[string]float64{"correct": ok}}})
		}
	}
	rep := analysis.Build(in)
	require.Len(t, rep.Frontiers, 2)
	stream, held := rep.Frontiers[0], rep.Frontiers[1]
	require.Equal(t, "builtin:sdbench, 4 cases", stream.CaseSet)
	require.Equal(t, "builtin:sdbench-heldout, 4 cases", held.CaseSet)
	require.Len(t, stream.Points, 2, "A and B played the same cases, in another order")
	require.Len(t, held.Points, 1)
	require.Equal(t, []string{"A"}, stream.Points[1].DominatedBy, "B: $515 mean for 0.25 against A's $415 for 0.5; H is not on this plane")
	require.True(t, stream.Points[0].Pareto)
	for _, f := range rep.Frontiers {
		for _, p := range f.Points {
			require.LessOrEqual(t, p.AccuracyCI.Low, p.Accuracy)
			require.GreaterOrEqual(t, p.AccuracyCI.High, p.Accuracy)
			require.LessOrEqual(t, p.CostCI.Low, p.Cost)
			require.GreaterOrEqual(t, p.CostCI.High, p.Cost)
		}
	}
	a := stream.Points[0]
	require.Equal(t, 415.0, a.Cost, "(400 + 410 + 420 + 430) / 4")
	require.Less(t, a.CostCI.Low, a.CostCI.High, "the costs vary: the interval is not a point")
	html, err := analysis.HTML(rep, func(string) string { return "#" })
	require.NoError(t, err)
	require.Contains(t, string(html), "on builtin:sdbench-heldout, 4 cases: accuracy against cost")
}

// summarized is a costed benchmark with lines of its own in the terminal
// summary (analysis.Summarizer).
type summarized struct{ benchtest.Fake }

func (summarized) Summary(rep analysis.Report) []string {
	return []string{fmt.Sprintf("own line: %d conditions", len(rep.Conditions))}
}

// TestSummaryLines: the terminal summary prints each plane, a point a line
// with its intervals and what dominates it, and a benchmark's own lines
// (once per benchmark).
func TestSummaryLines(t *testing.T) {
	var costed benchtest.Fake
	for _, b := range testSet().All() {
		if b.Name() == costedProfile {
			costed = b.(benchtest.Fake)
		}
	}
	set, err := bench.NewSet(summarized{costed})
	require.NoError(t, err)
	spec := contract.ExperimentSpec{Name: "s", Corpus: "builtin:sdbench", Conditions: []contract.ConditionSpec{{Name: "A", Kind: contract.KindStream}, {Name: "B", Kind: contract.KindStream}}}
	in := analysis.Input{Benchmarks: set, Spec: spec, Records: map[string][]results.Record{}, Settings: map[string]settings.Settings{}}
	for _, c := range []struct {
		name string
		ok   float64
		cost float64
	}{{"A", 1, 300}, {"B", 0, 400}} {
		run := "s-" + c.name
		s := settings.Default()
		s.Benchmark = costedProfile
		in.Settings[run] = s
		in.Result.Conditions = append(in.Result.Conditions, contract.ConditionResult{Name: c.name, Kind: "stream", Run: run})
		in.Records[run] = []results.Record{{EpisodeID: run + "a", Run: run, CaseID: "a", Scores: clinic.Scores{S: c.ok, Cost: c.cost, Metrics: map[string]float64{"correct": c.ok}}}}
	}
	rep := analysis.Build(in)
	require.Equal(t, []string{"own line: 2 conditions"}, rep.Summary)
	require.Equal(t, []string{
		"frontier " + costedProfile + " on builtin:sdbench, 1 case (accuracy, mean cost per case USD, bootstrap 95% intervals):",
		"  A    n=1    1.000 [1.000, 1.000]  cost 300 [300, 300]  on the frontier",
		"  B    n=1    0.000 [0.000, 0.000]  cost 400 [400, 400]  dominated by A",
	}, rep.Frontiers[0].Lines())
}
