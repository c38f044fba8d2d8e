package main

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/experiments"
	"github.com/clinevo/clinevo/internal/logschema"
)

// TestDemoExportsValidate is CI's check of the exports (issue 39): the
// quick demo's experiment, cut to E1 (a stream with stage evaluations and
// the replay) and H0 at 4 stream cases in stages of 2 and 2 held-out
// cases, exported by the CLI as inspect .eval and .json logs and as ATIF
// trajectories; every file validates against its pinned schema, with one
// log a condition and one sample or trajectory an episode.
func TestDemoExportsValidate(t *testing.T) {
	env := enginetest.Start(t)
	spec := enginetest.Keep(t, enginetest.Spec(t, "quick.yaml", experiments.Quick), "E1", "H0")
	spec.Limit, spec.StageSize, spec.HeldOutLimit = 4, 2, 2
	require.NoError(t, spec.Validate())
	enginetest.RunExperiment(t, env, spec)
	cli := map[string]string{"CLINEVO_TEMPORAL_ADDRESS": env.Server.Address()}
	dir := t.TempDir()
	for _, format := range []string{"eval", "json"} {
		t.Run("inspect "+format, func(t *testing.T) {
			out, err := run(t, cli, "--data-dir", env.DataDir, "export", "inspect", spec.Name, "--out", filepath.Join(dir, format), "--format", format)
			require.NoError(t, err, out)
			files, err := filepath.Glob(filepath.Join(dir, format, "*."+format))
			require.NoError(t, err)
			require.Len(t, files, 2, "a log a condition: E1 and H0\n%s", out)
			samples := 0
			for _, f := range files {
				n, err := logschema.InspectFile(f)
				require.NoError(t, err)
				samples += n
			}
			// E1's 4 episodes and H0's 2.
			require.Equal(t, 6, samples)
		})
	}
	t.Run("atif", func(t *testing.T) {
		out, err := run(t, cli, "--data-dir", env.DataDir, "export", "atif", spec.Name, "--out", filepath.Join(dir, "atif"))
		require.NoError(t, err, out)
		for cond, episodes := range map[string]int{"E1": 4, "H0": 2} {
			files, err := filepath.Glob(filepath.Join(dir, "atif", spec.RunID(cond), "*.json"))
			require.NoError(t, err)
			require.Len(t, files, episodes, cond)
			for _, f := range files {
				_, err := logschema.ATIFFile(f)
				require.NoError(t, err)
			}
		}
		require.Equal(t, fmt.Sprintf("wrote %s: 4 trajectories\nwrote %s: 2 trajectories\n",
			filepath.Join(dir, "atif", spec.RunID("E1")), filepath.Join(dir, "atif", spec.RunID("H0"))), out)
	})
	t.Run("a stage evaluation", func(t *testing.T) {
		// E1's first stage evaluated with memory frozen: a run of its own.
		stage := contract.StageEvalRunID(spec.RunID("E1"), 1)
		_, err := run(t, cli, "--data-dir", env.DataDir, "export", "inspect", stage, "--out", filepath.Join(dir, "stage"))
		require.NoError(t, err)
		files, err := filepath.Glob(filepath.Join(dir, "stage", "*.eval"))
		require.NoError(t, err)
		require.Len(t, files, 1)
		_, err = logschema.InspectFile(files[0])
		require.NoError(t, err)
	})
}
