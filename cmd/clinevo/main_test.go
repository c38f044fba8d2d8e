package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func run(t *testing.T, env map[string]string, args ...string) (string, error) {
	t.Helper()
	for k, v := range env {
		t.Setenv(k, v)
	}
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(append([]string{"--data-dir", t.TempDir()}, args...))
	err := root.Execute()
	return out.String(), err
}

// TestStreamStartValidatesFirst checks that bad input is refused before any
// connection to Temporal is made (none is running here).
func TestStreamStartValidatesFirst(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"unknown corpus", nil, []string{"stream", "start", "--run", "r", "--corpus", "missing.jsonl"}, "missing.jsonl"},
		{"unknown split", nil, []string{"stream", "start", "--run", "r", "--corpus", "builtin:nope"}, `unknown split "nope"`},
		{"unknown case", nil, []string{"stream", "start", "--run", "r", "--cases", "stream-0001,stream-9999"}, `case "stream-9999" is not in corpus builtin:stream`},
		{"invalid memory budget", map[string]string{"CLINEVO_EVOLVER_MEMORY_BUDGET": "0"}, []string{"stream", "start", "--run", "r"}, "memory_budget (B_M) must be at least 1"},
		{"invalid stage size", nil, []string{"stream", "start", "--run", "r", "--stage-size", "-1"}, "stage_size must be at least 1"},
		{"missing run", nil, []string{"stream", "start"}, "run_id is required"},
		{"bad memory mode", nil, []string{"stream", "start", "--run", "r", "--memory", "forever"}, `memory "forever"`},
		{"carry without source", nil, []string{"stream", "start", "--run", "r", "--memory", "carry"}, "carry_from"},
		{"invalid max turns", map[string]string{"CLINEVO_EPISODE_MAX_TURNS": "0"}, []string{"stream", "start", "--run", "r"}, "max_turns must be at least 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := run(t, tc.env, tc.args...)
			require.ErrorContains(t, err, tc.want)
			require.NotContains(t, err.Error(), "connect to Temporal")
		})
	}
}

func TestCorpusCommands(t *testing.T) {
	dir := t.TempDir()
	out, err := run(t, nil, "corpus", "gen", "--seed", "7", "--out", dir)
	require.NoError(t, err)
	require.Contains(t, out, "stream.jsonl: 500 cases")
	out, err = run(t, nil, "corpus", "validate", filepath.Join(dir, "heldout.jsonl"))
	require.NoError(t, err)
	require.Contains(t, out, "100 cases, all valid")
	bad := filepath.Join(dir, "bad.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte("{\"schema_version\": 2}\n"), 0o644))
	_, err = run(t, nil, "corpus", "validate", bad)
	require.ErrorContains(t, err, "bad.jsonl:1")
	require.ErrorContains(t, err, "schema_version")
	out, err = run(t, nil, "episode", "run", "--case", "heldout-0003", "--corpus", filepath.Join(dir, "heldout.jsonl"))
	require.NoError(t, err)
	require.Contains(t, out, "scores: S=")
	_, err = run(t, nil, "episode", "run", "--case", "nope")
	require.ErrorContains(t, err, `case "nope" is not in corpus builtin:stream`)

	// Version 1 stays reproducible by name; strict validation names the tests
	// that give a diagnosis away; stats compare openings across corpora.
	v1 := t.TempDir()
	_, err = run(t, nil, "corpus", "gen", "--version", "1", "--seed", "7", "--out", v1)
	require.NoError(t, err)
	_, err = run(t, nil, "corpus", "validate", "--strict", filepath.Join(v1, "stream.jsonl"))
	require.ErrorContains(t, err, "strict: whether a test returns a result depends on the condition for 19 tests")
	require.ErrorContains(t, err, "d dimer: a result in every case of 1 of 46 conditions (dvt)")
	out, err = run(t, nil, "corpus", "validate", "--strict", filepath.Join(dir, "stream.jsonl"))
	require.NoError(t, err)
	require.Contains(t, out, "500 cases, all valid")
	out, err = run(t, nil, "corpus", "stats", "builtin:heldout@7", "--against", "builtin:stream@7")
	require.NoError(t, err)
	require.Contains(t, out, "openings of builtin:heldout@7 seen in builtin:stream@7: 0 shared normalised openings, 0 of 100 cases")
	require.Contains(t, out, "tests whose availability depends on the condition: 0")
	out, err = run(t, nil, "corpus", "stats", "builtin:v1:heldout@7", "--against", filepath.Join(v1, "stream.jsonl"))
	require.NoError(t, err)
	require.Contains(t, out, "82 shared normalised openings, 98 of 100 cases")
	_, err = run(t, nil, "corpus", "gen", "--version", "3", "--out", v1)
	require.ErrorContains(t, err, "unknown generator version 3")
}

func TestShippedExperimentSpecsAreValid(t *testing.T) {
	for _, f := range []string{"../../experiments/quick.yaml", "../../experiments/medevoeval.yaml"} {
		spec, err := loadExperiment(f)
		require.NoError(t, err, f)
		require.NotEmpty(t, spec.Conditions)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("name: x\ncorpus: builtin:stream\nconditions:\n  - {name: E2, kind: stream, memory: carry, carry_from: E1}\n"), 0o644))
	_, err := loadExperiment(bad)
	require.ErrorContains(t, err, `conditions[0] (E2): depends on "E1", which is not an earlier condition`)
	require.NoError(t, os.WriteFile(bad, []byte("name: x\ncorpus: builtin:stream\nconditoins: []\n"), 0o644))
	_, err = loadExperiment(bad)
	require.ErrorContains(t, err, "line 3")
}
