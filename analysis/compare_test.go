package analysis_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/results/resultstest"
	"github.com/clinevo/clinevo/results/sqlite"
	"github.com/clinevo/clinevo/settings"
)

// passBench declares S (continuous), pass (binary) and turns (lower is
// better): enough to exercise every kind of row.
var passBench = benchtest.Fake{N: "passfake", M: []bench.Metric{
	{Name: "s", Shared: true, Title: "S", Min: 0, Max: 1, Headline: true, Doc: "S"},
	{Name: "pass", Shared: true, Title: "pass", Min: 0, Max: 1, Doc: "pass"},
	{Name: "t", Shared: true, Title: "turns", Min: 0, Max: math.Inf(1), Direction: bench.LowerBetter, Doc: "turns"},
	{Name: "r", Shared: true, Title: "R", Min: 0, Max: 1, Direction: bench.LowerBetter, Doc: "a rate, 0 on every episode here"}}}

// ep is one scored episode of run at stage, with S, pass and turns.
type ep struct {
	caseID string
	stage  int
	s      float64
	pass   bool
	turns  int
}

func comparedRun(run, kind string, eps ...ep) analysis.ComparedRun {
	cr := analysis.ComparedRun{Run: run, Kind: kind, Benchmark: passBench.N, Bench: passBench, SettingsRecorded: true,
		Settings: settings.Default(), Corpus: "builtin:stream", Memory: "own", Episodes: len(eps)}
	for i, e := range eps {
		r := resultstest.Record(run, i+1, e.caseID)
		r.Kind, r.Stage, r.Scores.S, r.Scores.Pass, r.Scores.T = kind, e.stage, e.s, e.pass, e.turns
		cr.Records = append(cr.Records, r)
	}
	return cr
}

func metricRow(t *testing.T, ms []analysis.MetricDiff, name string) analysis.MetricDiff {
	t.Helper()
	for _, m := range ms {
		if m.Metric == name {
			return m
		}
	}
	require.Failf(t, "no row", "metric %s", name)
	return analysis.MetricDiff{}
}

// pairedRuns: five shared cases, in another order in B, and one case each
// run played alone. S: A 0.2 0.4 0.5 0.6 0.9, B 0.5 0.4 0.9 0.4 1.0 (by
// case c1..c5); pass: A no no no yes yes, B yes on all five.
func pairedRuns() (analysis.ComparedRun, analysis.ComparedRun) {
	a := comparedRun("A", "stream", ep{"c1", 1, 0.2, false, 3}, ep{"c2", 1, 0.4, false, 4}, ep{"c3", 2, 0.5, false, 5},
		ep{"c4", 2, 0.6, true, 2}, ep{"c5", 2, 0.9, true, 6}, ep{"c7", 2, 0.1, false, 1})
	b := comparedRun("B", "stream", ep{"c6", 1, 0.3, true, 1}, ep{"c2", 1, 0.4, true, 4}, ep{"c1", 1, 0.5, true, 3},
		ep{"c5", 2, 1.0, true, 6}, ep{"c4", 2, 0.4, true, 2}, ep{"c3", 2, 0.9, true, 5})
	return a, b
}

func TestComparePaired(t *testing.T) {
	a, b := pairedRuns()
	p := analysis.ComparePair(a, b)
	require.True(t, p.Paired)
	require.Equal(t, [3]int{5, 1, 1}, [3]int{p.Shared, p.OnlyA, p.OnlyB}, "c1..c5 shared, c7 only in A, c6 only in B")

	s := metricRow(t, p.Metric, "s")
	// d = B − A by case: c1 +0.3, c2 0, c3 +0.4, c4 −0.2, c5 +0.1; mean 0.6/5 = 0.12.
	require.True(t, s.Paired)
	require.Equal(t, 5, s.NA)
	require.InDelta(t, 0.52, s.MeanA, 1e-9, "2.6/5")
	require.InDelta(t, 0.64, s.MeanB, 1e-9, "3.2/5")
	require.InDelta(t, 0.12, s.MeanDiff, 1e-9)
	// Wilcoxon: the zero is dropped; |d| 0.1 0.2 0.3 0.4 take ranks 1..4;
	// W+ = 1+3+4 = 8, W− = 2. Exact: of the 16 sign patterns of 1..4, 3 have
	// W+ ≥ 8 (sums 8, 9, 10), so p = 2·3/16 = 0.375.
	require.NotNil(t, s.Wilcoxon)
	require.Equal(t, analysis.WilcoxonResult{N: 4, Zeros: 1, WPlus: 8, WMinus: 2, P: 0.375, Exact: true}, *s.Wilcoxon)
	require.Nil(t, s.McNemar, "S takes values other than 0 and 1")
	require.LessOrEqual(t, s.CI.Low, 0.12)
	require.GreaterOrEqual(t, s.CI.High, 0.12)
	require.GreaterOrEqual(t, s.CI.Low, -0.2, "a mean of resampled d is at least min d")
	require.LessOrEqual(t, s.CI.High, 0.4, "and at most max d")

	pass := metricRow(t, p.Metric, "pass")
	// pass: A holds on c4, c5; B on all: b = 0 (A only), c = 3 (B only);
	// exact McNemar p = 2·P(X ≤ 0 | n = 3) = 2/8 = 0.25; mean diff 3/5.
	require.NotNil(t, pass.McNemar)
	require.Equal(t, analysis.McNemarResult{B: 0, C: 3, P: 0.25}, *pass.McNemar)
	require.InDelta(t, 0.6, pass.MeanDiff, 1e-9)

	turns := metricRow(t, p.Metric, "t")
	require.True(t, turns.LowerBetter)
	require.InDelta(t, 0, turns.MeanDiff, 1e-9, "each case took as many turns in both")
	require.Nil(t, turns.McNemar, "turns are declared on [0, ∞)")
	require.Nil(t, metricRow(t, p.Metric, "r").McNemar, "a rate that stayed 0 is not a 0/1 outcome")

	// By stage: stage 1 pairs c1, c2 (d 0.3, 0: mean 0.15); stage 2 pairs
	// c3, c4, c5 (d 0.4, −0.2, 0.1: mean 0.1).
	require.Len(t, p.Stages, 2)
	require.InDelta(t, 0.15, metricRow(t, p.Stages[0].Metrics, "s").MeanDiff, 1e-9)
	require.InDelta(t, 0.1, metricRow(t, p.Stages[1].Metrics, "s").MeanDiff, 1e-9)
	require.Equal(t, 3, metricRow(t, p.Stages[1].Metrics, "s").NA)

	// Largest |ΔS| first; c2 (no difference) is not a disagreement.
	var order []string
	for _, d := range p.Disagreements {
		order = append(order, d.CaseID)
	}
	require.Equal(t, []string{"c3", "c1", "c4", "c5"}, order)
	require.Equal(t, "A/p1/s1/e3-c3", p.Disagreements[0].EpisodeA)
	require.Equal(t, "B/p1/s1/e6-c3", p.Disagreements[0].EpisodeB)
	require.InDelta(t, 0.4, p.Disagreements[0].Delta, 1e-9)
}

func TestCompareUnpaired(t *testing.T) {
	a := comparedRun("A", "heldout", ep{"a1", 1, 0.2, false, 2}, ep{"a2", 1, 0.4, false, 2})
	b := comparedRun("B", "stream", ep{"b1", 1, 0.6, true, 2}, ep{"b2", 1, 0.6, true, 2}, ep{"b3", 1, 0.9, true, 2})
	p := analysis.ComparePair(a, b)
	require.False(t, p.Paired)
	require.Empty(t, p.Stages, "a held-out run has no stages to compare")
	require.Empty(t, p.Disagreements)
	s := metricRow(t, p.Metric, "s")
	// mean(B) − mean(A) = 0.7 − 0.3 = 0.4.
	require.False(t, s.Paired)
	require.Equal(t, [2]int{2, 3}, [2]int{s.NA, s.NB})
	require.InDelta(t, 0.4, s.MeanDiff, 1e-9)
	require.Nil(t, s.Wilcoxon)
	require.Nil(t, metricRow(t, p.Metric, "pass").McNemar, "McNemar needs pairs")
	// Resampled means of A lie in [0.2, 0.4] and of B in [0.6, 0.9].
	require.GreaterOrEqual(t, s.CI.Low, 0.2-1e-9)
	require.LessOrEqual(t, s.CI.High, 0.7+1e-9)
	require.Less(t, s.CI.Low, s.CI.High)
	require.Equal(t, []analysis.SettingDiff{{Key: "kind", A: "heldout", B: "stream"}}, p.Settings)
}

func TestBootstrapDiff(t *testing.T) {
	for _, c := range []struct {
		name string
		a, b []float64
		want analysis.Interval
	}{
		{"constant samples: the difference exactly", []float64{0.5, 0.5}, []float64{0.75}, analysis.Interval{Low: 0.25, High: 0.25}},
		{"an empty sample: no interval", nil, []float64{1}, analysis.Interval{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, analysis.BootstrapDiff(c.a, c.b, 500, 7))
		})
	}
	x, y := []float64{0, 1, 0, 1}, []float64{1, 1, 0, 1}
	require.Equal(t, analysis.BootstrapDiff(x, y, 500, 7), analysis.BootstrapDiff(x, y, 500, 7), "seeded: the same interval every time")
}

func TestSettingsDiff(t *testing.T) {
	a, b := pairedRuns()
	require.Empty(t, analysis.SettingsDiff(a, b), "same kind, corpus and settings")
	b.Corpus = "builtin:heldout"
	b.Memory = "x-E1"
	b.Settings = settings.Default().Clone()
	b.Settings.Evolver.Method = settings.MethodGEPA
	doc := b.Settings.Roles["doctor"]
	doc.Backend, doc.Model = "openai", "gpt-x"
	b.Settings.Roles["doctor"] = doc
	require.Equal(t, []analysis.SettingDiff{
		{Key: "corpus", A: "builtin:stream", B: "builtin:heldout"},
		{Key: "memory", A: "own", B: "x-E1"},
		{Key: "evolver.method", A: settings.MethodClinevo, B: settings.MethodGEPA},
		{Key: "roles.doctor.backend", A: settings.Builtin, B: "openai"},
		{Key: "roles.doctor.model", A: "", B: "gpt-x"},
	}, analysis.SettingsDiff(a, b))

	b.SettingsRecorded = false
	require.Empty(t, analysis.SettingsDiff(a, b), "unknown settings are not told apart from known ones")
	require.Contains(t, analysis.ComparePair(a, b).Notes, "no recorded spec names B: its settings are unknown")
}

// TestCompareOtherBenchmark compares only the metrics both benchmarks
// declare, and says so.
func TestCompareOtherBenchmark(t *testing.T) {
	a, b := pairedRuns()
	b.Bench = benchtest.Fake{N: "other", M: []bench.Metric{{Name: "s", Shared: true, Title: "S", Min: 0, Max: 1}}}
	p := analysis.ComparePair(a, b)
	require.Len(t, p.Metric, 1)
	require.Equal(t, "s", p.Metric[0].Metric)
	require.Equal(t, []string{"benchmarks passfake and other: only the metrics both declare are compared"}, p.Notes)
}

func TestWriteComparison(t *testing.T) {
	a, b := pairedRuns()
	b.Settings = settings.Default().Clone()
	b.Settings.Evolver.Method = settings.MethodGEPA
	var out bytes.Buffer
	require.NoError(t, analysis.WriteComparison(&out, analysis.CompareRuns([]analysis.ComparedRun{a, b})))
	text := out.String()
	for _, want := range []string{
		"A (stream, passfake, 6 episodes)  vs  B (stream, passfake, 6 episodes)",
		"settings that differ:",
		"evolver.method  " + settings.MethodClinevo + "  " + settings.MethodGEPA + "\n",
		"paired by case: 5 cases in both (1 only in A, 1 only in B)",
		"+0.120", "0.375", "0.25 (0/3)", "turns ↓",
		"stage 2:",
	} {
		require.Contains(t, text, want)
	}
	raw, err := json.Marshal(analysis.CompareRuns([]analysis.ComparedRun{a, b}))
	require.NoError(t, err)
	require.Contains(t, string(raw), `"paired":true`)
}

// TestLoadCompared reads runs from the store by the IDs `runs list` shows,
// with their recorded settings, and refuses names it cannot compare.
func TestLoadCompared(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "results.db"))
	require.NoError(t, err)
	defer st.Close()
	spec, err := json.Marshal(contract.StreamSpec{RunID: "s1", Corpus: "builtin:stream", StageSize: 2, Pass: 1, Memory: contract.MemoryEmpty})
	require.NoError(t, err)
	for _, run := range []string{"s1", "empty"} {
		require.NoError(t, st.PutRun(ctx, results.Run{Run: run, Kind: "stream", WorkflowID: run + "/stream", Spec: spec}))
	}
	for _, run := range []string{"s1", "old-H0"} {
		r := resultstest.Record(run, 1, "stream-0001")
		require.NoError(t, st.PutRecord(ctx, r, resultstest.Trace(r.EpisodeID, r.CaseID, 2)))
	}
	runs, err := analysis.LoadCompared(ctx, st, testSet(), []string{"s1", "old-H0"})
	require.NoError(t, err)
	require.True(t, runs[0].SettingsRecorded)
	require.Equal(t, "builtin:stream", runs[0].Corpus)
	require.Equal(t, "own", runs[0].Memory, "a stream reads its own cards")
	require.Equal(t, settings.MedEvoEval, runs[0].Bench.Name())
	require.False(t, runs[1].SettingsRecorded, "no spec names old-H0")
	require.Equal(t, 1, runs[1].Episodes)

	for _, c := range []struct {
		name string
		runs []string
		want string
	}{
		{"unknown", []string{"s1", "nope"}, `compare: run "nope" is not in the results store (see clinevo runs list)`},
		{"no episodes", []string{"s1", "empty"}, "compare: run empty has no scored episode yet"},
		{"twice", []string{"s1", "s1"}, "compare: run s1 is named twice"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := analysis.LoadCompared(ctx, st, testSet(), c.runs)
			require.ErrorIs(t, err, results.ErrNotFound)
			require.ErrorContains(t, err, c.want)
		})
	}
}

// TestCompareWarnsOfOtherFingerprints: a role whose replies carried other
// system fingerprints in B than in A is named with both sets; a role with
// the same ones, or with none on one side (built-in), is not.
func TestCompareWarnsOfOtherFingerprints(t *testing.T) {
	a, b := pairedRuns()
	served := func(cr analysis.ComparedRun, role string, fps ...string) {
		for i := range cr.Records {
			cr.Records[i].Usage = map[string]results.Usage{role: {Calls: 1, Fingerprints: fps}}
		}
	}
	served(a, "doctor", "fp_1")
	served(b, "doctor", "fp_1", "fp_2")
	p := analysis.ComparePair(a, b)
	require.Contains(t, p.Notes, "warning: doctor's replies came from different system fingerprints: fp_1 in A, fp_1, fp_2 in B")

	served(b, "doctor", "fp_1")
	require.Empty(t, analysis.ComparePair(a, b).Notes, "the same fingerprints")
	served(b, "judge", "fp_9")
	require.Empty(t, analysis.ComparePair(a, b).Notes, "no role with fingerprints on both sides")
}
