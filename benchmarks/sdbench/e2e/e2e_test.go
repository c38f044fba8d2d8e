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
)

// TestSDBenchEndToEnd runs a short version of the shipped
// benchmarks/sdbench/sdbench.yaml through Temporal, offline: the single doctor
// and the panel, with and without memory, budgeted and not, and the
// held-out conditions; the report's accuracy–cost frontier holds every
// condition as a point, and (where Chromium is installed) renders; the
// screenshot goes to CLINEVO_VIEW_SCREENSHOTS when that is set.
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
	require.Len(t, out.Conditions, 8)
	require.Len(t, rep.Frontiers, 1)
	f := rep.Frontiers[0]
	require.Equal(t, sdbench.Name, f.Benchmark)
	require.Equal(t, "correct", f.Accuracy)
	require.Len(t, f.Points, 8)
	pareto := 0
	for _, p := range f.Points {
		require.Positive(t, p.N, p.Condition)
		require.Positive(t, p.Cost, p.Condition)
		require.LessOrEqual(t, p.CostCI.Low, p.Cost)
		require.GreaterOrEqual(t, p.CostCI.High, p.Cost)
		if p.Pareto {
			pareto++
		} else {
			require.NotEmpty(t, p.DominatedBy, p.Condition)
		}
		t.Logf("%s: accuracy %.3f [%.3f, %.3f], cost %.0f [%.0f, %.0f], pareto %v, dominated by %v", p.Condition, p.Accuracy, p.AccuracyCI.Low, p.AccuracyCI.High,
			p.Cost, p.CostCI.Low, p.CostCI.High, p.Pareto, p.DominatedBy)
	}
	require.Positive(t, pareto)
	for _, c := range rep.Conditions {
		require.Equal(t, sdbench.Name, c.Profile, c.Name)
		if c.Name == "SB" || c.Name == "PB" {
			for _, r := range c.Episodes {
				require.LessOrEqual(t, r.Scores.Cost, 1500.0, "%s: the cap holds", r.EpisodeID)
			}
		}
	}

	dir := t.TempDir()
	require.NoError(t, analysis.Write(dir, rep, analysis.StoreTraces(ctx, env.Engine.Results)))
	b, err := os.ReadFile(filepath.Join(dir, "index.html"))
	require.NoError(t, err)
	page := string(b)
	require.Contains(t, page, `class="chart frontier"`)
	require.Contains(t, page, "Accuracy–cost frontier")
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
	page = "file://" + filepath.Join(dir, "index.html")
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
