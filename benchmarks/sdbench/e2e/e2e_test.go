package e2e_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/benchmarks/sdbench"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/results"
)

// TestSDBenchEndToEnd runs a short version of the shipped
// benchmarks/sdbench/sdbench.yaml through Temporal, offline: MAI-DxO's
// variants on the same cases, the panel, memory (score only, and the
// answer-key oracle) and the held-out conditions; the report draws one
// accuracy–cost plane per case set (the held-out conditions apart), every
// condition a point with its intervals, compares H1 with H0 case by case,
// and (where Chromium is installed) renders; the screenshot goes to
// CLINEVO_VIEW_SCREENSHOTS when that is set.
func TestSDBenchEndToEnd(t *testing.T) {
	env := enginetest.Start(t)
	ctx := context.Background()
	spec := enginetest.Spec(t, "sdbench.yaml", sdbench.Experiment)
	spec.Name, spec.Limit, spec.StageSize, spec.HeldOutLimit, spec.EvalConcurrency = "sd-mini", 12, 6, 6, 4
	if n, err := strconv.Atoi(os.Getenv("CLINEVO_SDBENCH_LIMIT")); err == nil && n > 0 {
		spec.Limit, spec.StageSize = n, max(6, n/4) // a longer run for a screenshot with learning in it
	}
	require.NoError(t, spec.Validate())
	out, rep := enginetest.RunExperiment(t, env, spec)
	require.Len(t, out.Conditions, 10)
	require.Len(t, rep.Frontiers, 2, "the stream's cases and the held-out ones, each on a plane")
	stream, held := rep.Frontiers[0], rep.Frontiers[1]
	require.Equal(t, sdbench.Name, stream.Benchmark)
	require.Equal(t, "correct", stream.Accuracy)
	require.Equal(t, "builtin:sdbench@7, 12 cases", stream.CaseSet)
	require.Equal(t, "builtin:sdbench-heldout@7, 6 cases", held.CaseSet)
	require.Len(t, stream.Points, 8)
	require.Len(t, held.Points, 2)
	requireFrontiers(t, rep)
	requirePairedComparison(t, rep, "H0", "H1", 6)
	for _, c := range rep.Conditions {
		require.Equal(t, sdbench.Name, c.Benchmark, c.Name)
		for _, r := range c.Episodes {
			requireVariantCost(t, c.Name, r)
		}
	}
	require.Len(t, rep.Summary, 1)
	require.Contains(t, rep.Summary[0], "sdbench tests the price table did not match")

	dir := t.TempDir()
	require.NoError(t, analysis.Write(dir, rep, analysis.StoreTraces(ctx, env.Engine.Results)))
	b, err := os.ReadFile(filepath.Join(dir, "index.html"))
	require.NoError(t, err)
	page := string(b)
	require.Contains(t, page, `class="chart frontier"`)
	require.Contains(t, page, "Accuracy–cost frontier")
	requireRenders(t, dir)
}

// TestSDBenchArenaEndToEnd runs a short version of the shipped
// sdbench-arena.yaml: the same conditions on DiagnosisArena's published
// cases, the held-out ones (the release's latest ids) on a plane of their
// own; the variants' charges hold on real case reports as on the synthetic
// ones.
func TestSDBenchArenaEndToEnd(t *testing.T) {
	env := enginetest.Start(t)
	spec := enginetest.Spec(t, "sdbench-arena.yaml", sdbench.ArenaExperiment)
	spec.Name, spec.Limit, spec.StageSize, spec.HeldOutLimit, spec.EvalConcurrency = "sd-arena-mini", 6, 3, 4, 4
	require.NoError(t, spec.Validate())
	out, rep := enginetest.RunExperiment(t, env, spec)
	require.Len(t, out.Conditions, 10)
	require.Len(t, rep.Frontiers, 2)
	require.Equal(t, "builtin:sdbench-arena, 6 cases", rep.Frontiers[0].CaseSet)
	require.Equal(t, "builtin:sdbench-arena-heldout, 4 cases", rep.Frontiers[1].CaseSet)
	for _, c := range rep.Conditions {
		require.Equal(t, sdbench.Name, c.Benchmark, c.Name)
		for _, r := range c.Episodes {
			require.True(t, strings.HasPrefix(r.CaseID, "sdbench-arena-"), r.CaseID)
			if c.Kind == "heldout" {
				n, err := strconv.Atoi(strings.TrimPrefix(r.CaseID, "sdbench-arena-"))
				require.NoError(t, err)
				require.Greater(t, n, 915-sdbench.ArenaHeldOut, "%s: a held-out case is among the release's latest", r.CaseID)
			}
			requireVariantCost(t, c.Name, r)
		}
	}
}

// requireVariantCost checks an episode's cost against its variant's rule
// (SDBench §3.2): instant answer costs nothing, question only one $300
// visit, and the budgeted variant stays within its $400.
func requireVariantCost(t *testing.T, condition string, r results.Record) {
	t.Helper()
	switch condition {
	case "IA":
		require.Zero(t, r.Scores.Cost, "%s: instant answer costs nothing", r.EpisodeID)
	case "QO":
		require.Equal(t, 300.0, r.Scores.Cost, "%s: question only costs one visit", r.EpisodeID)
	case "BU":
		require.LessOrEqual(t, r.Scores.Cost, 400.0, "%s: the budget holds", r.EpisodeID)
	}
}

// requireFrontiers checks every plane: each condition a point of its cases
// with seeded bootstrap 95% intervals around its accuracy and its mean cost,
// one at least on the frontier, every other one named with what dominates it.
func requireFrontiers(t *testing.T, rep analysis.Report) {
	t.Helper()
	for _, f := range rep.Frontiers {
		pareto := 0
		for _, p := range f.Points {
			require.Positive(t, p.N, p.Condition)
			require.LessOrEqual(t, p.AccuracyCI.Low, p.Accuracy, p.Condition)
			require.GreaterOrEqual(t, p.AccuracyCI.High, p.Accuracy, p.Condition)
			require.LessOrEqual(t, p.CostCI.Low, p.Cost)
			require.GreaterOrEqual(t, p.CostCI.High, p.Cost)
			if p.Pareto {
				pareto++
			} else {
				require.NotEmpty(t, p.DominatedBy, p.Condition)
			}
			t.Logf("%s %s: accuracy %.3f [%.3f, %.3f], cost %.0f [%.0f, %.0f], pareto %v, dominated by %v", f.CaseSet, p.Condition, p.Accuracy, p.AccuracyCI.Low, p.AccuracyCI.High,
				p.Cost, p.CostCI.Low, p.CostCI.High, p.Pareto, p.DominatedBy)
		}
		require.Positive(t, pareto)
	}
}

// requirePairedComparison checks the report's paired comparison of b against
// a on the same n cases: accuracy (pass, the judge's score 4 or more) with
// the mean difference inside its bootstrap interval, a Wilcoxon and an exact
// McNemar p-value (clinevo's statistics; the paper's is a one-sided paired
// permutation test).
func requirePairedComparison(t *testing.T, rep analysis.Report, a, b string, n int) {
	t.Helper()
	for _, c := range rep.Comparisons {
		if c.A != a || c.B != b || c.Metric != "pass" {
			continue
		}
		require.Equal(t, n, c.N, "paired by case")
		require.LessOrEqual(t, c.CI.Low, c.MeanDiff)
		require.GreaterOrEqual(t, c.CI.High, c.MeanDiff)
		require.InDelta(t, 0.5, c.Wilcoxon.P, 0.5, "a p-value")
		require.NotNil(t, c.McNemar, "a binary metric: McNemar")
		require.InDelta(t, 0.5, c.McNemar.P, 0.5, "a p-value")
		return
	}
	t.Fatalf("no comparison of %s against %s on pass", b, a)
}

// requireRenders renders the report's page in headless Chromium, where it is
// installed, and checks the frontier is drawn without console errors.
func requireRenders(t *testing.T, dir string) {
	t.Helper()
	browser, err := exec.LookPath("chromium")
	if err != nil {
		t.Skipf("chromium not found: the frontier's rendering is not checked (%v)", err)
	}
	shot := filepath.Join(dir, "frontier.png")
	if d := os.Getenv("CLINEVO_VIEW_SCREENSHOTS"); d != "" {
		require.NoError(t, os.MkdirAll(d, 0o755))
		shot = filepath.Join(d, "sdbench-frontier.png")
	}
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0", "--user-data-dir=" + t.TempDir()}
	page := "file://" + filepath.Join(dir, "index.html")
	dom, err := exec.Command(browser, append(args, "--dump-dom", page)...).Output()
	require.NoError(t, err)
	require.Contains(t, string(dom), `class="chart frontier"`)
	logs, err := exec.Command(browser, append(args, "--window-size=1100,3200", "--screenshot="+shot, page)...).CombinedOutput()
	require.NoError(t, err, string(logs))
	for _, line := range strings.Split(string(logs), "\n") {
		if strings.Contains(line, "CONSOLE") || strings.Contains(line, "Uncaught") {
			t.Errorf("console message: %s", line)
		}
	}
	info, err := os.Stat(shot)
	require.NoError(t, err)
	require.Greater(t, info.Size(), int64(10000), "a screenshot with content")
}
