package engine_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/costplan"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/llm/llmtest"
)

// TestPlanAgainstUse (issue 26): an experiment of two streams with a model
// doctor and grader is planned, condition by condition, from the other
// condition's records, and the plan's calls and tokens are within 25% of
// what each used.
func TestPlanAgainstUse(t *testing.T) {
	t.Parallel() // see TestMain
	srv := llmtest.New(t)
	env := enginetest.StartWith(t, quietLogger{})
	set := enginetest.ModelSettings(srv, "", "doctor", "grader")
	spec := contract.ExperimentSpec{Name: "plan", Corpus: "builtin:stream", Limit: 8, StageSize: 4, Base: set,
		Conditions: []contract.ConditionSpec{{Name: "E0", Kind: contract.KindStream, Memory: contract.MemoryDisabled},
			{Name: "E1", Kind: contract.KindStream, Memory: contract.MemoryEmpty}}}
	for _, c := range spec.Conditions {
		runStream(t, env, contract.StreamSpec{RunID: spec.RunID(c.Name), Corpus: spec.Corpus, Limit: spec.Limit, StageSize: spec.StageSize,
			Memory: c.Memory, ActivityTimeoutSeconds: 20, Settings: set})
	}
	recs, err := env.Engine.Results.Records(context.Background(), "")
	require.NoError(t, err)
	planned, used, err := costplan.Compare(enginetest.Set(t), spec, recs)
	require.NoError(t, err)
	for i, c := range planned.Conditions {
		u := used.Conditions[i]
		require.Equal(t, u.Episodes, c.Episodes, c.Name)
		for j, r := range c.Roles {
			ur := u.Roles[j]
			if r.Role != "doctor" && r.Role != "grader" {
				continue
			}
			require.Equal(t, "recorded", r.Source, "%s %s", c.Name, r.Role)
			for _, f := range [][3]any{{"calls", r.Calls, ur.Calls}, {"prompt tokens", r.PromptTokens, ur.PromptTokens}, {"completion tokens", r.CompletionTokens, ur.CompletionTokens}} {
				p, g := f[1].(float64), f[2].(float64)
				require.Positive(t, g)
				require.InEpsilon(t, g, p, 0.25, "%s %s %s: planned %.0f, used %.0f", c.Name, r.Role, f[0], p, g)
				t.Logf("%s %s %s: planned %.0f, used %.0f (%+.1f%%)", c.Name, r.Role, f[0], p, g, 100*(p-g)/g)
			}
		}
	}
}
