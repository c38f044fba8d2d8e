package llm_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/settings"
)

// TestWriteChecks: no model role says so in one line; otherwise a row per
// role with its conditions joined, and Failed counts the roles not OK.
func TestWriteChecks(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, llm.WriteChecks(&out, nil))
	require.Equal(t, "no model roles: every role is built in\n", out.String())
	require.Zero(t, llm.FailedChecks(nil))

	checks := []llm.ConditionCheck{
		{Conditions: []string{"E0", "E1"}, RoleCheck: llm.RoleCheck{Role: "doctor", Provider: "vllm", Model: "m", Format: "json", Reachable: "yes",
			Auth: "yes", ModelFound: "yes", JSONMode: "yes", Tools: "-", FormatOK: "yes", LatencyMS: 12.6, OK: true, Verdict: "ok"}},
		{Conditions: []string{"E1"}, RoleCheck: llm.RoleCheck{Role: "judge", Provider: "custom", Model: "m", Format: "json", Reachable: "yes",
			Auth: "no", ModelFound: "?", JSONMode: "?", Tools: "-", FormatOK: "?", Verdict: "key refused (HTTP 401)"}},
	}
	out.Reset()
	require.NoError(t, llm.WriteChecks(&out, checks))
	require.Equal(t, ""+
		"CONDITIONS  ROLE    PROVIDER  MODEL  FORMAT  REACHABLE  AUTH  MODEL FOUND  JSON MODE  TOOLS  PARSED  LATENCY  VERDICT\n"+
		"E0,E1       doctor  vllm      m      json    yes        yes   yes          yes        -      yes     13ms     ok\n"+
		"E1          judge   custom    m      json    yes        no    ?            ?          -      ?       0ms      key refused (HTTP 401)\n", out.String())
	require.Equal(t, 1, llm.FailedChecks(checks))
	require.EqualError(t, llm.ChecksError(checks), "roles check: 1 of 2 model roles failed")
	require.NoError(t, llm.ChecksError(checks[:1]))
	require.NoError(t, llm.ChecksError(nil), "no model role: nothing failed")
}

// TestConditionsOf: every condition of a spec with its resolved settings
// and its benchmark; a benchmark the set lacks is an error naming the
// condition.
func TestConditionsOf(t *testing.T) {
	base := settings.Default()
	base.Benchmark = "gated"
	spec := contract.ExperimentSpec{Name: "x", Corpus: "builtin:stream", Base: base, Conditions: []contract.ConditionSpec{
		{Name: "A", Kind: contract.KindStream},
		{Name: "B", Kind: contract.KindStream, Settings: settings.Overrides{"memory": map[string]any{"k": 2}}},
	}}
	set, err := bench.NewSet(benchtest.Fake{N: "gated"})
	require.NoError(t, err)
	conds, err := llm.ConditionsOf(spec, set)
	require.NoError(t, err)
	require.Len(t, conds, 2)
	require.Equal(t, "A", conds[0].Name)
	require.Equal(t, "gated", conds[0].Bench.Name())
	require.Equal(t, base.Memory.K, conds[0].Settings.Memory.K)
	require.Equal(t, "B", conds[1].Name)
	require.Equal(t, 2, conds[1].Settings.Memory.K, "the condition's own settings")

	_, err = llm.ConditionsOf(spec, bench.Set{})
	require.ErrorContains(t, err, "conditions[0] (A): ")
}
