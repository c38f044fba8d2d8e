package e2e_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/benchmarks/klinike"
	"github.com/clinevo/clinevo/benchmarks/klinike/fakellm"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/llm/llmtest"
	"github.com/clinevo/clinevo/rescore"
	"github.com/clinevo/clinevo/settings"
)

// TestKlinikeBenchEndToEnd runs a short version of the shipped
// benchmarks/klinike/klinikebench.yaml through Temporal: a learning stream on 8
// train tasks, two doctors (no memory, the stream's memory) on 4 test tasks
// with the 45-step cap and the chart mode, and a patient substitution (a
// model patient on a fake endpoint); then re-scores the doctors under a model
// judge without replaying them, and writes the report with its KlinikeBench
// section.
func TestKlinikeBenchEndToEnd(t *testing.T) {
	srv := llmtest.New(t)
	srv.Script = fakellm.Script // the must-ask judge of the re-scoring
	env := enginetest.Start(t)
	ctx := context.Background()
	spec := enginetest.Spec(t, "klinikebench.yaml", klinike.Protocol)
	keep := []string{"L1", "A", "C", "A@cap45", "C@cap45", "A@chart", "C@chart"}
	var conds []contract.ConditionSpec
	for _, c := range spec.Conditions {
		if slices.Contains(keep, c.Name) {
			if c.Name == "L1" {
				c.Limit, c.StageEval, c.Retention = 8, false, ""
			}
			conds = append(conds, c)
		}
	}
	model := func(role string) map[string]any {
		return map[string]any{"backend": "openai", "base_url": srv.BaseURL(), "model": "fake-" + role, "timeout": "5s"}
	}
	for _, base := range []contract.ConditionSpec{conds[1], conds[2]} {
		base.Name, base.PairedWith = base.Name+"@patient-fake", base.Name
		base.Settings = settings.Overrides{"roles": map[string]any{"patient": model("patient")}}
		conds = append(conds, base)
	}
	spec.Name, spec.Conditions, spec.StageSize, spec.HeldOutLimit, spec.EvalConcurrency = "kbmini", conds, 4, 4, 4
	require.NoError(t, spec.Validate())

	run, err := engine.StartExperiment(ctx, env.Client, env.Engine.Results, "", spec)
	require.NoError(t, err)
	runCtx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	require.NoError(t, run.Get(runCtx, nil))

	patientCalls := 0
	for _, r := range srv.Requests() {
		if r.Role == "patient" {
			patientCalls++
		}
	}
	require.Positive(t, patientCalls, "the substituted patient answered")

	judge := settings.Role{Backend: settings.OpenAI, BaseURL: srv.BaseURL(), Model: "fake-judge", Timeout: settings.Duration(5 * time.Second), JSONMode: true}
	sums, err := rescore.Experiment(ctx, env.Engine.Results, env.Engine.Benchmarks, spec, judge, "judge-fake", env.Engine.Roles)
	require.NoError(t, err)
	require.Len(t, sums, 2, "the held-out baselines A and C are re-scored, not the stream")

	in, err := analysis.Load(ctx, env.Engine.Results, env.Engine.Benchmarks, "kbmini")
	require.NoError(t, err)
	rep := analysis.Build(in)
	k, ok := rep.SectionData(klinike.SectionKey).(*klinike.Report)
	require.True(t, ok, "the report has the KlinikeBench section")
	logKlinike(t, k)
	byName := map[string]klinike.Condition{}
	for _, c := range k.Conditions {
		byName[c.Name] = c
	}
	require.NotContains(t, byName, "L1@judge-fake")
	for _, name := range []string{"L1", "A", "C", "A@cap45", "A@chart", "A@patient-fake", "A@judge-fake", "C@judge-fake"} {
		require.Contains(t, byName, name)
	}
	require.Equal(t, 8, byName["L1"].N)
	require.Equal(t, 4, byName["A"].N)
	require.NotNil(t, byName["A"].Pass1)
	require.Nil(t, byName["A@chart"].Pass1, "the chart mode has D only")
	require.True(t, byName["A@judge-fake"].Rescored)
	require.Equal(t, 1.0, *byName["A@judge-fake"].H, "the fake judge hears every must-ask topic")
	var variants []string
	for _, v := range k.Variants {
		variants = append(variants, v.Variant)
		require.Len(t, v.Changes, 2, v.Variant)
		require.NotNil(t, v.Tau, "two doctors are ranked under %s", v.Variant)
	}
	require.ElementsMatch(t, []string{"cap45", "chart", "patient-fake", "judge-fake"}, variants)

	dir := t.TempDir()
	require.NoError(t, analysis.Write(dir, rep, analysis.StoreTraces(ctx, env.Engine.Results)))
	page, err := os.ReadFile(filepath.Join(dir, "index.html"))
	require.NoError(t, err)
	require.Contains(t, string(page), "KlinikeBench: strict pass@1 and gates")
	require.Contains(t, string(page), "strict pass@1")
	traj, err := os.ReadFile(filepath.Join(dir, "trajectories.jsonl"))
	require.NoError(t, err)
	require.True(t, strings.Contains(string(traj), `"r_multi":`), "r_multi per episode in the trajectory export")
}

// logKlinike logs the section's numbers per condition and variant, so that a
// change that must not move them can be compared to the last digit.
func logKlinike(t *testing.T, k *klinike.Report) {
	t.Helper()
	num := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return strconv.FormatFloat(*p, 'f', -1, 64)
	}
	for _, c := range k.Conditions {
		t.Logf("condition %s n=%d pass@1=%s D=%s W=%s A=%s H=%s r_multi=%s", c.Name, c.N, num(c.Pass1),
			strconv.FormatFloat(c.D, 'f', -1, 64), num(c.W), num(c.A), num(c.H), num(c.RMulti))
	}
	for _, v := range k.Variants {
		for _, ch := range v.Changes {
			t.Logf("variant %s %s %s n=%d base=%v variant=%v delta=%v ci=%v", v.Variant, v.Metric, ch.Doctor, ch.N, ch.Base, ch.Variant, ch.Delta, ch.CI)
		}
		t.Logf("variant %s tau=%s", v.Variant, num(v.Tau))
	}
}
