package analysis_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/settings"
)

// TestModelsListTheRunsRoles: the provenance's models are the roles of a
// run's benchmark (bench.RunRoles), its own on a model included; a
// benchmark without that role does not list it.
func TestModelsListTheRunsRoles(t *testing.T) {
	s := settings.Default()
	s.Roles["gatekeeper"] = settings.Role{Backend: settings.OpenAI, Model: "gk-model"}
	got := analysis.Models(gated{benchtest.Fake{N: "gated"}}, s)
	require.Contains(t, got, "gatekeeper: openai/gk-model")
	require.Contains(t, got, "doctor: builtin")
	require.NotContains(t, analysis.Models(benchtest.Fake{N: "plain"}, s), "gatekeeper: openai/gk-model")
}
