package klinike_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/klinike"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/memory/local"
	"github.com/clinevo/clinevo/runner"
)

// TestKlinikeLearning plays the 190 train tasks in order, without memory and
// with memory from empty (write-back: the cards carry the task's calls and
// must-ask topics): the built-in doctor passes no task without memory and
// gets better at every gate with it.
func TestKlinikeLearning(t *testing.T) {
	t.Parallel()
	tasks := klinike.Tasks(7)[klinike.SplitTrain]
	means := func(traces []clinic.Trace) map[string]float64 {
		m := map[string]float64{}
		for _, tr := range traces {
			for k, v := range tr.Scores.Metrics {
				m[k] += v / float64(len(traces))
			}
		}
		return m
	}
	run := func(t *testing.T, withMemory bool) (early, late map[string]float64) {
		d := runner.Deps{Bench: klinike.Benchmark{}, Roles: runner.BuiltinRoles(), Settings: klinikeSettings()}
		if withMemory {
			st, err := local.Open(context.Background(), filepath.Join(t.TempDir(), "memory.db"), memory.HashEmbedder{})
			require.NoError(t, err)
			t.Cleanup(func() { st.Close() })
			d.Memory = st
		}
		traces, _, err := runner.PlayStream(context.Background(), d, tasks, "klinike")
		require.NoError(t, err)
		n := len(traces) / 5
		return means(traces[:n]), means(traces[len(traces)-n:])
	}
	// The two streams are independent: they play side by side.
	var early0, late0, early1, late1 map[string]float64
	t.Run("streams", func(t *testing.T) {
		t.Run("without memory", func(t *testing.T) { t.Parallel(); early0, late0 = run(t, false) })
		t.Run("with memory", func(t *testing.T) { t.Parallel(); early1, late1 = run(t, true) })
	})
	if t.Failed() {
		return // a stream failed and said why
	}
	t.Logf("without memory: first fifth %v, last fifth %v", early0, late0)
	t.Logf("with memory:    first fifth %v, last fifth %v", early1, late1)
	require.Zero(t, late0["pass1"], "without memory the doctor names no diagnosis")
	for _, g := range []string{"pass1", "d", "w", "a", "h"} {
		require.Greater(t, late1[g], early1[g], "gate %s improves with memory", g)
		require.Greater(t, late1[g], late0[g], "gate %s: memory beats none", g)
	}
}
