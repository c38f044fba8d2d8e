package experiments_test

import (
	"os"
	"path/filepath"
	"strings"
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

// TestSpecNumbersAreChecked (issue 37, item 6): every number of a spec is
// refused outside its range, and a fraction where a whole number goes, with
// the key and what it takes, before anything starts; garbage is refused
// with what a spec is.
func TestSpecNumbersAreChecked(t *testing.T) {
	const head = "name: x\ncorpus: builtin:stream\nheldout: builtin:heldout\n"
	const conds = "conditions:\n  - {name: A, kind: stream}\n"
	tests := []struct{ name, yaml, want string }{
		{"negative limit", head + "limit: -5\n" + conds, "experiment x: limit must be at least 0 and at most 1000000 (0: every case), got -5"},
		{"fractional limit", head + "limit: 3.7\n" + conds, "experiment SPEC: line 4: limit: want a whole number, got 3.7"},
		{"negative held-out limit", head + "heldout_limit: -3\n" + conds,
			"experiment x: heldout_limit must be at least 0 and at most 1000000 (0: every case), got -3"},
		{"negative stage size", head + "stage_size: -1\n" + conds,
			"experiment x: stage_size must be at least 1 and at most 100000 (0: the default, 50), got -1"},
		{"negative concurrency", head + "eval_concurrency: -2\n" + conds,
			"experiment x: eval_concurrency must be at least 1 and at most 256 (0: the default, 8), got -2"},
		{"negative timeout", head + "activity_timeout_seconds: -10\n" + conds,
			"experiment x: activity_timeout_seconds must be at least 1 and at most 86400 (0: the default, 120), got -10"},
		{"a year of timeout", head + "activity_timeout_seconds: 31536000\n" + conds,
			"experiment x: activity_timeout_seconds must be at least 1 and at most 86400 (0: the default, 120), got 31536000"},
		{"a stage of zero", head + "update_stages: [2, 0]\n" + conds, "experiment x: update_stages[1] must be at least 1 and at most 100000, got 0"},
		{"fractional update stage", head + "update_stages: [2.5]\n" + conds, "line 4: update_stages[0]: want a whole number, got 2.5"},
		{"negative condition limit", head + "conditions:\n  - {name: A, kind: stream, limit: -1}\n",
			"experiment x: conditions[0] (A): limit must be at least 0 and at most 1000000 (0: every case), got -1"},
		{"fractional condition limit", head + "conditions:\n  - {name: A, kind: stream, limit: 1.5}\n",
			"line 5: conditions[0].limit: want a whole number, got 1.5"},
		{"text for a number", head + "limit: ten\n" + conds, "line 4: limit: want a whole number, got ten"},
		{"negative epochs", head + "epochs: -2\n" + conds, "experiment x: epochs must be at least 1 and at most 100 (0: one play of each case), got -2"},
		{"fractional epochs", head + "epochs: 2.5\n" + conds, "line 4: epochs: want a whole number, got 2.5"},
		{"epochs on a stream", head + "conditions:\n  - {name: A, kind: stream, epochs: 3}\n",
			"experiment x: conditions[0] (A): epochs 3: only a heldout condition plays its cases several times"},
		{"too many condition epochs", head + "conditions:\n  - {name: H, kind: heldout, epochs: 101}\n",
			"experiment x: conditions[0] (H): epochs must be at least 1 and at most 100"},
		{"infinite setting", head + "settings: {scoring: {lambda: .inf}}\n" + conds, "settings.scoring.lambda: want a finite number, got +Inf"},
		{"an infinite benchmark key", head + "conditions:\n  - {name: A, kind: stream, settings: {episode: {visit_cost: .inf}}}\n",
			"conditions[0] (A).settings.episode.visit_cost: want a finite number, got +Inf"},
		{"garbage", "\x00\x01\x02 not yaml", "experiment SPEC: yaml: control characters are not allowed"},
		{"a list", "- name: x\n", "experiment SPEC: want a YAML mapping of the spec's keys (name, corpus, conditions, ...), got a list"},
		{"a text", "just some words\n", `got the text "just some words" on line 1`},
		{"empty", "", "got an empty document"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "spec.yaml")
			require.NoError(t, os.WriteFile(f, []byte(tc.yaml), 0o644))
			_, err := experiments.Load(f, settings.Default(), defaultSet(t))
			require.ErrorContains(t, err, strings.ReplaceAll(tc.want, "SPEC", f))
		})
	}
}

// TestEpochsAreRead: the experiment's epochs and a held-out condition's
// own are read from the spec.
func TestEpochsAreRead(t *testing.T) {
	f := filepath.Join(t.TempDir(), "spec.yaml")
	require.NoError(t, os.WriteFile(f, []byte("name: x\ncorpus: builtin:stream\nheldout: builtin:heldout\nepochs: 2\nconditions:\n"+
		"  - {name: A, kind: stream}\n  - {name: H0, kind: heldout}\n  - {name: H1, kind: heldout, from: A, epochs: 5}\n"), 0o644))
	spec, err := experiments.Load(f, settings.Default(), defaultSet(t))
	require.NoError(t, err)
	var got []int
	for _, c := range spec.Conditions {
		got = append(got, spec.EpochsOf(c))
	}
	require.Equal(t, []int{1, 2, 5}, got)
}
