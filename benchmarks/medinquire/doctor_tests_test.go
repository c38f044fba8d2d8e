package medinquire_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/benchmarks/medinquire"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/settings"
)

// TestBuiltinDoctorOrdersTests plays the built-in doctor, with no memory,
// on the 100 imported DiagnosisArena cases of the sample under Med-Inquire's
// rules (no test list shown): it orders its first-line work-up in every case
// (issue 35: before, only memory named a test, and it ordered none), and
// the case's record answers at least one of its orders in most of them.
func TestBuiltinDoctorOrdersTests(t *testing.T) {
	f, err := os.Open("testdata/diagnosisarena-100.jsonl")
	require.NoError(t, err)
	defer f.Close()
	cases, _, err := medinquire.ImportArena(f, "diagnosisarena-100.jsonl", false)
	require.NoError(t, err)
	s := settings.Default()
	s.Benchmark, s.Episode.MDT = medinquire.Name, settings.MDTOff
	ctx := context.Background()
	ordered, answered := 0, 0
	for _, c := range cases {
		env, err := medinquire.Benchmark{}.Start(c, s, episode.BuiltinRoles(), nil)
		require.NoError(t, err)
		tests, returned := 0, 0
		for !env.Done() {
			d, err := actor.Builtin{}.Decide(ctx, env.View(nil, nil))
			require.NoError(t, err)
			ev, err := env.Step(ctx, episode.StepInput{Output: d.Output})
			require.NoError(t, err)
			if ev.Action == clinic.RequestTest && !ev.Free {
				tests++
				if ev.Status == clinic.StatusReturned {
					returned++
				}
			}
		}
		if tests > 0 {
			ordered++
		}
		if returned > 0 {
			answered++
		}
	}
	t.Logf("of %d cases: tests ordered in %d, a result returned in %d", len(cases), ordered, answered)
	require.Equal(t, len(cases), ordered)
	// Measured: 86 of 100. The others record their work-up under names the
	// first-line orders do not reach (only an ECG, an OCT, a named test).
	require.GreaterOrEqual(t, answered, 80)
}
