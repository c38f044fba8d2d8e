package llm_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/llm/llmtest"
	"github.com/clinevo/clinevo/settings"
)

// gated is a benchmark with a role of its own beside the shared ones (as
// SDBench's gatekeeper).
type gated struct{ benchtest.Fake }

func (gated) Roles() []string { return []string{"gatekeeper"} }

// TestRolesABenchmarkAddsAreChecked: roles check probes every role of a
// run's benchmark (bench.RunRoles), its own on a model included, and the run
// log describes it; a run of a benchmark without that role neither probes
// nor describes it.
func TestRolesABenchmarkAddsAreChecked(t *testing.T) {
	srv := llmtest.New(t)
	model := settings.Role{Backend: settings.OpenAI, BaseURL: srv.BaseURL(), Model: "test-model", JSONMode: true, Format: "json",
		Timeout: settings.Duration(2 * time.Second)}
	s := settings.Default()
	s.Roles["gatekeeper"] = model
	b := gated{benchtest.Fake{N: "gated"}}
	checks := llm.CheckConditions(context.Background(), []llm.Condition{{Name: "G", Settings: s, Bench: b}})
	require.Len(t, checks, 1, "the one model role is the benchmark's own")
	require.Equal(t, "gatekeeper", checks[0].Role)
	require.True(t, checks[0].OK, checks[0].Verdict)
	require.Equal(t, []string{"G"}, checks[0].Conditions)

	var described string
	for _, l := range llm.Describe(b, s) {
		if strings.HasPrefix(l, "gatekeeper:") {
			described = l
		}
	}
	require.Contains(t, described, "model test-model at "+srv.BaseURL())

	plain := benchtest.Fake{N: "plain"}
	require.Empty(t, llm.CheckConditions(context.Background(), []llm.Condition{{Name: "P", Settings: s, Bench: plain}}),
		"a benchmark without the role: its setting is not one of the run's roles")
	require.Len(t, llm.Describe(plain, s), len(bench.RunRoles(plain)))
}
