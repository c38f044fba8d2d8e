package e2e_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/benchmarks/gpagent"
	"github.com/clinevo/clinevo/engine/enginetest"
)

// TestGPAgentBenchEndToEnd runs a short version of the shipped
// benchmarks/gpagent/gpagentbench.yaml through Temporal: a GP stream with memory and
// stage evaluations, two conditions of the action-space ablation with its
// frozen memory, and held-out episodes without memory; then writes the
// report, whose GPAgentBench section holds the metrics table and the
// Miss-GP against Miss-Refer scatter (Figure 4's axes).
func TestGPAgentBenchEndToEnd(t *testing.T) {
	env := enginetest.Start(t)
	ctx := context.Background()
	spec := enginetest.Spec(t, "gpagentbench.yaml", gpagent.Experiment)
	spec.Name, spec.Limit, spec.StageSize, spec.HeldOutLimit, spec.EvalConcurrency = "gp-mini", 8, 4, 4, 4
	spec = enginetest.Keep(t, spec, "E1", "A2", "A6", "H0")
	out, rep := enginetest.RunExperiment(t, env, spec)
	require.Len(t, out.Conditions, 4)
	for _, c := range rep.Conditions {
		require.Contains(t, c.Overall.Metrics, "mgmt", c.Name)
		require.Contains(t, c.Overall.Metrics, "miss_refer", c.Name)
		require.Contains(t, c.Overall.Metrics, "miss_gp", c.Name)
		// Held-out runs store no spec: their profile comes from the
		// experiment's condition, and GPAgentBench defines no U.
		require.Equal(t, gpagent.Name, c.Benchmark, c.Name)
		for _, r := range c.Episodes {
			require.Contains(t, []string{gpagent.PathwayManage, gpagent.PathwayRefer, ""}, gpagent.EndingOf(r.Final).Disposition)
		}
	}
	for _, tr := range rep.Transfer {
		require.Nil(t, tr.ETU, tr.Name)
	}
	// A2's action set is {diagnose, treat}: it never refers, every referral is missed.
	a2 := rep.Conditions[slices.IndexFunc(rep.Conditions, func(c analysis.ConditionReport) bool { return c.Name == "A2" })]
	require.Equal(t, 1.0, a2.Overall.Metrics["miss_refer"])
	for _, r := range a2.Episodes {
		for _, a := range r.Actions {
			require.True(t, strings.HasPrefix(a, "DIAGNOSE") || strings.HasPrefix(a, "TREAT"), "A2 took %q", a)
		}
	}

	dir := t.TempDir()
	require.NoError(t, analysis.Write(dir, rep, analysis.StoreTraces(ctx, env.Engine.Results)))
	b, err := os.ReadFile(filepath.Join(dir, "index.html"))
	require.NoError(t, err)
	page := string(b)
	require.Contains(t, page, "GPAgentBench: quality, safety, efficiency")
	for _, c := range []string{"E1", "A2", "A6", "H0"} {
		require.Contains(t, page, "<tr><td>"+c+"</td><td>", "a table row for %s", c)
		require.Contains(t, page, c+": Miss-Refer ", "a scatter point for %s", c)
	}
	require.Contains(t, page, `class="chart scatter"`)
	require.Contains(t, page, `aria-label="learning curves of Mgmt"`)

	f, err := os.Open(filepath.Join(dir, "steps.jsonl"))
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	steps, rewarded := 0, 0
	for sc.Scan() {
		var st analysis.Step
		require.NoError(t, json.Unmarshal(sc.Bytes(), &st))
		steps++
		if st.Reward > 0 {
			rewarded++
		}
	}
	require.Positive(t, steps)
	require.Positive(t, rewarded, "the last steps carry the episodes' rewards")
}
