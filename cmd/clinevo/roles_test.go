package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/llm/llmtest"
)

// TestRolesCheck: roles check and experiment validate --check-roles probe
// the configured model roles against the fake; a refused key fails the
// command, with a verdict and no key in the output.
func TestRolesCheck(t *testing.T) {
	srv := llmtest.New(t)
	srv.SetKey("sk-good")
	cfg := filepath.Join(t.TempDir(), "clinevo.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte(`roles:
  doctor: {backend: openai, provider: vllm, base_url: `+srv.BaseURL()+`, model: test-model, api_key_env: ROLES_CHECK_KEY}
  judge: {backend: openai, base_url: `+srv.BaseURL()+`, model: test-model, api_key_env: ROLES_CHECK_KEY}
`), 0o644))
	out, err := run(t, map[string]string{"ROLES_CHECK_KEY": "sk-good"}, "--config", cfg, "roles", "check", "--json")
	require.NoError(t, err, out)
	var checks []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &checks))
	require.Len(t, checks, 2)
	require.Equal(t, "doctor", checks[0]["role"])
	require.Equal(t, "vllm", checks[0]["provider"])
	require.Equal(t, "custom", checks[1]["provider"])
	require.Equal(t, "ok", checks[1]["verdict"])

	out, err = run(t, map[string]string{"ROLES_CHECK_KEY": "sk-bad"}, "--config", cfg, "experiment", "validate", "--check-roles", "../../experiments/quick.yaml")
	require.ErrorContains(t, err, "roles check: 2 of 2 model roles failed")
	require.Contains(t, out, "experiment quick: 5 conditions, valid")
	require.Contains(t, out, "key refused (HTTP 401)")
	require.Contains(t, out, "E0,E1")
	require.NotContains(t, out, "sk-bad")
}

// TestExperimentPlan: experiment plan prints every condition's episodes and
// every role, as a table and as JSON, before anything has run.
func TestExperimentPlan(t *testing.T) {
	out, err := run(t, nil, "experiment", "plan", "../../experiments/quick.yaml")
	require.NoError(t, err)
	require.Regexp(t, `(?m)^E1\s+100\s+175\s`, out)
	require.Regexp(t, `(?m)^doctor\s+builtin\s+5750\s+0\s+0\s+0.00\s+bound`, out)
	out, err = run(t, nil, "experiment", "plan", "--json", "../../experiments/quick.yaml")
	require.NoError(t, err)
	var p struct {
		Plan struct {
			Conditions []struct {
				Name         string `json:"name"`
				EvalEpisodes int    `json:"eval_episodes"`
			} `json:"conditions"`
		} `json:"plan"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &p))
	require.Len(t, p.Plan.Conditions, 5)
	require.Equal(t, 175, p.Plan.Conditions[1].EvalEpisodes)
}

// TestExperimentPlanAgainstItsBudget: experiment plan says whether its
// totals reach the spec's experiment-wide cap (costplan's tests check which
// cap).
func TestExperimentPlanAgainstItsBudget(t *testing.T) {
	b, err := os.ReadFile("../../experiments/quick.yaml")
	require.NoError(t, err)
	f := filepath.Join(t.TempDir(), "quick.yaml")
	require.NoError(t, os.WriteFile(f, append([]byte("budget: {usd: 5}\n"), b...), 0o644))
	out, err := run(t, nil, "experiment", "plan", f)
	require.NoError(t, err)
	// quick's built-in roles cost nothing.
	require.Regexp(t, `(?m)^experiment budget: model USD 5, tokens 0 \(0: no cap\): the plan is within it$`, out)
}
