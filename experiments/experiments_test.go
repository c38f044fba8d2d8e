package experiments_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/benchmarks/medevoeval"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/experiments"
	"github.com/clinevo/clinevo/settings"
)

// defaultSet is the set these tests validate against: the default
// benchmark alone (benchmarks/all checks every shipped spec against the
// build's whole set).
func defaultSet(t testing.TB) bench.Set {
	set, err := bench.NewSet(medevoeval.Benchmark{})
	require.NoError(t, err)
	return set
}

func TestBadSpecsNameTheProblem(t *testing.T) {
	tests := []struct{ name, yaml, want string }{
		{"unknown dependency", "name: x\ncorpus: builtin:stream\nconditions:\n  - {name: E2, kind: stream, memory: carry, carry_from: E1}\n",
			`conditions[0] (E2): depends on "E1", which is not an earlier condition`},
		{"unknown field", "name: x\ncorpus: builtin:stream\nconditoins: []\n", "line 3"},
		{"unknown settings key", "name: x\ncorpus: builtin:stream\nconditions:\n  - {name: A, kind: stream, settings: {evolver: {budget: 3}}}\n",
			"conditions[0] (A).settings.evolver.budget: unknown settings key"},
		{"unknown experiment settings key", "name: x\ncorpus: builtin:stream\nsettings: {episodes: {max_turns: 3}}\nconditions:\n  - {name: A, kind: stream}\n",
			"settings.episodes: unknown settings key"},
		{"invalid settings value", "name: x\ncorpus: builtin:stream\nconditions:\n  - {name: A, kind: stream, settings: {episode: {max_turns: 0}}}\n",
			"conditions[0] (A): settings: episode.max_turns must be at least 1"},
		{"wrong type", "name: x\ncorpus: builtin:stream\nconditions:\n  - {name: A, kind: stream, settings: {episode: {max_turns: many}}}\n",
			"episode.max_turns"},
		{"unknown corpus", "name: x\ncorpus: nowhere.jsonl\nconditions:\n  - {name: A, kind: stream}\n", "nowhere.jsonl"},
		{"negative experiment budget", "name: x\ncorpus: builtin:stream\nbudget: {usd: -1}\nconditions:\n  - {name: A, kind: stream}\n",
			"experiment x: budget.usd and budget.tokens must not be negative (0: no cap), got -1 and 0"},
		{"unknown budget field", "name: x\ncorpus: builtin:stream\nbudget: {dollars: 5}\nconditions:\n  - {name: A, kind: stream}\n",
			"line 3: field dollars not found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "spec.yaml")
			require.NoError(t, os.WriteFile(f, []byte(tc.yaml), 0o644))
			_, err := experiments.Load(f, settings.Default(), defaultSet(t))
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// TestExperimentBudgetIsRead: a spec-level budget caps the experiment's
// total, over every condition's run.
func TestExperimentBudgetIsRead(t *testing.T) {
	f := filepath.Join(t.TempDir(), "spec.yaml")
	require.NoError(t, os.WriteFile(f, []byte("name: x\ncorpus: builtin:stream\nheldout: builtin:stream\nbudget: {usd: 2.5, tokens: 9000}\nconditions:\n"+
		"  - {name: A, kind: stream}\n  - {name: H, kind: heldout, from: A}\n"), 0o644))
	spec, err := experiments.Load(f, settings.Default(), defaultSet(t))
	require.NoError(t, err)
	require.Equal(t, &settings.Budget{USD: 2.5, Tokens: 9000}, spec.Budget)
	require.Equal(t, &contract.ExperimentBudget{Experiment: "x", Runs: []string{"x-A", "x-H"}, Budget: settings.Budget{USD: 2.5, Tokens: 9000}}, spec.BudgetOf())
	spec.Budget = &settings.Budget{}
	require.Nil(t, spec.BudgetOf(), "a zero budget caps nothing")
	spec.Budget = nil
	require.Nil(t, spec.BudgetOf())
}
