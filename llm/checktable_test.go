package llm_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/llm"
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
}
