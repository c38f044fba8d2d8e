package episode_test

import (
	"context"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/medevoeval"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus/synth"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/settings"
)

// unavailable walks every catalog test of every case of every split through the
// environment (REQUEST_TEST, budgets wide enough for all of them) and returns,
// for each test that answered anything but a result, the conditions where it did.
func unavailable(t *testing.T, splits map[string][]clinic.Case) map[string][]string {
	t.Helper()
	ctx := context.Background()
	seen := map[string]map[string]bool{}
	for _, split := range synth.Splits {
		for _, c := range splits[split] {
			cfg := settings.Default().Episode
			cfg.MaxTests, cfg.MaxTurns = len(c.Exam.Catalog), len(c.Exam.Catalog)+1
			e := episode.New(c, cfg, medevoeval.Rules(), episode.BuiltinRoles())
			for _, name := range c.Exam.Catalog {
				ev, err := e.Step(ctx, episode.StepInput{Output: clinic.DoctorOutput{Action: clinic.RequestTest, TestName: name}})
				require.NoError(t, err)
				if ev.Status != clinic.StatusReturned {
					require.Equal(t, clinic.StatusUnavailable, ev.Status, "%s %s: %s", c.ID, name, ev.Reply)
					if seen[name] == nil {
						seen[name] = map[string]bool{}
					}
					seen[name][c.Condition] = true
				}
			}
		}
	}
	out := map[string][]string{}
	for name, conds := range seen {
		for c := range conds {
			out[name] = append(out[name], c)
		}
		sort.Strings(out[name])
	}
	return out
}

// TestEveryCatalogTestAnswersEveryCase: in the built-in corpus (version 2)
// every test of the catalog returns a result for every case, so the set of
// conditions where a test is unavailable is empty for every test. Version 1
// is walked too, to show the walk finds what it looks for.
func TestEveryCatalogTestAnswersEveryCase(t *testing.T) {
	require.Empty(t, unavailable(t, synth.Generate(7)))

	v1, err := synth.GenerateVersion(synth.V1, 7)
	require.NoError(t, err)
	gaps := unavailable(t, v1)
	require.NotContains(t, gaps["d dimer"], "dvt")
	require.Len(t, gaps["d dimer"], len(synth.Conditions())-1, "version 1: D-dimer is unavailable for every condition but DVT")
}
