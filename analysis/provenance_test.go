package analysis_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/results"
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

// TestFingerprintsByRole: a run's fingerprints and served models are those
// its episodes' usage recorded, by role, each once and sorted; the report's
// provenance lists them by condition, in report.json and on the page; a
// run of built-in roles has none.
func TestFingerprintsByRole(t *testing.T) {
	recs := []results.Record{
		{Usage: map[string]results.Usage{"doctor": {Fingerprints: []string{"fp_b"}, ServedModels: []string{"m-0613"}}, "judge": {}}},
		{Usage: map[string]results.Usage{"doctor": {Fingerprints: []string{"fp_a", "fp_b"}, ServedModels: []string{"m-0613"}},
			"patient": {Fingerprints: []string{"fp_p"}}}},
		{},
	}
	require.Equal(t, map[string][]string{"doctor": {"fp_a", "fp_b"}, "patient": {"fp_p"}}, analysis.Fingerprints(recs))
	require.Equal(t, map[string][]string{"doctor": {"m-0613"}}, analysis.ServedModels(recs))
	require.Nil(t, analysis.Fingerprints(recs[2:]))

	in := fixture()
	for i := range in.Records["t-E1"] {
		in.Records["t-E1"][i].Usage = recs[i%2].Usage
	}
	rep := analysis.Build(in)
	byName := map[string]analysis.ConditionProvenance{}
	for _, c := range rep.Provenance.Conditions {
		byName[c.Name] = c
	}
	require.Equal(t, analysis.Fingerprints(recs), byName["E1"].Fingerprints)
	require.Equal(t, map[string][]string{"doctor": {"m-0613"}}, byName["E1"].ServedModels)
	require.Nil(t, byName["E0"].Fingerprints, "built-in roles report no fingerprint")
	dir := t.TempDir()
	require.NoError(t, analysis.Write(dir, rep, func(id string) (clinic.Trace, error) { return clinic.Trace{EpisodeID: id}, nil }))
	page, err := os.ReadFile(filepath.Join(dir, "index.html"))
	require.NoError(t, err)
	require.Contains(t, string(page), "doctor: m-0613 [fp_a, fp_b]; patient: [fp_p]")
}
