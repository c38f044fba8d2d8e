package bench_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/settings"
)

// toy is the smallest benchmark: it only has to be registrable.
type toy struct{ name string }

func (b toy) Name() string { return b.name }
func (toy) Actions(settings.Settings) []clinic.ActionKind {
	return []clinic.ActionKind{clinic.Finalize}
}
func (toy) Validate(settings.Settings) error { return nil }
func (toy) ValidateCase(*clinic.Case) error  { return nil }
func (toy) Start(clinic.Case, settings.Settings, episode.Roles, []clinic.Event) (episode.Env, error) {
	return nil, nil
}
func (toy) Score(context.Context, bench.ScoreInput) (clinic.Scores, error) {
	return clinic.Scores{}, nil
}
func (toy) Metrics() []bench.Metric { return nil }

// other is another type under a name toy may take.
type other struct{ toy }

func TestRegistry(t *testing.T) {
	require.NoError(t, bench.Register(toy{"toy-a"}))
	require.NoError(t, bench.Register(toy{"toy-a"}), "registering the same benchmark again is a no-op")
	require.ErrorContains(t, bench.Register(other{toy{"toy-a"}}), `name "toy-a" is taken`)
	require.ErrorContains(t, bench.Register(toy{"Toy"}), "lower-case")
	require.ErrorContains(t, bench.Register(toy{""}), "non-empty")

	b, err := bench.Get("toy-a")
	require.NoError(t, err)
	require.Equal(t, "toy-a", b.Name())
	s := settings.Default()
	s.Profile = "nowhere"
	_, err = bench.Of(s)
	require.ErrorContains(t, err, `profile "nowhere" is not available, want one of`)
	require.ErrorContains(t, err, "toy-a")
	require.Contains(t, bench.Names(), "toy-a")
	require.Equal(t, "-", bench.Budgets(b, s), "a benchmark without budgets shows none")
}

// keyed is a benchmark with episode keys of its own.
type keyed struct{ toy }

type keyedEpisode struct {
	Tags  []string `json:"tags"`
	Limit int      `json:"limit"`
}

func (keyed) EpisodeDefaults() any { return keyedEpisode{Limit: 4} }

// TestEpisodeKeyOwnership checks the episode keys of a run: a key no
// benchmark has is unknown; another benchmark's key must keep that
// benchmark's default, where an empty list is the same as none (a
// configuration file writes "tags: []").
func TestEpisodeKeyOwnership(t *testing.T) {
	require.NoError(t, bench.Register(keyed{toy{"toy-keyed"}}))
	require.NoError(t, bench.Register(toy{"toy-plain"}))
	run := func(profile string, ext map[string]any) error {
		s := settings.Default()
		s.Profile, s.Episode.Ext = profile, ext
		return bench.ValidateSettings(s)
	}
	require.NoError(t, run("toy-keyed", map[string]any{"tags": []any{"a"}, "limit": 9}))
	for _, v := range []any{nil, []any{}} {
		require.NoError(t, run("toy-plain", map[string]any{"tags": v, "limit": 4}), "%v is tags' default", v)
	}
	require.ErrorContains(t, run("toy-plain", map[string]any{"tags": []any{"a"}}), "episode.tags is a setting of benchmark toy-keyed; this run's benchmark is toy-plain, which would ignore it")
	require.ErrorContains(t, run("toy-plain", map[string]any{"limit": 5}), "episode.limit is a setting of benchmark toy-keyed")
	require.ErrorContains(t, run("toy-plain", map[string]any{"limt": 5}), "episode.limt: unknown settings key (known: ")
}
