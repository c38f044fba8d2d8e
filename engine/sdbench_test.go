package engine_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/benchmarks/sdbench"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/experiments"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/workflows"
)

// TestSDBenchEndToEnd runs a short version of the shipped
// benchmarks/sdbench/sdbench.yaml through Temporal, offline: the single doctor
// and the panel, with and without memory, budgeted and not, and the
// held-out conditions; the report's accuracy–cost frontier holds every
// condition as a point, and (where Chromium is installed) renders; the
// screenshot goes to CLINEVO_VIEW_SCREENSHOTS when that is set.
func TestSDBenchEndToEnd(t *testing.T) {
	t.Parallel() // see TestMain
	env := enginetest.Start(t)
	ctx := context.Background()
	spec, err := experiments.Parse("sdbench.yaml", sdbench.Experiment, settings.Default())
	require.NoError(t, err)
	spec.Name, spec.Limit, spec.StageSize, spec.HeldOutLimit, spec.EvalConcurrency = "sd-mini", 12, 6, 6, 4
	if n, err := strconv.Atoi(os.Getenv("CLINEVO_SDBENCH_LIMIT")); err == nil && n > 0 {
		spec.Limit, spec.StageSize = n, max(6, n/4) // a longer run for a screenshot with learning in it
	}
	require.NoError(t, spec.Validate())
	run, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: contract.ExperimentWorkflowID(spec.Name), TaskQueue: contract.TaskQueue},
		workflows.ExperimentWorkflow, spec)
	require.NoError(t, err)
	var out contract.ExperimentResult
	require.NoError(t, run.Get(ctx, &out))
	require.Len(t, out.Conditions, 8)

	in, err := analysis.Load(ctx, env.Engine.Results, spec.Name)
	require.NoError(t, err)
	rep := analysis.Build(in)
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

// TestPanelRoles: doctor.mode panel makes the run's doctor the panel, for
// any benchmark: built-in with a built-in doctor, and on roles.doctor's
// model with one client per panel role named doctor.<role> (its use counted
// per role); the panel defers to the benchmark's own doctor.
func TestPanelRoles(t *testing.T) {
	for _, profile := range []string{sdbench.Name, "gpagent"} {
		s := settings.Default()
		s.Profile, s.Doctor.Mode = profile, settings.PanelDoctor
		r, err := engine.RolesFor(s, llm.Options{})
		require.NoError(t, err)
		p, ok := r.Doctor.(actor.Panel)
		require.True(t, ok, "%s: %T", profile, r.Doctor)
		require.Len(t, p.Members, len(actor.PanelRoles))
		require.NotNil(t, p.Base)

		s.Roles["doctor"] = settings.Role{Backend: settings.OpenAI, BaseURL: "http://127.0.0.1:1/v1", Model: "m", APIKeyEnv: "CLINEVO_NO_KEY"}
		r, err = engine.RolesFor(s, llm.Options{})
		require.NoError(t, err)
		p = r.Doctor.(actor.Panel)
		for _, role := range actor.PanelRoles {
			m, ok := p.Members[role].(llm.PanelMember)
			require.True(t, ok, role)
			require.Equal(t, "doctor."+role, m.C.Role)
		}
	}
}
